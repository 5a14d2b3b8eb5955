// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>

class QComboBox;
class QSpinBox;
class QCheckBox;
class QLabel;

namespace qs {

class ResponseColumn;

/// Side-by-side responses: pick a test, turn and iteration; one column per endpoint with the
/// response, TTFT (visible and any), tokens (with their source), tok/s and gate badges. Spans
/// from the gates' character ranges are highlighted (markdown, leaked thinking, tool call as
/// text, incoherent text, the expected answer) with a legend; reasoning is shown folded, apart
/// from the answer; tool calls as formatted calls; a Raw / Rendered toggle. Model output is
/// untrusted: shown through SafeTextView only.
class ResponsesView : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit ResponsesView(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    /// Selects a test, turn and iteration (measured runs); false when that cell does not exist.
    bool select(const QString& test, int turn, int iteration);
    /// Selects the first cell where the endpoints' gate verdicts differ most (used on open and by
    /// screenshots: the most telling comparison).
    void selectMostDifferent();
    QString currentTest() const;
    int currentTurn() const;
    int currentIteration() const;
    void setRendered(bool rendered); ///< false = raw text (markdown symbols as sent)
    bool rendered() const;

    int columnCount() const; ///< one per endpoint shown
    ResponseColumn* column(int index) const;
};

} // namespace qs

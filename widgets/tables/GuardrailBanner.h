// SPDX-License-Identifier: MIT
#pragma once

#include "model/evaluate/Guardrails.h"
#include "widgets/DashboardView.h"

#include <QWidget>

class QScrollArea;
class QVBoxLayout;
class QToolButton;
class QLabel;

namespace qs {

/// Methodology warnings (Evaluation::guardrails) in a banner above the dashboard: a coloured
/// line per warning (critical, warning, info), its title in words a reader understands, and —
/// expanded on click — the evidence and the advice. Hidden when there is nothing to say. The
/// headline counts them: "2 critical, 1 warning: this comparison may mislead". Every line is
/// wrapped, never cut: in a window the rows take at most two fifths of its height and scroll
/// beyond it; alone (a screenshot) the banner is as tall as its text (heightForWidth).
class GuardrailBanner : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit GuardrailBanner(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    int warningCount() const;
    void setExpanded(bool expanded); ///< every warning's evidence and advice shown
    bool isExpanded() const { return m_expanded; }
    QString headline() const; ///< e.g. "2 critical, 1 warning: this comparison may mislead"

private:
    void rebuild();
    std::vector<Guardrail> m_guardrails;
    Theme m_theme = Theme::Light;
    bool m_expanded = false;
    /// A run is in progress: the collapsed banner keeps the room of CollapsedRows rows from the
    /// start, so warnings arriving one by one never push the tabs down under the reader.
    bool m_live = false;
    void reserveRoom();
    QLabel* m_headline;
    QToolButton* m_toggle;
    QVBoxLayout* m_rows;
    QWidget* m_rowsHost; ///< holds the rows, inside m_area
    QScrollArea* m_area;
    QList<QWidget*> m_details; ///< evidence and advice labels, shown when expanded
    QList<QWidget*> m_rowWidgets; ///< one per warning; collapsed, only the first few are shown
    QLabel* m_more = nullptr; ///< "and 3 more…" when collapsed
    static constexpr int CollapsedRows = 3; ///< a banner, not a wall: the rest is a click away
};

} // namespace qs

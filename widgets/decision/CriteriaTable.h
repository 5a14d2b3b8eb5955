// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Recommendation.h"
#include "widgets/Theme.h"
#include "widgets/decision/DecisionText.h"

#include <QTableWidget>
#include <vector>

namespace qs {

/// Every criterion of a verdict, one row each: what it is, how it came out, what was measured
/// (with its interval), what it requires, and why. Its columns share the width it has — the
/// figures wrap rather than run off to the right — so at the dashboard's default size every
/// column is on screen and no text is cut; rows grow to their text.
class CriteriaTable : public QTableWidget {
    Q_OBJECT
public:
    /// The outcome comes right after the title, the measured figure next: what a reader scans for.
    enum Column { CriterionColumn, OutcomeColumn, MeasuredColumn, RequiredColumn, WhyColumn, ColumnCount };

    explicit CriteriaTable(QWidget* parent = nullptr);

    /// Shows `rec`'s criteria as `shown` (one per criterion) says; `live` words an open criterion
    /// for a run in progress. Fills in place, so a live refresh keeps the selection and scroll.
    void fill(const Recommendation* rec, const std::vector<ShownOutcome>& shown, bool live, Theme theme);

    /// Each column's share of the width, in Column order (sums to 1).
    static constexpr double columnShare[ColumnCount] = {0.22, 0.09, 0.27, 0.14, 0.28};

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();
};

} // namespace qs

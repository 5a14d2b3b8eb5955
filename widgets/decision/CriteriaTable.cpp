// SPDX-License-Identifier: MIT
#include "widgets/decision/CriteriaTable.h"

#include "widgets/ViewParts.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QHeaderView>
#include <QResizeEvent>
#include <algorithm>

namespace qs {

namespace {

QString criterionTip(const Criterion& c)
{
    QString tip = c.title + QStringLiteral(" (") + c.id + QStringLiteral(", ") + criterionKindId(c.kind);
    if (!c.test.isEmpty())
        tip += QStringLiteral(", test ") + c.test;
    tip += u')';
    if (!c.rationale.isEmpty())
        tip += QStringLiteral("\nWhy it matters: ") + c.rationale;
    return tip;
}

} // namespace

CriteriaTable::CriteriaTable(QWidget* parent)
    : QTableWidget(0, ColumnCount, parent)
{
    setObjectName(QStringLiteral("criteriaTable"));
    setHorizontalHeaderLabels({QStringLiteral("Criterion"), QStringLiteral("Outcome"),
        QStringLiteral("Measured"), QStringLiteral("Required"), QStringLiteral("Why")});
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setWordWrap(true);
    setTextElideMode(Qt::ElideNone);
    setShowGrid(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // the columns share the width
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    verticalHeader()->hide();
    verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    horizontalHeader()->setStretchLastSection(true);
}

void CriteriaTable::fill(
    const Recommendation* rec, const std::vector<ShownOutcome>& shown, bool live, Theme theme)
{
    const int rows = rec ? int(rec->criteria.size()) : 0;
    setRowCount(rows);
    for (int row = 0; row < rows; ++row) {
        const CriterionResult& r = rec->criteria[std::size_t(row)];
        const ShownOutcome outcomeShown = shown[std::size_t(row)];
        const QString why = outcomeShown == ShownOutcome::Open ? openExplanation(live) : r.explanation;
        const QString tip = plainToolTip(why);
        tableCell(this, row, CriterionColumn)->setText(r.criterion.title);
        tableCell(this, row, CriterionColumn)->setToolTip(plainToolTip(criterionTip(r.criterion)));
        tableCell(this, row, RequiredColumn)->setText(r.required);
        tableCell(this, row, MeasuredColumn)->setText(r.measured);
        tableCell(this, row, MeasuredColumn)->setToolTip(tip);
        QTableWidgetItem* outcome = tableCell(this, row, OutcomeColumn);
        outcome->setText(shownOutcomeText(outcomeShown));
        outcome->setData(Qt::UserRole, int(outcomeShown));
        outcome->setToolTip(tip);
        const OutcomeColors colors = outcomeColors(outcomeShown, theme);
        outcome->setBackground(colors.background);
        outcome->setForeground(colors.text);
        QFont font = this->font();
        font.setBold(outcomeShown == ShownOutcome::Pass || outcomeShown == ShownOutcome::Fail);
        outcome->setFont(font);
        tableCell(this, row, WhyColumn)->setText(why);
        tableCell(this, row, WhyColumn)->setToolTip(tip);
    }
}

void CriteriaTable::resizeEvent(QResizeEvent* event)
{
    QTableWidget::resizeEvent(event);
    fitColumns();
}

void CriteriaTable::fitColumns()
{
    const int width = viewport()->width();
    if (width <= 0)
        return;
    // The outcome never wraps: its column is at least as wide as "not measured".
    const int outcomeMin = fontMetrics().horizontalAdvance(QStringLiteral("not measured")) + 16;
    int used = 0;
    for (int c = 0; c < ColumnCount - 1; ++c) {
        int w = int(width * columnShare[c]);
        if (c == OutcomeColumn)
            w = std::max(w, outcomeMin);
        setColumnWidth(c, w);
        used += w;
    }
    setColumnWidth(WhyColumn, std::max(width - used, 40));
    resizeRowsToContents();
}

} // namespace qs

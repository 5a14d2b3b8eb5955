// SPDX-License-Identifier: MIT
#include "widgets/tables/StatisticsView.h"

#include "widgets/tables/CellStatisticsModel.h"
#include "widgets/tables/ComparisonModel.h"
#include "widgets/tables/FrozenTableView.h"
#include "widgets/tables/TableText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace qs {

namespace {

/// A table whose first `frozen` columns (what each row is: endpoint, metric, test, turn) stay in
/// place while its figures scroll sideways.
QTableView* makeTable(QSortFilterProxyModel* proxy, int sortRole, int frozen, QWidget* parent)
{
    auto* view = new FrozenTableView(parent);
    proxy->setSortRole(sortRole);
    proxy->setDynamicSortFilter(true);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // the model's own order until a header is clicked
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->setShowGrid(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setStretchLastSection(false);
    view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    view->setFrozenColumns(frozen);
    return view;
}

QLabel* makeTitle(QWidget* parent)
{
    auto* label = new QLabel(parent);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.1);
    label->setFont(font);
    return label;
}

/// Remembers the current row of a table by the model's row key and brings it back after the
/// model changed under it (a live run refreshes several times a second).
template <class Model> class SelectionKeeper {
public:
    SelectionKeeper(QTableView* view, QSortFilterProxyModel* proxy, Model* model)
        : m_view(view)
        , m_proxy(proxy)
        , m_model(model)
    {
        const QModelIndex current = view->currentIndex();
        if (current.isValid()) {
            m_key = model->rowKey(proxy->mapToSource(current).row());
            m_column = current.column();
        }
        m_scroll = view->verticalScrollBar()->value();
    }
    ~SelectionKeeper()
    {
        if (!m_key.isEmpty() && !m_view->currentIndex().isValid()) {
            const int row = m_model->rowForKey(m_key);
            if (row >= 0) {
                const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, m_column));
                m_view->selectionModel()->setCurrentIndex(
                    index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            }
        }
        m_view->verticalScrollBar()->setValue(m_scroll);
    }
    SelectionKeeper(const SelectionKeeper&) = delete;
    SelectionKeeper& operator=(const SelectionKeeper&) = delete;

private:
    QTableView* m_view;
    QSortFilterProxyModel* m_proxy;
    Model* m_model;
    QString m_key;
    int m_column = 0;
    int m_scroll = 0;
};

} // namespace

StatisticsView::StatisticsView(QWidget* parent)
    : QWidget(parent)
    , m_cells(new CellStatisticsModel(this))
    , m_comparison(new ComparisonModel(this))
    , m_cellProxy(new QSortFilterProxyModel(this))
    , m_comparisonProxy(new QSortFilterProxyModel(this))
{
    m_cellProxy->setSourceModel(m_cells);
    m_comparisonProxy->setSourceModel(m_comparison);
    m_comparisonProxy->setFilterRole(ComparisonModel::KindRole);

    // Top: the distributions of one metric.
    auto* top = new QWidget(this);
    m_cellTitle = makeTitle(top);
    m_metricBox = new QComboBox(top);
    m_metricBox->setObjectName(QStringLiteral("metricPicker"));
    for (Metric m : cellMetrics()) {
        m_metricBox->addItem(
            metricTitle(m) + QStringLiteral(" (") + metricUnit(m) + QLatin1Char(')'), metricId(m));
        m_metricBox->setItemData(m_metricBox->count() - 1, metricDescription(m), Qt::ToolTipRole);
    }
    m_metricBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* metricLabel = new QLabel(QStringLiteral("Metric:"), top);
    metricLabel->setBuddy(m_metricBox);
    m_cellStatus = new QLabel(top);
    m_cellStatus->setObjectName(QStringLiteral("cellStatus"));
    m_cellStatus->setWordWrap(true);
    m_cellTable = makeTable(m_cellProxy, CellStatisticsModel::SortRole, 3, top); // endpoint, test, turn
    m_cellTable->setObjectName(QStringLiteral("cellTable"));

    auto* topBar = new QHBoxLayout;
    topBar->addWidget(m_cellTitle, 1);
    topBar->addWidget(metricLabel);
    topBar->addWidget(m_metricBox);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 4);
    topLayout->addLayout(topBar);
    topLayout->addWidget(m_cellStatus);
    topLayout->addWidget(m_cellTable, 1);

    // Bottom: the paired comparison with the baseline.
    auto* bottom = new QWidget(this);
    m_comparisonTitle = makeTitle(bottom);
    m_comparisonTitle->setWordWrap(true);
    m_gatesBox = new QCheckBox(QStringLiteral("Quality gates"), bottom);
    m_gatesBox->setObjectName(QStringLiteral("gatesToggle"));
    m_gatesBox->setChecked(true);
    m_gatesBox->setToolTip(
        QStringLiteral("List the paired gate comparisons (McNemar, Newcombe interval) after "
                       "the metric rows."));
    auto* method
        = new QLabel(QStringLiteral("Pairs are the same test, turn and iteration on both arms. 95 % "
                                    "percentile-bootstrap intervals (10,000 resamples); a winner only "
                                    "when the interval excludes no difference."),
            bottom);
    method->setWordWrap(true);
    m_mutedLabels << method;
    m_comparisonStatus = new QLabel(bottom);
    m_comparisonStatus->setObjectName(QStringLiteral("comparisonStatus"));
    m_comparisonStatus->setWordWrap(true);
    m_comparisonTable
        = makeTable(m_comparisonProxy, ComparisonModel::SortRole, 4, bottom); // candidate, metric, test, turn
    // The verdict says who is better ("Candidate better", coloured) and each row names its
    // candidate: a Winner column repeating a label only pushed the table off the screen.
    m_comparisonTable->setColumnHidden(ComparisonModel::Winner, true);
    m_comparisonTable->setObjectName(QStringLiteral("comparisonTable"));

    auto* bottomBar = new QHBoxLayout;
    bottomBar->addWidget(m_comparisonTitle, 1);
    bottomBar->addWidget(m_gatesBox);
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 4, 0, 0);
    bottomLayout->addLayout(bottomBar);
    bottomLayout->addWidget(method);
    bottomLayout->addWidget(m_comparisonStatus);
    bottomLayout->addWidget(m_comparisonTable, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(bottom);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addWidget(splitter);

    connect(m_metricBox, &QComboBox::currentIndexChanged, this, [this] {
        if (const auto m = metricFromId(m_metricBox->currentData().toString())) {
            m_cells->setMetric(*m);
            updateFilter();
            updateLabels();
        }
    });
    connect(m_gatesBox, &QCheckBox::toggled, this, [this] { updateFilter(); });
    // Opens on what a listener waits for: the first visible token, not TTFT (any token), which
    // counts thinking and is the figure the warnings say not to compare.
    setMetric(Metric::TtftVisible);

    updateFilter();
    updateLabels();
    setTheme(Theme::Light);
}

QTableView* StatisticsView::cellTable() const
{
    return m_cellTable;
}

QTableView* StatisticsView::comparisonTable() const
{
    return m_comparisonTable;
}

void StatisticsView::setMetric(Metric metric)
{
    const int i = m_metricBox->findData(metricId(metric));
    if (i >= 0)
        m_metricBox->setCurrentIndex(i);
}

Metric StatisticsView::shownMetric() const
{
    return m_cells->metric();
}

void StatisticsView::setGatesShown(bool shown)
{
    m_gatesBox->setChecked(shown);
}

void StatisticsView::setData(const DashboardData& dashboard)
{
    m_data = dashboard;
    QStringList titles;
    if (dashboard.result)
        for (int e = 0; e < int(dashboard.result->endpoints.size()); ++e)
            titles << endpointTitle(*dashboard.result, e);
    {
        SelectionKeeper keep(m_cellTable, m_cellProxy, m_cells);
        m_cells->setCells(dashboard.isEmpty() ? nullptr : dashboard.evaluation, titles);
    }
    {
        SelectionKeeper keep(m_comparisonTable, m_comparisonProxy, m_comparison);
        m_comparison->setComparison(dashboard.isEmpty() ? nullptr : dashboard.evaluation, titles);
    }
    updateLabels();
}

void StatisticsView::updateFilter()
{
    SelectionKeeper keep(m_comparisonTable, m_comparisonProxy, m_comparison);
    const QString metric = QRegularExpression::escape(metricId(m_cells->metric()));
    m_comparisonProxy->setFilterRegularExpression(
        QRegularExpression(m_gatesBox->isChecked() ? QStringLiteral("^(") + metric + QStringLiteral("|gate)$")
                                                   : QStringLiteral("^") + metric + QStringLiteral("$")));
}

void StatisticsView::updateLabels()
{
    const Metric metric = m_cells->metric();
    m_cellTitle->setText(metricTitle(metric) + QStringLiteral(" per endpoint × test (") + metricUnit(metric)
        + QLatin1Char(')'));
    m_cellTitle->setToolTip(metricDescription(metric));

    const Evaluation* evaluation = m_data.isEmpty() ? nullptr : m_data.evaluation.get();
    QString cellStatus;
    if (m_data.isEmpty())
        cellStatus = QStringLiteral("No run loaded.");
    else if (!evaluation)
        cellStatus = QStringLiteral("Computing statistics…");
    else if (evaluation->cells.empty())
        cellStatus = QStringLiteral("No measured requests yet.");
    m_cellStatus->setText(cellStatus);
    m_cellStatus->setVisible(!cellStatus.isEmpty());

    QString title = QStringLiteral("Paired comparison with the baseline");
    QString status;
    const int endpoints = m_data.result ? int(m_data.result->endpoints.size()) : 0;
    if (m_data.isEmpty()) {
        status = QStringLiteral("No run loaded.");
    } else if (endpoints < 2) {
        status = QStringLiteral("A paired comparison needs at least two endpoints.");
    } else if (!evaluation || !evaluation->hasComparison) {
        status = QStringLiteral("Computing paired intervals…");
    } else {
        const auto& arms = evaluation->comparison.arms;
        if (arms.size() == 1)
            title = QStringLiteral("Paired comparison: ")
                + endpointTitle(*m_data.result, arms.front().candidate) + QStringLiteral(" vs baseline ")
                + endpointTitle(*m_data.result, arms.front().baseline);
        else if (!arms.empty())
            title = QStringLiteral("Paired comparison with the baseline, ")
                + endpointTitle(*m_data.result, evaluation->baseline);
        if (m_comparison->rowCount() == 0)
            status = QStringLiteral("No request was measured successfully on both arms yet.");
    }
    m_comparisonTitle->setText(title);
    m_comparisonStatus->setText(status);
    m_comparisonStatus->setVisible(!status.isEmpty());
    m_comparisonTable->setVisible(m_comparison->rowCount() > 0);
    m_gatesBox->setEnabled(m_comparison->rowCount() > 0);
    // The title names the arms when there is one candidate; several need the column.
    m_comparisonTable->setColumnHidden(
        ComparisonModel::Arms, !evaluation || evaluation->comparison.arms.size() <= 1);
}

void StatisticsView::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    m_comparison->setTheme(theme);
    for (QLabel* label : std::as_const(m_mutedLabels)) {
        QPalette p = label->palette();
        p.setColor(QPalette::WindowText, themeColors(theme).mutedText);
        label->setPalette(p);
    }
    for (QLabel* label : {m_cellStatus, m_comparisonStatus}) {
        QPalette p = label->palette();
        p.setColor(QPalette::WindowText, themeColors(theme).mutedText);
        label->setPalette(p);
    }
}

} // namespace qs

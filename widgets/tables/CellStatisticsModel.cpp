// SPDX-License-Identifier: MIT
#include "widgets/tables/CellStatisticsModel.h"

#include "widgets/tables/TableText.h"

namespace qs {

namespace {

QString keyOf(const CellStatistics& c)
{
    return QString::number(c.endpoint) + QLatin1Char('|') + c.test + QLatin1Char('|')
        + QString::number(c.turn);
}

QStringList keysOf(const Evaluation* evaluation)
{
    QStringList keys;
    if (evaluation)
        for (const CellStatistics& c : evaluation->cells)
            keys << keyOf(c);
    return keys;
}

} // namespace

CellStatisticsModel::CellStatisticsModel(QObject* parent)
    : EvaluationTableModel(ColumnCount, parent)
{
}

void CellStatisticsModel::setCells(std::shared_ptr<const Evaluation> evaluation, QStringList endpointTitles)
{
    const bool sameRows = keysOf(m_evaluation.get()) == keysOf(evaluation.get());
    replaceEvaluation(std::move(evaluation), std::move(endpointTitles), sameRows);
}

void CellStatisticsModel::setMetric(Metric metric)
{
    if (metric == m_metric)
        return;
    m_metric = metric;
    refreshAll();
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

const CellStatistics* CellStatisticsModel::cell(int row) const
{
    if (!m_evaluation || row < 0 || row >= int(m_evaluation->cells.size()))
        return nullptr;
    return &m_evaluation->cells[std::size_t(row)];
}

QString CellStatisticsModel::rowKey(int row) const
{
    const CellStatistics* c = cell(row);
    return c ? keyOf(*c) : QString();
}

int CellStatisticsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_evaluation ? 0 : int(m_evaluation->cells.size());
}

bool CellStatisticsModel::estimated(const CellStatistics& cell) const
{
    // decode_tps divides the completion count by the decode time, so it inherits the estimate.
    return cell.estimatedCompletionTokens > 0
        && (m_metric == Metric::CompletionTokens || m_metric == Metric::DecodeTps);
}

QVariant CellStatisticsModel::data(const QModelIndex& index, int role) const
{
    const CellStatistics* c = index.isValid() ? cell(index.row()) : nullptr;
    if (!c)
        return {};
    const int column = index.column();
    const auto it = c->metrics.find(metricId(m_metric));
    const Distribution* d = it == c->metrics.end() ? nullptr : &it->second;

    // The statistic of a column, when there is one.
    auto statistic = [&]() -> std::optional<double> {
        if (!d)
            return std::nullopt;
        switch (column) {
        case Mean:
            return d->mean;
        case Stdev:
            return d->stdev;
        case Min:
            return d->min;
        case P50:
            return d->p50;
        case P90:
            return d->p90;
        case P95:
            return d->p95;
        case P99:
            return d->p99;
        case Max:
            return d->max;
        default:
            return std::nullopt;
        }
    };

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Endpoint:
            return c->endpoint < m_titles.size() ? m_titles[c->endpoint] : c->endpointLabel;
        case Test:
            return c->test;
        case Turn:
            return c->turn > 0 ? QString::number(c->turn)
                               : (m_multiTurnTests.contains(c->test) ? QStringLiteral("all") : QString());
        case N:
            return d ? d->n : 0;
        case Ok:
            return c->ok;
        case Failed:
            return c->failed;
        default:
            if (const auto v = statistic()) {
                const QString text = formatMetricValue(*v, m_metric);
                return estimated(*c) ? QStringLiteral("≈ ") + text : text;
            }
            return QStringLiteral("—");
        }
    case SortRole:
        switch (column) {
        case Endpoint:
            return c->endpoint;
        case Test:
        case Turn:
        case N:
        case Ok:
        case Failed:
            return data(index, Qt::DisplayRole); // already the raw value
        default:
            if (const auto v = statistic())
                return *v;
            return {};
        }
    case Qt::TextAlignmentRole:
        return int(column <= Test ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (estimated(*c))
            return QStringLiteral("%1 of %2 completion token counts in this cell are estimates (the server "
                                  "sent no usage: token-bearing events were counted).")
                .arg(c->estimatedCompletionTokens)
                .arg(c->ok);
        if (column == Failed && c->failed > 0)
            return QStringLiteral("Failed requests are counted, never averaged in.");
        if (column == N && d && d->n < c->ok)
            return QStringLiteral("%1 of %2 successful requests have a value (e.g. no visible answer).")
                .arg(d->n)
                .arg(c->ok);
        return {};
    default:
        return {};
    }
}

QVariant CellStatisticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    const QString unit = metricUnit(m_metric);
    static const char* const names[] = {"Endpoint", "Test", "Turn", "n", "OK", "Failed", "Mean", "Stdev",
        "Min", "p50", "p90", "p95", "p99", "Max"};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        const QString name = QString::fromLatin1(names[section]);
        return section >= Mean ? name + QLatin1Char('\n') + unit : name;
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Turn:
            return QStringLiteral("Turn of a multi-turn test; \"all\" = every turn together.");
        case N:
            return QStringLiteral("Requests with a value for this metric.");
        case Ok:
            return QStringLiteral("Successful measured requests (warm-ups never count).");
        case Failed:
            return QStringLiteral("Failed measured requests: counted, never averaged in.");
        case Mean:
            return QStringLiteral("Σx / n, in %1.").arg(unit);
        case Stdev:
            return QStringLiteral("Sample standard deviation √(Σ(x − mean)² / (n − 1)); — for n = 1.");
        case P50:
            return QStringLiteral("Median: type-7 percentile (linear interpolation, numpy's default).");
        case P90:
        case P95:
        case P99:
            return QStringLiteral("Type-7 percentile (linear interpolation between closest ranks).");
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return int(section <= Test ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace qs

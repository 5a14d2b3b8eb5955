// SPDX-License-Identifier: MIT
#include "widgets/tables/ComparisonModel.h"

#include "widgets/tables/TableText.h"

#include <cmath>

namespace qs {

namespace {

QString interval(const QString& estimate, const std::optional<Interval>& ci, const auto& format)
{
    if (!ci)
        return estimate;
    return estimate + QStringLiteral(" [") + format(ci->lo) + QStringLiteral(", ") + format(ci->hi)
        + QLatin1Char(']');
}

QString ratioText(double r)
{
    // Three significant digits: intervals of 36 pairs are often narrower than 0.01.
    return QString::number(r, 'f', r >= 10 ? 1 : r >= 1 ? 2 : 3);
}

QString percent(double rate)
{
    return withMinusSign(QString::number(rate * 100, 'f', 0));
}

} // namespace

ComparisonModel::ComparisonModel(QObject* parent)
    : EvaluationTableModel(ColumnCount, parent)
{
}

std::vector<ComparisonModel::Row> ComparisonModel::rowsOf(const Evaluation* evaluation)
{
    std::vector<Row> rows;
    if (!evaluation || !evaluation->hasComparison)
        return rows;
    const auto& arms = evaluation->comparison.arms;
    for (int a = 0; a < int(arms.size()); ++a) {
        for (int i = 0; i < int(arms[std::size_t(a)].metrics.size()); ++i)
            rows.push_back({a, false, i});
    }
    // Gates after every metric, so that a filter by metric leaves one tidy block of gate rows.
    for (int a = 0; a < int(arms.size()); ++a)
        for (int i = 0; i < int(arms[std::size_t(a)].gates.size()); ++i)
            rows.push_back({a, true, i});
    return rows;
}

QString ComparisonModel::keyOf(const Evaluation& evaluation, const Row& row)
{
    const ArmComparison& a = evaluation.comparison.arms[std::size_t(row.arm)];
    const QString prefix = QString::number(a.candidate) + QLatin1Char('|');
    if (row.gate) {
        const GateComparison& g = a.gates[std::size_t(row.index)];
        return prefix + QStringLiteral("gate|") + g.gate + QLatin1Char('|') + g.test;
    }
    const MetricComparison& m = a.metrics[std::size_t(row.index)];
    return prefix + metricId(m.metric) + QLatin1Char('|') + m.test + QLatin1Char('|')
        + QString::number(m.turn);
}

void ComparisonModel::setComparison(std::shared_ptr<const Evaluation> evaluation, QStringList endpointTitles)
{
    std::vector<Row> rows = rowsOf(evaluation.get());
    bool sameRows = rows.size() == m_rows.size();
    for (std::size_t i = 0; sameRows && i < rows.size(); ++i)
        sameRows = keyOf(*evaluation, rows[i]) == keyOf(*m_evaluation, m_rows[i]);
    replaceEvaluation(
        std::move(evaluation), std::move(endpointTitles), sameRows, [&] { m_rows = std::move(rows); });
}

void ComparisonModel::setTheme(Theme theme)
{
    m_theme = theme;
    if (rowCount() > 0)
        Q_EMIT dataChanged(
            index(0, VerdictColumn), index(rowCount() - 1, VerdictColumn), {Qt::BackgroundRole});
}

int ComparisonModel::metricRowCount() const
{
    int n = 0;
    for (const Row& r : m_rows)
        n += r.gate ? 0 : 1;
    return n;
}

const MetricComparison* ComparisonModel::metricRow(int row) const
{
    if (row < 0 || row >= rowCount() || m_rows[std::size_t(row)].gate)
        return nullptr;
    const Row& r = m_rows[std::size_t(row)];
    return &arm(r).metrics[std::size_t(r.index)];
}

const GateComparison* ComparisonModel::gateRow(int row) const
{
    if (row < 0 || row >= rowCount() || !m_rows[std::size_t(row)].gate)
        return nullptr;
    const Row& r = m_rows[std::size_t(row)];
    return &arm(r).gates[std::size_t(r.index)];
}

QString ComparisonModel::rowKey(int row) const
{
    return row < 0 || row >= rowCount() ? QString() : keyOf(*m_evaluation, m_rows[std::size_t(row)]);
}

int ComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

const ArmComparison& ComparisonModel::arm(const Row& row) const
{
    return m_evaluation->comparison.arms[std::size_t(row.arm)];
}

QString ComparisonModel::title(int endpoint) const
{
    return endpoint >= 0 && endpoint < m_titles.size() ? m_titles[endpoint]
                                                       : QStringLiteral("endpoint %1").arg(endpoint);
}

QVariant ComparisonModel::verdictBackground(Verdict verdict) const
{
    const ThemeColors& c = themeColors(m_theme);
    switch (verdict) {
    case Verdict::CandidateBetter:
        return c.passBackground;
    case Verdict::BaselineBetter:
        return c.failBackground;
    default:
        return c.notApplicable;
    }
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || !m_evaluation)
        return {};
    const Row& row = m_rows[std::size_t(index.row())];
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return int(column >= Pairs && column <= PValue ? Qt::AlignRight | Qt::AlignVCenter
                                                       : Qt::AlignLeft | Qt::AlignVCenter);
    if (role == KindRole)
        return row.gate ? QStringLiteral("gate") : metricId(arm(row).metrics[std::size_t(row.index)].metric);
    if (role == Qt::ForegroundRole && column == VerdictColumn)
        return themeColors(m_theme).text; // readable on the verdict's background in both themes
    if (column == Arms) {
        const ArmComparison& a = arm(row);
        // The baseline is the view's title: repeated on every row, "X vs Y" only hid the candidate.
        if (role == Qt::DisplayRole)
            return title(a.candidate);
        if (role == Qt::ToolTipRole)
            return QString(title(a.candidate) + QStringLiteral(" vs the baseline ") + title(a.baseline));
        if (role == SortRole)
            return row.arm;
    }
    return row.gate ? gateData(row, column, role) : metricData(row, column, role);
}

QVariant ComparisonModel::metricData(const Row& row, int column, int role) const
{
    const MetricComparison& m = arm(row).metrics[std::size_t(row.index)];
    auto value = [&](double v) { return formatMetricValue(v, m.metric); };
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Measure:
            return metricTitle(m.metric);
        case Test:
            return m.test.isEmpty() ? QStringLiteral("all tests") : m.test;
        case Turn:
            return m.turn > 0 ? QString::number(m.turn)
                              : (m_multiTurnTests.contains(m.test) ? QStringLiteral("all") : QString());
        case Pairs:
            return m.pairs;
        case Baseline:
            return formatMetricWithUnit(m.baselineMedian, m.metric);
        case Candidate:
            return formatMetricWithUnit(m.candidateMedian, m.metric);
        case Ratio:
            return m.ratio ? interval(ratioText(*m.ratio) + QStringLiteral("×"), m.ratioCi, ratioText)
                           : QStringLiteral("—");
        case Difference:
            return interval(formatMetricWithUnit(m.medianDifference, m.metric), m.differenceCi, value);
        case PValue:
            return m.wilcoxon.n > 0 ? formatPValue(m.wilcoxon.p) : QStringLiteral("—");
        case VerdictColumn:
            return verdictText(m.verdict);
        case Winner:
            return m.winner >= 0 ? title(m.winner) : QStringLiteral("—");
        default:
            return {};
        }
    case SortRole:
        switch (column) {
        case Turn:
            return m.turn;
        case Pairs:
            return m.pairs;
        case Baseline:
            return m.baselineMedian;
        case Candidate:
            return m.candidateMedian;
        case Ratio:
            return m.ratio ? QVariant(*m.ratio) : QVariant();
        case Difference:
            return m.medianDifference;
        case PValue:
            return m.wilcoxon.p;
        case VerdictColumn:
            return int(m.verdict);
        case Winner:
            return m.winner;
        default:
            return metricData(row, column, Qt::DisplayRole);
        }
    case Qt::ToolTipRole: {
        QString tip = m.sentence;
        if (column == Ratio && m.ratio)
            tip += m.ratioIsMedianOfPairedRatios
                ? QStringLiteral(
                    "\n\nMedian of the paired ratios candidateᵢ / baselineᵢ (this row pools cells).")
                : QStringLiteral("\n\nRatio of medians, candidate / baseline.");
        if (column == PValue && m.wilcoxon.n > 0)
            tip += QStringLiteral("\n\nWilcoxon signed-rank, two-sided, %1: %2 non-zero differences (%3 zero "
                                  "dropped), rank-biserial r = %4.")
                       .arg(m.wilcoxon.exact ? QStringLiteral("exact")
                                             : QStringLiteral("normal approximation"))
                       .arg(m.wilcoxon.n)
                       .arg(m.wilcoxon.zeros)
                       .arg(withMinusSign(QString::number(m.wilcoxon.rankBiserial, 'f', 2)));
        return tip;
    }
    case Qt::BackgroundRole:
        return column == VerdictColumn ? verdictBackground(m.verdict) : QVariant();
    default:
        return {};
    }
}

QVariant ComparisonModel::gateData(const Row& row, int column, int role) const
{
    const GateComparison& g = arm(row).gates[std::size_t(row.index)];
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Measure:
            return QString(QStringLiteral("Gate: ") + gateTitle(g.gate));
        case Test:
            return g.test.isEmpty() ? QStringLiteral("all tests") : g.test;
        case Pairs:
            return g.pairs;
        case Baseline:
            return QString(percent(g.baselineRate) + QStringLiteral(" % pass"));
        case Candidate:
            return QString(percent(g.candidateRate) + QStringLiteral(" % pass"));
        case Ratio:
            return QStringLiteral("—");
        case Difference:
            return interval(percent(g.difference) + QStringLiteral(" pp"), g.differenceCi, percent);
        case PValue:
            return formatPValue(g.mcnemarP);
        case VerdictColumn:
            return verdictText(g.verdict);
        case Winner:
            return g.winner >= 0 ? title(g.winner) : QStringLiteral("—");
        default:
            return QString();
        }
    case SortRole:
        switch (column) {
        case Turn:
            return 0;
        case Pairs:
            return g.pairs;
        case Baseline:
            return g.baselineRate;
        case Candidate:
            return g.candidateRate;
        case Difference:
            return g.difference;
        case PValue:
            return g.mcnemarP;
        case VerdictColumn:
            return int(g.verdict);
        case Winner:
            return g.winner;
        case Ratio:
            return {};
        default:
            return gateData(row, column, Qt::DisplayRole);
        }
    case Qt::ToolTipRole: {
        QString tip = g.sentence;
        if (column == PValue)
            tip += QStringLiteral(
                "\n\nMcNemar exact test on the %1 discordant pairs (baseline only passed: %2, "
                "candidate only: %3).")
                       .arg(g.baselineOnly + g.candidateOnly)
                       .arg(g.baselineOnly)
                       .arg(g.candidateOnly);
        if (column == Difference)
            tip += QStringLiteral("\n\nCandidate − baseline pass rate, in percentage points, with Newcombe's "
                                  "95 % interval for paired proportions.");
        return tip;
    }
    case Qt::BackgroundRole:
        return column == VerdictColumn ? verdictBackground(g.verdict) : QVariant();
    default:
        return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        static const char* const names[]
            = {"Candidate", "Metric / gate", "Test", "Turn", "Pairs", "Baseline\nmedian", "Candidate\nmedian",
                "Ratio\n[95 % CI]", "Median difference\n[95 % CI]", "p", "Verdict", "Winner"};
        return QString::fromUtf8(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Pairs:
            return QStringLiteral(
                "The same test, turn and iteration measured on both arms, both successful.");
        case Baseline:
        case Candidate:
            return QStringLiteral("Median of the arm's paired values (pass rate for a gate).");
        case Ratio:
            return QStringLiteral("Candidate / baseline with its 95 % percentile-bootstrap interval (10,000 "
                                  "resamples within each test × turn stratum).");
        case Difference:
            return QStringLiteral(
                "Median of candidateᵢ − baselineᵢ with its 95 % bootstrap interval; for a gate, "
                "the pass-rate difference with Newcombe's interval.");
        case PValue:
            return QStringLiteral(
                "Wilcoxon signed-rank (metrics) or McNemar exact (gates), two-sided. Reported "
                "beside the verdict, never instead of it.");
        case VerdictColumn:
            return QStringLiteral(
                "A winner is named only when the interval excludes no difference (1 for the "
                "ratio, 0 for the difference); fewer than 5 pairs: too few pairs.");
        default:
            return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return int(section >= Pairs && section <= PValue ? Qt::AlignRight | Qt::AlignVCenter
                                                         : Qt::AlignLeft | Qt::AlignVCenter);
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace qs

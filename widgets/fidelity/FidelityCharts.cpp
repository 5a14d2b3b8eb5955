// SPDX-License-Identifier: MIT
#include "widgets/fidelity/FidelityCharts.h"

#include "widgets/fidelity/FidelityText.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

const char* const endpointProperty = "qsEndpoint";
const char* const whiskerProperty = "qsWhisker";

/// The fidelity to plot, or null when nothing was measured (the subtitle says so).
const Fidelity* measuredFidelity(const DashboardData& data)
{
    if (data.isEmpty() || !data.evaluation || !data.evaluation->fidelity.measured())
        return nullptr;
    return &data.evaluation->fidelity;
}

QString emptyMessage(const DashboardData& data)
{
    if (data.isEmpty())
        return QStringLiteral("No data yet: start a run or open a results file.");
    if (!data.evaluation)
        return QStringLiteral("Evaluating…");
    return QStringLiteral("No fidelity measured in this run.");
}

void showBarTip(bool status, int index, QBarSet* set, QWidget* view)
{
    if (status && set)
        QToolTip::showText(
            QCursor::pos(), set->property("qsToolTip").toString().section(u'\x1f', index, index), view);
    else
        QToolTip::hideText();
}

/// A vertical interval whisker with short caps at category `x`, hidden from the legend.
void addWhisker(
    QChart* chart, QBarCategoryAxis* x, QValueAxis* y, int endpoint, double at, const Interval& ci)
{
    auto* line = new QLineSeries;
    line->setProperty(endpointProperty, endpoint);
    line->setProperty(whiskerProperty, true);
    constexpr double cap = 0.08;
    *line << QPointF(at - cap, ci.lo) << QPointF(at + cap, ci.lo) << QPointF(at, ci.lo) << QPointF(at, ci.hi)
          << QPointF(at - cap, ci.hi) << QPointF(at + cap, ci.hi);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    for (QLegendMarker* marker : chart->legend()->markers(line))
        marker->setVisible(false);
}

} // namespace

FidelityArmChart::FidelityArmChart(Measure measure, QWidget* parent)
    : ChartPanel(parent)
    , m_measure(measure)
    , m_x(new QBarCategoryAxis)
    , m_y(new QValueAxis)
{
    const bool kl = measure == Measure::KlMean;
    setObjectName(kl ? QStringLiteral("klChart") : QStringLiteral("flipChart"));
    setTitle(kl ? QStringLiteral("Mean KL divergence from the reference") : QStringLiteral("Flip rate"));
    setDefinition(kl ? QStringLiteral(
                      "KL(reference ‖ arm) per token position over the union of both top-k lists, with "
                      "the lists' tail mass as one extra bucket (docs/methodology.md, \"Fidelity\"), "
                      "averaged over every position both arms saw with the same context (the shared "
                      "prefix and the first divergence). Whisker: bootstrap 95 % interval over prompts.")
                     : QStringLiteral("The share of fidelity prompts whose greedy answer differs from the "
                                      "reference's in any token (1 − identical / prompts). Whisker: exact "
                                      "Clopper–Pearson 95 % interval."));
    m_y->setTitleText(kl ? QStringLiteral("nats") : QStringLiteral("%"));
    // The legend names the arms in their colours, as in the histogram beside it; long endpoint
    // names under narrow bars would be dropped by the axis anyway.
    m_x->setLabelsVisible(false);
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);
    rebuild();
}

void FidelityArmChart::setData(const DashboardData& next)
{
    m_data = next;
    rebuild();
}

void FidelityArmChart::rebuild()
{
    m_values.clear();
    const Fidelity* fidelity = measuredFidelity(m_data);
    if (!fidelity) {
        showMessage(emptyMessage(m_data));
        return;
    }
    const bool kl = m_measure == Measure::KlMean;
    const int n = int(fidelity->arms.size());
    QStringList categories;
    QStringList notComparable;
    double top = 0;
    for (const FidelityArm& arm : fidelity->arms) {
        categories << fidelityArmTitle(m_data, arm);
        std::optional<double> v;
        if (kl && arm.klMean && std::isfinite(*arm.klMean))
            v = *arm.klMean;
        else if (!kl && !arm.prompts.empty() && std::isfinite(arm.flipRate))
            v = 100 * arm.flipRate;
        if (kl && !v)
            notComparable << categories.back();
        m_values.push_back(v);
        const std::optional<Interval>& ci = kl ? arm.klCi : arm.flipRateCi;
        const double scale = kl ? 1 : 100;
        if (v)
            top = std::max(top, *v);
        if (v && ci && std::isfinite(ci->hi))
            top = std::max(top, ci->hi * scale);
    }

    chart()->removeAllSeries();
    showPlot();
    // One set per arm, non-zero only at its own category: each bar keeps its arm's colour.
    auto* series = new QStackedBarSeries;
    series->setBarWidth(0.55);
    for (int i = 0; i < n; ++i) {
        const FidelityArm& arm = fidelity->arms[std::size_t(i)];
        auto* set = new QBarSet(categories[i]);
        set->setProperty(endpointProperty, arm.endpoint);
        QStringList tips;
        for (int j = 0; j < n; ++j) {
            set->append(j == i && m_values[std::size_t(i)] ? *m_values[std::size_t(i)] : 0.0);
            tips << (j == i ? categories[i] + u'\n' + (kl ? klMeanText(arm) : flipRateText(arm)) : QString());
        }
        set->setProperty("qsToolTip", tips.join(u'\x1f'));
        series->append(set);
        connect(set, &QBarSet::hovered, this,
            [this, set](bool status, int index) { showBarTip(status, index, set, chartView()); });
    }
    chart()->addSeries(series);
    m_x->setCategories(categories);
    series->attachAxis(m_x);
    series->attachAxis(m_y);
    for (int i = 0; i < n; ++i) {
        const FidelityArm& arm = fidelity->arms[std::size_t(i)];
        const std::optional<Interval>& ci = kl ? arm.klCi : arm.flipRateCi;
        const double scale = kl ? 1 : 100;
        if (m_values[std::size_t(i)] && ci && std::isfinite(ci->lo) && std::isfinite(ci->hi))
            addWhisker(chart(), m_x, m_y, arm.endpoint, i, Interval {ci->lo * scale, ci->hi * scale});
    }
    setNiceRange(m_y, top * 1.05);

    QString subtitle = kl
        ? QStringLiteral("Mean KL per token against %1, nats: lower is closer; whisker = 95 % CI.")
        : QStringLiteral("Answers not identical to %1's, % of prompts; whisker = 95 % CI.");
    subtitle = subtitle.arg(fidelity->referenceLabel);
    if (!notComparable.isEmpty())
        subtitle += QStringLiteral(" Not comparable (no bar): ") + notComparable.join(QStringLiteral(", "))
            + QStringLiteral(".");
    setSubtitle(subtitle);
    applyTheme();
}

void FidelityArmChart::applyTheme()
{
    for (QAbstractSeries* s : chart()->series()) {
        if (auto* bars = qobject_cast<QStackedBarSeries*>(s)) {
            for (QBarSet* set : bars->barSets()) {
                const QColor color = endpointColor(set->property(endpointProperty).toInt(), theme());
                set->setColor(color);
                set->setBorderColor(color);
            }
        } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
            const QColor color = endpointColor(line->property(endpointProperty).toInt(), theme());
            line->setPen(QPen(theme() == Theme::Dark ? color.lighter(150) : color.darker(160), 2));
        }
    }
    ChartPanel::applyTheme();
}

DivergenceChart::DivergenceChart(QWidget* parent)
    : ChartPanel(parent)
    , m_x(new QBarCategoryAxis)
    , m_y(new QValueAxis)
{
    setObjectName(QStringLiteral("divergenceChart"));
    setTitle(QStringLiteral("Where answers first diverge"));
    setDefinition(QStringLiteral(
        "For every prompt whose answer differs from the reference's: the index (0-based, in the "
        "reference's tokens) of the first token that differs, in doubling buckets. Early divergences "
        "change most of the answer; late ones are often a near-tie at the end. Identical answers are not "
        "counted. Where tokenizers differ the divergence is found by characters."));
    m_x->setTitleText(QStringLiteral("token index of the first divergence"));
    m_y->setTitleText(QStringLiteral("prompts"));
    chart()->addAxis(m_x, Qt::AlignBottom);
    chart()->addAxis(m_y, Qt::AlignLeft);
    rebuild();
}

void DivergenceChart::setData(const DashboardData& next)
{
    m_data = next;
    rebuild();
}

void DivergenceChart::rebuild()
{
    m_counts.clear();
    const Fidelity* fidelity = measuredFidelity(m_data);
    if (!fidelity) {
        showMessage(emptyMessage(m_data));
        return;
    }
    const QStringList& buckets = divergenceBuckets();
    int top = 0;
    int diverged = 0;
    for (const FidelityArm& arm : fidelity->arms) {
        std::vector<int> counts(std::size_t(buckets.size()), 0);
        for (const FidelityPrompt& p : arm.prompts)
            if (p.firstDivergence) {
                ++counts[std::size_t(divergenceBucket(*p.firstDivergence))];
                ++diverged;
            }
        top = std::max(top, *std::max_element(counts.begin(), counts.end()));
        m_counts.push_back(std::move(counts));
    }
    if (diverged == 0) {
        showMessage(QStringLiteral("Every answer is identical to the reference's, token for token: nothing "
                                   "diverged."));
        return;
    }

    chart()->removeAllSeries();
    showPlot();
    auto* series = new QBarSeries;
    for (std::size_t a = 0; a < fidelity->arms.size(); ++a) {
        const FidelityArm& arm = fidelity->arms[a];
        auto* set = new QBarSet(fidelityArmTitle(m_data, arm));
        set->setProperty(endpointProperty, arm.endpoint);
        QStringList tips;
        for (int b = 0; b < int(buckets.size()); ++b) {
            const int count = m_counts[a][std::size_t(b)];
            set->append(count);
            tips << QStringLiteral("%1\nfirst divergence at token %2: %3 of %4 prompts")
                        .arg(set->label(), buckets[b])
                        .arg(count)
                        .arg(arm.prompts.size());
        }
        set->setProperty("qsToolTip", tips.join(u'\x1f'));
        series->append(set);
        connect(set, &QBarSet::hovered, this,
            [this, set](bool status, int index) { showBarTip(status, index, set, chartView()); });
    }
    chart()->addSeries(series);
    m_x->setCategories(buckets);
    series->attachAxis(m_x);
    series->attachAxis(m_y);
    setNiceRange(m_y, std::max(top, 5)); // whole-number ticks for small counts
    setSubtitle(QStringLiteral("Prompts per bucket of the first differing token's index (%1 diverged of the "
                               "compared prompts); identical answers are not counted.")
                    .arg(diverged));
    applyTheme();
}

void DivergenceChart::applyTheme()
{
    for (QAbstractSeries* s : chart()->series())
        if (auto* bars = qobject_cast<QBarSeries*>(s))
            for (QBarSet* set : bars->barSets()) {
                const QColor color = endpointColor(set->property(endpointProperty).toInt(), theme());
                set->setColor(color);
                set->setBorderColor(color);
            }
    ChartPanel::applyTheme();
}

} // namespace qs

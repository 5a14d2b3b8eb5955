// SPDX-License-Identifier: MIT
#include "app/common/DashboardViews.h"

#include "widgets/charts/LatencyLengthChart.h"
#include "widgets/charts/LiveThroughputChart.h"
#include "widgets/charts/MetricByTestChart.h"
#include "widgets/charts/PromptScalingChart.h"
#include "widgets/charts/ServerCharts.h"
#include "widgets/charts/TtftTurnChart.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/fidelity/FidelityView.h"
#include "widgets/responses/AnswerGrid.h"
#include "widgets/responses/ResponsesView.h"
#include "widgets/tables/GuardrailBanner.h"
#include "widgets/tables/QualityMatrixView.h"
#include "widgets/tables/StatisticsView.h"

namespace qs::app {

const std::vector<ViewInfo>& dashboardViews()
{
    static const std::vector<ViewInfo> views {
        {QStringLiteral("window"), QStringLiteral("Whole window"), QSize(1920, 1080),
            QStringLiteral("the dashboard as it opens on the file: panels, warnings and the first tab")},
        {QStringLiteral("endpoints"), QStringLiteral("Endpoints panel"), QSize(640, 440),
            QStringLiteral("the endpoints compared, with what the probe found")},
        {QStringLiteral("run"), QStringLiteral("Run panel"), QSize(640, 560),
            QStringLiteral("the suite and settings of the run, and what they mean")},
        {QStringLiteral("guardrails"), QStringLiteral("Methodology warnings"), QSize(1000, 420),
            QStringLiteral("every way this comparison could mislead, with the evidence and what to do")},
        {QStringLiteral("ttft-turn"), QStringLiteral("TTFT vs turn"), QSize(960, 600),
            QStringLiteral("time to first token at each turn of the multi-turn tests")},
        {QStringLiteral("decode-tps"), QStringLiteral("Decode tok/s per test"), QSize(960, 600),
            QStringLiteral("decode rate per test and endpoint, box plots")},
        {QStringLiteral("ttft-test"), QStringLiteral("TTFT per test"), QSize(960, 600),
            QStringLiteral("time to first visible token per test and endpoint, box plots")},
        {QStringLiteral("live-tps"), QStringLiteral("Tokens/s over the run"), QSize(960, 600),
            QStringLiteral("tokens per second over the run's time, per endpoint")},
        {QStringLiteral("latency-length"), QStringLiteral("Latency vs response length"), QSize(960, 600),
            QStringLiteral("total latency against completion tokens, one point per request")},
        {QStringLiteral("ttft-prompt-tokens"), QStringLiteral("TTFT vs prompt tokens"), QSize(960, 600),
            QStringLiteral("prefill: time to first token against uncached prompt tokens")},
        {QStringLiteral("server"), QStringLiteral("Server: requests, KV cache, memory, power"),
            QSize(960, 760),
            QStringLiteral("what each server reported while it answered (its /metrics, exporters)")},
        {QStringLiteral("answers"), QStringLiteral("Answers: every test × endpoint"), QSize(1200, 900),
            QStringLiteral(
                "every test's answers per endpoint, the gates' verdicts in words, one conversation")},
        {QStringLiteral("responses"), QStringLiteral("Side-by-side responses"), QSize(1200, 760),
            QStringLiteral("one prompt's answers side by side, gate failures highlighted")},
        {QStringLiteral("quality"), QStringLiteral("Quality matrix"), QSize(900, 480),
            QStringLiteral("each quality gate's pass rate per test and endpoint")},
        {QStringLiteral("statistics"), QStringLiteral("Statistics and paired comparison"), QSize(1280, 800),
            QStringLiteral("medians, percentiles and the paired comparison with intervals")},
        {QStringLiteral("fidelity"),
            QStringLiteral("Fidelity: each arm's next-token drift from the reference"), QSize(1400, 900),
            QStringLiteral("flip rate and KL of each arm's next tokens against the reference")},
        {QStringLiteral("decision"), QStringLiteral("Decision: the profile's criteria and the verdict"),
            QSize(1100, 700),
            QStringLiteral("the decision profile's criteria, measured and required, and the verdict")},
        {QStringLiteral("campaign"),
            QStringLiteral(
                "Campaign: every attempt against one baseline (the files given, in the order they ran)"),
            QSize(1600, 1000),
            QStringLiteral(
                "every attempt in the files given against one baseline, in time order (--profile)")},
    };
    return views;
}

const ViewInfo* findView(const QString& name)
{
    for (const ViewInfo& v : dashboardViews())
        if (v.name == name)
            return &v;
    return nullptr;
}

std::unique_ptr<QWidget> createDataView(const QString& name, const DashboardData& data, Theme theme)
{
    std::unique_ptr<QWidget> widget;
    DashboardView* view = nullptr;
    const auto make = [&](auto* w) {
        widget.reset(w);
        view = w;
        return w;
    };
    if (name == u"ttft-turn")
        make(new TtftTurnChart)->setControlsVisible(false);
    else if (name == u"decode-tps")
        make(new MetricByTestChart(Metric::DecodeTps))->setControlsVisible(false);
    else if (name == u"ttft-test")
        make(new MetricByTestChart(Metric::TtftVisible))->setControlsVisible(false);
    else if (name == u"live-tps")
        make(new LiveThroughputChart)->setControlsVisible(false);
    else if (name == u"latency-length")
        make(new LatencyLengthChart)->setControlsVisible(false);
    else if (name == u"ttft-prompt-tokens")
        make(new PromptScalingChart)->setControlsVisible(false);
    else if (name == u"server")
        make(new ServerCharts)->setControlsVisible(false);
    else if (name == u"answers")
        make(new AnswerGrid);
    else if (name == u"responses")
        make(new ResponsesView);
    else if (name == u"quality")
        make(new QualityMatrixView);
    else if (name == u"statistics")
        make(new StatisticsView);
    else if (name == u"fidelity")
        make(new FidelityView);
    else if (name == u"decision")
        make(new DecisionView);
    else if (name == u"guardrails") {
        make(new GuardrailBanner)->setExpanded(true);
    }
    if (!view)
        return nullptr;
    widget->setPalette(themePalette(theme));
    widget->setAutoFillBackground(true);
    view->setTheme(theme);
    view->setData(data);
    if (auto* responses = qobject_cast<ResponsesView*>(widget.get()))
        responses->selectMostDifferent();
    // The picture shows a whole conversation when there is one the endpoints answered differently.
    if (auto* answers = qobject_cast<AnswerGrid*>(widget.get()))
        for (const AnswerRow& row : answers->rows())
            if (row.turns > 1 && row.differs() && answers->selectTest(row.test))
                break;
    return widget;
}

} // namespace qs::app

// SPDX-License-Identifier: MIT
// Did the baseline move between two attempts? Its arm in each file, paired by prompt across the
// files (as `report` pairs two files), compared on latency, speed, gates and answers, with facts.
#include "model/decide/Campaign.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/MetricText.h"
#include "model/evaluate/PairedComparison.h"

#include <QFileInfo>
#include <map>

namespace qs {

namespace {

/// `result` with only endpoint `b` and its records: what combineResults pairs across files.
RunResult baselineOnly(const RunResult& result, int b)
{
    RunResult only;
    only.toolVersion = result.toolVersion;
    only.startedAt = result.startedAt;
    only.endedAt = result.endedAt;
    only.suite = result.suite;
    only.settings = result.settings;
    only.complete = result.complete;
    only.endpoints.push_back(result.endpoints.at(std::size_t(b)));
    for (const RunRecord& r : result.records) {
        if (r.endpoint != b)
            continue;
        RunRecord copy = r;
        copy.endpoint = 0;
        only.records.push_back(copy);
    }
    return only;
}

bool outsideBand(const Interval& ratio)
{
    return ratio.lo > 1 + DriftTolerance || ratio.hi < 1 / (1 + DriftTolerance);
}

bool inside(const Interval& ratio)
{
    return ratio.lo >= 1 / (1 + DriftTolerance) && ratio.hi <= 1 + DriftTolerance;
}

QString range(const Interval& i, int decimals = 2)
{
    return QStringLiteral("[%1–%2]").arg(i.lo, 0, 'f', decimals).arg(i.hi, 0, 'f', decimals);
}

/// Each distinct prompt's first measured answer (every turn, in order), by test id.
std::map<QString, QString> firstAnswers(const RunResult& result, int endpoint)
{
    std::map<std::pair<QString, int>, std::pair<int, QString>> turns; // (test, turn) → (iteration, text)
    for (const RunRecord& r : result.records) {
        if (r.endpoint != endpoint || r.warmup || !r.request.ok())
            continue;
        auto [it, fresh] = turns.try_emplace({r.test, r.turn}, r.iteration, r.request.response.content);
        if (!fresh && r.iteration < it->second.first)
            it->second = {r.iteration, r.request.response.content};
    }
    std::map<QString, QString> answers;
    for (const auto& [key, value] : turns)
        answers[key.first] += value.second + QChar(0x1e);
    return answers;
}

} // namespace

std::vector<CampaignDrift> baselineDrift(const Campaign& campaign, int from, int to)
{
    std::vector<CampaignDrift> rows;
    const RunResult& a = campaign.files.at(std::size_t(from)).result;
    const RunResult& b = campaign.files.at(std::size_t(to)).result;
    const int ba = campaign.baselineOf.at(std::size_t(from));
    const int bb = campaign.baselineOf.at(std::size_t(to));
    const RunEndpoint& ea = a.endpoints.at(std::size_t(ba));
    const RunEndpoint& eb = b.endpoints.at(std::size_t(bb));
    const QString fromName = QFileInfo(campaign.files[std::size_t(from)].path).fileName();
    const QString toName = QFileInfo(campaign.files[std::size_t(to)].path).fileName();
    const QString who = campaign.baselineLabel;

    // Facts: a different server version or model behind the same label is a moved baseline.
    const auto addFact = [&](const QString& metric, const QString& x, const QString& y) {
        CampaignDrift d;
        d.metric = metric;
        d.fromFile = from;
        d.toFile = to;
        d.fromText = x;
        d.toText = y;
        d.significant = !x.isEmpty() && !y.isEmpty() && x != y;
        if (d.significant)
            d.sentence = QStringLiteral("%1's %2 changed from %3 (%4) to %5 (%6).")
                             .arg(who, metric, x, fromName, y, toName);
        else if (x.isEmpty() || y.isEmpty())
            d.sentence = QStringLiteral("%1's %2 is not known in both files.").arg(who, metric);
        else
            d.sentence = QStringLiteral("%1's %2 is %3 in both.").arg(who, metric, x);
        rows.push_back(d);
    };
    addFact(
        QStringLiteral("server_version"), probeFact(ea, "server_version"), probeFact(eb, "server_version"));
    addFact(QStringLiteral("runtime"), runtimeOf(ea), runtimeOf(eb));
    addFact(QStringLiteral("model"), modelOf(ea), modelOf(eb));
    addFact(QStringLiteral("quantization"), ea.endpoint.quantization, eb.endpoint.quantization);
    addFact(QStringLiteral("context_size"), probeFact(ea, "context_size"), probeFact(eb, "context_size"));

    // Figures, paired by prompt across the two files: the earlier file's arm is the "baseline".
    std::vector<LabelledResult> both;
    both.push_back({fromName, baselineOnly(a, ba)});
    both.push_back({toName, baselineOnly(b, bb)});
    const RunResult combined = combineResults(std::move(both));
    ComparisonOptions options;
    options.metrics = {Metric::TtftVisible, Metric::DecodeTps, Metric::E2e};
    const PairedComparison comparison = comparePaired(combined, 0, {1}, options);
    if (!comparison.arms.empty()) {
        const ArmComparison& arm = comparison.arms.front();
        for (const Metric m : options.metrics) {
            CampaignDrift d;
            d.metric = metricId(m);
            d.fromFile = from;
            d.toFile = to;
            const MetricComparison* row = nullptr;
            for (const MetricComparison& r : arm.metrics)
                if (r.metric == m && r.test.isEmpty() && r.turn == 0 && r.overPrompts)
                    row = &r;
            const QString title = metricWords(m).phrase;
            if (!row || !row->ratio || !row->ratioCi) {
                const int prompts = row ? row->prompts : 0;
                d.prompts = prompts;
                d.sentence = prompts == 0
                    ? QStringLiteral("%1's %2 cannot be compared: not measured on a prompt of both files.")
                          .arg(who, title)
                    : QStringLiteral(
                        "%1's %2 cannot be compared: %3 distinct prompts measured in both files, at "
                        "least %4 needed for an interval.")
                          .arg(who, title)
                          .arg(prompts)
                          .arg(options.minPrompts);
                rows.push_back(d);
                continue;
            }
            d.estimate = row->ratio;
            d.interval = row->ratioCi;
            d.prompts = row->prompts;
            d.fromText = metricNumber(row->baselineMedian, m) + u' ' + metricUnit(m);
            d.toText = metricNumber(row->candidateMedian, m) + u' ' + metricUnit(m);
            d.significant = outsideBand(*row->ratioCi);
            const bool worse = preferredDirection(m) == Preferred::Lower ? *row->ratio > 1 : *row->ratio < 1;
            d.sentence
                = QStringLiteral("%1's %2 in %3 was %4× %5 its figure in %6 (%7 → %8, %9 prompts): %10.")
                      .arg(who, title, toName)
                      .arg(*row->ratio, 0, 'f', 2)
                      .arg(range(*row->ratioCi), fromName, d.fromText, d.toText)
                      .arg(row->prompts)
                      .arg(d.significant ? (worse ? QStringLiteral("the baseline got worse — a candidate's "
                                                                   "gain against it may be its loss")
                                                  : QStringLiteral("the baseline got better"))
                              : inside(*row->ratioCi)
                              ? QStringLiteral("within ±%1 %: the same").arg(DriftTolerance * 100)
                              : QStringLiteral("not shown to have moved (the interval reaches past ±%1 %)")
                                    .arg(DriftTolerance * 100));
            rows.push_back(d);
        }
        for (const GateComparison& g : arm.gates) {
            if (!g.test.isEmpty() || !g.overPrompts || !g.differenceCi)
                continue;
            CampaignDrift d;
            d.metric = QStringLiteral("gate:") + g.gate;
            d.fromFile = from;
            d.toFile = to;
            d.estimate = g.difference;
            d.interval = g.differenceCi;
            d.prompts = g.prompts;
            d.fromText = QStringLiteral("%1 %").arg(g.baselineRate * 100, 0, 'f', 0);
            d.toText = QStringLiteral("%1 %").arg(g.candidateRate * 100, 0, 'f', 0);
            d.significant = g.differenceCi->lo > DriftTolerance || g.differenceCi->hi < -DriftTolerance;
            d.sentence = QStringLiteral("%1 passed %2 on %3 in %4 and %5 in %6 (difference %7 points %8)%9.")
                             .arg(who, g.gate, d.fromText, fromName, d.toText, toName)
                             .arg(g.difference * 100, 0, 'f', 0)
                             .arg(QStringLiteral("[%1–%2]")
                                      .arg(g.differenceCi->lo * 100, 0, 'f', 0)
                                      .arg(g.differenceCi->hi * 100, 0, 'f', 0))
                             .arg(d.significant ? QStringLiteral(": its answers changed") : QString());
            rows.push_back(d);
        }
    }

    // Answers: greedy decoding on an unchanged server says the same thing again.
    const auto x = firstAnswers(a, ba);
    const auto y = firstAnswers(b, bb);
    int prompts = 0;
    int differ = 0;
    for (const auto& [test, text] : x) {
        const auto it = y.find(test);
        if (it == y.end())
            continue;
        ++prompts;
        differ += text != it->second ? 1 : 0;
    }
    CampaignDrift d;
    d.metric = QStringLiteral("answers_differ");
    d.fromFile = from;
    d.toFile = to;
    d.prompts = prompts;
    if (prompts > 0) {
        d.estimate = double(differ) / prompts;
        d.interval = wilsonInterval(differ, prompts);
        d.significant = d.interval->lo > DriftTolerance;
        d.toText = QStringLiteral("%1 of %2 prompts answered differently").arg(differ).arg(prompts);
        d.sentence
            = QStringLiteral("%1 answered %2 of %3 prompts differently in %4 than in %5%6.")
                  .arg(who)
                  .arg(differ)
                  .arg(prompts)
                  .arg(toName, fromName,
                      d.significant ? QStringLiteral(": the baseline's answers changed (a sampling setting, "
                                                     "the server or the model behind it)")
                                    : QString());
    } else {
        d.sentence = QStringLiteral("No prompt was answered by %1 in both files.").arg(who);
    }
    rows.push_back(d);
    return rows;
}

} // namespace qs

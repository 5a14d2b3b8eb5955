// SPDX-License-Identifier: MIT
#include "model/evaluate/PairedComparison.h"

#include "model/core/Percentile.h"
#include "model/evaluate/MeasuredTests.h"
#include "model/evaluate/PromptEvidence.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace qs {

// ---------------------------------------------------------------------------------------------
// Verdicts

QString verdictId(Verdict verdict)
{
    switch (verdict) {
    case Verdict::TooFewPairs:
        return QStringLiteral("too_few_pairs");
    case Verdict::NoClearDifference:
        return QStringLiteral("no_clear_difference");
    case Verdict::CandidateBetter:
        return QStringLiteral("candidate_better");
    case Verdict::BaselineBetter:
        return QStringLiteral("baseline_better");
    case Verdict::CandidateMore:
        return QStringLiteral("candidate_more");
    case Verdict::CandidateFewer:
        return QStringLiteral("candidate_fewer");
    }
    return {};
}

Verdict decideVerdict(int pairs, int minPairs, const std::optional<Interval>& ratioCi,
    const std::optional<Interval>& differenceCi, Preferred preferred)
{
    if (pairs < minPairs)
        return Verdict::TooFewPairs;
    int direction = 0; // +1: candidate higher, −1: lower
    if (ratioCi)
        direction = ratioCi->lo > 1 ? 1 : ratioCi->hi < 1 ? -1 : 0;
    else if (differenceCi)
        direction = differenceCi->lo > 0 ? 1 : differenceCi->hi < 0 ? -1 : 0;
    if (direction == 0)
        return Verdict::NoClearDifference;
    switch (preferred) {
    case Preferred::Lower:
        return direction < 0 ? Verdict::CandidateBetter : Verdict::BaselineBetter;
    case Preferred::Higher:
        return direction > 0 ? Verdict::CandidateBetter : Verdict::BaselineBetter;
    case Preferred::Neither:
        break;
    }
    return direction > 0 ? Verdict::CandidateMore : Verdict::CandidateFewer;
}

// ---------------------------------------------------------------------------------------------
// Pairing a run

namespace {

using Key = std::tuple<QString, int, int>; // test, turn, iteration

struct ArmIndex {
    std::map<Key, const RunRecord*> records;
    std::set<Key> duplicates;
};

struct MatchedPair {
    const RunRecord* baseline = nullptr;
    const RunRecord* candidate = nullptr;
};

QString number(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}

QString formatValue(double v, Metric metric)
{
    switch (metric) {
    case Metric::DecodeTps:
        return number(v, 1);
    case Metric::CompletionTokens:
    case Metric::PromptTokens:
        return number(v, v == std::round(v) ? 0 : 1);
    default:
        return number(v, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 10 ? 1 : 2);
    }
}

QString formatSigned(double v, Metric metric)
{
    return (v > 0 ? QStringLiteral("+") : QString()) + formatValue(v, metric);
}

QString formatRatio(double v)
{
    return number(v, v < 0.1 ? 3 : 2);
}

QString formatP(double p)
{
    return p < 0.001 ? QStringLiteral("p < 0.001") : QStringLiteral("p = ") + QString::number(p, 'g', 2);
}

QString rowName(const QString& test, int turn)
{
    if (test.isEmpty())
        return QStringLiteral("all tests");
    return turn > 0 ? test + QStringLiteral(" turn ") + QString::number(turn) : test;
}

QString metricVerdictPhrase(
    Verdict v, Metric metric, const QString& winner, const QString& candidate, int minimum, bool overPrompts)
{
    switch (v) {
    case Verdict::TooFewPairs:
        return overPrompts ? QStringLiteral("too few distinct prompts to judge (fewer than %1)").arg(minimum)
                           : QStringLiteral("too few pairs to judge (fewer than %1)").arg(minimum);
    case Verdict::NoClearDifference:
        return QStringLiteral("no clear difference");
    case Verdict::CandidateBetter:
    case Verdict::BaselineBetter:
        return winner
            + (metric == Metric::DecodeTps ? QStringLiteral(" decodes faster")
                                           : QStringLiteral(" is faster"));
    case Verdict::CandidateMore:
        return candidate + QStringLiteral(" writes more tokens");
    case Verdict::CandidateFewer:
        return candidate + QStringLiteral(" writes fewer tokens");
    }
    return {};
}

int winnerOf(Verdict v, const ArmComparison& arm)
{
    return v == Verdict::CandidateBetter ? arm.candidate : v == Verdict::BaselineBetter ? arm.baseline : -1;
}

QString labelOf(int endpoint, const ArmComparison& arm)
{
    return endpoint == arm.candidate ? arm.candidateLabel
        : endpoint == arm.baseline   ? arm.baselineLabel
                                     : QString();
}

// A prompt's pairs (all its repeats, and all turns of a conversation).
struct PromptPairs {
    std::vector<PairedValue> pairs;
    bool conversation = false;
};

// The all-tests row: each prompt collapsed to one ratio and one difference, and the sign test's
// intervals over those (the prompt is the unit of evidence; repeats never narrow the interval).
void summariseOverPrompts(MetricComparison& row, const std::vector<PromptPairs>& prompts, bool positive,
    const ComparisonOptions& options)
{
    row.overPrompts = true;
    row.prompts = int(prompts.size());
    for (const PromptPairs& p : prompts) {
        if (positive) {
            const auto r = p.conversation ? medianOfPairedRatios(p.pairs) : ratioOfMedians(p.pairs);
            if (r)
                row.promptRatios.push_back(*r);
        }
        row.promptDifferences.push_back(*medianOfPairedDifferences(p.pairs));
    }
    const double confidence = options.bootstrap.confidence;
    if (positive && row.promptRatios.size() == prompts.size()) {
        row.ratio = median(row.promptRatios);
        row.ratioCi = medianInterval(row.promptRatios, confidence);
    }
    row.medianDifference = *median(row.promptDifferences);
    row.differenceCi = medianInterval(row.promptDifferences, confidence);
    row.hodgesLehmann = *hodgesLehmann(row.promptDifferences);
    row.wilcoxon = wilcoxonSignedRank(row.promptDifferences);
}

std::optional<MetricComparison> compareMetric(Metric metric, const QString& test, int turn,
    const std::vector<std::vector<PairedValue>>& strata, bool pooledCells, const ComparisonOptions& options,
    const ArmComparison& arm, const std::vector<PromptPairs>* prompts = nullptr)
{
    std::vector<PairedValue> all;
    for (const auto& s : strata)
        all.insert(all.end(), s.begin(), s.end());
    if (all.empty())
        return std::nullopt;
    MetricComparison row;
    row.metric = metric;
    row.test = test;
    row.turn = turn;
    row.pairs = int(all.size());
    std::vector<double> base, cand, diffs;
    for (const PairedValue& p : all) {
        base.push_back(p.baseline);
        cand.push_back(p.candidate);
        diffs.push_back(p.candidate - p.baseline);
    }
    row.baselineMedian = *median(base);
    row.candidateMedian = *median(cand);
    row.ratioIsMedianOfPairedRatios = pooledCells;
    const bool positive = std::all_of(base.begin(), base.end(), [](double v) { return v > 0; });
    if (prompts) {
        summariseOverPrompts(row, *prompts, positive, options);
    } else {
        row.prompts = 1;
        const PairStatistic ratio
            = pooledCells ? PairStatistic(medianOfPairedRatios) : PairStatistic(ratioOfMedians);
        const bool resample = row.pairs >= 2;
        if (positive) {
            row.ratio = ratio(all);
            if (row.ratio && resample)
                row.ratioCi = bootstrapInterval(strata, ratio, options.bootstrap);
        }
        row.medianDifference = *medianOfPairedDifferences(all);
        if (resample)
            row.differenceCi = bootstrapInterval(strata, medianOfPairedDifferences, options.bootstrap);
        row.hodgesLehmann = *hodgesLehmann(diffs);
        row.wilcoxon = wilcoxonSignedRank(diffs);
    }
    row.verdict = row.overPrompts ? decideVerdict(row.prompts, options.minPrompts, row.ratioCi,
                      row.differenceCi, preferredDirection(metric))
                                  : decideVerdict(row.pairs, options.minPairs, row.ratioCi, row.differenceCi,
                                      preferredDirection(metric));
    row.winner = winnerOf(row.verdict, arm);

    // "NVFP4 vs Q4_K_M, ttft_any_ms, greeting: 88 vs 297 ms, ratio 0.30 [0.28–0.31], paired
    //  difference -209 ms [-220, -198], Wilcoxon p = 0.002, r = -1.00, 15 pairs: NVFP4 is faster"
    const QString unit = metricUnit(metric);
    QString s = arm.candidateLabel + QStringLiteral(" vs ") + arm.baselineLabel + QStringLiteral(", ")
        + metricId(metric) + QStringLiteral(", ") + rowName(test, turn) + QStringLiteral(": ")
        + formatValue(row.candidateMedian, metric) + QStringLiteral(" vs ")
        + formatValue(row.baselineMedian, metric) + QLatin1Char(' ') + unit;
    if (row.ratio) {
        s += QStringLiteral(", ratio ") + formatRatio(*row.ratio);
        if (row.ratioCi)
            s += QStringLiteral(" [") + formatRatio(row.ratioCi->lo) + QStringLiteral("–")
                + formatRatio(row.ratioCi->hi) + QLatin1Char(']');
    }
    s += QStringLiteral(", paired difference ") + formatSigned(row.medianDifference, metric);
    if (row.differenceCi)
        s += QStringLiteral(" [") + formatSigned(row.differenceCi->lo, metric) + QStringLiteral(", ")
            + formatSigned(row.differenceCi->hi, metric) + QLatin1Char(']');
    s += QLatin1Char(' ') + unit + QStringLiteral(", Wilcoxon ") + formatP(row.wilcoxon.p)
        + QStringLiteral(", r = ") + number(row.wilcoxon.rankBiserial, 2) + QStringLiteral(", ")
        + QString::number(row.pairs) + (row.pairs == 1 ? QStringLiteral(" pair") : QStringLiteral(" pairs"))
        + (row.overPrompts
                ? QStringLiteral(" over %1 distinct prompts (intervals over prompts): ").arg(row.prompts)
                : QStringLiteral(" (repeats of one prompt: the clock's steadiness): "))
        + metricVerdictPhrase(row.verdict, metric, labelOf(row.winner, arm), arm.candidateLabel,
            row.overPrompts ? options.minPrompts : options.minPairs, row.overPrompts);
    row.sentence = s;
    return row;
}

using GatePairs = std::vector<std::pair<bool, bool>>; // (baseline passed, candidate passed)

// One prompt's (or, over prompts, every prompt's) 2×2 table; over prompts each prompt weighs one.
struct GateTable {
    double both = 0, baselineOnly = 0, candidateOnly = 0, neither = 0;
    void add(const GatePairs& pairs, double weight)
    {
        for (const auto& [base, cand] : pairs)
            (base && cand ? both : base ? baselineOnly : cand ? candidateOnly : neither) += weight;
    }
};

GateComparison compareGate(const QString& gate, const QString& test, const std::vector<GatePairs>& prompts,
    bool overPrompts, const ComparisonOptions& options, const ArmComparison& arm)
{
    GateComparison g;
    g.gate = gate;
    g.test = test;
    g.overPrompts = overPrompts;
    g.prompts = int(prompts.size());
    GateTable requests, table;
    for (const GatePairs& pairs : prompts) {
        requests.add(pairs, 1);
        table.add(pairs, overPrompts && !pairs.empty() ? 1.0 / double(pairs.size()) : 1.0);
    }
    g.bothPass = int(requests.both);
    g.baselineOnly = int(requests.baselineOnly);
    g.candidateOnly = int(requests.candidateOnly);
    g.bothFail = int(requests.neither);
    g.pairs = g.bothPass + g.baselineOnly + g.candidateOnly + g.bothFail;
    const double n = table.both + table.baselineOnly + table.candidateOnly + table.neither;
    if (n > 0) {
        g.baselineRate = (table.both + table.baselineOnly) / n;
        g.candidateRate = (table.both + table.candidateOnly) / n;
    }
    g.difference = g.candidateRate - g.baselineRate;
    g.table = {table.both, table.baselineOnly, table.candidateOnly, table.neither};
    g.differenceCi = newcombePairedInterval(
        table.both, table.candidateOnly, table.baselineOnly, table.neither, options.bootstrap.confidence);
    g.mcnemarP = mcnemarExactP(int(std::lround(table.baselineOnly)), int(std::lround(table.candidateOnly)));
    g.verdict = overPrompts
        ? decideVerdict(g.prompts, options.minPrompts, std::nullopt, g.differenceCi, Preferred::Higher)
        : decideVerdict(g.pairs, options.minPairs, std::nullopt, g.differenceCi, Preferred::Higher);
    g.winner = winnerOf(g.verdict, arm);

    const auto percent
        = [](double v) -> QString { return QString::number(std::round(v * 100)) + QLatin1Char('%'); };
    const auto signedPercent
        = [&](double v) -> QString { return (v > 0.0005 ? QStringLiteral("+") : QString()) + percent(v); };
    QString s = gate + QStringLiteral(", ") + rowName(test, 0) + QStringLiteral(": ") + arm.candidateLabel
        + QLatin1Char(' ') + gateCount({g.bothPass + g.candidateOnly, g.pairs}) + QStringLiteral(" vs ")
        + arm.baselineLabel + QLatin1Char(' ') + gateCount({g.bothPass + g.baselineOnly, g.pairs});
    if (g.differenceCi)
        s += QStringLiteral(", difference ") + signedPercent(g.difference) + QStringLiteral(" [")
            + signedPercent(g.differenceCi->lo) + QStringLiteral(", ") + signedPercent(g.differenceCi->hi)
            + QLatin1Char(']');
    s += QStringLiteral(", McNemar ") + formatP(g.mcnemarP)
        + (g.overPrompts ? QStringLiteral(", over %1 distinct prompts: ").arg(g.prompts)
                         : QStringLiteral(" (repeats of one prompt): "));
    switch (g.verdict) {
    case Verdict::TooFewPairs:
        s += g.overPrompts
            ? QStringLiteral("too few distinct prompts to judge (fewer than %1)").arg(options.minPrompts)
            : QStringLiteral("too few pairs to judge (fewer than %1)").arg(options.minPairs);
        break;
    case Verdict::CandidateBetter:
    case Verdict::BaselineBetter:
        s += labelOf(g.winner, arm) + QStringLiteral(" passes more often");
        break;
    default:
        s += QStringLiteral("no clear difference");
    }
    g.sentence = s;
    return g;
}

ArmComparison compareArm(const RunResult& result, const std::vector<ArmIndex>& index, int baseline,
    int candidate, const MeasuredTests& measured, const ComparisonOptions& options)
{
    ArmComparison arm;
    arm.baseline = baseline;
    arm.candidate = candidate;
    arm.baselineLabel = result.endpoints[std::size_t(baseline)].endpoint.displayName();
    arm.candidateLabel = result.endpoints[std::size_t(candidate)].endpoint.displayName();
    const ArmIndex& b = index[std::size_t(baseline)];
    const ArmIndex& c = index[std::size_t(candidate)];
    std::set<Key> ambiguous = b.duplicates;
    ambiguous.insert(c.duplicates.begin(), c.duplicates.end());
    arm.duplicates = int(ambiguous.size());

    std::vector<std::pair<Key, MatchedPair>> matched;
    for (const auto& [key, record] : b.records) {
        if (ambiguous.count(key))
            continue;
        const auto it = c.records.find(key);
        if (it == c.records.end()) {
            ++arm.baselineOnly;
            continue;
        }
        matched.push_back({key, {record, it->second}});
    }
    for (const auto& [key, record] : c.records)
        if (!ambiguous.count(key) && !b.records.count(key))
            ++arm.candidateOnly;
    arm.matched = int(matched.size());
    for (const auto& [key, pair] : matched) {
        if (pair.baseline->request.ok() && pair.candidate->request.ok())
            ++arm.pairedOk;
        else
            ++arm.failedPairs;
    }

    // Metrics: strata are (test, turn) cells.
    for (Metric metric : options.metrics) {
        std::map<std::pair<QString, int>, std::vector<PairedValue>> cells;
        for (const auto& [key, pair] : matched) {
            if (!pair.baseline->request.ok() || !pair.candidate->request.ok())
                continue;
            const auto bv = metricValue(pair.baseline->request.metrics, metric);
            const auto cv = metricValue(pair.candidate->request.metrics, metric);
            if (bv && cv && std::isfinite(*bv) && std::isfinite(*cv))
                cells[{std::get<0>(key), std::get<1>(key)}].push_back({*bv, *cv});
        }
        const auto strataOf = [&](const QString& test, int turn) {
            std::vector<std::vector<PairedValue>> strata;
            for (const auto& [cell, pairs] : cells)
                if ((test.isEmpty() || cell.first == test) && (turn == 0 || cell.second == turn))
                    strata.push_back(pairs);
            return strata;
        };
        std::map<QString, PromptPairs> byPrompt;
        for (const auto& [cell, pairs] : cells) {
            PromptPairs& p = byPrompt[cell.first];
            p.pairs.insert(p.pairs.end(), pairs.begin(), pairs.end());
            p.conversation = p.conversation || measured.maxTurn.at(cell.first) > 1;
        }
        if (byPrompt.size() >= 2) {
            std::vector<PromptPairs> prompts;
            for (const QString& test : measured.order)
                if (const auto it = byPrompt.find(test); it != byPrompt.end())
                    prompts.push_back(std::move(it->second));
            if (auto row = compareMetric(metric, {}, 0, strataOf({}, 0), true, options, arm, &prompts))
                arm.metrics.push_back(std::move(*row));
        }
        for (const QString& test : measured.order) {
            const int turns = measured.maxTurn.at(test);
            if (auto row = compareMetric(metric, test, 0, strataOf(test, 0), turns > 1, options, arm))
                arm.metrics.push_back(std::move(*row));
            if (turns > 1)
                for (int turn = 1; turn <= turns; ++turn)
                    if (auto row
                        = compareMetric(metric, test, turn, strataOf(test, turn), false, options, arm))
                        arm.metrics.push_back(std::move(*row));
        }
    }

    // Gates: every gate that was judged (true/false) on both arms of a pair.
    std::map<QString, std::map<QString, GatePairs>> gates; // gate -> test -> pairs
    for (const auto& [key, pair] : matched) {
        const nlohmann::json& bg = pair.baseline->gates;
        const nlohmann::json& cg = pair.candidate->gates;
        if (!bg.is_object() || !cg.is_object())
            continue;
        for (const auto& [name, value] : bg.items()) {
            const auto other = cg.find(name);
            if (value.is_boolean() && other != cg.end() && other->is_boolean())
                gates[QString::fromStdString(name)][std::get<0>(key)].push_back(
                    {value.get<bool>(), other->get<bool>()});
        }
    }
    for (const auto& [gate, byTest] : gates) {
        if (byTest.size() >= 2) {
            std::vector<GatePairs> prompts;
            for (const QString& test : measured.order)
                if (const auto it = byTest.find(test); it != byTest.end())
                    prompts.push_back(it->second);
            arm.gates.push_back(compareGate(gate, {}, prompts, true, options, arm));
        }
        for (const QString& test : measured.order)
            if (const auto it = byTest.find(test); it != byTest.end())
                arm.gates.push_back(compareGate(gate, test, {it->second}, false, options, arm));
    }
    return arm;
}

} // namespace

PairedComparison comparePaired(const RunResult& result, int baseline, const std::vector<int>& candidates,
    const ComparisonOptions& options)
{
    PairedComparison out;
    out.options = options;
    const int endpoints = int(result.endpoints.size());
    if (baseline < 0 || baseline >= endpoints)
        return out;
    std::vector<ArmIndex> index(static_cast<std::size_t>(endpoints));
    MeasuredTests measured;
    for (const RunRecord& r : result.records) {
        if (!measured.add(r, endpoints))
            continue;
        ArmIndex& arm = index[std::size_t(r.endpoint)];
        const Key key {r.test, r.turn, r.iteration};
        if (!arm.records.emplace(key, &r).second)
            arm.duplicates.insert(key);
    }
    // Bound the bootstrap's work. Each matched pair enters up to three rows (all tests, its test,
    // its turn), each with a ratio and a difference interval per metric.
    std::int64_t draws = 0;
    const ArmIndex& base = index[std::size_t(baseline)];
    for (int candidate : candidates) {
        if (candidate == baseline || candidate < 0 || candidate >= endpoints)
            continue;
        std::int64_t matched = 0;
        for (const auto& [key, record] : index[std::size_t(candidate)].records)
            matched += base.records.count(key) ? 1 : 0;
        draws += matched * 3 * 2 * std::int64_t(options.metrics.size());
    }
    ComparisonOptions used = options;
    if (draws > 0 && options.maxBootstrapDraws > 0
        && draws * std::int64_t(options.bootstrap.resamples) > options.maxBootstrapDraws) {
        const std::int64_t affordable = options.maxBootstrapDraws / draws;
        used.bootstrap.resamples = int(std::clamp<std::int64_t>(affordable,
            std::min(options.minResamples, options.bootstrap.resamples), options.bootstrap.resamples));
    }
    out.options = used;
    for (int candidate : candidates)
        if (candidate != baseline && candidate >= 0 && candidate < endpoints)
            out.arms.push_back(compareArm(result, index, baseline, candidate, measured, used));
    return out;
}

PairedComparison comparePaired(const RunResult& result, const ComparisonOptions& options)
{
    std::vector<int> candidates;
    for (int e = 1; e < int(result.endpoints.size()); ++e)
        candidates.push_back(e);
    return comparePaired(result, 0, candidates, options);
}

// ---------------------------------------------------------------------------------------------
// JSON

namespace {

nlohmann::json intervalJson(const std::optional<Interval>& i, int decimals)
{
    if (!i)
        return nullptr;
    return {{"low", roundedJson(i->lo, decimals)}, {"high", roundedJson(i->hi, decimals)}};
}

nlohmann::json testJson(const QString& test)
{
    return test.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(test.toStdString());
}

nlohmann::json winnerJson(int winner, const ArmComparison& arm)
{
    return winner < 0 ? nlohmann::json(nullptr) : nlohmann::json(labelOf(winner, arm).toStdString());
}

} // namespace

nlohmann::json toJson(const WilcoxonResult& w)
{
    return {{"p", significantJson(w.p, 4)}, {"method", w.exact ? "exact" : "normal"}, {"n_nonzero", w.n},
        {"zeros_dropped", w.zeros}, {"w_plus", w.wPlus}, {"w_minus", w.wMinus}, {"z", roundedJson(w.z, 4)}};
}

nlohmann::json toJson(const MetricComparison& row, const ArmComparison& arm)
{
    nlohmann::json ratio = nullptr;
    if (row.ratio)
        ratio = {{"kind",
                     row.overPrompts                       ? "median_of_prompt_ratios"
                         : row.ratioIsMedianOfPairedRatios ? "median_of_paired_ratios"
                                                           : "ratio_of_medians"},
            {"estimate", roundedJson(row.ratio, 4)}, {"ci", intervalJson(row.ratioCi, 4)}};
    return {{"metric", metricId(row.metric).toStdString()}, {"test", testJson(row.test)},
        {"turn", row.turn == 0 ? nlohmann::json(nullptr) : nlohmann::json(row.turn)}, {"pairs", row.pairs},
        {"prompts", row.prompts}, {"unit", row.overPrompts ? "prompts" : "repeats"},
        {"baseline_median", roundedJson(row.baselineMedian, 3)},
        {"candidate_median", roundedJson(row.candidateMedian, 3)}, {"ratio", ratio},
        {"median_difference",
            {{"estimate", roundedJson(row.medianDifference, 3)}, {"ci", intervalJson(row.differenceCi, 3)}}},
        {"hodges_lehmann", roundedJson(row.hodgesLehmann, 3)}, {"wilcoxon", toJson(row.wilcoxon)},
        {"rank_biserial", roundedJson(row.wilcoxon.rankBiserial, 4)},
        {"verdict", verdictId(row.verdict).toStdString()}, {"winner", winnerJson(row.winner, arm)},
        {"sentence", row.sentence.toStdString()}};
}

nlohmann::json toJson(const GateComparison& g, const ArmComparison& arm)
{
    return {{"gate", g.gate.toStdString()}, {"test", testJson(g.test)}, {"pairs", g.pairs},
        {"prompts", g.prompts}, {"unit", g.overPrompts ? "prompts" : "repeats"}, {"both_pass", g.bothPass},
        {"baseline_only", g.baselineOnly}, {"candidate_only", g.candidateOnly}, {"both_fail", g.bothFail},
        {"baseline_passed", gateCount({g.bothPass + g.baselineOnly, g.pairs}).toStdString()},
        {"candidate_passed", gateCount({g.bothPass + g.candidateOnly, g.pairs}).toStdString()},
        {"baseline_rate", roundedJson(g.baselineRate, 4)},
        {"candidate_rate", roundedJson(g.candidateRate, 4)}, {"difference", roundedJson(g.difference, 4)},
        {"difference_ci", intervalJson(g.differenceCi, 4)}, {"mcnemar_p", significantJson(g.mcnemarP, 4)},
        {"verdict", verdictId(g.verdict).toStdString()}, {"winner", winnerJson(g.winner, arm)},
        {"sentence", g.sentence.toStdString()}};
}

nlohmann::json toJson(const ArmComparison& arm)
{
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricComparison& m : arm.metrics)
        metrics.push_back(toJson(m, arm));
    nlohmann::json gates = nlohmann::json::array();
    for (const GateComparison& g : arm.gates)
        gates.push_back(toJson(g, arm));
    return {{"baseline", {{"index", arm.baseline}, {"label", arm.baselineLabel.toStdString()}}},
        {"candidate", {{"index", arm.candidate}, {"label", arm.candidateLabel.toStdString()}}},
        {"matched", arm.matched}, {"paired_ok", arm.pairedOk}, {"baseline_only", arm.baselineOnly},
        {"candidate_only", arm.candidateOnly}, {"failed_pairs", arm.failedPairs},
        {"duplicates", arm.duplicates}, {"metrics", metrics}, {"gates", gates}};
}

nlohmann::json toJson(const PairedComparison& c)
{
    nlohmann::json arms = nlohmann::json::array();
    for (const ArmComparison& a : c.arms)
        arms.push_back(toJson(a));
    return {
        {"method",
            {{"unit",
                 "distinct prompt: the all-tests rows collapse each prompt's repeats to one value "
                 "and draw sign-test intervals over prompts; a test's own rows are over its repeats"},
                {"bootstrap", "percentile, resampling pairs within (test, turn) strata (a test's own rows)"},
                {"resamples", c.options.bootstrap.resamples}, {"seed", c.options.bootstrap.seed},
                {"confidence", c.options.bootstrap.confidence}, {"min_pairs", c.options.minPairs},
                {"min_prompts", c.options.minPrompts},
                {"wilcoxon", "signed-rank on paired differences, zeros dropped, exact up to 50 pairs"},
                {"gates", "McNemar exact; Newcombe square-and-add interval"}}},
        {"comparisons", arms}};
}

} // namespace qs

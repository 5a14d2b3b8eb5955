// SPDX-License-Identifier: MIT
// What the judge's verdicts add up to: rubric scores per endpoint × test × criterion, and the
// blind pairwise comparison with its exact interval and sign test, the judge's consistency and
// its position and length biases (docs/methodology.md "Judged quality").
#include "model/evaluate/JudgedQuality.h"

#include "model/core/Percentile.h"
#include "model/evaluate/MeasuredTests.h"
#include "model/evaluate/PromptEvidence.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace qs {

namespace {

using json = nlohmann::json;
using AnswerKey = std::tuple<int, QString, int, int>; // endpoint, test, turn, iteration
using PairKey = std::tuple<QString, int, int>; // test, turn, iteration

AnswerKey keyOf(const JudgedAnswer& a)
{
    return {a.endpoint, a.test, a.turn, a.iteration};
}

/// The record each judged answer is about: per endpoint, test, turn and iteration the first
/// measured one, as the judging plan picks it (a concurrency sweep's repeats are judged once).
std::map<AnswerKey, const RunRecord*> measuredAnswers(const RunResult& result)
{
    std::map<AnswerKey, const RunRecord*> out;
    for (const RunRecord& r : result.records)
        if (!r.warmup)
            out.emplace(AnswerKey {r.endpoint, r.test, r.turn, r.iteration}, &r);
    return out;
}

/// Length of the answer in characters (code points, so an emoji is one), when it was measured.
std::optional<qsizetype> answerLength(
    const std::map<AnswerKey, const RunRecord*>& answers, const JudgedAnswer& a)
{
    const auto it = answers.find(keyOf(a));
    if (it == answers.end())
        return std::nullopt;
    return it->second->request.response.content.toUcs4().size();
}

/// What a judgement preferred (+1 candidate, −1 baseline, 0 tie), or nothing when the judge failed.
std::optional<int> readPreference(const PairVerdict& v)
{
    if (v.exchange.failed())
        return std::nullopt;
    return v.preferred();
}

/// A judgement kept for its slot: a read verdict replaces anything, a failed one only another
/// failure (a resumed judging retries failures and appends the retry).
template <typename Verdict, typename Read> void keep(const Verdict*& slot, const Verdict& v, Read read)
{
    if (!slot || read(v) || !read(*slot))
        slot = &v;
}

/// P(X ≤ k) for X ~ Binomial(n, p), summed in log space (pⁿ underflows for large n).
double binomialCdf(int k, int n, double p)
{
    if (k < 0)
        return 0;
    if (k >= n || p <= 0)
        return 1;
    if (p >= 1)
        return 0;
    const double logP = std::log(p);
    const double logQ = std::log1p(-p);
    double sum = 0;
    for (int i = 0; i <= k; ++i)
        sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * logP
            + (n - i) * logQ);
    return std::min(1.0, sum);
}

/// The p in [0, 1] where P(X ≤ k) falls to `target`: the CDF decreases in p, so bisection finds it
/// to the last bit in 100 halvings, the same on every platform.
double cdfCrossing(int k, int n, double target)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < 100 && hi - lo > 0; ++i) {
        const double mid = (lo + hi) / 2;
        if (binomialCdf(k, n, mid) > target)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

QString label(const RunResult& result, int endpoint)
{
    if (endpoint >= 0 && std::size_t(endpoint) < result.endpoints.size())
        return result.endpoints[std::size_t(endpoint)].endpoint.displayName();
    return QStringLiteral("endpoint %1").arg(endpoint);
}

std::optional<double> share(int part, int whole)
{
    if (whole <= 0)
        return std::nullopt;
    return double(part) / double(whole);
}

/// One pair in both orders.
struct Orders {
    const PairVerdict* candidateFirst = nullptr;
    const PairVerdict* baselineFirst = nullptr;
};

struct PairTally {
    PairwiseResult result;
    int firstPicks = 0;
    int longerPicks = 0;
    int oneOrderOnly = 0; ///< pairs whose other order was never judged (judging incomplete)
    std::vector<double> lengthDifferences;
    std::map<QString, std::pair<double, int>> byPrompt; ///< test → (candidate's score, pairs)
};

/// The single-order figures: position and length bias.
void tallyOrder(PairTally& t, const PairVerdict& v, const std::map<AnswerKey, const RunRecord*>& answers)
{
    const std::optional<int> preferred = readPreference(v);
    if (!preferred || *preferred == 0)
        return;
    ++t.result.positionPicks;
    t.firstPicks += v.pick == PairPick::First ? 1 : 0;
    const auto candidate = answerLength(answers, v.candidateAnswer());
    const auto baseline = answerLength(answers, v.baselineAnswer());
    if (!candidate || !baseline || *candidate == *baseline)
        return;
    ++t.result.lengthPicks;
    t.longerPicks += (*preferred > 0) == (*candidate > *baseline) ? 1 : 0;
}

void tallyPair(PairTally& t, const Orders& o, const std::map<AnswerKey, const RunRecord*>& answers,
    std::vector<JudgedQuality::Quote>& quotes)
{
    PairwiseResult& p = t.result;
    for (const PairVerdict* v : {o.candidateFirst, o.baselineFirst})
        if (v)
            tallyOrder(t, *v, answers);
    const std::optional<int> a = o.candidateFirst ? readPreference(*o.candidateFirst) : std::nullopt;
    const std::optional<int> b = o.baselineFirst ? readPreference(*o.baselineFirst) : std::nullopt;
    if ((o.candidateFirst && !a) || (o.baselineFirst && !b)) {
        ++p.failedPairs;
        return;
    }
    if (!a || !b) {
        ++t.oneOrderOnly;
        return;
    }
    ++p.pairs;
    const PairVerdict& v = *o.candidateFirst;
    // value_or: both are set here (GCC cannot see it through the early returns).
    const int first = a.value_or(0);
    const int second = b.value_or(0);
    auto& prompt = t.byPrompt[v.test];
    ++prompt.second;
    if (first != second) {
        ++p.ties;
        ++p.inconsistent;
        prompt.first += 0.5;
    } else if (first > 0) {
        ++p.wins;
        prompt.first += 1;
    } else if (first < 0) {
        ++p.losses;
    } else {
        ++p.ties;
        prompt.first += 0.5;
    }
    if (first == second && first != 0) {
        const PairVerdict& quoted = v.reason.isEmpty() ? *o.baselineFirst : v;
        quotes.push_back({v.candidate, v.test, v.turn, v.iteration,
            first > 0 ? QStringLiteral("pair: preferred the candidate")
                      : QStringLiteral("pair: preferred the baseline"),
            quoted.reason});
    }
    const auto candidate = answerLength(answers, v.candidateAnswer());
    const auto baseline = answerLength(answers, v.baselineAnswer());
    if (candidate && baseline)
        t.lengthDifferences.push_back(double(*candidate - *baseline));
}

void finish(PairTally& t, const JudgeOptions& options)
{
    PairwiseResult& p = t.result;
    p.consistency = share(p.pairs - p.inconsistent, p.pairs);
    p.firstPositionRate = share(t.firstPicks, p.positionPicks);
    p.longerPickedRate = share(t.longerPicks, p.lengthPicks);
    p.winOrTieRate = p.pairs > 0 ? std::optional<double>((p.wins + 0.5 * p.ties) / p.pairs) : std::nullopt;
    p.medianLengthDifference = percentile(t.lengthDifferences, 50);
    // Over prompts: a prompt's repeats (and turns) are one piece of evidence.
    double shares = 0;
    for (const auto& [test, score] : t.byPrompt) {
        const double share = score.first / score.second;
        shares += share;
        ++p.prompts;
        (share > 0.5 + 1e-9 ? p.promptWins : share < 0.5 - 1e-9 ? p.promptLosses : p.promptTies) += 1;
    }
    if (p.prompts > 0) {
        p.promptWinShare = shares / p.prompts;
        p.promptWinShareCi = promptRateInterval(shares, p.prompts);
    }
    const int decided = p.promptWins + p.promptLosses;
    p.signTestP = signTest(p.promptWins, p.promptLosses);
    if (decided > 0) {
        p.winRate = double(p.promptWins) / decided;
        p.winRateCi = clopperPearsonInterval(p.promptWins, decided);
    }
    Verdict verdict = Verdict::NoClearDifference;
    if (p.pairs < options.minPairs || p.prompts < options.minPrompts)
        verdict = Verdict::TooFewPairs;
    else if (p.winRateCi && p.winRateCi->lo > 0.5)
        verdict = Verdict::CandidateBetter;
    else if (p.winRateCi && p.winRateCi->hi < 0.5)
        verdict = Verdict::BaselineBetter;
    p.winner = verdict == Verdict::CandidateBetter ? p.candidate
        : verdict == Verdict::BaselineBetter       ? p.baseline
                                                   : -1;
    p.verdict = verdictId(verdict);
}

std::vector<PairwiseResult> comparePairs(const RunResult& result, const JudgeOptions& options,
    const std::map<AnswerKey, const RunRecord*>& answers, std::vector<JudgedQuality::Quote>& quotes,
    QStringList& notes)
{
    std::map<std::pair<int, int>, std::map<PairKey, Orders>> arms; // (candidate, baseline) → pairs
    const auto read = [](const PairVerdict& v) { return readPreference(v).has_value(); };
    for (const PairVerdict& v : result.judging.pairVerdicts) {
        Orders& o = arms[{v.candidate, v.baseline}][{v.test, v.turn, v.iteration}];
        keep(v.candidateFirst ? o.candidateFirst : o.baselineFirst, v, read);
    }
    std::vector<PairwiseResult> out;
    for (const auto& [arm, pairs] : arms) {
        PairTally t;
        t.result.candidate = arm.first;
        t.result.baseline = arm.second;
        t.result.candidateLabel = label(result, arm.first);
        t.result.baselineLabel = label(result, arm.second);
        for (const auto& [key, orders] : pairs)
            tallyPair(t, orders, answers, quotes);
        finish(t, options);
        if (t.oneOrderOnly > 0)
            notes << QStringLiteral(
                "%1 pairs of %2 against %3 were judged in one order only and are not counted: "
                "run `quantscope judge` again to finish them")
                         .arg(t.oneOrderOnly)
                         .arg(t.result.candidateLabel, t.result.baselineLabel);
        out.push_back(std::move(t.result));
    }
    // Ordered by candidate, then baseline (the map's order), which is what the views list.
    return out;
}

RubricScore scoreOf(
    int endpoint, const QString& test, const QString& criterion, const std::vector<int>& scores)
{
    RubricScore s {endpoint, test, criterion};
    std::vector<double> values;
    for (int v : scores) {
        values.push_back(v);
        ++s.histogram[std::size_t(v - 1)];
    }
    s.n = int(values.size());
    s.median = percentile(values, 50).value_or(0);
    double sum = 0;
    for (double v : values)
        sum += v;
    s.mean = s.n > 0 ? sum / s.n : 0;
    return s;
}

void gradeRubric(JudgedQuality& q, const RunResult& result,
    const std::map<AnswerKey, const RunRecord*>& answers,
    std::vector<std::pair<int, JudgedQuality::Quote>>& lowScores)
{
    const Judging& j = result.judging;
    std::map<AnswerKey, const RubricVerdict*> verdicts;
    for (const RubricVerdict& v : j.rubricVerdicts)
        keep(verdicts[keyOf(v.answer)], v, [](const RubricVerdict& x) { return !x.failed(); });
    if (!j.rubric && verdicts.empty())
        return;

    MeasuredTests tests;
    for (const RunRecord& r : result.records)
        tests.add(r, int(result.endpoints.size()));
    QStringList criteria;
    if (j.rubric)
        for (const RubricCriterion& c : j.rubric->criteria)
            criteria << c.id;
    QStringList extra; // ids the judge scored that the rubric does not name (a hand-edited file)
    // endpoint → test ("" = pooled) → criterion → scores
    std::map<int, std::map<QString, std::map<QString, std::vector<int>>>> scores;
    for (int e = 0; e < int(result.endpoints.size()); ++e) {
        RubricArm arm {e};
        for (const auto& [key, record] : answers)
            if (std::get<0>(key) == e && record->request.ok()
                && (!j.rubric || !j.rubric->criteriaFor(record->test).empty()))
                ++arm.eligible;
        q.rubricArms.push_back(arm);
    }
    for (const auto& [key, v] : verdicts) {
        const int e = std::get<0>(key);
        if (e < 0 || e >= int(q.rubricArms.size()))
            continue;
        RubricArm& arm = q.rubricArms[std::size_t(e)];
        if (v->failed()) {
            ++arm.failed;
            continue;
        }
        ++arm.graded;
        std::optional<std::pair<int, QString>> lowest;
        for (const auto& [criterion, score] : v->scores) {
            if (score < 1 || score > 5)
                continue;
            if (!criteria.contains(criterion) && !extra.contains(criterion))
                extra << criterion;
            scores[e][QString()][criterion].push_back(score);
            scores[e][v->answer.test][criterion].push_back(score);
            if (!lowest || score < lowest->first)
                lowest = {score, criterion};
        }
        if (!tests.order.contains(v->answer.test))
            tests.order << v->answer.test;
        if (lowest && !v->reason.trimmed().isEmpty())
            lowScores.push_back({lowest->first,
                {e, v->answer.test, v->answer.turn, v->answer.iteration,
                    QStringLiteral("rubric %1/5 on %2").arg(lowest->first).arg(lowest->second), v->reason}});
    }
    extra.sort();
    criteria << extra;
    for (const auto& [e, byTest] : scores) {
        for (const QString& test : QStringList {QString()} + tests.order) {
            const auto t = byTest.find(test);
            if (t == byTest.end())
                continue;
            for (const QString& criterion : criteria)
                if (const auto c = t->second.find(criterion); c != t->second.end())
                    q.rubricScores.push_back(scoreOf(e, test, criterion, c->second));
        }
    }
    // Lowest first; the rest of the order is the answers' (stable sort over the key-ordered map).
    std::stable_sort(lowScores.begin(), lowScores.end(), [&tests](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first < b.first;
        return tests.order.indexOf(a.second.test) < tests.order.indexOf(b.second.test);
    });
}

/// Up to six reasons worth reading: the lowest rubric scores first, then decided pairs, half each
/// when there are both.
std::vector<JudgedQuality::Quote> pickQuotes(
    const std::vector<std::pair<int, JudgedQuality::Quote>>& lowScores,
    std::vector<JudgedQuality::Quote> pairs)
{
    constexpr int kQuotes = 6;
    std::erase_if(pairs, [](const JudgedQuality::Quote& q) { return q.reason.trimmed().isEmpty(); });
    const int rubric = std::min(int(lowScores.size()), std::max(kQuotes / 2, kQuotes - int(pairs.size())));
    const int pair = std::min(int(pairs.size()), kQuotes - rubric);
    std::vector<JudgedQuality::Quote> out;
    for (int i = 0; i < rubric; ++i)
        out.push_back(lowScores[std::size_t(i)].second);
    for (int i = 0; i < pair; ++i)
        out.push_back(pairs[std::size_t(i)]);
    return out;
}

json optionalJson(const std::optional<double>& v)
{
    return v ? json(*v) : json(nullptr);
}

json scoreJson(const RubricScore& s)
{
    return {{"median", s.median}, {"mean", s.mean}, {"n", s.n}, {"histogram", s.histogram}};
}

} // namespace

Interval clopperPearsonInterval(int successes, int n, double confidence)
{
    if (n <= 0)
        return {0, 1};
    const int x = std::clamp(successes, 0, n);
    const double alpha = 1 - confidence;
    // lo: P(X ≥ x | lo) = α/2, i.e. P(X ≤ x − 1 | lo) = 1 − α/2; hi: P(X ≤ x | hi) = α/2.
    const double lo = x == 0 ? 0.0 : cdfCrossing(x - 1, n, 1 - alpha / 2);
    const double hi = x == n ? 1.0 : cdfCrossing(x, n, alpha / 2);
    return {lo, hi};
}

double signTest(int wins, int losses)
{
    // The sign test is the exact binomial test of the decided pairs against ½: McNemar's.
    return mcnemarExactP(losses, wins);
}

JudgedQuality judgeQuality(const RunResult& result, const JudgeOptions& options)
{
    JudgedQuality q;
    const Judging& j = result.judging;
    q.judged = !j.empty();
    if (!q.judged)
        return q;
    q.judge = j.judge;
    q.rubric = j.rubric;
    q.notes = j.notes;
    const auto answers = measuredAnswers(result);
    std::vector<std::pair<int, JudgedQuality::Quote>> lowScores;
    gradeRubric(q, result, answers, lowScores);
    std::vector<JudgedQuality::Quote> pairQuotes;
    q.pairwise = comparePairs(result, options, answers, pairQuotes, q.notes);
    // Pairs the baseline won first: for a candidate, what it lost is what to read.
    std::stable_sort(pairQuotes.begin(), pairQuotes.end(), [](const auto& a, const auto& b) {
        return a.what.endsWith(u"baseline") && !b.what.endsWith(u"baseline");
    });
    q.quotes = pickQuotes(lowScores, std::move(pairQuotes));
    return q;
}

const PairwiseResult* JudgedQuality::pairwiseFor(int candidate) const
{
    for (const PairwiseResult& p : pairwise)
        if (p.candidate == candidate)
            return &p;
    return nullptr;
}

const RubricScore* JudgedQuality::score(int endpoint, const QString& criterion, const QString& test) const
{
    for (const RubricScore& s : rubricScores)
        if (s.endpoint == endpoint && s.criterion == criterion && s.test == test)
            return &s;
    return nullptr;
}

nlohmann::json toJson(const JudgedQuality& quality, const RunResult& result)
{
    if (!quality.judged)
        return nullptr;
    const JudgeIdentity& id = quality.judge;
    json judge = {{"model", id.model.toStdString()}, {"url", id.url.toStdString()},
        {"runtime", id.runtime.toStdString()}, {"spec", id.spec.toStdString()},
        {"endpoint_label", id.endpointLabel.toStdString()}, {"simulated", id.simulated},
        {"temperature", id.temperature}, {"seed", id.seed}};
    json rubric = json::array();
    for (const RubricArm& arm : quality.rubricArms) {
        json criteria = json::object();
        json tests = json::object();
        for (const RubricScore& s : quality.rubricScores) {
            if (s.endpoint != arm.endpoint)
                continue;
            if (s.test.isEmpty())
                criteria[s.criterion.toStdString()] = scoreJson(s);
            else
                tests[s.test.toStdString()][s.criterion.toStdString()] = scoreJson(s);
        }
        rubric.push_back({{"endpoint", arm.endpoint}, {"label", label(result, arm.endpoint).toStdString()},
            {"graded", arm.graded}, {"failed", arm.failed}, {"eligible", arm.eligible},
            {"criteria", criteria}, {"tests", tests}});
    }
    json pairwise = json::array();
    for (const PairwiseResult& p : quality.pairwise) {
        const json ci = p.winRateCi ? json::array({p.winRateCi->lo, p.winRateCi->hi}) : json(nullptr);
        const json winner = p.winner >= 0 ? json(label(result, p.winner).toStdString()) : json(nullptr);
        pairwise.push_back({{"candidate", p.candidateLabel.toStdString()},
            {"baseline", p.baselineLabel.toStdString()}, {"pairs", p.pairs}, {"wins", p.wins},
            {"losses", p.losses}, {"ties", p.ties}, {"inconsistent", p.inconsistent},
            {"failed_pairs", p.failedPairs}, {"consistency", optionalJson(p.consistency)},
            {"first_position_rate", optionalJson(p.firstPositionRate)}, {"win_rate", optionalJson(p.winRate)},
            {"win_rate_ci", ci}, {"win_or_tie_rate", optionalJson(p.winOrTieRate)},
            {"sign_test_p", p.signTestP}, {"prompts", p.prompts}, {"prompt_wins", p.promptWins},
            {"prompt_losses", p.promptLosses}, {"prompt_ties", p.promptTies},
            {"prompt_win_share", optionalJson(p.promptWinShare)},
            {"prompt_win_share_ci",
                p.promptWinShareCi ? json::array({p.promptWinShareCi->lo, p.promptWinShareCi->hi})
                                   : json(nullptr)},
            {"median_length_difference", optionalJson(p.medianLengthDifference)},
            {"longer_picked_rate", optionalJson(p.longerPickedRate)}, {"winner", winner},
            {"verdict", p.verdict.toStdString()}});
    }
    return {{"judge", judge}, {"rubric", rubric}, {"pairwise", pairwise}};
}

} // namespace qs

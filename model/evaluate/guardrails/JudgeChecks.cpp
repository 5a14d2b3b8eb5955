// SPDX-License-Identifier: MIT
// Whether an LLM judge's verdicts can be trusted: the biases Zheng et al. (2023, "Judging
// LLM-as-a-Judge") measured — self-preference, position, verbosity — plus a judge that disagrees
// with itself, too few pairs for a verdict, and failures that fall on one arm. Every check reads
// Context::judged, which is empty without a judging, so none fires then.
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <algorithm>
#include <cmath>

namespace qs::guardrails {

namespace {

/// A base URL as a server identity: scheme, host (every loopback spelling alike), port, path.
QString serverKey(const QString& url)
{
    const QUrl u = normalizeBaseUrl(url);
    if (!u.isValid() || u.host().isEmpty())
        return {};
    QString host = u.host().toLower();
    if (host == u"localhost" || host.startsWith(QStringLiteral("127.")) || host == u"::1")
        host = QStringLiteral("loopback");
    const int port = u.port(u.scheme() == u"https" ? 443 : 80);
    QString path = u.path();
    while (path.endsWith(u'/'))
        path.chop(1);
    return QStringLiteral("%1://%2:%3%4").arg(u.scheme().toLower(), host).arg(port).arg(path);
}

/// Why the judge is arm `e`'s server or model; empty when it is neither.
QString sameAs(const Context& ctx, int e)
{
    const JudgeIdentity& judge = ctx.judged.judge;
    const RunEndpoint& arm = ctx.endpoint(e);
    const QString judgeServer = serverKey(judge.url);
    if (!judgeServer.isEmpty() && judgeServer == serverKey(arm.endpoint.baseUrl.toString()))
        return QStringLiteral("the judge (%1) is the endpoint %2").arg(judge.url, ctx.name(e));
    if (judge.model.trimmed().isEmpty())
        return {};
    QStringList names;
    addUnique(names, arm.endpoint.model);
    addUnique(names, jsonString(arm.probe, "model"));
    for (const QString& n : names)
        if (n.compare(judge.model, Qt::CaseInsensitive) == 0)
            return QStringLiteral("the judge's model '%1' is the model %2 serves")
                .arg(judge.model, ctx.name(e));
    // The same weights at another quantization prefer their own answers just as much.
    const ModelIdentity judgeId = modelIdentity({judge.model});
    const ModelIdentity armId = modelIdentity(names);
    if (judgeId.informative() && judgeId.tokens == armId.tokens)
        return QStringLiteral("the judge's model '%1' is %2's model (%3) at another quantization")
            .arg(judge.model, ctx.name(e), names.join(QStringLiteral(" / ")));
    return {};
}

/// One evidence line per pairwise result `describe` has something to say about.
template <typename Describe> Finding perPairwise(const Context& ctx, Describe describe)
{
    Finding found;
    for (const PairwiseResult& p : ctx.judged.pairwise) {
        const QString line = describe(p);
        if (line.isEmpty())
            continue;
        found.evidence << line;
        found.endpoints.push_back(p.candidate);
        found.endpoints.push_back(p.baseline);
    }
    return found;
}

QString versus(const PairwiseResult& p)
{
    return QStringLiteral("\"%1\" vs \"%2\"").arg(p.candidateLabel, p.baselineLabel);
}

QString pValue(double p)
{
    return p < 0.0001 ? QStringLiteral("< 0.0001") : QStringLiteral("= %1").arg(p, 0, 'g', 2);
}

/// Failure rates of the same kind of judgement on different arms: one line when the highest and the
/// lowest differ by ≥ 10 points and the highest has ≥ 3 failures.
struct FailureRate {
    int endpoint = 0;
    QString name;
    int failed = 0;
    int judged = 0; ///< failed + read
    double rate() const { return judged > 0 ? double(failed) / judged : 0; }
};

constexpr double kUnevenFailures = 0.10;
constexpr int kMinFailures = 3;

void compareFailures(Finding& found, const QString& what, std::vector<FailureRate> rates)
{
    std::erase_if(rates, [](const FailureRate& r) { return r.judged == 0; });
    if (rates.size() < 2)
        return;
    const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end(),
        [](const FailureRate& a, const FailureRate& b) { return a.rate() < b.rate(); });
    if (hi->rate() - lo->rate() < kUnevenFailures || hi->failed < kMinFailures)
        return;
    found.evidence << QStringLiteral("%1: the judge failed on %2 of %3 (%4) of %5 but on %6 of %7 (%8) of %9")
                          .arg(what)
                          .arg(hi->failed)
                          .arg(hi->judged)
                          .arg(fmtPercent(hi->rate()), hi->name)
                          .arg(lo->failed)
                          .arg(lo->judged)
                          .arg(fmtPercent(lo->rate()), lo->name);
    found.endpoints.push_back(hi->endpoint);
    found.endpoints.push_back(lo->endpoint);
}

} // namespace

std::optional<Guardrail> checkJudgeIsAnArm(const Context& ctx)
{
    if (!ctx.judged.judged)
        return std::nullopt;
    Finding found = perArm(ctx, [&ctx](int e, QStringList&) { return sameAs(ctx, e); });
    // Warning, not critical: the latency comparison is untouched and judging with one of the arms
    // is allowed; only the judged quality leans towards that arm.
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The judge is one of the compared models: it may prefer its own answers"),
        QStringLiteral(
            "LLM judges favour answers of their own model (self-preference). Judge again with a "
            "different, preferably larger model on another endpoint (`quantscope judge FILE --judge "
            "SPEC --out FILE`), or read the judged quality as leaning towards that arm."));
}

std::optional<Guardrail> checkJudgeConsistency(const Context& ctx)
{
    constexpr double kMinConsistency = MinJudgeConsistency;
    constexpr int kMinPairs = 5;
    Finding found = perPairwise(ctx, [](const PairwiseResult& p) {
        if (p.pairs < kMinPairs || !p.consistency || *p.consistency >= kMinConsistency)
            return QString();
        return QStringLiteral("%1: both orders agreed on %2 of %3 pairs (%4)")
            .arg(versus(p))
            .arg(p.pairs - p.inconsistent)
            .arg(p.pairs)
            .arg(fmtPercent(*p.consistency));
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The judge often changed its mind when the answers swapped places"),
        QStringLiteral("Below 70 % consistency the judge's picks follow the order more than the answers, and "
                       "the disagreements count as ties. Use a stronger judge model, check that its server "
                       "honours temperature 0, and treat this pairwise result as weak evidence."));
}

std::optional<Guardrail> checkJudgePositionBias(const Context& ctx)
{
    constexpr int kMinPicks = 10;
    constexpr double kBias = 0.25;
    constexpr double kMaxP = 0.01;
    Finding found = perPairwise(ctx, [](const PairwiseResult& p) {
        if (!p.firstPositionRate || p.positionPicks == 0)
            return QString();
        const double rate = *p.firstPositionRate;
        const int first = int(std::lround(rate * p.positionPicks));
        const double binomialP = mcnemarExactP(p.positionPicks - first, first);
        if (!((p.positionPicks >= kMinPicks && std::abs(rate - 0.5) >= kBias) || binomialP < kMaxP))
            return QString();
        return QStringLiteral("%1: picked the answer shown first in %2 of %3 judgements (%4, binomial p %5)")
            .arg(versus(p))
            .arg(first)
            .arg(p.positionPicks)
            .arg(fmtPercent(rate), pValue(binomialP));
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The judge favours one position over the answers"),
        QStringLiteral(
            "Each pair is judged in both orders, so the bias cannot make a winner, but it turns real "
            "preferences into inconsistent ties. Use a stronger judge model or clearer rubric "
            "instructions, and read the win rate together with the consistency."));
}

std::optional<Guardrail> checkJudgeTooFewPairs(const Context& ctx)
{
    const int minPairs = JudgeOptions {}.minPairs;
    Finding found = perPairwise(ctx, [&](const PairwiseResult& p) {
        if (p.pairs >= minPairs)
            return QString();
        QString line = QStringLiteral("%1: %2 pairs judged in both orders, %3 needed for a winner")
                           .arg(versus(p))
                           .arg(p.pairs)
                           .arg(minPairs);
        if (p.failedPairs > 0)
            line += QStringLiteral(" (%1 more failed)").arg(p.failedPairs);
        return line;
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Too few judged pairs for a pairwise verdict"),
        QStringLiteral(
            "The pairwise verdict reads \"too few pairs\" and names no winner. Run more iterations "
            "(`--runs`) or more tests, and run `quantscope judge` again to retry failed judgements."));
}

std::optional<Guardrail> checkJudgeFailuresUneven(const Context& ctx)
{
    if (!ctx.judged.judged)
        return std::nullopt;
    Finding found;
    std::vector<FailureRate> rubric;
    for (const RubricArm& arm : ctx.judged.rubricArms)
        rubric.push_back({arm.endpoint, ctx.name(arm.endpoint), arm.failed, arm.failed + arm.graded});
    compareFailures(found, QStringLiteral("rubric grades"), std::move(rubric));
    std::vector<FailureRate> pairs;
    for (const PairwiseResult& p : ctx.judged.pairwise)
        pairs.push_back({p.candidate, QStringLiteral("\"%1\"").arg(p.candidateLabel), p.failedPairs,
            p.failedPairs + p.pairs});
    compareFailures(found, QStringLiteral("pairs against the baseline"), std::move(pairs));
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The judge failed more often on one arm's answers"),
        QStringLiteral(
            "The arm with more failures is judged on a biased sample (often its longest answers, "
            "which time out or break the judge's JSON). Read the failures' errors in the responses "
            "view, raise the judge's timeout or use a judge with a longer context, and run "
            "`quantscope judge` again to retry them."));
}

std::optional<Guardrail> checkJudgeVerbosity(const Context& ctx)
{
    constexpr int kMinPicks = 10;
    constexpr double kLonger = 0.75;
    Finding found = perPairwise(ctx, [](const PairwiseResult& p) {
        if (p.lengthPicks < kMinPicks || !p.longerPickedRate || *p.longerPickedRate < kLonger)
            return QString();
        QString line = QStringLiteral("%1: the judge picked the longer answer in %2 of %3 judgements (%4)")
                           .arg(versus(p))
                           .arg(std::lround(*p.longerPickedRate * p.lengthPicks))
                           .arg(p.lengthPicks)
                           .arg(fmtPercent(*p.longerPickedRate));
        if (p.medianLengthDifference)
            line += QStringLiteral("; the candidate's answers were %1 characters %2 (median)")
                        .arg(std::lround(std::abs(*p.medianLengthDifference)))
                        .arg(*p.medianLengthDifference >= 0 ? QStringLiteral("longer")
                                                            : QStringLiteral("shorter"));
        return line;
    });
    return report(ctx, std::move(found), Severity::Info,
        QStringLiteral("The judge preferred the longer answer"),
        QStringLiteral(
            "Judges prefer longer answers (verbosity bias); a voice assistant wants shorter ones. "
            "Read the win rate with the length difference in mind, or grade length explicitly with "
            "a rubric criterion such as \"right length for speech\"."));
}

} // namespace qs::guardrails

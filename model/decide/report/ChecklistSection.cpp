// SPDX-License-Identifier: MIT
// The drop-in replacement checklist, as the seeds' Phase 6 lists it (and Phase 5's perplexity
// check, as next-token fidelity): each item filled from the measurement that decides it — the
// profile's criteria where it has them, the run's own figures otherwise — and marked "not
// measured" where nothing does. Deployment is never measurable here.
#include "model/core/GatePatterns.h"
#include "model/decide/recommend/CriterionText.h"
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"
#include "model/gates/QualityGates.h"

#include <functional>
#include <map>
#include <set>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

using Outcome = CriterionResult::Outcome;

enum class Status { Yes, No, Undecided, NotMeasured, ByHand };

struct Item {
    Status status = Status::NotMeasured;
    QString evidence; ///< the numbers that decide it
};

Inline statusCell(Status s)
{
    switch (s) {
    case Status::Yes:
        return {Style::Good, u"✓ yes"_s};
    case Status::No:
        return {Style::Bad, u"✗ no"_s};
    case Status::Undecided:
        return {Style::Warn, u"undecided"_s};
    case Status::NotMeasured:
        return {Style::Italic, u"not measured"_s};
    case Status::ByHand:
        break;
    }
    return {Style::Italic, u"check by hand"_s};
}

// The profile's criteria that speak to an item: a failure decides it, then an open question, then
// a figure that was not measured; otherwise every one passed.
std::optional<Item> fromCriteria(const Recommendation& r, const std::function<bool(const Criterion&)>& about)
{
    std::vector<const CriterionResult*> hits;
    for (const CriterionResult& c : r.criteria)
        if (about(c.criterion))
            hits.push_back(&c);
    if (hits.empty())
        return std::nullopt;
    const auto any = [&](Outcome o) {
        return std::any_of(
            hits.begin(), hits.end(), [o](const CriterionResult* c) { return c->outcome == o; });
    };
    Item item;
    item.status = any(Outcome::Fail) ? Status::No
        : any(Outcome::Inconclusive) ? Status::Undecided
        : any(Outcome::NotMeasured)  ? Status::NotMeasured
                                     : Status::Yes;
    QStringList parts;
    for (const CriterionResult* c : hits) {
        // "Not worse than the baseline" is in the title already.
        const bool stated = c->required.isEmpty() || c->criterion.kind == Criterion::Kind::MetricNotWorse
            || c->criterion.kind == Criterion::Kind::GateNotWorse
            || c->criterion.kind == Criterion::Kind::JudgePairwiseNotWorse;
        parts << c->criterion.title + u": "_s + c->measured
                + (stated ? QString() : u" (required "_s + c->required + u")"_s);
    }
    item.evidence = parts.join(u"; "_s);
    return item;
}

bool isProtocolFailure(FailureKind k)
{
    return k == FailureKind::RouteNotFound || k == FailureKind::NotOpenAiCompatible
        || k == FailureKind::NotStreaming || k == FailureKind::StreamError
        || k == FailureKind::MalformedStream || k == FailureKind::BadRequest;
}

Item apiItem(const Context& cx, int endpoint)
{
    int measured = 0, answered = 0, otherFailures = 0;
    std::map<QString, int> protocol;
    for (const RunRecord& rec : cx.run.records) {
        if (rec.warmup || rec.endpoint != endpoint)
            continue;
        ++measured;
        if (rec.request.ok())
            ++answered;
        else if (isProtocolFailure(rec.request.failure.kind))
            ++protocol[failureKindId(rec.request.failure.kind)];
        else
            ++otherFailures;
    }
    Item item;
    if (measured == 0)
        return {Status::NotMeasured, u"no measured request"_s};
    QStringList kinds;
    int failed = 0;
    for (const auto& [kind, n] : protocol) {
        kinds << QString::number(n) + u" × "_s + kind;
        failed += n;
    }
    item.status = failed == 0 && answered > 0 ? Status::Yes : Status::No;
    item.evidence
        = u"%1 of %2 measured requests answered with a parsed OpenAI stream"_s.arg(answered).arg(measured);
    if (failed > 0)
        item.evidence += u"; %1 protocol failures ("_s.arg(failed) + kinds.join(u", "_s) + u")"_s;
    if (otherFailures > 0)
        item.evidence += u"; %1 other failures (timeouts, connection)"_s.arg(otherFailures);
    return item;
}

// A gate with no criterion in the profile: the candidate against the baseline's pass rate.
Item gateItem(const Context& cx, const Recommendation& r, const QString& gate)
{
    const auto c = cx.gateTotal(r.candidate, gate);
    const auto b = cx.gateTotal(r.baseline, gate);
    if (c.second == 0)
        return {Status::NotMeasured, u"no answer judged for "_s + gate + u" (the suite has no such test)"_s};
    const double rate = double(c.first) / c.second;
    Item item;
    item.evidence = u"%1 passed %2"_s.arg(r.candidateLabel, gateCount(c));
    if (b.second > 0)
        item.evidence += u", %1 %2"_s.arg(r.baselineLabel, gateCount(b));
    const bool ok = b.second == 0 || rate + 1e-9 >= double(b.first) / b.second;
    item.status = ok ? Status::Yes : Status::No;
    return item;
}

Item toolsItem(const Context& cx, const Recommendation& r)
{
    Item item = fromCriteria(r, [](const Criterion& c) {
        return c.gate == gate_names::toolCall;
    }).value_or(gateItem(cx, r, gate_names::toolCall));
    int rejected = 0;
    for (const RunRecord& rec : cx.run.records)
        rejected += !rec.warmup && rec.endpoint == r.candidate
            && rec.request.failure.kind == FailureKind::ToolsNotEnabled;
    if (rejected > 0) {
        item.status = Status::No;
        item.evidence
            += u"; %1 requests rejected because tools are not enabled on the server"_s.arg(rejected);
    }
    return item;
}

// The seeds' "thinking mode works in both on/off configurations", from thinking_follows_request:
// the distinct prompts (test ids) asked with thinking on and with it off, and those where a judged
// request did not follow — with thinking on, it must also have answered right (expected_answer).
struct ThinkingPrompts {
    std::set<QString> on, off;
    std::map<QString, QString> onFailed, offFailed; ///< test → what went wrong ("" for off)
};

ThinkingPrompts thinkingPrompts(const Context& cx, int endpoint)
{
    ThinkingPrompts p;
    const std::string follows = gate_names::thinkingFollowsRequest.toStdString();
    const std::string answer = gate_names::expectedAnswer.toStdString();
    for (const RunRecord& rec : cx.run.records) {
        if (rec.warmup || rec.endpoint != endpoint)
            continue;
        const std::optional<bool> asked = requestedThinking(rec.request.requestBody);
        const auto verdict = rec.gates->find(follows);
        if (!asked || verdict == rec.gates->end() || !verdict->is_boolean())
            continue; // not judged: failed, or written before the gate existed
        const auto right = rec.gates->find(answer);
        const bool wrong = *asked && right != rec.gates->end() && right->is_boolean() && !right->get<bool>();
        (*asked ? p.on : p.off).insert(rec.test);
        if (!*asked && !verdict->get<bool>())
            p.offFailed[rec.test];
        else if (*asked && !verdict->get<bool>())
            p.onFailed[rec.test] = u"no separate thought"_s; // the worse of the two, whatever came first
        else if (wrong)
            p.onFailed.try_emplace(rec.test, u"wrong answer"_s);
    }
    return p;
}

// "1 of 2 prompts thought apart from the answer and answered right (not: b: wrong answer)"
QString thinkingCount(
    const std::set<QString>& all, const std::map<QString, QString>& failed, const QString& held)
{
    QString text = u"%1 of %2 prompts %3"_s.arg(all.size() - failed.size()).arg(all.size()).arg(held);
    QStringList which;
    for (const auto& [test, why] : failed)
        which << (why.isEmpty() ? test : test + u": "_s + why);
    if (!which.isEmpty())
        text += u" (not: "_s + which.join(u", "_s) + u')';
    return text;
}

QString thinkingSummary(const ThinkingPrompts& p)
{
    if (p.on.empty() && p.off.empty())
        return u"no request judged with thinking on or off"_s;
    QStringList parts;
    if (!p.on.empty())
        parts << u"thinking on: "_s
                + thinkingCount(p.on, p.onFailed, u"thought apart from the answer and answered right"_s);
    if (!p.off.empty())
        parts << u"thinking off: "_s + thinkingCount(p.off, p.offFailed, u"without reasoning"_s);
    return parts.join(u"; "_s);
}

Item thinkingItem(const Context& cx, const Recommendation& r)
{
    const ThinkingPrompts c = thinkingPrompts(cx, r.candidate);
    const QString baseline
        = u"; baseline %1: "_s.arg(r.baselineLabel) + thinkingSummary(thinkingPrompts(cx, r.baseline));
    if (c.on.empty()) {
        const bool runAskedOn
            = std::any_of(cx.run.records.begin(), cx.run.records.end(), [](const RunRecord& rec) {
                  return !rec.warmup && requestedThinking(rec.request.requestBody) == true;
              });
        if (!runAskedOn)
            return {Status::NotMeasured,
                u"no test asked for thinking on, so only one direction could be seen: run the "
                "voice-assistant suite, which has thinking pairs (the same prompt with thinking on and off)"_s};
        return {Status::NotMeasured,
            u"%1: no request with thinking on was judged (they failed, or the file predates the "
            "thinking_follows_request gate)"_s.arg(r.candidateLabel)
                + baseline};
    }
    Item item;
    item.evidence = r.candidateLabel + u": "_s + thinkingSummary(c) + baseline;
    if (!c.onFailed.empty() || !c.offFailed.empty())
        item.status = Status::No;
    else if (c.off.empty()) {
        item.status = Status::Undecided;
        item.evidence += u"; no request with thinking off was judged"_s;
    } else {
        item.status = Status::Yes;
    }
    return item;
}

Item memoryItem(const Context& cx, const Recommendation& r)
{
    const auto budget = fromCriteria(r, [](const Criterion& c) {
        return c.kind == Criterion::Kind::ResourceMax
            && (c.resource == Criterion::Resource::PeakMemory
                || c.resource == Criterion::Resource::MemoryAtConcurrency);
    });
    if (budget) {
        Item item = *budget;
        if (item.status == Status::NotMeasured)
            item.evidence += u"; give the endpoint metrics=URL of a DCGM exporter (GPU) or a node exporter "
                             "(unified memory)"_s;
        return item;
    }
    const EndpointResources* e = cx.resources(r.candidate);
    if (!e || !e->memoryPeak.value)
        return {Status::NotMeasured,
            u"no memory figure: give the endpoint metrics=URL of a DCGM exporter (GPU) or a node exporter "
            u"(unified "
            "memory)"_s};
    const QString peak = resourceValueText(Criterion::Resource::PeakMemory, *e->memoryPeak.value);
    if (!e->memoryTotal.value)
        return {Status::ByHand,
            u"peak %1; no budget in the profile and no memory total to compare with"_s.arg(peak)};
    const bool fits = *e->memoryPeak.value <= *e->memoryTotal.value;
    return {fits ? Status::Yes : Status::No,
        u"peak %1 of %2 total (no budget in the profile: compared with the memory total)"_s.arg(
            peak, resourceValueText(Criterion::Resource::PeakMemory, *e->memoryTotal.value))};
}

// The paired rows of the comparison for `metrics` (or gates), when the profile says nothing.
Item comparisonItem(const Context& cx, const Recommendation& r, bool latency)
{
    const ArmComparison* arm = nullptr;
    for (const ArmComparison& a : cx.ev.comparison.arms)
        if (a.baseline == r.baseline && a.candidate == r.candidate)
            arm = &a;
    if (!arm)
        return {Status::NotMeasured, u"not compared (no paired comparison)"_s};
    QStringList parts;
    bool worse = false, open = false;
    const auto judge = [&](const QString& what, Verdict v, const QString& numbers) {
        worse |= v == Verdict::BaselineBetter;
        open |= v == Verdict::TooFewPairs;
        parts << what + u": "_s + numbers
                + (v == Verdict::BaselineBetter     ? u" (baseline better)"_s
                        : v == Verdict::TooFewPairs ? u" (too few pairs)"_s
                                                    : QString());
    };
    if (latency) {
        for (const MetricComparison& m : arm->metrics)
            if (m.test.isEmpty() && m.turn == 0
                && (m.metric == Metric::TtftVisible || m.metric == Metric::FirstSentence))
                judge(metricId(m.metric), m.verdict,
                    fmtMetric(m.metric, m.candidateMedian) + u" vs "_s
                        + fmtMetric(m.metric, m.baselineMedian));
    } else {
        for (const GateComparison& g : arm->gates)
            if (g.test.isEmpty())
                judge(gateTitle(g.gate), g.verdict, u"difference "_s + fmtPercent(g.difference));
    }
    if (parts.isEmpty())
        return {Status::NotMeasured, u"no pooled comparison row"_s};
    return {worse ? Status::No : open ? Status::Undecided : Status::Yes, parts.join(u"; "_s)};
}

// The seeds' Phase 5 "perplexity comparison (NVFP4 should be <1% degradation vs FP16)", through the
// API: the profile's fidelity criteria where it has them, else the measured figures against the
// reference (no limit to judge them by). Nothing when neither says anything.
std::optional<Item> fidelityItem(const Context& cx, const Recommendation& r)
{
    if (auto item = fromCriteria(r, isFidelityCriterion)) {
        if (item->status == Status::NotMeasured)
            item->evidence
                += u"; run the fidelity suite (quantscope run --suite fidelity … --reference NAME, "
                   "NAME the highest-precision endpoint) to compare next-token choices with a "
                   "reference"_s;
        return item;
    }
    const Fidelity& f = cx.ev.fidelity;
    if (!f.measured())
        return std::nullopt;
    if (r.candidate == f.reference)
        return Item {Status::Yes, u"%1 is the fidelity reference"_s.arg(r.candidateLabel)};
    for (const FidelityArm& a : f.arms)
        if (a.endpoint == r.candidate) {
            const QString kl = a.klMean ? u"mean KL %1 nats"_s.arg(klText(*a.klMean))
                                        : u"KL not comparable ("_s + klMissingWhy(a) + u")"_s;
            return Item {Status::ByHand,
                u"flip rate %1 (%2 of %3 prompts), %4 against %5; the profile sets no limit"_s
                    .arg(fmtPercent(a.flipRate))
                    .arg(int(a.prompts.size()) - a.identical)
                    .arg(a.prompts.size())
                    .arg(kl, f.referenceLabel)};
        }
    return Item {Status::NotMeasured, u"%1 answered no fidelity prompt"_s.arg(r.candidateLabel)};
}

QString runtimeOf(const Context& cx, int endpoint)
{
    const RunEndpoint& e = cx.run.endpoints.at(std::size_t(endpoint));
    const QString probed = probeString(e, "runtime");
    return probed.isEmpty() ? runtimeName(e.endpoint.runtime) : probed;
}

void checklist(Doc& d, const Context& cx, const Recommendation& r)
{
    Block t = table({line(u"Item"_s), line(u"Status"_s), line(u"What decides it"_s)}, {false, false, false});
    const auto row = [&](const QString& what, const Item& item) {
        t.rows.push_back({line(what), {statusCell(item.status)}, line(item.evidence)});
    };
    row(u"OpenAI-compatible API (same endpoint format)"_s, apiItem(cx, r.candidate));
    row(u"Tool calls work"_s, toolsItem(cx, r));
    row(u"Reasoning / thinking controllable"_s, thinkingItem(cx, r));
    row(u"Memory fits the budget"_s, memoryItem(cx, r));
    row(u"Latency equal or better"_s, fromCriteria(r, [](const Criterion& c) {
        return c.kind == Criterion::Kind::MetricNotWorse
            && (c.metric == Metric::TtftAny || c.metric == Metric::TtftVisible
                || c.metric == Metric::FirstSentence || c.metric == Metric::E2e);
    }).value_or(comparisonItem(cx, r, true)));
    row(u"Quality equivalent"_s, fromCriteria(r, [](const Criterion& c) {
        return c.kind == Criterion::Kind::GateNotWorse;
    }).value_or(comparisonItem(cx, r, false)));
    // Only when the profile asks an LLM judge: the seeds' list has no such item, the issue does.
    if (auto judged = fromCriteria(r, isJudgeCriterion)) {
        if (judged->status == Status::NotMeasured)
            judged->evidence += u"; run quantscope judge FILE --judge SPEC to have an LLM judge grade and "
                                "compare the answers"_s;
        row(u"Answers as good (LLM judge)"_s, *judged);
    }
    if (const auto fidelity = fidelityItem(cx, r))
        row(u"Next-token fidelity vs the reference (the seeds' perplexity check)"_s, *fidelity);
    const QString from = runtimeOf(cx, r.baseline);
    const QString to = runtimeOf(cx, r.candidate);
    row(u"Deployment (the start script launches the new server)"_s,
        {Status::ByHand,
            from == to
                ? u"same runtime (%1): not measurable here"_s.arg(to)
                : u"%1 → %2: a different runtime to install, start and monitor; not measurable here"_s.arg(
                    from, to)});
    d.push_back(std::move(t));
}

} // namespace

void checklistSection(Doc& d, const Context& cx)
{
    if (cx.in.recommendations.empty())
        return;
    heading(d, 2, u"Drop-in replacement checklist"_s);
    paragraph(d,
        line(u"The seeds' checklist for replacing the running server, each item filled from the measurement "
             "that decides it: the decision profile's criteria where it has them, the run's own figures "
             "otherwise."_s));
    for (const Recommendation& r : cx.in.recommendations) {
        if (cx.in.recommendations.size() > 1)
            heading(d, 3, r.candidateLabel + u" replacing "_s + r.baselineLabel);
        checklist(d, cx, r);
    }
}

} // namespace qs::report

// SPDX-License-Identifier: MIT
#include "model/decide/report/Context.h"

#include "model/decide/report/ReportText.h"
#include "model/gates/GateWords.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace qs::report {

QString gateTitle(const QString& gate)
{
    const GateWords* w = gateWords(gate);
    return w ? w->reportTitle : gate;
}

Line guardrailLine(const Guardrail& g)
{
    return {g.severity == Guardrail::Severity::Info ? plain(g.title + u": "_s)
                                                    : Inline {Style::Warn, g.title + u": "_s},
        plain(g.evidence + (g.advice.isEmpty() ? QString() : u" — "_s + g.advice))};
}

QString decisionWord(Recommendation::Decision d)
{
    switch (d) {
    case Recommendation::Decision::Switch:
        return u"SWITCH"_s;
    case Recommendation::Decision::KeepBaseline:
        return u"KEEP BASELINE"_s;
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return u"INCONCLUSIVE"_s;
}

QString decisionTitle(const Recommendation& r)
{
    switch (r.decision) {
    case Recommendation::Decision::Switch:
        return u"Switch to "_s + r.candidateLabel;
    case Recommendation::Decision::KeepBaseline:
        return u"Keep "_s + r.baselineLabel;
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return u"Inconclusive"_s;
}

Style decisionStyle(Recommendation::Decision d)
{
    switch (d) {
    case Recommendation::Decision::Switch:
        return Style::Good;
    case Recommendation::Decision::KeepBaseline:
        return Style::Bad;
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return Style::Warn;
}

/// "Recommendation: KEEP BASELINE — Keep Q4_K_M: NVFP4 fails 3 of 7 criteria (…)"
Line decisionLine(const Recommendation& r)
{
    return {bold(u"Recommendation: "_s), {decisionStyle(r.decision), decisionWord(r.decision)},
        plain(u" — "_s + (r.headline.isEmpty() ? decisionTitle(r) : r.headline))};
}

Inline outcomeCell(CriterionResult::Outcome o)
{
    switch (o) {
    case CriterionResult::Outcome::Pass:
        return {Style::Good, u"PASS"_s};
    case CriterionResult::Outcome::Fail:
        return {Style::Bad, u"FAIL"_s};
    case CriterionResult::Outcome::NotMeasured:
        return {Style::Italic, u"not measured"_s};
    case CriterionResult::Outcome::Inconclusive:
        break;
    }
    return {Style::Warn, u"INCONCLUSIVE"_s};
}

/// Quantization as the endpoint states it, else as the model's name shows it.
QString quantizationOf(const RunEndpoint& e)
{
    if (!e.endpoint.quantization.isEmpty())
        return e.endpoint.quantization;
    static const QRegularExpression pattern(
        u"(?<![a-z0-9])(iq[1-4]_[a-z0-9_]+|q[2-8]_k(_[sml])?|q[4-8]_[01]|nvfp4|mxfp4|fp8|fp4|int8|int4|"
        "awq|gptq|w4a16|w8a8|bf16|fp16|f16)(?![a-z0-9])"_s,
        QRegularExpression::CaseInsensitiveOption);
    const QString model = e.endpoint.model.isEmpty() ? field(e.probe, "model") : e.endpoint.model;
    for (const QString& name : {model, field(e.probe, "model_path")}) {
        const QRegularExpressionMatch m = pattern.match(name);
        if (m.hasMatch())
            return m.captured(1).toUpper() + u" (from the model name)"_s;
    }
    return u"not stated"_s;
}

QString probeString(const RunEndpoint& e, const char* key)
{
    return field(e.probe, key);
}

Line winnerCell(const Context& cx, Verdict verdict, int winner, int pairs, int minPairs)
{
    switch (verdict) {
    case Verdict::TooFewPairs:
        return {italic(
            u"too few pairs ("_s + QString::number(pairs) + u" of "_s + QString::number(minPairs) + u")"_s)};
    case Verdict::NoClearDifference:
        return {italic(u"no clear difference"_s)};
    case Verdict::CandidateMore:
        return {plain(u"candidate writes more"_s)};
    case Verdict::CandidateFewer:
        return {plain(u"candidate writes fewer"_s)};
    case Verdict::CandidateBetter:
    case Verdict::BaselineBetter:
        break;
    }
    return {bold(cx.label(winner))};
}

} // namespace qs::report

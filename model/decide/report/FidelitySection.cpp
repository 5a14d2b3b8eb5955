// SPDX-License-Identifier: MIT
// The Fidelity section: how far each arm's greedy next-token choices drift from the reference's
// (Evaluation::fidelity, docs/methodology.md "Fidelity") — the method in words, one row per arm
// (flips with their interval, mean KL or why it is not comparable, the shared prefix, what
// happened at the divergences), where the answers first diverge, the prompts that drifted most,
// and what a server could not send. Only when fidelity was measured.
#include "model/decide/recommend/CriterionText.h"
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <algorithm>
#include <array>
#include <climits>
#include <functional>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

constexpr int MaxWorstPrompts = 5;

QString probText(double p)
{
    return QString::number(p, 'g', 2);
}

QString orDash(const std::optional<double>& v, const std::function<QString(double)>& f)
{
    return v ? f(*v) : u"—"_s;
}

void method(Doc& d, const Context& cx)
{
    const Fidelity& f = cx.ev.fidelity;
    const int topN = cx.suite ? cx.suite->defaults.topLogprobs : SuiteDefaults {}.topLogprobs;
    paragraph(d,
        {bold(u"Reference: "_s), plain(f.referenceLabel),
            plain(f.referenceMarked
                    ? u" (marked with --reference): every other arm is compared with it."_s
                    : u" — the baseline, because no reference was marked. Mark a higher-precision endpoint "
                      "(e.g. BF16) with `quantscope run … --reference NAME` to compare every quantization, "
                      "the baseline's included, with it."_s)});
    paragraph(d,
        line(u"Every arm answered the same fidelity prompts greedily (temperature 0, a fixed seed, the same "
             "max_tokens on every arm) and sent, for each token it chose, its log-probability and the %1 "
             "most likely alternatives (top_logprobs %1). Each answer is compared with the reference's "
             "answer to the same prompt, token by token, the tokens lined up by their bytes. Where two "
             "arms tokenize differently, only the shared prefix in characters is measured and KL is "
             "marked not comparable."_s.arg(topN)));
    bullets(d,
        {{bold(u"Flips. "_s),
             plain(u"A prompt whose greedy answer is not identical to the reference's. The flip rate carries "
                   u"an "
                   "exact Clopper–Pearson 95 % interval. Flips rather than accuracy show how far a quantized "
                   "model moved (Dutta et al. 2024, \"Accuracy is Not All You Need\"): two models can score "
                   "the "
                   "same while answering different prompts differently."_s)},
            {bold(u"Shared prefix. "_s),
                plain(u"The tokens before the first divergence, and that as a share of the reference's "
                      "answer."_s)},
            {bold(u"KL. "_s),
                plain(
                    u"At each position of the shared prefix and at the divergence itself (where both arms "
                    u"had "
                    "the same text before them), KL(reference ‖ candidate) in nats over the union of both "
                    "top lists plus one tail bucket for the probability neither list shows; a token missing "
                    "from one list gets at most that list's smallest listed probability. Exact when the "
                    "lists hold the whole distribution, an estimate otherwise (docs/methodology.md, \"KL "
                    "over truncated top-k lists\"). The mean pools every compared token, as "
                    "llama-perplexity's \"Mean KLD\" does, with a bootstrap 95 % interval over prompts."_s)},
            {bold(u"Not llama-perplexity. "_s),
                plain(
                    u"llama-perplexity --kl-divergence compares two models within one engine, over the full "
                    "vocabulary, on the same text. Here the arms run on different engines and only what "
                    "each server sends through the API is compared: the numbers compare the arms with each "
                    "other, not with llama-perplexity's."_s)},
            {bold(u"At the divergence. "_s),
                plain(u"The rank and probability the candidate gave the reference's token. A near-tie: at "
                      u"least "
                      "half the probability of its own choice; a confident flip: unlisted, or below a tenth "
                      "of it. Grade flips: prompts whose expected-answer or tool-call verdict changed. "
                      "|Δ logprob|: the mean absolute difference of the chosen token's log-probability over "
                      "the shared prefix."_s)}});
}

Line klCell(const FidelityArm& a)
{
    if (!a.klMean)
        return {{Style::Warn, u"not comparable: "_s + klMissingWhy(a)}};
    QString t = klText(*a.klMean);
    if (a.klCi)
        t += u" ["_s + klText(a.klCi->lo) + u" – "_s + klText(a.klCi->hi) + u"]"_s;
    if (!a.klComparable && a.comparablePrompts < int(a.prompts.size()))
        t += u" (%1 of %2 prompts)"_s.arg(a.comparablePrompts).arg(a.prompts.size());
    return line(t);
}

void armsTable(Doc& d, const Context& cx)
{
    const Fidelity& f = cx.ev.fidelity;
    Block t = table({line(u"Arm vs "_s + f.referenceLabel), line(u"Prompts"_s), line(u"Identical"_s),
                        line(u"Flip rate [95 % CI]"_s), line(u"Mean KL, nats [95 % CI]"_s), line(u"p99 KL"_s),
                        line(u"Shared prefix (median tokens, mean share)"_s), line(u"Mean |Δ logprob|"_s),
                        line(u"Grade flips"_s), line(u"Near-ties / confident"_s)},
        {false, true, true, true, true, true, true, true, true, true});
    for (const FidelityArm& a : f.arms) {
        const int flips = int(a.prompts.size()) - a.identical;
        t.rows.push_back({line(cx.label(a.endpoint)), line(QString::number(a.prompts.size())),
            line(QString::number(a.identical)),
            {{flips > 0 ? Style::Plain : Style::Good,
                fmtPercent(a.flipRate) + fmtInterval(a.flipRateCi, fmtPercent)}},
            klCell(a), line(orDash(a.klP99, klText)),
            line(QString::number(a.medianSharedPrefixTokens, 'g', 4) + u" · "_s
                + fmtPercent(a.meanSharedPrefixFraction)),
            line(orDash(a.meanAbsLogprobDelta, [](double v) { return QString::number(v, 'g', 3); })),
            line(a.gradedPrompts > 0 ? u"%1 of %2"_s.arg(a.gradeFlips).arg(a.gradedPrompts) : u"—"_s),
            line(u"%1 / %2"_s.arg(a.nearTies).arg(a.confidentFlips))});
    }
    d.push_back(std::move(t));
}

// Where the answers first diverge, bucketed by token position in the reference's answer.
void divergenceTable(Doc& d, const Context& cx)
{
    const Fidelity& f = cx.ev.fidelity;
    struct Bucket {
        QString name;
        int from;
        int to; ///< inclusive
    };
    const std::array<Bucket, 5> buckets {{{u"first token"_s, 0, 0}, {u"tokens 1–4"_s, 1, 4},
        {u"tokens 5–19"_s, 5, 19}, {u"tokens 20–99"_s, 20, 99}, {u"token 100 or later"_s, 100, INT_MAX}}};
    std::vector<Line> header {line(u"First divergence"_s)};
    for (const FidelityArm& a : f.arms)
        header.push_back(line(cx.label(a.endpoint)));
    Block t = table(header, std::vector<bool>(header.size(), true));
    t.numeric[0] = false;
    const auto share = [](int n, int of) {
        return of > 0 ? line(u"%1 (%2)"_s.arg(n).arg(fmtPercent(double(n) / of))) : line(u"—"_s);
    };
    std::vector<Line> identical {line(u"none (identical)"_s)};
    for (const FidelityArm& a : f.arms)
        identical.push_back(share(a.identical, int(a.prompts.size())));
    t.rows.push_back(std::move(identical));
    for (const Bucket& b : buckets) {
        std::vector<Line> row {line(b.name)};
        for (const FidelityArm& a : f.arms) {
            const auto n = std::count_if(a.prompts.begin(), a.prompts.end(), [&](const FidelityPrompt& p) {
                return p.firstDivergence && *p.firstDivergence >= b.from && *p.firstDivergence <= b.to;
            });
            row.push_back(share(int(n), int(a.prompts.size())));
        }
        t.rows.push_back(std::move(row));
    }
    heading(d, 3, u"Where the answers first diverge"_s);
    paragraph(d,
        line(u"The position of the first token that differs, in the reference's answer (0 is its first "
             "token), per arm: a divergence at the start changes the whole answer, a late one often only "
             "its ending."_s));
    d.push_back(std::move(t));
}

// The prompts that drifted most: the highest KL first, then the earliest divergence.
std::vector<const FidelityPrompt*> worst(const FidelityArm& a)
{
    std::vector<const FidelityPrompt*> out;
    for (const FidelityPrompt& p : a.prompts)
        if (!p.identical || (p.kl && *p.kl > 0))
            out.push_back(&p);
    std::stable_sort(out.begin(), out.end(), [](const FidelityPrompt* x, const FidelityPrompt* y) {
        const double kx = x->kl.value_or(-1), ky = y->kl.value_or(-1);
        if (kx != ky)
            return kx > ky;
        return x->firstDivergence.value_or(INT_MAX) < y->firstDivergence.value_or(INT_MAX);
    });
    if (out.size() > std::size_t(MaxWorstPrompts))
        out.resize(std::size_t(MaxWorstPrompts));
    return out;
}

QString atDivergence(const FidelityPrompt& p)
{
    if (!p.firstDivergence || !p.tokensComparable)
        return u"—"_s;
    const QString own
        = p.candidateTokenProb ? u", its own choice "_s + probText(*p.candidateTokenProb) : QString();
    if (p.referenceTokenRank)
        return u"rank %1, p %2"_s.arg(*p.referenceTokenRank).arg(orDash(p.referenceTokenProb, probText))
            + own;
    if (p.listedCandidates > 0)
        return u"not in its top %1"_s.arg(p.listedCandidates) + own;
    return u"—"_s;
}

void worstPrompts(Doc& d, const Context& cx)
{
    const Fidelity& f = cx.ev.fidelity;
    Block t = table({line(u"Arm"_s), line(u"Test"_s), line(u"First divergence"_s), line(u"Shared prefix"_s),
                        line(u"KL"_s), line(u"Reference's token, as the arm rated it"_s), line(u"Grade"_s),
                        line(u"Note"_s)},
        {false, false, true, true, true, false, false, false});
    for (const FidelityArm& a : f.arms)
        for (const FidelityPrompt* p : worst(a)) {
            const QString where = cx.testName(p->test)
                + (cx.multiTurn.contains(p->test) ? u", turn "_s + QString::number(p->turn) : QString())
                + u", run "_s + QString::number(p->iteration);
            const QString divergence = p->firstDivergence ? u"token "_s + QString::number(*p->firstDivergence)
                    + (p->firstDivergenceChar
                            ? u" (character "_s + QString::number(*p->firstDivergenceChar) + u")"_s
                            : QString())
                                                          : u"identical"_s;
            t.rows.push_back({line(cx.label(a.endpoint)), line(where), line(divergence),
                line(u"%1 of %2 tokens (%3)"_s.arg(p->sharedPrefixTokens)
                         .arg(p->referenceTokens)
                         .arg(fmtPercent(p->sharedPrefixFraction))),
                line(p->kl                    ? klText(*p->kl)
                        : p->tokensComparable ? u"—"_s
                                              : u"not comparable"_s),
                line(atDivergence(*p)),
                line(!p->gradeChanged      ? u"—"_s
                        : *p->gradeChanged ? u"changed"_s
                                           : u"same"_s),
                line(p->note)});
        }
    if (t.rows.empty())
        return;
    heading(d, 3, u"The prompts that drifted most"_s);
    paragraph(d,
        line(u"Up to %1 per arm: the highest KL first, then the earliest divergence. The responses view of "
             "the dashboard marks where the two answers part."_s.arg(MaxWorstPrompts)));
    d.push_back(std::move(t));
}

void notes(Doc& d, const Context& cx)
{
    const Fidelity& f = cx.ev.fidelity;
    std::vector<Line> items;
    for (const QString& n : f.notes)
        items.push_back(line(n));
    for (const FidelityArm& a : f.arms)
        if (!a.support.isEmpty())
            items.push_back({bold(cx.label(a.endpoint) + u": "_s), plain(a.support)});
    for (const Guardrail& g : cx.ev.guardrails)
        if (g.id.contains(u"reference") || g.id.contains(u"fidelity"))
            items.push_back(guardrailLine(g));
    if (items.empty())
        return;
    heading(d, 3, u"Notes"_s);
    bullets(d, std::move(items));
}

} // namespace

void fidelitySection(Doc& d, const Context& cx)
{
    if (!cx.ev.fidelity.measured())
        return;
    heading(d, 2, u"Fidelity"_s);
    method(d, cx);
    armsTable(d, cx);
    divergenceTable(d, cx);
    worstPrompts(d, cx);
    notes(d, cx);
}

} // namespace qs::report

// SPDX-License-Identifier: MIT
// Whether the fidelity comparison measures the quantization and nothing else: the reference runs
// the same model, both arms saw the same prompt tokens, the servers sent logprobs, decoding was
// greedy, no draft model stood in for the target's logprobs, and the tokens line up
// (docs/guardrails.md, "Fidelity"; ../shared/reference/server-metrics-and-logprobs.md §2.5).
// Every check reads Context::fidelity, which is empty without fidelity prompts, so none fires then.
#include "model/evaluate/FidelityAlignment.h"
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <cmath>

namespace qs::guardrails {

namespace {

/// One evidence line per fidelity arm `describe` has something to say about (the reference is
/// involved in each).
template <typename Describe> Finding perFidelityArm(const Context& ctx, Describe describe)
{
    Finding found;
    for (const FidelityArm& arm : ctx.fidelity.arms) {
        const QString line = describe(arm, found.tests);
        if (line.isEmpty())
            continue;
        found.evidence << line;
        found.endpoints.push_back(arm.endpoint);
        found.endpoints.push_back(arm.reference);
    }
    return found;
}

/// The fidelity records of endpoint `e`.
std::vector<const RunRecord*> fidelityRecordsOf(const Context& ctx, int e)
{
    std::vector<const RunRecord*> out;
    for (int i : ctx.fidelity.records)
        if (ctx.run.records[std::size_t(i)].endpoint == e)
            out.push_back(&ctx.run.records[std::size_t(i)]);
    return out;
}

/// Every endpoint taking part in the fidelity comparison: the reference first, then the arms.
std::vector<int> fidelityEndpoints(const Context& ctx)
{
    std::vector<int> out;
    if (!ctx.fidelity.measured())
        return out;
    out.push_back(ctx.fidelity.reference);
    for (const FidelityArm& arm : ctx.fidelity.arms)
        out.push_back(arm.endpoint);
    return out;
}

/// "llama-server b6500" / "vLLM 0.17.1": the server as its probe named it.
QString serverName(const Context& ctx, int e)
{
    const QString version = jsonString(ctx.endpoint(e).probe, "server_version");
    const QString runtime = runtimeName(ctx.runtime(e));
    return version.isEmpty() ? runtime : runtime + u' ' + version;
}

} // namespace

std::optional<Guardrail> checkFidelityReferenceModel(const Context& ctx)
{
    Severity worst = Severity::Warning;
    Finding found = perFidelityArm(ctx, [&ctx, &worst](const FidelityArm& arm, QStringList&) {
        const QStringList refNames = modelNames(ctx, arm.reference);
        const QStringList armNames = modelNames(ctx, arm.endpoint);
        // The same weights at another quantization are what fidelity is for (the judge checks
        // read "the same model" the same way).
        const ModelIdentity ref = modelIdentity(refNames);
        const ModelIdentity other = modelIdentity(armNames);
        if (!ref.informative() || !other.informative() || ref.tokens == other.tokens)
            return QString();
        const bool differentWeights
            = (!ref.families.isEmpty() && !other.families.isEmpty() && ref.families != other.families)
            || (!ref.sizes.isEmpty() && !other.sizes.isEmpty() && ref.sizes != other.sizes);
        if (differentWeights)
            worst = Severity::Critical;
        return QStringLiteral("the reference %1 serves '%2' (%3), %4 serves '%5' (%6)")
            .arg(ctx.name(arm.reference), refNames.join(QStringLiteral("' / '")), ref.tokens.join(u'-'),
                ctx.name(arm.endpoint), armNames.join(QStringLiteral("' / '")), other.tokens.join(u'-'));
    });
    return report(ctx, std::move(found), worst,
        QStringLiteral("The fidelity reference is not the same model as the arm it judges"),
        QStringLiteral("Fidelity measures how far a quantization drifts from the same weights at full "
                       "precision. Mark as the reference (`--reference NAME`) an endpoint serving the same "
                       "fine-tune and size in BF16 or FP16; against another model every flip and every nat "
                       "of KL mixes the models' differences with the quantization's."),
        QStringLiteral(" | "));
}

std::optional<Guardrail> checkFidelityPromptMismatch(const Context& ctx)
{
    Finding found = perFidelityArm(ctx, [&ctx](const FidelityArm& arm, QStringList& tests) {
        int differ = 0, both = 0;
        QString example;
        for (const FidelityPrompt& p : arm.prompts) {
            const auto& ref = ctx.run.records[std::size_t(p.referenceRecord)].request.response.usage;
            const auto& cand = ctx.run.records[std::size_t(p.candidateRecord)].request.response.usage;
            if (!ref || !cand || !ref->promptTokens || !cand->promptTokens)
                continue;
            ++both;
            if (*ref->promptTokens == *cand->promptTokens)
                continue;
            ++differ;
            addUnique(tests, p.test);
            if (example.isEmpty())
                example = QStringLiteral("%1: %2 vs %3 prompt tokens")
                              .arg(p.test)
                              .arg(*cand->promptTokens)
                              .arg(*ref->promptTokens);
        }
        if (differ == 0)
            return QString();
        return QStringLiteral(
            "%1 counted other prompt tokens than the reference %2 on %3 of %4 fidelity prompts "
            "(e.g. %5)")
            .arg(ctx.name(arm.endpoint), ctx.name(arm.reference))
            .arg(differ)
            .arg(both)
            .arg(example);
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The arms did not see the same prompt tokens"),
        QStringLiteral(
            "Another chat template or tokenizer (a GGUF's embedded template, BOS handling, special "
            "tokens) conditions the model differently, and the drift that follows is not the "
            "quantization's. Serve every arm with the same chat template (llama-server "
            "--jinja --chat-template-file, vLLM --chat-template) and the model's own tokenizer."));
}

std::optional<Guardrail> checkFidelityNoLogprobs(const Context& ctx)
{
    Finding found;
    for (int e : fidelityEndpoints(ctx)) {
        int asked = 0, none = 0;
        for (const RunRecord* r : fidelityRecordsOf(ctx, e)) {
            if (!r->request.ok() || !fidelity::askedForLogprobs(r->request.requestBody))
                continue;
            ++asked;
            none += r->request.response.logprobs.present() ? 0 : 1;
        }
        if (none == 0)
            continue;
        found.evidence << QStringLiteral("%1 (%2) sent no logprobs for %3 of %4 requests that asked for them")
                              .arg(ctx.name(e), serverName(ctx, e))
                              .arg(none)
                              .arg(asked);
        found.endpoints.push_back(e);
    }
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("A server ignored `logprobs`: its fidelity is text only"),
        QStringLiteral("Without logprobs only the flip rate and the shared prefix (by characters) can be "
                       "measured; KL and the divergence's rank read \"not supported by this server\". "
                       "llama-server sends OpenAI-shaped logprobs since PR #10783 (December 2024) and "
                       "drops them with tools + stream; vLLM needs `top_logprobs` ≤ --max-logprobs "
                       "(default 20); SGLang sends them with `logprobs: true`. Update the server or ask "
                       "for them as it understands (llama-server: `n_probs`)."));
}

std::optional<Guardrail> checkFidelityNotGreedy(const Context& ctx)
{
    Finding found;
    for (int e : fidelityEndpoints(ctx)) {
        int sent = 0, notGreedy = 0;
        QString example;
        for (const RunRecord* r : fidelityRecordsOf(ctx, e)) {
            ++sent;
            const nlohmann::json& body = r->request.requestBody;
            const auto t = body.is_object() ? body.find("temperature") : body.end();
            if (body.is_object() && t != body.end() && t->is_number() && t->get<double>() == 0)
                continue;
            ++notGreedy;
            if (example.isEmpty())
                example = t != body.end() && t->is_number()
                    ? QStringLiteral("temperature %1").arg(t->get<double>())
                    : QStringLiteral("no temperature (the server's default)");
        }
        if (notGreedy == 0)
            continue;
        found.evidence << QStringLiteral("%1: %2 of %3 fidelity requests not greedy (%4)")
                              .arg(ctx.name(e))
                              .arg(notGreedy)
                              .arg(sent)
                              .arg(example);
        found.endpoints.push_back(e);
    }
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Fidelity prompts were not decoded greedily"),
        QStringLiteral("Sampling makes answers differ by chance, so flips no longer measure the "
                       "quantization, and SGLang then reports logprobs after temperature. Send fidelity "
                       "prompts with temperature 0 (the fidelity suite does; a test's own `temperature` "
                       "overrides it)."));
}

std::optional<Guardrail> checkFidelitySpeculative(const Context& ctx)
{
    Finding found;
    for (int e : fidelityEndpoints(ctx)) {
        int drafted = 0, emptyCertain = 0;
        for (const RunRecord* r : fidelityRecordsOf(ctx, e)) {
            const AssembledResponse& a = r->request.response;
            if (a.timings && a.timings->draftN && *a.timings->draftN > 0)
                drafted += int(*a.timings->draftN);
            // llama-server gives a drafted token p = 1 and no alternatives (issue #27972).
            for (const TokenLogprob& t : a.logprobs.tokens)
                emptyCertain += (t.logprob && *t.logprob == 0.0 && t.hasTop && t.top.empty()) ? 1 : 0;
        }
        if (drafted == 0 && emptyCertain == 0)
            continue;
        QStringList what;
        if (drafted > 0)
            what << QStringLiteral("%1 drafted tokens (timings.draft_n)").arg(drafted);
        if (emptyCertain > 0)
            what << QStringLiteral("%1 tokens with logprob 0 and no alternatives").arg(emptyCertain);
        found.evidence << QStringLiteral("%1: %2").arg(ctx.name(e), what.join(QStringLiteral(", ")));
        found.endpoints.push_back(e);
    }
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Speculative decoding distorts the logprobs of a fidelity arm"),
        QStringLiteral("llama-server reports drafted tokens as certain (logprob 0.0) with an empty top list, "
                       "so those positions carry no distribution and KL skips them. Disable drafting for "
                       "fidelity runs (start llama-server without --model-draft / --spec-*)."));
}

std::optional<Guardrail> checkFidelityTokenizers(const Context& ctx)
{
    Finding found = perFidelityArm(ctx, [&ctx](const FidelityArm& arm, QStringList& tests) {
        int incomparable = 0;
        QString why;
        for (const FidelityPrompt& p : arm.prompts) {
            if (p.tokensComparable || p.referenceIgnoredLogprobs || p.candidateIgnoredLogprobs)
                continue;
            ++incomparable;
            addUnique(tests, p.test);
            if (why.isEmpty())
                why = p.note;
        }
        if (incomparable == 0)
            return QString();
        return QStringLiteral("%1 vs the reference %2: %3 of %4 prompts compared by characters (%5)")
            .arg(ctx.name(arm.endpoint), ctx.name(arm.reference))
            .arg(incomparable)
            .arg(arm.prompts.size())
            .arg(why);
    });
    return report(ctx, std::move(found), Severity::Info,
        QStringLiteral("Tokens do not line up across arms: KL is not comparable"),
        QStringLiteral("The arms cut the same text into other tokens (another tokenizer or vocabulary, or "
                       "partial characters sent as U+FFFD), so their distributions are over different "
                       "things. Flip rate and shared prefix are still measured, by characters; compare KL "
                       "only between arms with the same tokenizer."));
}

} // namespace qs::guardrails

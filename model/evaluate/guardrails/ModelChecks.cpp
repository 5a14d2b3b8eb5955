// SPDX-License-Identifier: MIT
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <algorithm>
#include <set>

namespace qs::guardrails {

namespace {

QString quotedNames(const QStringList& names)
{
    QStringList q;
    for (const QString& n : names)
        q << QStringLiteral("'%1'").arg(n);
    return q.isEmpty() ? QStringLiteral("(no model name)") : q.join(QStringLiteral(" / "));
}

QString variantText(const std::pair<QString, QStringList>& v)
{
    return QStringLiteral("%1 (%2)").arg(v.first, v.second.join(QStringLiteral(", ")));
}

/// Each measured arm's model, as far as its names tell.
std::vector<ModelIdentity> identities(const Context& ctx)
{
    std::vector<ModelIdentity> ids;
    for (int e : ctx.arms)
        ids.push_back(modelIdentity(modelNames(ctx, e)));
    return ids;
}

} // namespace

QStringList modelNames(const Context& ctx, int e)
{
    const RunEndpoint& re = ctx.endpoint(e);
    const json& p = re.probe;
    QStringList names;
    const bool listed = !(p.is_object() && p.contains("model_listed") && p["model_listed"].is_boolean())
        || p["model_listed"].get<bool>();
    if (listed) {
        addUnique(names, re.endpoint.model);
        addUnique(names, jsonString(p, "model"));
    } else if (p.contains("models") && p["models"].is_array() && !p["models"].empty()
        && p["models"][0].is_string()) {
        // llama-server and SGLang ignore a model name they do not serve: the listed one answers.
        addUnique(names, QString::fromStdString(p["models"][0].get<std::string>()));
    }
    addUnique(names, jsonString(p, "model_path"));
    return names;
}

std::optional<Guardrail> checkModelUnknown(const Context& ctx)
{
    if (ctx.arms.size() < 2)
        return std::nullopt;
    const std::vector<ModelIdentity> ids = identities(ctx);
    QStringList unknown;
    Finding found;
    for (std::size_t i = 0; i < ctx.arms.size(); ++i) {
        if (!ids[i].informative()) {
            unknown << QStringLiteral("%1 serves %2")
                           .arg(ctx.name(ctx.arms[i]), quotedNames(modelNames(ctx, ctx.arms[i])));
            found.endpoints.push_back(ctx.arms[i]);
        }
    }
    if (!unknown.isEmpty())
        found.evidence << unknown.join(QStringLiteral("; "))
                + QStringLiteral(": no model family or size in the name, so Quantscope cannot check that the "
                                 "arms run the same model");
    return report(ctx, std::move(found), Severity::Info,
        QStringLiteral("Cannot tell from the model name which weights an endpoint serves"),
        QStringLiteral("Serve the model under its repository name (vLLM/SGLang --served-model-name, "
                       "llama-server --alias) or check by hand that every arm runs the same fine-tune "
                       "and size. The seeds compared a base model with a distilled one for three rounds "
                       "before noticing."));
}

std::optional<Guardrail> checkModelsDiffer(const Context& ctx)
{
    if (ctx.arms.size() < 2)
        return std::nullopt;
    const std::vector<ModelIdentity> ids = identities(ctx);
    // Compare every arm with the first (the baseline) on what the names do say.
    Severity worst = Severity::Info;
    Finding found;
    const int base = ctx.arms.front();
    const ModelIdentity& a = ids.front();
    for (std::size_t i = 1; i < ctx.arms.size(); ++i) {
        const ModelIdentity& b = ids[i];
        if (!a.informative() || !b.informative())
            continue;
        const int other = ctx.arms[i];
        QStringList reasons;
        Severity severity = Severity::Info;
        const auto asSet = [](const QStringList& l) { return std::set<QString>(l.begin(), l.end()); };
        if (!a.families.isEmpty() && !b.families.isEmpty() && asSet(a.families) != asSet(b.families)) {
            reasons << QStringLiteral("different model families (%1 vs %2)")
                           .arg(a.families.join(u'+'), b.families.join(u'+'));
            severity = Severity::Critical;
        }
        if (!a.sizes.isEmpty() && !b.sizes.isEmpty() && asSet(a.sizes) != asSet(b.sizes)) {
            reasons
                << QStringLiteral("different sizes (%1 vs %2)").arg(a.sizes.join(u'+'), b.sizes.join(u'+'));
            severity = Severity::Critical;
        }
        const auto onlyIn = [](const ModelIdentity& x, const ModelIdentity& y) {
            std::vector<std::pair<QString, QStringList>> only;
            for (const auto& v : x.variants)
                if (std::none_of(y.variants.begin(), y.variants.end(),
                        [&v](const auto& w) { return w.first == v.first; }))
                    only.push_back(v);
            return only;
        };
        const auto onlyA = onlyIn(a, b);
        const auto onlyB = onlyIn(b, a);
        const auto describe
            = [&](const std::vector<std::pair<QString, QStringList>>& only, int who, bool otherHasNone) {
                  for (const auto& v : only) {
                      reasons << QStringLiteral("%1 only in %2").arg(variantText(v), ctx.name(who));
                      // An unsuffixed name is often the instruct model itself ("Qwen3.5-27B"): weaker
                      // evidence.
                      const bool ambiguous = v.first == u"instruct" && otherHasNone;
                      severity = std::max(severity, ambiguous ? Severity::Warning : Severity::Critical);
                  }
              };
        describe(onlyA, base, b.variants.empty());
        describe(onlyB, other, a.variants.empty());
        if (reasons.isEmpty()) {
            QStringList otherA, otherB;
            for (const QString& t : a.other)
                if (!b.other.contains(t))
                    otherA << t;
            for (const QString& t : b.other)
                if (!a.other.contains(t))
                    otherB << t;
            if (!otherA.isEmpty())
                reasons << QStringLiteral("only %1 has %2")
                               .arg(ctx.name(base), otherA.join(QStringLiteral(", ")));
            if (!otherB.isEmpty())
                reasons << QStringLiteral("only %1 has %2")
                               .arg(ctx.name(other), otherB.join(QStringLiteral(", ")));
        }
        if (reasons.isEmpty())
            continue;
        worst = std::max(worst, severity);
        found.evidence << QStringLiteral("%1 model %2 vs %3 model %4: %5")
                              .arg(ctx.name(base), quotedNames(modelNames(ctx, base)), ctx.name(other),
                                  quotedNames(modelNames(ctx, other)), reasons.join(QStringLiteral("; ")));
        found.endpoints.push_back(base);
        found.endpoints.push_back(other);
    }
    const QString title = worst == Severity::Info
        ? QStringLiteral("Model names differ in more than quantization; check they are the same weights")
        : QStringLiteral("The arms run different models, not just different quantizations");
    return report(ctx, std::move(found), worst, title,
        QStringLiteral(
            "Compare the same fine-tune and size in both quantizations (quantize the model you run "
            "yourself if nobody published it). Any difference measured here mixes the models' own "
            "behaviour (verbosity, thinking, manners) with the quantization — the seeds' v1-v4 were "
            "confounded this way (base Qwen3.5-9B NVFP4 vs Opus-Distilled Q4_K_M, then 27B vs 9B)."),
        QStringLiteral(" | "));
}

} // namespace qs::guardrails

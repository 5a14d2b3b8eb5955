// SPDX-License-Identifier: MIT
#include "model/decide/DecisionProfile.h"

#include "model/core/JsonText.h"
#include "model/gates/QualityGates.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace qs {

namespace {

using json = nlohmann::json;
using namespace json_text;

// A profile is a page of criteria; anything near this size is not one.
constexpr qint64 maxProfileFileBytes = 1024 * 1024;
constexpr int maxNestingDepth = 32;

// ---------------------------------------------------------------------------------------------
// Error reporting: "FILE: PATH: PROBLEM", as SuiteError reads.

using Context = DocumentContext;

Context profileContext(const QString& source)
{
    return {source, [](const QString& message) { throw ProfileError(message.toStdString()); }};
}

[[noreturn]] void failFile(const QString& source, const QString& problem)
{
    profileContext(source).failFile(problem);
}

QString didYouMean(const QString& word, const QStringList& known)
{
    if (const auto c = closestKey(word, known))
        return QStringLiteral("did you mean \"") + *c + QStringLiteral("\"?");
    return QStringLiteral("expected one of: ") + known.join(QStringLiteral(", "));
}

const QStringList profileKeys = {
    QStringLiteral("id"), QStringLiteral("name"), QStringLiteral("description"), QStringLiteral("criteria")};
const QStringList criterionKeys = {QStringLiteral("id"), QStringLiteral("title"), QStringLiteral("gate"),
    QStringLiteral("metric"), QStringLiteral("max_failures"), QStringLiteral("min_pass_rate"),
    QStringLiteral("max"), QStringLiteral("min"), QStringLiteral("statistic"),
    QStringLiteral("not_worse_than_baseline"), QStringLiteral("test"), QStringLiteral("rationale"),
    QStringLiteral("resource"), QStringLiteral("unit"), QStringLiteral("concurrency"),
    QStringLiteral("tolerance"), QStringLiteral("optional"), QStringLiteral("judge"),
    QStringLiteral("criterion"), QStringLiteral("min_median"), QStringLiteral("fidelity"),
    QStringLiteral("verbosity"), QStringLiteral("max_ratio"), QStringLiteral("margin")};
// Keys only a resource criterion takes.
const QStringList resourceOnlyKeys
    = {QStringLiteral("unit"), QStringLiteral("concurrency"), QStringLiteral("tolerance")};
// Keys only a judge criterion takes.
const QStringList judgeOnlyKeys = {QStringLiteral("criterion"), QStringLiteral("min_median")};
const QStringList judgeForms = {QStringLiteral("rubric"), QStringLiteral("pairwise")};
const QStringList fidelityMeasures = {QStringLiteral("flip_rate"), QStringLiteral("kl")};
const QStringList statistics = {QStringLiteral("p50"), QStringLiteral("p90"), QStringLiteral("p95"),
    QStringLiteral("p99"), QStringLiteral("mean")};

// Typos are never ignored: an unknown key is an error, with the closest known one.
void checkKeys(const Context& ctx, const json& object, const QString& path, const QStringList& known)
{
    for (const auto& item : object.items()) {
        const QString key = fromStd(item.key());
        if (known.contains(key))
            continue;
        const QString where = keyPath(path, item.key());
        if (const auto c = closestKey(key, known))
            ctx.fail(where, QStringLiteral("unknown key; did you mean \"") + *c + QStringLiteral("\"?"));
        if (path.isEmpty() && criterionKeys.contains(key))
            ctx.fail(
                where, QStringLiteral("unknown key here; it belongs in a criterion, inside \"criteria\""));
        ctx.fail(where, QStringLiteral("unknown key; expected one of: ") + known.join(QStringLiteral(", ")));
    }
}

double numberValue(const Context& ctx, const json& v, const QString& path)
{
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        ctx.fail(path, QStringLiteral("must be a number, found ") + describe(v));
    return v.get<double>();
}

// ---------------------------------------------------------------------------------------------
// Criteria

// Which of `keys` the object has; exactly one is required.
QString exactlyOne(
    const Context& ctx, const json& c, const QString& path, const QStringList& keys, const QString& subject)
{
    QStringList present;
    for (const QString& k : keys)
        if (member(c, k.toStdString()))
            present << k;
    if (present.size() == 1)
        return present.first();
    const QString options = QStringLiteral("\"") + keys.join(QStringLiteral("\", \"")) + u'"';
    if (present.isEmpty())
        ctx.fail(path, subject + QStringLiteral(" needs one of ") + options);
    ctx.fail(path,
        subject + QStringLiteral(" takes exactly one of ") + options + QStringLiteral(", found ")
            + present.join(QStringLiteral(" and ")) + QStringLiteral("; split it into two criteria"));
}

// "optional": true or false (resource and judge criteria).
bool optionalFlag(const Context& ctx, const json& c, const QString& path)
{
    const json* o = member(c, "optional");
    if (!o)
        return false;
    if (!o->is_boolean())
        ctx.fail(keyPath(path, "optional"), QStringLiteral("must be true or false, found ") + describe(*o));
    return o->get<bool>();
}

void requireTrue(const Context& ctx, const json& v, const QString& path)
{
    if (!v.is_boolean())
        ctx.fail(path, QStringLiteral("must be true, found ") + describe(v));
    if (!v.get<bool>())
        ctx.fail(path,
            QStringLiteral("is false; remove the criterion instead (a profile lists only what it requires)"));
}

// "tolerance": how much more than the baseline's figure still passes, a fraction from 0 to 1
// (resource and fidelity "not_worse_than_baseline"); `fallback` when absent.
double toleranceValue(const Context& ctx, const json& c, const QString& path, double fallback)
{
    const json* t = member(c, "tolerance");
    if (!t)
        return fallback;
    const QString tolerancePath = keyPath(path, "tolerance");
    const double tol = numberValue(ctx, *t, tolerancePath);
    if (tol > 1 && tol <= 100)
        ctx.fail(tolerancePath,
            QStringLiteral("is a fraction, found %1; write %2 for %1 %").arg(tol).arg(tol / 100.0));
    if (tol < 0 || tol > 1)
        ctx.fail(tolerancePath,
            QStringLiteral("must be a fraction from 0 to 1 (0.05 for \"at most 5 % more\"), found ")
                + describe(*t));
    return tol;
}

// The number a form requires under `key` (checked to be one); `missing` says what to write when
// it is absent. Callers pass `missing` as a named variable: given a temporary, GCC 14 takes the
// returned reference (into the profile document) for a dangling one (-Wdangling-reference).
const json& requiredNumber(
    const Context& ctx, const json& c, const QString& path, const char* key, const QString& missing)
{
    const json* v = member(c, key);
    if (!v)
        ctx.fail(path, missing);
    (void)numberValue(ctx, *v, keyPath(path, key));
    return *v;
}

// A key `c` must not have in this kind of criterion, with what to do instead.
void reject(
    const Context& ctx, const json& c, const QString& path, const QStringList& keys, const QString& why)
{
    for (const QString& k : keys)
        if (member(c, k.toStdString()))
            ctx.fail(keyPath(path, k.toStdString()), why);
}

// {"resource": R, "max": X, "unit": U} or {"resource": R, "not_worse_than_baseline": true}, with
// "optional", "concurrency" (memory_at_concurrency) and "tolerance" (not worse).
void parseResourceCriterion(const Context& ctx, const json& c, const QString& path, Criterion& out)
{
    const QString resourcePath = keyPath(path, "resource");
    const QString id = stringValue(ctx, *member(c, "resource"), resourcePath, false);
    QStringList ids;
    for (Criterion::Resource r : {Criterion::Resource::PeakMemory, Criterion::Resource::IdleMemory,
             Criterion::Resource::MemoryAtConcurrency, Criterion::Resource::PowerMedian,
             Criterion::Resource::EnergyPerToken})
        ids << resourceId(r);
    const auto resource = resourceFromId(id);
    if (!resource)
        ctx.fail(resourcePath,
            QStringLiteral("unknown resource ") + quote(id) + QStringLiteral("; ") + didYouMean(id, ids));
    out.resource = *resource;
    reject(ctx, c, path, {QStringLiteral("max_failures"), QStringLiteral("min_pass_rate")},
        QStringLiteral(
            "applies to a \"gate\" criterion; a resource takes \"max\" or \"not_worse_than_baseline\""));
    reject(ctx, c, path, {QStringLiteral("statistic")},
        QStringLiteral("does not apply to a resource: it is one figure per endpoint (a peak, a median), "
                       "not a distribution of requests"));
    reject(ctx, c, path, {QStringLiteral("test")},
        QStringLiteral("does not apply to a resource: the server's figures cover the whole run, not one "
                       "test; remove \"test\""));
    reject(ctx, c, path, {QStringLiteral("min")},
        QStringLiteral("less is better for every resource; give a \"max\" (a budget) or "
                       "\"not_worse_than_baseline\": true"));
    const QString form
        = exactlyOne(ctx, c, path, {QStringLiteral("max"), QStringLiteral("not_worse_than_baseline")},
            QStringLiteral("a resource criterion"));
    const QString formPath = keyPath(path, form.toStdString());
    const json& v = *member(c, form.toStdString());
    if (form == u"max") {
        out.kind = Criterion::Kind::ResourceMax;
        reject(ctx, c, path, {QStringLiteral("tolerance")},
            QStringLiteral("applies to \"not_worse_than_baseline\"; a \"max\" is a hard limit"));
        const double limit = numberValue(ctx, v, formPath);
        if (limit < 0)
            ctx.fail(formPath, QStringLiteral("must not be negative, found ") + describe(v));
        const QString unitPath = keyPath(path, "unit");
        const QString units = resourceUnits(out.resource).join(QStringLiteral(", "));
        const bool memory = resourceBaseUnit(out.resource) == u"bytes";
        const std::optional<QString> unit = optionalString(ctx, c, "unit", path, false);
        if (!unit && memory)
            ctx.fail(path,
                QStringLiteral("a memory limit needs a \"unit\": one of ") + units
                    + QStringLiteral(" (GB and MB are decimal: 1 GB = 10^9 bytes; GiB = 2^30)"));
        out.unit = unit.value_or(resourceBaseUnit(out.resource));
        const auto factor = resourceUnitFactor(out.resource, out.unit);
        if (!factor)
            ctx.fail(unitPath,
                QStringLiteral("unknown unit ") + quote(out.unit) + QStringLiteral(" for ") + quote(id)
                    + QStringLiteral("; expected one of: ") + units);
        out.threshold = limit * *factor;
    } else {
        out.kind = Criterion::Kind::ResourceNotWorse;
        requireTrue(ctx, v, formPath);
        reject(ctx, c, path, {QStringLiteral("unit")},
            QStringLiteral("applies to \"max\"; \"not_worse_than_baseline\" compares with the baseline's "
                           "figure in the same unit"));
        out.tolerance = toleranceValue(ctx, c, path, out.tolerance);
    }
    if (const json* n = member(c, "concurrency")) {
        const QString concurrencyPath = keyPath(path, "concurrency");
        if (out.resource != Criterion::Resource::MemoryAtConcurrency)
            ctx.fail(concurrencyPath, QStringLiteral("applies to \"memory_at_concurrency\" only"));
        const double level = numberValue(ctx, *n, concurrencyPath);
        if (level < 1 || std::floor(level) != level || level > 1e6)
            ctx.fail(concurrencyPath,
                QStringLiteral("must be a whole number of requests in flight (1 or more), found ")
                    + describe(*n));
        out.concurrency = int(level);
    }
    out.optional = optionalFlag(ctx, c, path);
}

// {"judge": "rubric", "criterion": C, "min_median": X} or {"judge": "pairwise",
// "not_worse_than_baseline": true}, with "optional".
void parseJudgeCriterion(const Context& ctx, const json& c, const QString& path, Criterion& out)
{
    const QString judgePath = keyPath(path, "judge");
    const QString form = stringValue(ctx, *member(c, "judge"), judgePath, false);
    if (!judgeForms.contains(form))
        ctx.fail(judgePath,
            QStringLiteral("unknown judge form ") + quote(form) + QStringLiteral("; ")
                + didYouMean(form, judgeForms));
    reject(ctx, c, path, resourceOnlyKeys, QStringLiteral("applies to a \"resource\" criterion only"));
    reject(ctx, c, path,
        {QStringLiteral("max"), QStringLiteral("min"), QStringLiteral("statistic"),
            QStringLiteral("max_failures"), QStringLiteral("min_pass_rate")},
        QStringLiteral("does not apply to a judge criterion; \"judge\": \"rubric\" takes \"criterion\" "
                       "and \"min_median\", \"judge\": \"pairwise\" takes \"not_worse_than_baseline\""));
    out.optional = optionalFlag(ctx, c, path);
    if (form == u"pairwise") {
        out.kind = Criterion::Kind::JudgePairwiseNotWorse;
        reject(ctx, c, path, judgeOnlyKeys,
            QStringLiteral("applies to \"judge\": \"rubric\" only; the pairwise comparison takes "
                           "\"not_worse_than_baseline\": true"));
        if (member(c, "test"))
            ctx.fail(keyPath(path, "test"),
                QStringLiteral("does not apply to \"judge\": \"pairwise\": the comparison pools every "
                               "judged pair; remove \"test\""));
        const json* v = member(c, "not_worse_than_baseline");
        if (!v)
            ctx.fail(
                path, QStringLiteral("a pairwise judge criterion needs \"not_worse_than_baseline\": true"));
        requireTrue(ctx, *v, keyPath(path, "not_worse_than_baseline"));
        return;
    }
    out.kind = Criterion::Kind::JudgeRubricMin;
    if (member(c, "not_worse_than_baseline"))
        ctx.fail(keyPath(path, "not_worse_than_baseline"),
            QStringLiteral("applies to \"judge\": \"pairwise\"; a rubric criterion takes \"min_median\""));
    const json* criterion = member(c, "criterion");
    if (!criterion)
        ctx.fail(path,
            QStringLiteral("a rubric judge criterion needs \"criterion\": the id of a rubric criterion, "
                           "e.g. \"warm_personal\""));
    out.rubricCriterion = identifierValue(ctx, *criterion, keyPath(path, "criterion"));

    const QString minNeeded
        = QStringLiteral("a rubric judge criterion needs \"min_median\": the least median score, 1 to 5");
    const json& min = requiredNumber(ctx, c, path, "min_median", minNeeded);
    out.threshold = min.get<double>();
    if (out.threshold < 1 || out.threshold > 5)
        ctx.fail(keyPath(path, "min_median"),
            QStringLiteral("is a score on the rubric's 1–5 scale, found ") + describe(min)
                + QStringLiteral("; write e.g. 4 for \"mostly good\""));
}

// {"fidelity": "flip_rate", "max": X}, {"fidelity": "kl", "max": X} or {"fidelity": "kl",
// "not_worse_than_baseline": true, "tolerance": T}, with "optional".
void parseFidelityCriterion(const Context& ctx, const json& c, const QString& path, Criterion& out)
{
    const QString measurePath = keyPath(path, "fidelity");
    const QString measure = stringValue(ctx, *member(c, "fidelity"), measurePath, false);
    if (!fidelityMeasures.contains(measure))
        ctx.fail(measurePath,
            QStringLiteral("unknown fidelity measure ") + quote(measure) + QStringLiteral("; ")
                + didYouMean(measure, fidelityMeasures));
    reject(ctx, c, path, {QStringLiteral("unit"), QStringLiteral("concurrency")},
        QStringLiteral("applies to a \"resource\" criterion only"));
    reject(ctx, c, path,
        {QStringLiteral("min"), QStringLiteral("statistic"), QStringLiteral("max_failures"),
            QStringLiteral("min_pass_rate")},
        QStringLiteral("does not apply to a fidelity criterion; \"flip_rate\" takes \"max\", \"kl\" takes "
                       "\"max\" or \"not_worse_than_baseline\""));
    reject(ctx, c, path, {QStringLiteral("test")},
        QStringLiteral("does not apply to a fidelity criterion: it pools every fidelity prompt; remove "
                       "\"test\""));
    out.optional = optionalFlag(ctx, c, path);
    if (measure == u"flip_rate") {
        out.kind = Criterion::Kind::FidelityFlipRateMax;
        if (member(c, "not_worse_than_baseline"))
            ctx.fail(keyPath(path, "not_worse_than_baseline"),
                QStringLiteral("applies to \"fidelity\": \"kl\"; \"flip_rate\" takes \"max\" (a share of "
                               "prompts, 0.25 for 25 %)"));
        if (member(c, "tolerance"))
            ctx.fail(keyPath(path, "tolerance"),
                QStringLiteral("applies to \"not_worse_than_baseline\"; a \"max\" is a hard limit"));

        const QString maxNeeded
            = QStringLiteral("a flip-rate criterion needs \"max\": the largest share of prompts whose "
                             "answer may differ from the reference's, e.g. 0.25");
        const json& max = requiredNumber(ctx, c, path, "max", maxNeeded);
        const QString maxPath = keyPath(path, "max");
        const double r = max.get<double>();
        if (r > 1 && r <= 100)
            ctx.fail(maxPath,
                QStringLiteral("is a fraction from 0 to 1, found %1; write %2 for %1 %")
                    .arg(r)
                    .arg(r / 100.0));
        if (r < 0 || r > 1)
            ctx.fail(maxPath,
                QStringLiteral(
                    "must be a fraction from 0 to 1 (0.25 for \"a quarter of the prompts\"), found ")
                    + describe(max));
        out.threshold = r;
        return;
    }
    const QString form = exactlyOne(ctx, c, path,
        {QStringLiteral("max"), QStringLiteral("not_worse_than_baseline")}, QStringLiteral("a KL criterion"));
    const QString formPath = keyPath(path, form.toStdString());
    const json& v = *member(c, form.toStdString());
    if (form == u"max") {
        out.kind = Criterion::Kind::FidelityKlMax;
        reject(ctx, c, path, {QStringLiteral("tolerance")},
            QStringLiteral("applies to \"not_worse_than_baseline\"; a \"max\" is a hard limit"));
        out.threshold = numberValue(ctx, v, formPath);
        if (out.threshold < 0)
            ctx.fail(formPath,
                QStringLiteral("must not be negative (a KL divergence in nats, e.g. 0.05), found ")
                    + describe(v));
        return;
    }
    out.kind = Criterion::Kind::FidelityKlNotWorse;
    requireTrue(ctx, v, formPath);
    out.tolerance = toleranceValue(ctx, c, path, out.tolerance);
}

// {"verbosity": "completion_tokens", "max_ratio": R}, with "test": the candidate's answers against
// the baseline's, paired by prompt (recommend/VerbosityCriteria.cpp).
void parseVerbosityCriterion(const Context& ctx, const json& c, const QString& path, Criterion& out)
{
    const QString measurePath = keyPath(path, "verbosity");
    const QString measure = stringValue(ctx, *member(c, "verbosity"), measurePath, false);
    const QStringList measures = {metricId(Metric::CompletionTokens)};
    if (!measures.contains(measure))
        ctx.fail(measurePath,
            QStringLiteral("unknown verbosity measure ") + quote(measure) + QStringLiteral("; ")
                + didYouMean(measure, measures));
    reject(ctx, c, path,
        resourceOnlyKeys + judgeOnlyKeys
            + QStringList {QStringLiteral("optional"), QStringLiteral("max"), QStringLiteral("min"),
                QStringLiteral("statistic"), QStringLiteral("max_failures"), QStringLiteral("min_pass_rate"),
                QStringLiteral("not_worse_than_baseline")},
        QStringLiteral("does not apply to a verbosity criterion; it takes \"max_ratio\" (and \"test\")"));

    const QString maxNeeded
        = QStringLiteral("a verbosity criterion needs \"max_ratio\": how many times as long as the "
                         "baseline's the candidate's answers may be, e.g. 1.5");
    const json& max = requiredNumber(ctx, c, path, "max_ratio", maxNeeded);
    const double r = max.get<double>();
    // Below 1 even a candidate exactly as verbose as the baseline would fail.
    if (r < 1 || r > 10)
        ctx.fail(keyPath(path, "max_ratio"),
            QStringLiteral("must be a ratio from 1 to 10 (1.5 for \"at most half as long again as the "
                           "baseline's answers\"), found ")
                + describe(max));
    out.kind = Criterion::Kind::VerbosityMaxRatio;
    out.metric = Metric::CompletionTokens;
    out.threshold = r;
}

Criterion parseCriterion(const Context& ctx, const json& c, const QString& path)
{
    if (!c.is_object())
        ctx.fail(path,
            QStringLiteral(
                "must be an object like {\"gate\": \"no_thinking_leak\", \"max_failures\": 0}, found ")
                + describe(c));
    checkKeys(ctx, c, path, criterionKeys);

    Criterion out;
    const QString subject = exactlyOne(ctx, c, path,
        {QStringLiteral("gate"), QStringLiteral("metric"), QStringLiteral("resource"),
            QStringLiteral("judge"), QStringLiteral("fidelity"), QStringLiteral("verbosity")},
        QStringLiteral("a criterion"));
    if (subject != u"judge")
        reject(
            ctx, c, path, judgeOnlyKeys, QStringLiteral("applies to a \"judge\": \"rubric\" criterion only"));
    if (subject != u"verbosity")
        reject(ctx, c, path, {QStringLiteral("max_ratio")},
            QStringLiteral("applies to a \"verbosity\" criterion only"));
    if (subject == u"gate" || subject == u"metric")
        reject(ctx, c, path, resourceOnlyKeys + QStringList {QStringLiteral("optional")},
            QStringLiteral("applies to a \"resource\", \"judge\" or \"fidelity\" criterion only (gates and "
                           "metrics are measured on every request, so they are never optional and carry "
                           "their own units)"));
    if (subject == u"verbosity") {
        parseVerbosityCriterion(ctx, c, path, out);
    } else if (subject == u"fidelity") {
        parseFidelityCriterion(ctx, c, path, out);
    } else if (subject == u"judge") {
        parseJudgeCriterion(ctx, c, path, out);
    } else if (subject == u"resource") {
        parseResourceCriterion(ctx, c, path, out);
    } else if (subject == u"gate") {
        const QString gatePath = keyPath(path, "gate");
        out.gate = stringValue(ctx, *member(c, "gate"), gatePath, false);
        if (!gateNames().contains(out.gate))
            ctx.fail(gatePath,
                QStringLiteral("unknown gate ") + quote(out.gate) + QStringLiteral("; ")
                    + didYouMean(out.gate, gateNames()));
        for (const char* metricOnly : {"max", "min", "statistic"})
            if (member(c, metricOnly))
                ctx.fail(keyPath(path, metricOnly),
                    QStringLiteral("applies to a \"metric\" criterion; a gate takes \"max_failures\", "
                                   "\"min_pass_rate\" or \"not_worse_than_baseline\""));
        const QString form = exactlyOne(ctx, c, path,
            {QStringLiteral("max_failures"), QStringLiteral("min_pass_rate"),
                QStringLiteral("not_worse_than_baseline")},
            QStringLiteral("a gate criterion"));
        const QString formPath = keyPath(path, form.toStdString());
        const json& v = *member(c, form.toStdString());
        if (form == u"max_failures") {
            out.kind = Criterion::Kind::GateMaxFailures;
            const double n = numberValue(ctx, v, formPath);
            if (n < 0 || std::floor(n) != n || n > 1e9)
                ctx.fail(formPath,
                    QStringLiteral("must be a whole number of failures (0 or more), found ") + describe(v));
            out.threshold = n;
        } else if (form == u"min_pass_rate") {
            out.kind = Criterion::Kind::GateMinPassRate;
            const double r = numberValue(ctx, v, formPath);
            if (r > 1 && r <= 100)
                ctx.fail(formPath,
                    QStringLiteral("is a fraction from 0 to 1, found %1; write %2 for %1 %")
                        .arg(r)
                        .arg(r / 100.0));
            if (r < 0 || r > 1)
                ctx.fail(formPath,
                    QStringLiteral("must be a fraction from 0 to 1 (0.6 for \"6 of 10\"), found ")
                        + describe(v));
            out.threshold = r;
        } else {
            out.kind = Criterion::Kind::GateNotWorse;
            requireTrue(ctx, v, formPath);
        }
    } else {
        const QString metricPath = keyPath(path, "metric");
        const QString id = stringValue(ctx, *member(c, "metric"), metricPath, false);
        const auto metric = metricFromId(id);
        QStringList metricIds;
        for (Metric m : {Metric::TtftAny, Metric::TtftVisible, Metric::FirstSentence, Metric::E2e,
                 Metric::DecodeTps, Metric::CompletionTokens, Metric::PromptTokens})
            metricIds << metricId(m);
        if (!metric)
            ctx.fail(metricPath,
                QStringLiteral("unknown metric ") + quote(id) + QStringLiteral("; ")
                    + didYouMean(id, metricIds));
        out.metric = *metric;
        for (const char* gateOnly : {"max_failures", "min_pass_rate"})
            if (member(c, gateOnly))
                ctx.fail(keyPath(path, gateOnly),
                    QStringLiteral("applies to a \"gate\" criterion; a metric takes \"max\", \"min\" or "
                                   "\"not_worse_than_baseline\""));
        const QString form = exactlyOne(ctx, c, path,
            {QStringLiteral("max"), QStringLiteral("min"), QStringLiteral("not_worse_than_baseline")},
            QStringLiteral("a metric criterion"));
        const QString formPath = keyPath(path, form.toStdString());
        const json& v = *member(c, form.toStdString());
        if (form == u"not_worse_than_baseline") {
            out.kind = Criterion::Kind::MetricNotWorse;
            requireTrue(ctx, v, formPath);
            if (preferredDirection(out.metric) == Preferred::Neither || out.metric == Metric::PromptTokens)
                ctx.fail(formPath,
                    quote(id)
                        + QStringLiteral(
                            " has no better direction (more tokens is neither better nor worse), "
                            "so it cannot be \"not worse\"; give it a \"max\" or \"min\" instead, or "
                            "compare answer lengths with {\"verbosity\": \"completion_tokens\", "
                            "\"max_ratio\": 1.5}"));
            if (member(c, "statistic"))
                ctx.fail(keyPath(path, "statistic"),
                    QStringLiteral(
                        "applies to \"max\"/\"min\" only; \"not_worse_than_baseline\" uses the paired "
                        "comparison of every request"));
        } else {
            out.kind = form == u"max" ? Criterion::Kind::MetricMax : Criterion::Kind::MetricMin;
            out.threshold = numberValue(ctx, v, formPath);
            if (out.threshold < 0)
                ctx.fail(formPath, QStringLiteral("must not be negative, found ") + describe(v));
            if (const auto s = optionalString(ctx, c, "statistic", path, false)) {
                if (!statistics.contains(*s))
                    ctx.fail(keyPath(path, "statistic"),
                        QStringLiteral("unknown statistic ") + quote(*s) + QStringLiteral("; ")
                            + (*s == u"median" ? QStringLiteral("the median is \"p50\"")
                                               : didYouMean(*s, statistics)));
                out.statistic = *s;
            }
        }
    }
    if (const json* m = member(c, "margin")) {
        const QString marginPath = keyPath(path, "margin");
        if (!takesMargin(out.kind))
            ctx.fail(marginPath,
                QStringLiteral("applies to \"not_worse_than_baseline\" criteria only; a threshold is its own "
                               "limit"));
        if (member(c, "tolerance"))
            ctx.fail(marginPath,
                QStringLiteral("give \"margin\" or the older \"tolerance\", not both (a tolerance t is "
                               "the margin 1 + t)"));
        const double v = numberValue(ctx, *m, marginPath);
        if (const auto problem = marginProblem(out.kind, v))
            ctx.fail(marginPath, *problem);
        out.margin = v;
    } else if (member(c, "tolerance") && takesMargin(out.kind)) {
        out.margin = 1 + out.tolerance;
    }
    if (const auto t = optionalString(ctx, c, "test", path, false))
        out.test = *t;
    out.rationale = optionalString(ctx, c, "rationale", path, true).value_or(QString());
    out.title = optionalString(ctx, c, "title", path, false).value_or(defaultCriterionTitle(out));
    const QString subjectId = isJudgeCriterion(out) ? QStringLiteral("judge_")
            + (out.kind == Criterion::Kind::JudgeRubricMin ? out.rubricCriterion : QStringLiteral("pairwise"))
        : isFidelityCriterion(out) ? QStringLiteral("fidelity_") + fidelityMeasureId(out.kind)
        : out.kind == Criterion::Kind::VerbosityMaxRatio ? QStringLiteral("verbosity")
        : isResourceCriterion(out)                       ? resourceId(out.resource)
            + (out.concurrency > 0 ? u'_' + QString::number(out.concurrency) : QString())
        : out.gate.isEmpty() ? metricId(out.metric)
                             : out.gate;
    if (const json* id = member(c, "id"))
        out.id = identifierValue(ctx, *id, keyPath(path, "id"));
    else
        out.id = subjectId + u'_' + criterionFormKey(out.kind)
            + (out.test.isEmpty() ? QString() : u'_' + out.test);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Files

json parseProfileDocument(const QByteArray& data, const QString& source)
{
    return parseDocument(profileContext(source), data, maxNestingDepth,
        QStringLiteral(
            "the file is empty; a decision profile is a JSON object with \"id\" and \"criteria\""));
}

const QStringList& builtinNames()
{
    static const QStringList names = {QStringLiteral("voice-assistant"), QStringLiteral("throughput")};
    return names;
}

} // namespace

DecisionProfile parseDecisionProfile(const nlohmann::json& root, const QString& sourceName)
{
    const Context ctx = profileContext(sourceName);
    if (!root.is_object())
        ctx.fail(QString(),
            QStringLiteral("a decision profile must be a JSON object with \"id\" and \"criteria\", found ")
                + describe(root));
    try {
        (void)root.dump(); // stored in reports: must be valid UTF-8
    } catch (const json::exception& e) {
        ctx.fail(QString(), QStringLiteral("cannot be stored as JSON: ") + exceptionText(e.what()));
    }
    checkKeys(ctx, root, QString(), profileKeys);

    DecisionProfile p;
    const json* id = member(root, "id");
    if (!id)
        ctx.fail(QString(), QStringLiteral("\"id\" is missing; give a short name like \"voice-assistant\""));
    p.id = identifierValue(ctx, *id, QStringLiteral("id"));
    p.name = optionalString(ctx, root, "name", QString(), false).value_or(p.id);
    p.description = optionalString(ctx, root, "description", QString(), true).value_or(QString());

    const json* criteria = member(root, "criteria");
    if (!criteria)
        ctx.fail(QString(),
            QStringLiteral("\"criteria\" is missing; give a list like [{\"gate\": \"no_thinking_leak\", "
                           "\"max_failures\": 0}]"));
    const QString path = QStringLiteral("criteria");
    if (!criteria->is_array())
        ctx.fail(path, QStringLiteral("must be a list of criteria, found ") + describe(*criteria));
    if (criteria->empty())
        ctx.fail(path, QStringLiteral("is empty; a profile needs at least one criterion"));
    for (std::size_t i = 0; i < criteria->size(); ++i) {
        const QString at = indexPath(path, i);
        Criterion c = parseCriterion(ctx, (*criteria)[i], at);
        for (std::size_t j = 0; j < p.criteria.size(); ++j)
            if (p.criteria[j].id == c.id)
                ctx.fail(keyPath(at, "id"),
                    quote(c.id)
                        + QStringLiteral(" is already the id of criteria[%1]; criterion ids must be unique")
                              .arg(j));
        p.criteria.push_back(std::move(c));
    }
    p.source = sourceName;
    p.raw = root;
    return p;
}

DecisionProfile loadDecisionProfileFile(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        failFile(path, QStringLiteral("cannot read the decision profile: no such file"));
    if (info.isDir())
        failFile(path, QStringLiteral("cannot read the decision profile: it is a directory"));
    if (info.size() > maxProfileFileBytes)
        failFile(path,
            QStringLiteral("the file is larger than 1 MiB; a decision profile is a short list of criteria"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        failFile(path, QStringLiteral("cannot read the decision profile: ") + file.errorString());
    const QByteArray data = file.read(maxProfileFileBytes + 1);
    if (data.size() > maxProfileFileBytes)
        failFile(path,
            QStringLiteral("the file is larger than 1 MiB; a decision profile is a short list of criteria"));
    return parseDecisionProfile(parseProfileDocument(data, path), path);
}

QStringList builtinDecisionProfileNames()
{
    return builtinNames();
}

DecisionProfile loadBuiltinDecisionProfile(const QString& name)
{
    const QString source = QStringLiteral("builtin:") + name;
    if (!builtinNames().contains(name)) {
        const QString hint = didYouMeanHint(name, builtinNames());
        throw ProfileError(QString(QStringLiteral("no built-in decision profile named ") + quote(name)
            + QStringLiteral("; ") + hint + QStringLiteral("the built-in profiles are: ")
            + builtinNames().join(QStringLiteral(", "))
            + QStringLiteral(" (or give the path of a profile file)"))
                               .toStdString());
    }
    QFile file(QStringLiteral(":/profiles/") + name + QStringLiteral(".json"));
    if (!file.open(QIODevice::ReadOnly))
        failFile(source,
            QStringLiteral("the built-in profile is missing from this build (its resources are not linked)"));
    return parseDecisionProfile(parseProfileDocument(file.readAll(), source), source);
}

DecisionProfile loadDecisionProfile(const QString& nameOrPath)
{
    // A bare word that is neither a file nor a built-in was most likely a mistyped profile name:
    // loading it throws with the list of built-in names.
    if (const auto name = builtinNameOf(nameOrPath, builtinNames()))
        return loadBuiltinDecisionProfile(*name);
    return loadDecisionProfileFile(nameOrPath);
}

QString defaultDecisionProfileName(const nlohmann::json& suite)
{
    const bool throughput = suite.is_object() && suite.value("id", std::string()) == "throughput";
    return throughput ? QStringLiteral("throughput") : QStringLiteral("voice-assistant");
}

} // namespace qs

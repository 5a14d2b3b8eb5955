// SPDX-License-Identifier: MIT
#include "model/core/GatePatterns.h"
#include "model/core/Suite.h"
#include "model/core/SuiteReading.h"

#include <QRegularExpression>
#include <algorithm>
#include <limits>
#include <string>

namespace qs {

namespace {

using json = nlohmann::json;
using namespace json_text;
using namespace suite_parse;

// ---------------------------------------------------------------------------------------------
// Tools

// Validates the OpenAI function schemas and returns the function names.
QStringList parseTools(const DocumentContext& ctx, const json& tools)
{
    const QString path = QStringLiteral("tools");
    if (!tools.is_array())
        ctx.fail(path,
            QStringLiteral("must be a list of tool objects like {\"type\": \"function\", \"function\": "
                           "{\"name\": …, \"parameters\": {…}}}, found ")
                + describe(tools));
    QStringList names;
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const json& tool = tools[i];
        const QString at = indexPath(path, i);
        if (!tool.is_object())
            ctx.fail(at,
                QStringLiteral(
                    "must be an object like {\"type\": \"function\", \"function\": {\"name\": …}}, "
                    "found ")
                    + describe(tool));
        const json* type = member(tool, "type");
        if (!type)
            ctx.fail(at, QStringLiteral("\"type\" is missing; it must be \"function\""));
        if (!type->is_string() || type->get_ref<const std::string&>() != "function")
            ctx.fail(keyPath(at, "type"), QStringLiteral("must be \"function\", found ") + describe(*type));
        const json* function = member(tool, "function");
        if (!function)
            ctx.fail(at, QStringLiteral("\"function\" is missing; it must be an object with \"name\""));
        const QString fpath = keyPath(at, "function");
        if (!function->is_object())
            ctx.fail(fpath, QStringLiteral("must be an object with \"name\", found ") + describe(*function));
        const json* name = member(*function, "name");
        if (!name)
            ctx.fail(fpath, QStringLiteral("\"name\" is missing"));
        const QString n = stringValue(ctx, *name, keyPath(fpath, "name"), false);
        // The OpenAI API's own rule for function names.
        static const QRegularExpression nameRule(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
        if (!nameRule.match(n).hasMatch())
            ctx.fail(keyPath(fpath, "name"),
                quote(n)
                    + QStringLiteral(
                        " is not a valid function name; use 1 to 64 letters, digits, '_' or '-'"));
        if (names.contains(n))
            ctx.fail(keyPath(fpath, "name"), quote(n) + QStringLiteral(" is defined twice"));
        if (const json* d = member(*function, "description"))
            stringValue(ctx, *d, keyPath(fpath, "description"), true);
        if (const json* p = member(*function, "parameters"); p && !p->is_object())
            ctx.fail(keyPath(fpath, "parameters"),
                QStringLiteral("must be a JSON schema object, found ") + describe(*p));
        names << n;
    }
    return names;
}

// ---------------------------------------------------------------------------------------------
// Defaults

const std::vector<std::string_view> defaultsKeys = {"max_tokens", "temperature", "seed", "thinking", "warmup",
    "runs", "concurrency", "extra_body", "fidelity", "top_logprobs"};

constexpr int maxConcurrency = 4096;
// The most alternatives per position every server accepts by default: vLLM refuses more with a
// 400 unless started with a higher --max-logprobs; OpenAI's own API allows 20.
constexpr int maxTopLogprobs = 20;

SuiteDefaults parseDefaults(const DocumentContext& ctx, const json& suite)
{
    SuiteDefaults d;
    const json* v = member(suite, "defaults");
    if (!v)
        return d;
    const QString path = QStringLiteral("defaults");
    if (!v->is_object())
        ctx.fail(path,
            QStringLiteral("must be an object like {\"max_tokens\": 256, \"runs\": 5}, found ")
                + describe(*v));
    checkSuiteKeys(ctx, *v, path, defaultsKeys);
    d.maxTokens = optionalInt(ctx, *v, "max_tokens", path, 1, maxTokensLimit).value_or(d.maxTokens);
    if (const json* t = member(*v, "temperature"))
        // null: send no temperature at all, leaving the server's own default.
        d.temperature = t->is_null()
            ? std::nullopt
            : std::optional<double>(temperatureValue(ctx, *t, keyPath(path, "temperature")));
    d.seed = optionalSeed(ctx, *v, path);
    if (const json* t = member(*v, "thinking"); t && !t->is_null())
        d.thinking = optionalBool(ctx, *v, "thinking", path);
    d.warmup = optionalInt(ctx, *v, "warmup", path, 0, maxWarmup).value_or(d.warmup);
    d.runs = optionalInt(ctx, *v, "runs", path, 1, maxRuns).value_or(d.runs);
    if (const json* c = member(*v, "concurrency")) {
        const QString cpath = keyPath(path, "concurrency");
        if (!c->is_array())
            ctx.fail(cpath,
                QStringLiteral("must be a list of concurrency levels like [1, 2, 4, 8], found ")
                    + describe(*c));
        if (c->empty())
            ctx.fail(cpath, QStringLiteral("must list at least one level, e.g. [1, 2, 4, 8]"));
        for (std::size_t i = 0; i < c->size(); ++i) {
            const int level = int(integerValue(ctx, (*c)[i], indexPath(cpath, i), 1, maxConcurrency));
            if (std::find(d.concurrency.begin(), d.concurrency.end(), level) != d.concurrency.end())
                ctx.fail(indexPath(cpath, i), QStringLiteral("level %1 is listed twice").arg(level));
            d.concurrency.push_back(level);
        }
    }
    d.extraBody = objectValue(ctx, *v, "extra_body", path);
    d.fidelity = optionalBool(ctx, *v, "fidelity", path).value_or(d.fidelity);
    if (const auto k = optionalInt(ctx, *v, "top_logprobs", path, 1, std::numeric_limits<int>::max())) {
        if (*k > maxTopLogprobs)
            ctx.fail(keyPath(path, "top_logprobs"),
                QStringLiteral("must be at most %1, found %2: servers refuse more by default (vLLM "
                               "answers 400 unless started with a higher --max-logprobs)")
                    .arg(maxTopLogprobs)
                    .arg(*k));
        d.topLogprobs = *k;
    }
    return d;
}

const std::vector<std::string_view> suiteKeys = {"id", "name", "description", "system", "tools", "defaults",
    "tests", "warmup_prompts", "gates", "prefix_cache"};

// What the suite measures of the servers' prefix caches: said in the suite, so that a report can
// say whether a TTFT includes the whole prefill (cold) or production's cached prefix (warm).
PrefixCacheMode parsePrefixCache(const DocumentContext& ctx, const json& suite)
{
    const std::optional<QString> mode = optionalString(ctx, suite, "prefix_cache", QString(), false);
    if (!mode)
        return PrefixCacheMode::Unstated;
    if (*mode == u"warm")
        return PrefixCacheMode::Warm;
    if (*mode == u"cold")
        return PrefixCacheMode::Cold;
    ctx.fail(QStringLiteral("prefix_cache"),
        quote(*mode)
            + QStringLiteral(" is not a cache mode; use \"warm\" (production's pattern: the system prompt "
                             "and briefing cached, each user turn new) or \"cold\" (prefill measured: "
                             "nothing served from a cache)"));
}

// Overrides of the quality gates' patterns, checked now (merged over the defaults and compiled)
// so that a broken pattern is reported when the suite is loaded, not in the middle of a run.
json parseGates(const DocumentContext& ctx, const json& suite)
{
    json gates = objectValue(ctx, suite, "gates", QString());
    try {
        validateGateOverrides(gates);
    } catch (const GatePatternError& e) {
        ctx.fail(e.path(), e.problem());
    }
    return gates;
}

} // namespace

QString prefixCacheId(PrefixCacheMode mode)
{
    switch (mode) {
    case PrefixCacheMode::Warm:
        return QStringLiteral("warm");
    case PrefixCacheMode::Cold:
        return QStringLiteral("cold");
    case PrefixCacheMode::Unstated:
        break;
    }
    return QString();
}

Suite parseSuite(const nlohmann::json& root, const QString& sourceName)
{
    const DocumentContext ctx = suiteContext(sourceName);
    checkDepth(ctx, root);
    checkEncodable(ctx, root);
    if (!root.is_object())
        ctx.fail(QString(),
            QStringLiteral("a suite must be a JSON object with \"id\" and \"tests\", found ")
                + describe(root));
    checkSuiteKeys(ctx, root, QString(), suiteKeys);

    Suite suite;
    suite.id = identifier(ctx, root, QString());
    suite.name = optionalString(ctx, root, "name", QString(), false).value_or(suite.id);
    suite.description = optionalString(ctx, root, "description", QString(), true).value_or(QString());
    suite.system = optionalString(ctx, root, "system", QString(), true).value_or(QString());

    SuiteInfo info;
    if (const json* tools = member(root, "tools")) {
        info.toolNames = parseTools(ctx, *tools);
        suite.tools = *tools;
    }
    suite.defaults = parseDefaults(ctx, root);
    info.defaults = &suite.defaults;
    suite.tests = parseTests(ctx, root, info);
    suite.warmupPrompts = parseWarmupPrompts(ctx, root, suite.tests);
    suite.gates = parseGates(ctx, root);
    suite.prefixCache = parsePrefixCache(ctx, root);
    suite.source = sourceName;
    suite.raw = root;
    return suite;
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "model/core/SuiteReading.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace qs::suite_parse {

using json = nlohmann::json;
using namespace json_text;

void throwError(const QString& message)
{
    throw SuiteError(message.toStdString());
}

DocumentContext suiteContext(const QString& source)
{
    return {source, [](const QString& message) { throwError(message); }};
}

namespace {

struct MisplacedKey {
    std::string_view key;
    const char* hint;
};

// Keys written at the wrong level get a pointer to where they belong.
const MisplacedKey misplacedKeys[] = {
    {"max_tokens", "belongs inside \"defaults\" (or a test)"},
    {"temperature", "belongs inside \"defaults\" (or a test)"},
    {"seed", "belongs inside \"defaults\" (or a test)"},
    {"thinking", "belongs inside \"defaults\" (or a test)"},
    {"warmup", "belongs inside \"defaults\" (or a test)"},
    {"runs", "belongs inside \"defaults\" (or a test)"},
    {"extra_body", "belongs inside \"defaults\" (or a test)"},
    {"concurrency", "belongs inside \"defaults\" (the sweep applies to the whole suite)"},
    {"fidelity", "belongs inside \"defaults\" (every test) or a test (that test)"},
    {"top_logprobs", "belongs inside \"defaults\" (every fidelity test of a suite asks for the same number)"},
    {"warmup_prompts", "belongs at the top level of the suite"},
    {"system", "the system prompt is suite-wide (top level); for another one, give the test \"messages\""},
    {"tools", "tools are defined once at the top level; a test sends them with \"use_tools\": true"},
    {"prompt", "belongs in a test, inside \"tests\""},
    {"turns", "belongs in a test, inside \"tests\""},
    {"messages", "belongs in a test, inside \"tests\""},
    {"expect", "belongs in a test, inside \"tests\""},
    {"expect_tool", "belongs in a test, inside \"tests\""},
    {"use_tools", "belongs in a test, inside \"tests\""},
    {"prompt_tokens", "belongs in a test, inside \"tests\""},
    {"ignore_eos", "belongs in a test, inside \"tests\""},
    {"max_words", "belongs in a test, inside \"tests\""},
    {"max_sentences", "belongs in a test, inside \"tests\""},
};

// A whole number, also when written 256.0. nullopt when it is not one.
std::optional<qint64> wholeNumber(const json& v)
{
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > std::uint64_t(std::numeric_limits<qint64>::max()))
            return std::nullopt;
        return qint64(u);
    }
    if (v.is_number_integer())
        return qint64(v.get<std::int64_t>());
    if (v.is_number_float()) {
        const double d = v.get<double>();
        constexpr double limit = 9007199254740992.0; // 2^53: exact in a double
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) <= limit)
            return qint64(d);
    }
    return std::nullopt;
}

QString misplacedHint(std::string_view key)
{
    for (const MisplacedKey& m : misplacedKeys)
        if (m.key == key)
            return QString::fromUtf8(m.hint);
    return QString();
}

} // namespace

void checkSuiteKeys(const DocumentContext& ctx, const json& object, const QString& path,
    const std::vector<std::string_view>& known)
{
    json_text::checkKeys(ctx, object, path, known, misplacedHint);
}

// ---------------------------------------------------------------------------------------------
// Typed readers. They check the type first and never call get<> on an unchecked value.

std::optional<bool> optionalBool(
    const DocumentContext& ctx, const json& object, std::string_view key, const QString& parent)
{
    const json* v = member(object, key);
    if (!v)
        return std::nullopt;
    if (!v->is_boolean())
        ctx.fail(keyPath(parent, key), QStringLiteral("must be true or false, found ") + describe(*v));
    return v->get<bool>();
}

qint64 integerValue(const DocumentContext& ctx, const json& v, const QString& path, qint64 min, qint64 max)
{
    const auto n = wholeNumber(v);
    if (!n)
        ctx.fail(path, QStringLiteral("must be a whole number, found ") + describe(v));
    if (*n < min)
        ctx.fail(path, QStringLiteral("must be at least %1, found %2").arg(min).arg(*n));
    if (*n > max)
        ctx.fail(path, QStringLiteral("must be at most %1, found %2").arg(max).arg(*n));
    return *n;
}

std::optional<int> optionalInt(const DocumentContext& ctx, const json& object, std::string_view key,
    const QString& parent, int min, int max)
{
    const json* v = member(object, key);
    if (!v)
        return std::nullopt;
    return int(integerValue(ctx, *v, keyPath(parent, key), min, max));
}

std::optional<qint64> optionalSeed(const DocumentContext& ctx, const json& object, const QString& parent)
{
    const json* v = member(object, "seed");
    if (!v)
        return std::nullopt;
    return integerValue(ctx, *v, keyPath(parent, "seed"), std::numeric_limits<qint64>::min(),
        std::numeric_limits<qint64>::max());
}

double temperatureValue(const DocumentContext& ctx, const json& v, const QString& path)
{
    if (!v.is_number())
        ctx.fail(path, QStringLiteral("must be a number from 0 to 2, found ") + describe(v));
    const double t = v.get<double>();
    if (!std::isfinite(t) || t < 0.0 || t > 2.0)
        ctx.fail(path, QStringLiteral("must be from 0 to 2, found ") + describe(v));
    return t;
}

json objectValue(const DocumentContext& ctx, const json& object, std::string_view key, const QString& parent)
{
    const json* v = member(object, key);
    if (!v)
        return json::object();
    if (!v->is_object())
        ctx.fail(keyPath(parent, key), QStringLiteral("must be an object, found ") + describe(*v));
    return *v;
}

// ---------------------------------------------------------------------------------------------
// Whole-document checks

// Iterative, so that hostile nesting cannot overflow the stack here.
void checkDepth(const DocumentContext& ctx, const json& root)
{
    std::vector<std::pair<const json*, int>> stack {{&root, 1}};
    while (!stack.empty()) {
        const auto [v, depth] = stack.back();
        stack.pop_back();
        if (!v->is_structured())
            continue;
        if (depth > maxNestingDepth)
            ctx.fail(QString(), QStringLiteral("nested more than %1 levels deep").arg(maxNestingDepth));
        for (const json& child : *v)
            stack.emplace_back(&child, depth + 1);
    }
}

} // namespace qs::suite_parse

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

QString knownList(const std::vector<std::string_view>& known)
{
    QStringList names;
    for (std::string_view k : known)
        names << fromStd(k);
    return names.join(QStringLiteral(", "));
}

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

} // namespace

void checkKeys(const DocumentContext& ctx, const json& object, const QString& path,
    const std::vector<std::string_view>& known)
{
    for (const auto& item : object.items()) {
        const std::string& key = item.key();
        if (std::find(known.begin(), known.end(), key) != known.end())
            continue;
        const QString where = keyPath(path, key);
        if (const auto suggestion = closestKey(key, known))
            ctx.fail(where,
                QStringLiteral("unknown key; did you mean \"") + fromStd(*suggestion)
                    + QStringLiteral("\"?"));
        for (const MisplacedKey& m : misplacedKeys)
            if (m.key == key)
                ctx.fail(where, QStringLiteral("unknown key here; ") + QString::fromUtf8(m.hint));
        ctx.fail(where, QStringLiteral("unknown key; expected one of: ") + knownList(known));
    }
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

// A list of non-empty strings; `allowSingle` also takes one bare string.
QStringList stringList(const DocumentContext& ctx, const json& v, const QString& path, bool allowSingle)
{
    const QString expected = allowSingle ? QStringLiteral("must be a string or a list of strings, found ")
                                         : QStringLiteral("must be a list of strings, found ");
    if (allowSingle && v.is_string())
        return {stringValue(ctx, v, path, false)};
    if (!v.is_array())
        ctx.fail(path, expected + describe(v));
    if (v.empty())
        ctx.fail(path, QStringLiteral("must not be an empty list"));
    QStringList out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const json& item = v[i];
        if (!item.is_string())
            ctx.fail(indexPath(path, i), QStringLiteral("must be a string, found ") + describe(item));
        out << stringValue(ctx, item, indexPath(path, i), false);
    }
    return out;
}

QString identifier(const DocumentContext& ctx, const json& object, const QString& parent)
{
    const json* v = member(object, "id");
    const QString path = keyPath(parent, "id");
    if (!v)
        ctx.fail(parent,
            QStringLiteral("\"id\" is missing; give a short name made of letters, digits, '.', '_', '-'"));
    return identifierValue(ctx, *v, path);
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

// Suites are stored in result files and sent to servers; both need the text to be valid UTF-8.
void checkEncodable(const DocumentContext& ctx, const json& root)
{
    try {
        (void)root.dump();
    } catch (const json::exception& e) {
        ctx.fail(QString(), QStringLiteral("cannot be stored as JSON: ") + exceptionText(e.what()));
    }
}

} // namespace qs::suite_parse

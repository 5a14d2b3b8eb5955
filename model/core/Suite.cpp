// SPDX-License-Identifier: MIT
#include "model/core/Suite.h"

#include "model/core/GatePatterns.h"
#include "model/core/JsonText.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace qs {

namespace {

using json = nlohmann::json;
using namespace json_text;

constexpr qint64 maxSuiteFileBytes = 16 * 1024 * 1024;
// Deeper than any sensible tool schema; bounds memory and the recursion of json::dump().
constexpr int maxNestingDepth = 100;

// ---------------------------------------------------------------------------------------------
// Error reporting

[[noreturn]] void throwError(const QString& message)
{
    throw SuiteError(message.toStdString());
}

struct Context {
    QString source;

    [[noreturn]] void fail(const QString& path, const QString& problem) const
    {
        const QString where = path.isEmpty() ? QStringLiteral("top level") : path;
        throwError(source + QStringLiteral(": ") + where + QStringLiteral(": ") + problem);
    }
};

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

// Typos must never be silently ignored: every key of a checked object is known, or it is an error.
void checkKeys(
    const Context& ctx, const json& object, const QString& path, const std::vector<std::string_view>& known)
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

const json* member(const json& object, std::string_view key)
{
    const auto it = object.find(std::string(key));
    return it == object.end() ? nullptr : &*it;
}

QString stringValue(const Context& ctx, const json& v, const QString& path, bool allowEmpty)
{
    if (!v.is_string())
        ctx.fail(path, QStringLiteral("must be a string, found ") + describe(v));
    QString s = fromStd(v.get_ref<const std::string&>());
    if (!allowEmpty && s.trimmed().isEmpty())
        ctx.fail(path, QStringLiteral("must not be empty"));
    return s;
}

std::optional<QString> optionalString(
    const Context& ctx, const json& object, std::string_view key, const QString& parent, bool allowEmpty)
{
    const json* v = member(object, key);
    if (!v)
        return std::nullopt;
    return stringValue(ctx, *v, keyPath(parent, key), allowEmpty);
}

std::optional<bool> optionalBool(
    const Context& ctx, const json& object, std::string_view key, const QString& parent)
{
    const json* v = member(object, key);
    if (!v)
        return std::nullopt;
    if (!v->is_boolean())
        ctx.fail(keyPath(parent, key), QStringLiteral("must be true or false, found ") + describe(*v));
    return v->get<bool>();
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

qint64 integerValue(const Context& ctx, const json& v, const QString& path, qint64 min, qint64 max)
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

std::optional<int> optionalInt(
    const Context& ctx, const json& object, std::string_view key, const QString& parent, int min, int max)
{
    const json* v = member(object, key);
    if (!v)
        return std::nullopt;
    return int(integerValue(ctx, *v, keyPath(parent, key), min, max));
}

std::optional<qint64> optionalSeed(const Context& ctx, const json& object, const QString& parent)
{
    const json* v = member(object, "seed");
    if (!v)
        return std::nullopt;
    return integerValue(ctx, *v, keyPath(parent, "seed"), std::numeric_limits<qint64>::min(),
        std::numeric_limits<qint64>::max());
}

double temperatureValue(const Context& ctx, const json& v, const QString& path)
{
    if (!v.is_number())
        ctx.fail(path, QStringLiteral("must be a number from 0 to 2, found ") + describe(v));
    const double t = v.get<double>();
    if (!std::isfinite(t) || t < 0.0 || t > 2.0)
        ctx.fail(path, QStringLiteral("must be from 0 to 2, found ") + describe(v));
    return t;
}

json objectValue(const Context& ctx, const json& object, std::string_view key, const QString& parent)
{
    const json* v = member(object, key);
    if (!v)
        return json::object();
    if (!v->is_object())
        ctx.fail(keyPath(parent, key), QStringLiteral("must be an object, found ") + describe(*v));
    return *v;
}

// A list of non-empty strings; `allowSingle` also takes one bare string.
QStringList stringList(const Context& ctx, const json& v, const QString& path, bool allowSingle)
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

bool isIdentifier(const QString& id)
{
    if (id.isEmpty() || id.size() > 128)
        return false;
    return std::all_of(id.begin(), id.end(), [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') || c == u'.'
            || c == u'_' || c == u'-';
    });
}

QString identifier(const Context& ctx, const json& object, const QString& parent)
{
    const json* v = member(object, "id");
    const QString path = keyPath(parent, "id");
    if (!v)
        ctx.fail(parent,
            QStringLiteral("\"id\" is missing; give a short name made of letters, digits, '.', '_', '-'"));
    const QString id = stringValue(ctx, *v, path, false);
    if (!isIdentifier(id))
        ctx.fail(path,
            quote(id)
                + QStringLiteral(
                    " is not a valid id; use 1 to 128 letters, digits, '.', '_' or '-' (no spaces)"));
    return id;
}

// ---------------------------------------------------------------------------------------------
// Whole-document checks

// Iterative, so that hostile nesting cannot overflow the stack here.
void checkDepth(const Context& ctx, const json& root)
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
void checkEncodable(const Context& ctx, const json& root)
{
    try {
        (void)root.dump();
    } catch (const json::exception& e) {
        ctx.fail(QString(), QStringLiteral("cannot be stored as JSON: ") + exceptionText(e.what()));
    }
}

// ---------------------------------------------------------------------------------------------
// Tools

// Validates the OpenAI function schemas and returns the function names.
QStringList parseTools(const Context& ctx, const json& tools)
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

const std::vector<std::string_view> defaultsKeys
    = {"max_tokens", "temperature", "seed", "thinking", "warmup", "runs", "concurrency", "extra_body"};

constexpr int maxTokensLimit = 10'000'000;
constexpr int maxRuns = 100'000;
constexpr int maxWarmup = 10'000;
constexpr int maxConcurrency = 4096;

SuiteDefaults parseDefaults(const Context& ctx, const json& suite)
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
    checkKeys(ctx, *v, path, defaultsKeys);
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
    return d;
}

// ---------------------------------------------------------------------------------------------
// Tests

const std::vector<std::string_view> testKeys
    = {"id", "name", "category", "prompt", "turns", "messages", "expect", "expect_tool", "expect_no_tool",
        "expect_length", "max_words", "max_sentences", "use_tools", "max_tokens", "temperature", "seed",
        "thinking", "warmup", "runs", "extra_body", "prompt_tokens", "ignore_eos"};

const std::vector<std::string_view> lengthKeys = {"max_words", "max_sentences"};
const std::vector<std::string_view> expectToolKeys = {"name", "required"};

struct SuiteInfo {
    QStringList toolNames;
};

// "/…/" is a regular expression; anything else a case-insensitive substring.
QString checkPattern(const Context& ctx, const QString& pattern, const QString& path)
{
    if (pattern.size() >= 2 && pattern.startsWith(u'/') && pattern.endsWith(u'/')) {
        const QString body = pattern.mid(1, pattern.size() - 2);
        if (body.isEmpty())
            ctx.fail(path, QStringLiteral("is an empty regular expression, which matches everything"));
        const QRegularExpression re(body);
        if (!re.isValid())
            ctx.fail(path,
                QStringLiteral("is not a valid regular expression: %1 at offset %2")
                    .arg(re.errorString())
                    .arg(re.patternErrorOffset()));
        return pattern;
    }
    // "/tokyo/i" would silently be a substring search for the literal text.
    static const QRegularExpression withFlags(QStringLiteral("^/.+/[a-z]+$"));
    if (withFlags.match(pattern).hasMatch())
        ctx.fail(path,
            QStringLiteral("regular expression flags after the closing '/' are not supported; write "
                           "\"/(?i)…/\" for a case-insensitive expression"));
    return pattern;
}

QStringList parsePatterns(const Context& ctx, const json& v, const QString& path)
{
    QStringList patterns = stringList(ctx, v, path, true);
    for (qsizetype i = 0; i < patterns.size(); ++i)
        checkPattern(ctx, patterns[i], v.is_array() ? indexPath(path, std::size_t(i)) : path);
    return patterns;
}

ExpectedTool parseExpectedTool(const Context& ctx, const json& v, const QString& path, const SuiteInfo& info)
{
    ExpectedTool tool;
    QString namePath = path;
    if (v.is_string()) {
        // Shorthand: "expect_tool": "web_search".
        tool.name = stringValue(ctx, v, path, false);
    } else if (v.is_object()) {
        checkKeys(ctx, v, path, expectToolKeys);
        const json* name = member(v, "name");
        if (!name)
            ctx.fail(path, QStringLiteral("\"name\" is missing; it names the tool the model should call"));
        namePath = keyPath(path, "name");
        tool.name = stringValue(ctx, *name, namePath, false);
        if (const json* req = member(v, "required")) {
            const QString rpath = keyPath(path, "required");
            if (!req->is_array())
                ctx.fail(rpath,
                    QStringLiteral("must be a list of strings (argument names), found ") + describe(*req));
            for (std::size_t i = 0; i < req->size(); ++i)
                tool.requiredArguments << stringValue(ctx, (*req)[i], indexPath(rpath, i), false);
        }
    } else {
        ctx.fail(path,
            QStringLiteral("must be an object like {\"name\": \"web_search\", \"required\": [\"query\"]}, "
                           "found ")
                + describe(v));
    }
    if (!info.toolNames.contains(tool.name)) {
        const QString known = info.toolNames.isEmpty()
            ? QStringLiteral("the suite defines no tools")
            : QStringLiteral("the suite's tools are: ") + info.toolNames.join(QStringLiteral(", "));
        ctx.fail(namePath, quote(tool.name) + QStringLiteral(" is not one of the suite's tools; ") + known);
    }
    return tool;
}

void parseLength(const Context& ctx, const json& test, const QString& path, Expectations& expect)
{
    expect.maxWords = optionalInt(ctx, test, "max_words", path, 1, 1'000'000);
    expect.maxSentences = optionalInt(ctx, test, "max_sentences", path, 1, 100'000);
    const json* nested = member(test, "expect_length");
    if (!nested)
        return;
    const QString npath = keyPath(path, "expect_length");
    if (!nested->is_object())
        ctx.fail(npath,
            QStringLiteral("must be an object like {\"max_words\": 40, \"max_sentences\": 3}, found ")
                + describe(*nested));
    checkKeys(ctx, *nested, npath, lengthKeys);
    if (expect.maxWords && member(*nested, "max_words"))
        ctx.fail(keyPath(npath, "max_words"),
            QStringLiteral("is also given as the test's \"max_words\"; give it once"));
    if (expect.maxSentences && member(*nested, "max_sentences"))
        ctx.fail(keyPath(npath, "max_sentences"),
            QStringLiteral("is also given as the test's \"max_sentences\"; give it once"));
    if (auto w = optionalInt(ctx, *nested, "max_words", npath, 1, 1'000'000))
        expect.maxWords = w;
    if (auto s = optionalInt(ctx, *nested, "max_sentences", npath, 1, 100'000))
        expect.maxSentences = s;
}

// An OpenAI messages array, sent as-is: checked enough that the runner and servers can read it.
json parseMessages(const Context& ctx, const json& v, const QString& path)
{
    if (!v.is_array())
        ctx.fail(path,
            QStringLiteral("must be a list of messages like [{\"role\": \"user\", \"content\": \"…\"}], "
                           "found ")
                + describe(v));
    if (v.empty())
        ctx.fail(path, QStringLiteral("must hold at least one message"));
    static const std::vector<std::string_view> roles = {"system", "developer", "user", "assistant", "tool"};
    for (std::size_t i = 0; i < v.size(); ++i) {
        const json& m = v[i];
        const QString at = indexPath(path, i);
        if (!m.is_object())
            ctx.fail(at,
                QStringLiteral("must be a message object with \"role\" and \"content\", found ")
                    + describe(m));
        const json* role = member(m, "role");
        if (!role)
            ctx.fail(at, QStringLiteral("\"role\" is missing"));
        const QString r = stringValue(ctx, *role, keyPath(at, "role"), false);
        if (std::find(roles.begin(), roles.end(), r.toStdString()) == roles.end())
            ctx.fail(keyPath(at, "role"),
                quote(r)
                    + QStringLiteral(" is not a role; use system, developer, user, "
                                     "assistant or tool"));
        const json* content = member(m, "content");
        const json* toolCalls = member(m, "tool_calls");
        if (toolCalls && (r != u"assistant" || !toolCalls->is_array()))
            ctx.fail(keyPath(at, "tool_calls"),
                QStringLiteral("must be a list, and only in an assistant message; found ")
                    + describe(*toolCalls));
        if (!content || content->is_null()) {
            if (!(r == u"assistant" && toolCalls))
                ctx.fail(at,
                    QStringLiteral("\"content\" is missing (only an assistant message with \"tool_calls\" "
                                   "may leave it out)"));
        } else if (content->is_array()) {
            for (std::size_t k = 0; k < content->size(); ++k)
                if (!(*content)[k].is_object())
                    ctx.fail(indexPath(keyPath(at, "content"), k),
                        QStringLiteral(
                            "must be a content part object like {\"type\": \"text\", \"text\": \"…\"}, "
                            "found ")
                            + describe((*content)[k]));
        } else if (!content->is_string()) {
            ctx.fail(keyPath(at, "content"),
                QStringLiteral("must be a string or a list of content parts, found ") + describe(*content));
        }
        if (const json* id = member(m, "tool_call_id"); id && !id->is_string())
            ctx.fail(keyPath(at, "tool_call_id"), QStringLiteral("must be a string, found ") + describe(*id));
        if (const json* name = member(m, "name"); name && !name->is_string())
            ctx.fail(keyPath(at, "name"), QStringLiteral("must be a string, found ") + describe(*name));
    }
    const json& last = v.back();
    const std::string& lastRole = last.at("role").get_ref<const std::string&>();
    if (lastRole != "user" && lastRole != "tool")
        ctx.fail(indexPath(path, v.size() - 1),
            QStringLiteral("the last message must be from the user (or a tool result) for the model to reply "
                           "to, found role ")
                + quote(lastRole));
    return v;
}

// Exactly one way of saying what to send.
void checkSingleInput(const Context& ctx, const json& test, const QString& path)
{
    static const std::vector<std::string_view> inputs = {"prompt", "turns", "messages", "prompt_tokens"};
    QStringList given;
    for (std::string_view k : inputs)
        if (member(test, k))
            given << u'"' + fromStd(k) + u'"';
    if (given.isEmpty())
        ctx.fail(path,
            QStringLiteral("says nothing to send; give one of \"prompt\" (a string), \"turns\" (a list of "
                           "user messages), \"messages\" (an OpenAI messages list) or \"prompt_tokens\" "
                           "(a synthetic prompt length)"));
    if (given.size() > 1)
        ctx.fail(path,
            QStringLiteral("gives ") + given.join(QStringLiteral(" and "))
                + QStringLiteral(
                    "; give only one of \"prompt\", \"turns\", \"messages\", \"prompt_tokens\""));
}

SuiteTest parseTest(const Context& ctx, const json& t, const QString& path, const SuiteInfo& info)
{
    if (!t.is_object())
        ctx.fail(path,
            QStringLiteral("must be a test object like {\"id\": \"factual\", \"prompt\": \"…\"}, found ")
                + describe(t));
    checkKeys(ctx, t, path, testKeys);
    SuiteTest test;
    test.id = identifier(ctx, t, path);
    test.name = optionalString(ctx, t, "name", path, false).value_or(test.id);
    test.category = optionalString(ctx, t, "category", path, false).value_or(QString());

    checkSingleInput(ctx, t, path);
    if (const json* p = member(t, "prompt"))
        test.turns << stringValue(ctx, *p, keyPath(path, "prompt"), false);
    if (const json* turns = member(t, "turns"))
        test.turns = stringList(ctx, *turns, keyPath(path, "turns"), false);
    if (const json* m = member(t, "messages"))
        test.messages = parseMessages(ctx, *m, keyPath(path, "messages"));
    test.promptTokens = optionalInt(ctx, t, "prompt_tokens", path, 1, maxTokensLimit);
    test.ignoreEos = optionalBool(ctx, t, "ignore_eos", path).value_or(false);

    test.useTools = optionalBool(ctx, t, "use_tools", path).value_or(false);
    if (test.useTools && info.toolNames.isEmpty())
        ctx.fail(keyPath(path, "use_tools"),
            QStringLiteral(
                "is true but the suite defines no tools; add them to the top-level \"tools\" list"));

    if (const json* e = member(t, "expect"))
        test.expect.answerPatterns = parsePatterns(ctx, *e, keyPath(path, "expect"));
    if (const json* e = member(t, "expect_tool")) {
        test.expect.tool = parseExpectedTool(ctx, *e, keyPath(path, "expect_tool"), info);
        if (!test.useTools)
            ctx.fail(keyPath(path, "expect_tool"),
                QStringLiteral(
                    "needs \"use_tools\": true in the same test, or the model is never offered the "
                    "tools"));
    }
    test.expect.noTool = optionalBool(ctx, t, "expect_no_tool", path).value_or(false);
    if (test.expect.noTool && test.expect.tool)
        ctx.fail(
            keyPath(path, "expect_no_tool"), QStringLiteral("contradicts \"expect_tool\"; give one of them"));
    parseLength(ctx, t, path, test.expect);

    test.maxTokens = optionalInt(ctx, t, "max_tokens", path, 1, maxTokensLimit);
    if (const json* v = member(t, "temperature"))
        test.temperature = temperatureValue(ctx, *v, keyPath(path, "temperature"));
    test.seed = optionalSeed(ctx, t, path);
    test.thinking = optionalBool(ctx, t, "thinking", path);
    test.warmup = optionalInt(ctx, t, "warmup", path, 0, maxWarmup);
    test.runs = optionalInt(ctx, t, "runs", path, 1, maxRuns);
    test.extraBody = objectValue(ctx, t, "extra_body", path);
    return test;
}

std::vector<SuiteTest> parseTests(const Context& ctx, const json& suite, const SuiteInfo& info)
{
    const json* v = member(suite, "tests");
    if (!v)
        ctx.fail(QString(),
            QStringLiteral("\"tests\" is missing; give a list of tests like [{\"id\": \"factual\", "
                           "\"prompt\": \"What is the capital of Japan?\"}]"));
    const QString path = QStringLiteral("tests");
    if (!v->is_array())
        ctx.fail(path, QStringLiteral("must be a list of test objects, found ") + describe(*v));
    if (v->empty())
        ctx.fail(path, QStringLiteral("is empty; a suite needs at least one test"));
    std::vector<SuiteTest> tests;
    QHash<QString, std::size_t> seen;
    for (std::size_t i = 0; i < v->size(); ++i) {
        const QString at = indexPath(path, i);
        SuiteTest test = parseTest(ctx, (*v)[i], at, info);
        if (const auto it = seen.constFind(test.id); it != seen.cend())
            ctx.fail(keyPath(at, "id"),
                quote(test.id)
                    + QStringLiteral(" is already the id of tests[%1]; test ids "
                                     "must be unique")
                          .arg(*it));
        seen.insert(test.id, i);
        tests.push_back(std::move(test));
    }
    return tests;
}

// ---------------------------------------------------------------------------------------------
// Warm-up prompts

QString normalizedPrompt(const QString& text)
{
    return text.simplified().toCaseFolded();
}

QStringList parseWarmupPrompts(const Context& ctx, const json& suite, const std::vector<SuiteTest>& tests)
{
    QHash<QString, QString> measured; // normalised prompt -> where it is used
    for (std::size_t i = 0; i < tests.size(); ++i)
        for (qsizetype k = 0; k < tests[i].turns.size(); ++k)
            measured.insert(normalizedPrompt(tests[i].turns[k]),
                QStringLiteral("tests[%1] (%2)").arg(i).arg(tests[i].id));

    const json* v = member(suite, "warmup_prompts");
    if (!v) {
        QStringList prompts;
        for (const QString& p : builtinWarmupPrompts())
            if (!measured.contains(normalizedPrompt(p)))
                prompts << p;
        return prompts;
    }
    const QString path = QStringLiteral("warmup_prompts");
    const QStringList prompts = stringList(ctx, *v, path, false);
    for (qsizetype i = 0; i < prompts.size(); ++i)
        if (const auto it = measured.constFind(normalizedPrompt(prompts[i])); it != measured.cend())
            ctx.fail(indexPath(path, std::size_t(i)),
                QStringLiteral("is also a measured prompt of ") + *it
                    + QStringLiteral("; warm-up prompts must differ from measured ones, or the warm-up puts "
                                     "them in the server's prefix cache"));
    return prompts;
}

const std::vector<std::string_view> suiteKeys
    = {"id", "name", "description", "system", "tools", "defaults", "tests", "warmup_prompts", "gates"};

// Overrides of the quality gates' patterns, checked now (merged over the defaults and compiled)
// so that a broken pattern is reported when the suite is loaded, not in the middle of a run.
json parseGates(const Context& ctx, const json& suite)
{
    json gates = objectValue(ctx, suite, "gates", QString());
    try {
        validateGateOverrides(gates);
    } catch (const GatePatternError& e) {
        ctx.fail(e.path(), e.problem());
    }
    return gates;
}

// ---------------------------------------------------------------------------------------------
// Files

[[noreturn]] void throwAt(const QString& source, const QString& problem)
{
    throwError(source + QStringLiteral(": ") + problem);
}

json parseDocument(const QByteArray& data, const QString& source)
{
    if (data.trimmed().isEmpty())
        throwAt(source, QStringLiteral("the file is empty; a suite is a JSON object"));
    try {
        return parseStrict(data, maxNestingDepth);
    } catch (const ParseProblem& p) {
        throwAt(source, p.message);
    }
}

// `size` is unknown (0) for devices and pipes that were read past the limit.
[[noreturn]] void throwTooBig(const QString& source, qint64 size)
{
    const QString what = size > 0
        ? QStringLiteral("the file is %1 MiB").arg(double(size) / (1024.0 * 1024.0), 0, 'f', 1)
        : QStringLiteral("the file is larger than 16 MiB");
    throwAt(source, what + QStringLiteral("; suite files are limited to 16 MiB"));
}

QByteArray readLimited(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        throwAt(path, QStringLiteral("cannot read the suite: no such file"));
    if (info.isDir())
        throwAt(path, QStringLiteral("cannot read the suite: it is a directory"));
    // Refuse before reading: a huge file must not cost its size in memory.
    if (info.size() > maxSuiteFileBytes)
        throwTooBig(path, info.size());
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throwAt(path, QStringLiteral("cannot read the suite: ") + file.errorString());
    // Read one byte past the limit: files that grow, pipes and devices report no honest size.
    QByteArray data = file.read(maxSuiteFileBytes + 1);
    if (data.size() > maxSuiteFileBytes)
        throwTooBig(path, 0);
    if (file.error() != QFileDevice::NoError)
        throwAt(path, QStringLiteral("cannot read the suite: ") + file.errorString());
    return data;
}

const QStringList& builtinNames()
{
    static const QStringList names
        = {QStringLiteral("voice-assistant"), QStringLiteral("quick-smoke"), QStringLiteral("throughput")};
    return names;
}

} // namespace

Suite parseSuite(const nlohmann::json& root, const QString& sourceName)
{
    const Context ctx {sourceName};
    checkDepth(ctx, root);
    checkEncodable(ctx, root);
    if (!root.is_object())
        ctx.fail(QString(),
            QStringLiteral("a suite must be a JSON object with \"id\" and \"tests\", found ")
                + describe(root));
    checkKeys(ctx, root, QString(), suiteKeys);

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
    suite.tests = parseTests(ctx, root, info);
    suite.warmupPrompts = parseWarmupPrompts(ctx, root, suite.tests);
    suite.gates = parseGates(ctx, root);
    suite.source = sourceName;
    suite.raw = root;
    return suite;
}

Suite loadSuiteFile(const QString& path)
{
    const QByteArray data = readLimited(path);
    return parseSuite(parseDocument(data, path), path);
}

QStringList builtinSuiteNames()
{
    return builtinNames();
}

Suite loadBuiltinSuite(const QString& name)
{
    const QString source = QStringLiteral("builtin:") + name;
    if (!builtinNames().contains(name)) {
        QString hint;
        std::vector<std::string> names;
        for (const QString& n : builtinNames())
            names.push_back(n.toStdString());
        const std::vector<std::string_view> views(names.begin(), names.end());
        if (const auto close = closestKey(name.toStdString(), views))
            hint = QStringLiteral("did you mean \"") + fromStd(*close) + QStringLiteral("\"? ");
        throwError(QStringLiteral("no built-in suite named ") + quote(name) + QStringLiteral("; ") + hint
            + QStringLiteral("the built-in suites are: ") + builtinNames().join(QStringLiteral(", ")));
    }
    QFile file(QStringLiteral(":/suites/") + name + QStringLiteral(".json"));
    if (!file.open(QIODevice::ReadOnly))
        throwAt(source,
            QStringLiteral("the built-in suite is missing from this build (its resources are not linked)"));
    return parseSuite(parseDocument(file.readAll(), source), source);
}

Suite loadSuite(const QString& nameOrPath)
{
    if (builtinNames().contains(nameOrPath))
        return loadBuiltinSuite(nameOrPath);
    if (nameOrPath.startsWith(QStringLiteral("builtin:")))
        return loadBuiltinSuite(nameOrPath.mid(8));
    // A bare word that is neither a file nor a built-in was most likely a mistyped suite name.
    const bool looksLikeName = !nameOrPath.contains(u'/') && !nameOrPath.contains(u'.');
    if (looksLikeName && !QFileInfo::exists(nameOrPath))
        loadBuiltinSuite(nameOrPath); // throws with the list of built-in names
    return loadSuiteFile(nameOrPath);
}

// Short, neutral and unlike any measured prompt, so a warm-up never seeds the prefix cache with
// the text a measured request is about to send.
const QStringList& builtinWarmupPrompts()
{
    static const QStringList prompts = {
        QStringLiteral("Say good morning in one short sentence."),
        QStringLiteral("Name a colour you might see in a sunset."),
        QStringLiteral("Give me one word that rhymes with light."),
        QStringLiteral("What sound does a cat make?"),
        QStringLiteral("Suggest a name for a goldfish."),
        QStringLiteral("Reply with a short friendly hello."),
        QStringLiteral("Name one fruit that is yellow."),
        QStringLiteral("Tell me a calm word for the evening."),
        QStringLiteral("Which season comes after spring?"),
        QStringLiteral("Say thank you in a cheerful way."),
    };
    return prompts;
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "model/core/SuiteReading.h"

#include <QRegularExpression>
#include <algorithm>
#include <string>
#include <utility>

namespace qs::suite_parse {

using json = nlohmann::json;
using namespace json_text;

namespace {

// ---------------------------------------------------------------------------------------------
// Tests

const std::vector<std::string_view> testKeys
    = {"id", "name", "category", "prompt", "turns", "messages", "expect", "expect_tool", "expect_no_tool",
        "expect_length", "max_words", "max_sentences", "use_tools", "max_tokens", "temperature", "seed",
        "thinking", "warmup", "runs", "extra_body", "prompt_tokens", "ignore_eos", "fidelity", "context"};

const std::vector<std::string_view> contextKeys = {"tokens", "fact", "depth"};
// Past any server's context today; bounds the text the runner generates.
constexpr int maxContextTokens = 1'048'576;

const std::vector<std::string_view> lengthKeys = {"max_words", "max_sentences"};
const std::vector<std::string_view> expectToolKeys = {"name", "required"};

// "/…/" is a regular expression; anything else a case-insensitive substring.
QString checkPattern(const DocumentContext& ctx, const QString& pattern, const QString& path)
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

QStringList parsePatterns(const DocumentContext& ctx, const json& v, const QString& path)
{
    QStringList patterns = stringList(ctx, v, path, true);
    for (qsizetype i = 0; i < patterns.size(); ++i)
        checkPattern(ctx, patterns[i], v.is_array() ? indexPath(path, std::size_t(i)) : path);
    return patterns;
}

ExpectedTool parseExpectedTool(
    const DocumentContext& ctx, const json& v, const QString& path, const SuiteInfo& info)
{
    ExpectedTool tool;
    QString namePath = path;
    if (v.is_string()) {
        // Shorthand: "expect_tool": "web_search".
        tool.name = stringValue(ctx, v, path, false);
    } else if (v.is_object()) {
        checkSuiteKeys(ctx, v, path, expectToolKeys);
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

void parseLength(const DocumentContext& ctx, const json& test, const QString& path, Expectations& expect)
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
    checkSuiteKeys(ctx, *nested, npath, lengthKeys);
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
json parseMessages(const DocumentContext& ctx, const json& v, const QString& path)
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
void checkSingleInput(const DocumentContext& ctx, const json& test, const QString& path)
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

// A fidelity test compares greedy answers token by token: sampled ones would differ by chance.
// A temperature other than 0 that would apply to it is refused rather than silently overridden.
void parseFidelity(
    const DocumentContext& ctx, const json& t, const QString& path, const SuiteInfo& info, SuiteTest& test)
{
    const bool byDefault = info.defaults && info.defaults->fidelity;
    test.fidelity = optionalBool(ctx, t, "fidelity", path).value_or(byDefault);
    if (!test.fidelity)
        return;
    if (test.temperature) {
        if (*test.temperature != 0.0)
            ctx.fail(keyPath(path, "temperature"),
                QStringLiteral("is %1 but this is a fidelity test, and fidelity tests are greedy: "
                               "temperature 0 (or leave it out)")
                    .arg(*test.temperature));
        return;
    }
    if (info.defaults && info.defaults->temperature && *info.defaults->temperature != 0.0)
        ctx.fail(path,
            QStringLiteral("is a fidelity test, and fidelity tests are greedy: temperature 0, but "
                           "\"defaults\" sets temperature %1; give this test \"temperature\": 0")
                .arg(*info.defaults->temperature));
}

// "context": {"tokens": 8192, "fact": "…", "depth": 0.5}: a generated briefing of about that
// many tokens in the system prompt (run/ContextBuilder), the fact placed at that depth.
ContextSpec parseContext(const DocumentContext& ctx, const json& v, const QString& path)
{
    if (!v.is_object())
        ctx.fail(path,
            QStringLiteral("must be an object like {\"tokens\": 8192, \"fact\": \"…\", \"depth\": 0.5}, "
                           "found ")
                + describe(v));
    checkSuiteKeys(ctx, v, path, contextKeys);
    ContextSpec spec;
    const auto tokens = optionalInt(ctx, v, "tokens", path, 64, maxContextTokens);
    if (!tokens)
        ctx.fail(path, QStringLiteral("\"tokens\" is missing: the prompt size to build, e.g. 8192"));
    spec.tokens = *tokens;
    spec.fact = optionalString(ctx, v, "fact", path, false).value_or(QString());
    if (const json* d = member(v, "depth")) {
        if (!d->is_number())
            ctx.fail(keyPath(path, "depth"),
                QStringLiteral("must be a number from 0 (the briefing's start) to 1 (its end), found ")
                    + describe(*d));
        spec.depth = d->get<double>();
        if (!(spec.depth >= 0.0 && spec.depth <= 1.0))
            ctx.fail(keyPath(path, "depth"),
                QStringLiteral("must be from 0 (the briefing's start) to 1 (its end), found %1")
                    .arg(spec.depth));
        if (spec.fact.isEmpty())
            ctx.fail(keyPath(path, "depth"), QStringLiteral("places a fact, but \"fact\" is not given"));
    }
    return spec;
}

SuiteTest parseTest(const DocumentContext& ctx, const json& t, const QString& path, const SuiteInfo& info)
{
    if (!t.is_object())
        ctx.fail(path,
            QStringLiteral("must be a test object like {\"id\": \"factual\", \"prompt\": \"…\"}, found ")
                + describe(t));
    checkSuiteKeys(ctx, t, path, testKeys);
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
    parseFidelity(ctx, t, path, info, test);
    if (const json* c = member(t, "context")) {
        test.context = parseContext(ctx, *c, keyPath(path, "context"));
        if (test.promptTokens)
            ctx.fail(keyPath(path, "context"),
                QStringLiteral("cannot be combined with \"prompt_tokens\"; a context test asks a question "
                               "(\"prompt\") about the context it builds"));
        if (test.messages.is_array())
            ctx.fail(keyPath(path, "context"),
                QStringLiteral("cannot be combined with \"messages\": the context is built into the system "
                               "prompt, and explicit messages bring their own"));
    }
    return test;
}

} // namespace

std::vector<SuiteTest> parseTests(const DocumentContext& ctx, const json& suite, const SuiteInfo& info)
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

} // namespace qs::suite_parse

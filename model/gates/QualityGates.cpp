// SPDX-License-Identifier: MIT
#include "model/gates/QualityGates.h"

#include "model/core/GateRules.h"
#include "model/core/RunRecord.h"
#include "model/wire/RequestMetrics.h"

#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace qs {

using json = nlohmann::json;

namespace {

using Rules = GatePatterns::Rules;
using Pattern = Rules::Pattern;

const QString kNonEmpty = QStringLiteral("non_empty");
const QString kExpectedAnswer = QStringLiteral("expected_answer");
const QString kToolCall = QStringLiteral("tool_call");
const QString kNoMarkdown = QStringLiteral("no_markdown");
const QString kNoThinkingLeak = QStringLiteral("no_thinking_leak");
const QString kCoherent = QStringLiteral("coherent");
const QString kWithinLength = QStringLiteral("within_length");

const QString kContent = QStringLiteral("content");
const QString kReasoning = QStringLiteral("reasoning");

// What a bare URL is blanked with: not a letter, not a space, not a symbol any gate looks for.
constexpr char16_t maskChar = u'\uE000';

constexpr int reasonExamples = 3; // how many findings a reason names before "(+N more)"
constexpr qsizetype maxCallJson = 20000; // a tool call written as text is short; skip bigger blobs

QString fromStd(const std::string& s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// ---------------------------------------------------------------------------------------------
// Text helpers

struct Hit {
    int begin = 0;
    int end = 0;
    QString what;
};

bool hasNonSpace(QStringView text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) { return !c.isSpace(); });
}

// A bare URL is not markdown and not a garbled word: blank it with maskChar (same length, offsets
// unchanged), keeping its scheme so that "<https://…>" and "[x](https://…)" are still recognised.
QString maskUrls(const QString& text, const QRegularExpression& url)
{
    QString out = text;
    auto it = url.globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        const QString found = m.captured();
        qsizetype keep = found.indexOf(QStringLiteral("://"));
        keep = keep >= 0 ? keep + 3 : (found.startsWith(QStringLiteral("www."), Qt::CaseInsensitive) ? 4 : 0);
        for (qsizetype i = m.capturedStart() + keep; i < m.capturedEnd(); ++i)
            out[i] = QChar(maskChar);
    }
    return out;
}

std::vector<Hit> findAll(const Pattern& p, const QString& text, int offset)
{
    std::vector<Hit> hits;
    auto it = p.regex.globalMatch(text);
    while (it.hasNext() && int(hits.size()) < maxGateHitsPerPattern) {
        const auto m = it.next();
        if (m.capturedLength() > 0)
            hits.push_back({offset + int(m.capturedStart()), offset + int(m.capturedEnd()), p.name});
    }
    if (int(hits.size()) < p.minMatches)
        hits.clear();
    return hits;
}

std::vector<Hit> findAll(const std::vector<Pattern>& patterns, const QString& text, int offset)
{
    std::vector<Hit> hits;
    for (const Pattern& p : patterns) {
        auto found = findAll(p, text, offset);
        hits.insert(hits.end(), found.begin(), found.end());
    }
    std::sort(hits.begin(), hits.end(),
        [](const Hit& a, const Hit& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });
    return hits;
}

// Short, one line: what a reason quotes.
QString excerpt(QStringView text, int limit = 24)
{
    QString t = text.toString();
    t.replace(u'\n', QStringLiteral("⏎"));
    t.replace(u'\t', u' ');
    if (t.size() > limit) {
        qsizetype keep = limit - 1;
        if (t.at(keep - 1).isHighSurrogate())
            --keep; // never split a character
        t = t.left(keep) + QStringLiteral("…");
    }
    return t;
}

QString span(int begin, int end)
{
    return QStringLiteral("%1–%2").arg(begin).arg(end);
}

QString describeHit(const Hit& h, const QString& field)
{
    const int begin = std::clamp(h.begin, 0, int(field.size()));
    const int end = std::clamp(h.end, begin, int(field.size()));
    return h.what + QStringLiteral(" \"") + excerpt(QStringView(field).sliced(begin, end - begin))
        + QStringLiteral("\" at ") + span(h.begin, h.end);
}

QString describeHits(const std::vector<Hit>& hits, const QString& field)
{
    QStringList parts;
    for (std::size_t i = 0; i < hits.size() && int(i) < reasonExamples; ++i)
        parts << describeHit(hits[i], field);
    QString out = parts.join(QStringLiteral("; "));
    if (int(hits.size()) > reasonExamples)
        out += QStringLiteral(" (+%1 more)").arg(hits.size() - std::size_t(reasonExamples));
    return out;
}

std::vector<TextRange> toRanges(const std::vector<Hit>& hits, const QString& field)
{
    std::vector<TextRange> out;
    out.reserve(hits.size());
    for (const Hit& h : hits)
        out.push_back({h.begin, h.end, field, h.what});
    return out;
}

GateResult result(const QString& gate, GateVerdict verdict, const QString& reason)
{
    GateResult r;
    r.gate = gate;
    r.verdict = verdict;
    r.reason = reason;
    return r;
}

// Iterates a QString by code point: (index, length in UTF-16 units, code point).
template <typename F> void forEachCodePoint(QStringView text, F&& f)
{
    for (qsizetype i = 0; i < text.size();) {
        char32_t c = text[i].unicode();
        qsizetype len = 1;
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i], text[i + 1]);
            len = 2;
        }
        f(int(i), int(len), c);
        i += len;
    }
}

// Japanese mixes kanji and kana in one word, so they count as one script; -1 = no script.
int scriptGroup(char32_t c)
{
    const QChar::Script s = QChar::script(c);
    switch (s) {
    case QChar::Script_Common:
    case QChar::Script_Inherited:
    case QChar::Script_Unknown:
        return -1;
    case QChar::Script_Hiragana:
    case QChar::Script_Katakana:
    case QChar::Script_Bopomofo:
        return int(QChar::Script_Han);
    default:
        return int(s);
    }
}

bool isCjkGroup(int g)
{
    return g == int(QChar::Script_Han) || g == int(QChar::Script_Hangul);
}

// ---------------------------------------------------------------------------------------------
// Context shared by the gates

struct Context {
    const RequestRecord& record;
    const Suite& suite;
    const SuiteTest& test;
    const Rules& rules;
    bool finalTurn = true;
    const QString& content;
    int visibleStart = 0;
    QString visible; ///< content after leaked thinking
    QString maskedVisible; ///< `visible` with URLs blanked
    QStringList toolNames; ///< the suite's tools

    bool expectationsApply() const { return finalTurn; }
};

std::optional<bool> thinkingSetting(const Context& c)
{
    if (c.test.thinking)
        return c.test.thinking;
    if (c.suite.defaults.thinking)
        return c.suite.defaults.thinking;
    const json& body = c.record.requestBody;
    if (body.is_object()) {
        const auto kwargs = body.find("chat_template_kwargs");
        if (kwargs != body.end() && kwargs->is_object()) {
            const auto enable = kwargs->find("enable_thinking");
            if (enable != kwargs->end() && enable->is_boolean())
                return enable->get<bool>();
        }
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// non_empty

GateResult nonEmpty(const Context& c)
{
    const AssembledResponse& r = c.record.response;
    if (!r.toolCalls.empty()) {
        const QString name = r.toolCalls.front().name;
        return result(kNonEmpty, GateVerdict::Pass,
            QStringLiteral("tool call ") + (name.isEmpty() ? QStringLiteral("(no name)") : name));
    }
    if (hasNonSpace(c.visible))
        return result(kNonEmpty, GateVerdict::Pass, QStringLiteral("visible answer"));

    GateResult out = result(kNonEmpty, GateVerdict::Fail, QString());
    if (c.visibleStart > 0 && hasNonSpace(QStringView(c.content).left(c.visibleStart))) {
        const bool closed = c.content.indexOf(QStringLiteral("</think>")) >= 0;
        out.reason = closed ? QStringLiteral("only thinking in content, nothing after </think>")
                            : QStringLiteral("only thinking in content (<think> never closed)");
        out.ranges.push_back({0, c.visibleStart, kContent, QStringLiteral("thinking")});
    } else if (hasNonSpace(r.reasoning)) {
        out.reason
            = QStringLiteral("no answer: %1 characters of reasoning, then nothing").arg(r.reasoning.size());
        out.ranges.push_back({0, int(r.reasoning.size()), kReasoning, QStringLiteral("reasoning")});
    } else {
        out.reason = QStringLiteral("empty response: no content and no tool call");
    }
    if (r.finishReason == u"length")
        out.reason += QStringLiteral(" (hit max_tokens)");
    return out;
}

// ---------------------------------------------------------------------------------------------
// expected_answer

// [begin, end) of the first match in `text`, or nullopt.
std::optional<std::pair<int, int>> findAnswer(const Rules::AnswerPattern& p, const QString& text)
{
    if (p.regex) {
        const auto m = p.regex->match(text);
        if (m.hasMatch())
            return std::pair {int(m.capturedStart()), int(m.capturedEnd())};
        return std::nullopt;
    }
    if (p.text.size() >= 2 && p.text.startsWith(u'/') && p.text.endsWith(u'/'))
        return std::nullopt; // an invalid expression (the loader refuses those) never matches
    const qsizetype at = text.indexOf(p.text, 0, Qt::CaseInsensitive);
    if (at < 0)
        return std::nullopt;
    return std::pair {int(at), int(at + p.text.size())};
}

GateResult expectedAnswer(const Context& c)
{
    const QStringList& patterns = c.test.expect.answerPatterns;
    if (patterns.isEmpty())
        return result(kExpectedAnswer, GateVerdict::NotApplicable, QStringLiteral("no expected answer"));
    if (!c.expectationsApply())
        return result(kExpectedAnswer, GateVerdict::NotApplicable,
            QStringLiteral("expectations apply to the last turn"));

    // Compiled by gatePatternsFor for the suite's own tests; a test built elsewhere compiles here.
    const auto cached = c.rules.answers.find(c.test.id);
    const bool usable = cached != c.rules.answers.end() && int(cached->second.size()) == patterns.size()
        && std::equal(cached->second.begin(), cached->second.end(), patterns.begin(),
            [](const Rules::AnswerPattern& a, const QString& b) { return a.text == b; });
    const std::vector<Rules::AnswerPattern> compiled = usable ? cached->second : compileAnswers(patterns);
    for (const auto& p : compiled)
        if (const auto at = findAnswer(p, c.visible)) {
            GateResult out = result(kExpectedAnswer, GateVerdict::Pass,
                QStringLiteral("found \"")
                    + excerpt(QStringView(c.visible).sliced(at->first, at->second - at->first))
                    + QStringLiteral("\" at ")
                    + span(c.visibleStart + at->first, c.visibleStart + at->second));
            out.ranges.push_back({c.visibleStart + at->first, c.visibleStart + at->second, kContent, p.text});
            return out;
        }

    GateResult out = result(kExpectedAnswer, GateVerdict::Fail,
        QStringLiteral("expected ") + patterns.join(QStringLiteral(" or "))
            + (hasNonSpace(c.visible) ? QStringLiteral(", not found")
                                      : QStringLiteral("; no visible answer")));
    // Said only while thinking? Worth knowing: the knowledge is there, the answer is not.
    const QString hidden = c.content.left(c.visibleStart);
    for (const auto& p : compiled) {
        if (const auto at = findAnswer(p, hidden)) {
            out.reason += QStringLiteral(" (only in the leaked thinking)");
            out.ranges.push_back({at->first, at->second, kContent, QStringLiteral("only_in_thinking")});
            break;
        }
        if (const auto at = findAnswer(p, c.record.response.reasoning)) {
            out.reason += QStringLiteral(" (only in the reasoning)");
            out.ranges.push_back({at->first, at->second, kReasoning, QStringLiteral("only_in_reasoning")});
            break;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// tool_call

struct LeakedCall {
    int begin = 0;
    int end = 0;
    QString what; ///< the pattern that found it
    QString name; ///< the tool it names, when it parses
    bool parsed = false;
};

// The balanced JSON value starting at `from` ('{' or '['), or an empty view when unbalanced.
QStringView balancedJson(QStringView text, qsizetype from)
{
    int depth = 0;
    bool inString = false;
    for (qsizetype i = from; i < text.size(); ++i) {
        const QChar ch = text[i];
        if (inString) {
            if (ch == u'\\')
                ++i;
            else if (ch == u'"')
                inString = false;
            continue;
        }
        if (ch == u'"')
            inString = true;
        else if (ch == u'{' || ch == u'[')
            ++depth;
        else if (ch == u'}' || ch == u']') {
            if (--depth == 0)
                return text.sliced(from, i + 1 - from);
        }
    }
    return {};
}

// The tool a parsed blob names: {"name": …}, {"function": {"name": …}}, [{…}], {"tool_calls": […]}.
QString callName(const json& v, int depth = 0)
{
    if (depth > 4) // deeper is not a tool call; and hostile nesting must not recurse far
        return {};
    if (v.is_array())
        return v.empty() ? QString() : callName(v.front(), depth + 1);
    if (!v.is_object())
        return {};
    for (const char* key : {"name", "tool", "tool_name", "function"}) {
        const auto it = v.find(key);
        if (it == v.end())
            continue;
        if (it->is_string())
            return fromStd(it->get<std::string>());
        if (it->is_object())
            return callName(*it, depth + 1);
    }
    if (const auto calls = v.find("tool_calls"); calls != v.end())
        return callName(*calls, depth + 1);
    return {};
}

// A tool call written into the answer instead of the tool channel: Hermes/Qwen <tool_call>,
// Mistral [TOOL_CALLS], Llama <|python_tag|>, a bare {"name": …, "arguments": …} blob, or
// `tool(arg=…)` naming one of the suite's tools.
std::optional<LeakedCall> findLeakedCall(const Context& c)
{
    const std::vector<Hit> hits = findAll(c.rules.toolText, c.visible, 0);
    if (hits.empty())
        return std::nullopt;
    const Hit& first = hits.front();
    LeakedCall call;
    call.begin = first.begin;
    call.end = first.end;
    call.what = first.what;
    const QStringView text(c.visible);

    // The call's JSON: the first '{' or '[' after the marker ("[TOOL_CALLS]" is no JSON itself),
    // close by; a bare blob is its own start.
    qsizetype brace = -1;
    const qsizetype from = text[first.begin] == u'{' ? first.begin : first.end;
    for (qsizetype i = from; i < text.size() && i < from + 200; ++i)
        if (text[i] == u'{' || text[i] == u'[') {
            brace = i;
            break;
        }
    if (first.what == u"openai_shape")
        brace = text.left(first.begin).lastIndexOf(u'{');
    if (brace >= 0) {
        const QStringView blob = balancedJson(text, brace);
        if (!blob.isEmpty() && blob.size() <= maxCallJson) {
            const QByteArray utf8 = blob.toUtf8();
            const json parsed = json::parse(utf8.cbegin(), utf8.cend(), nullptr, false);
            if (!parsed.is_discarded()) {
                call.name = callName(parsed);
                call.parsed = !call.name.isEmpty();
            }
            call.begin = std::min(call.begin, int(brace));
            call.end = std::max(call.end, int(brace + blob.size()));
        }
    }
    // Qwen3-coder XML (<function=NAME>…) and pythonic calls (NAME(arg=…)) name the tool directly.
    static const QRegularExpression functionTag(QStringLiteral("<function=([\\w.-]+)>"));
    if (!call.parsed) {
        const auto m = functionTag.match(c.visible, first.begin);
        if (m.hasMatch() && m.capturedStart() < first.begin + 200) {
            call.name = m.captured(1);
            call.parsed = true;
            call.end = std::max(call.end, int(m.capturedEnd()));
        }
    }
    // Patterns written with {tools} (`web_search(…)`, `web_search: {…}`, `Action: web_search`)
    // name the tool in the match itself.
    if (!call.parsed) {
        const QStringView matched = text.sliced(first.begin, first.end - first.begin);
        for (const QString& tool : c.toolNames)
            if (matched.contains(tool)) {
                call.name = tool;
                call.parsed = first.what != u"function_syntax" || c.visible.indexOf(u')', first.end - 1) >= 0;
                break;
            }
        if (first.what == u"function_syntax") {
            const qsizetype close = c.visible.indexOf(u')', first.end - 1);
            if (close >= 0)
                call.end = std::max(call.end, int(close + 1));
        }
    }
    static const QRegularExpression closing(QStringLiteral("(?i)<\\s*/\\s*tool_call\\s*>"));
    const auto m = closing.match(c.visible, call.end);
    if (m.hasMatch() && m.capturedStart() - call.end < 200)
        call.end = int(m.capturedEnd());
    return call;
}

QString leakedReason(const LeakedCall& call, int offset)
{
    const QString where = QStringLiteral(" at ") + span(offset + call.begin, offset + call.end);
    if (call.parsed)
        return QStringLiteral("tool call leaked into text: ") + call.name + QStringLiteral(" written as ")
            + call.what + where + QStringLiteral(", not sent through the tool-call channel");
    return QStringLiteral("unparsed tool call: ") + call.what
        + QStringLiteral(" markup in the text does not parse") + where;
}

GateResult leakedResult(const LeakedCall& call, int offset)
{
    GateResult out = result(kToolCall, GateVerdict::Fail, leakedReason(call, offset));
    out.failureClass = call.parsed ? QStringLiteral("leaked_into_text") : QStringLiteral("unparsed");
    out.ranges.push_back({offset + call.begin, offset + call.end, kContent, call.what});
    return out;
}

const json* toolSchema(const Suite& suite, const QString& name)
{
    if (!suite.tools.is_array())
        return nullptr;
    for (const json& tool : suite.tools) {
        const auto fn = tool.find("function");
        if (fn == tool.end() || !fn->is_object())
            continue;
        const auto n = fn->find("name");
        if (n != fn->end() && n->is_string() && fromStd(n->get<std::string>()) == name) {
            const auto params = fn->find("parameters");
            return params != fn->end() && params->is_object() ? &*params : nullptr;
        }
    }
    return nullptr;
}

bool hasJsonType(const json& v, const std::string& type)
{
    if (type == "string")
        return v.is_string();
    if (type == "integer")
        return v.is_number_integer() || v.is_number_unsigned()
            || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
    if (type == "number")
        return v.is_number();
    if (type == "boolean")
        return v.is_boolean();
    if (type == "array")
        return v.is_array();
    if (type == "object")
        return v.is_object();
    if (type == "null")
        return v.is_null();
    return true; // a type this check does not know is not held against the model
}

QString jsonTypeName(const json& v)
{
    return QString::fromUtf8(v.type_name());
}

// Type and enum checks against the tool's JSON schema (the BFCL-style "type error" class).
std::optional<QString> schemaProblem(const json& args, const json* schema)
{
    if (!schema)
        return std::nullopt;
    const auto props = schema->find("properties");
    const bool closed = schema->value("additionalProperties", true) == false;
    for (const auto& [key, value] : args.items()) {
        const json* prop = nullptr;
        if (props != schema->end() && props->is_object())
            if (const auto it = props->find(key); it != props->end() && it->is_object())
                prop = &*it;
        if (!prop) {
            if (closed)
                return QStringLiteral("unexpected argument ") + fromStd(key);
            continue;
        }
        if (const auto type = prop->find("type"); type != prop->end()) {
            bool ok = true;
            if (type->is_string())
                ok = hasJsonType(value, type->get<std::string>());
            else if (type->is_array())
                ok = std::any_of(type->begin(), type->end(), [&](const json& t) {
                    return !t.is_string() || hasJsonType(value, t.get<std::string>());
                });
            if (!ok)
                return fromStd(key) + QStringLiteral(" should be ")
                    + fromStd(type->is_string() ? type->get<std::string>() : type->dump())
                    + QStringLiteral(", got ") + jsonTypeName(value);
        }
        if (const auto en = prop->find("enum"); en != prop->end() && en->is_array())
            if (std::find(en->begin(), en->end(), value) == en->end())
                return fromStd(key) + QStringLiteral(" is not one of ") + fromStd(en->dump());
    }
    return std::nullopt;
}

GateResult judgeExpectedCall(
    const Context& c, const ExpectedTool& expected, const std::optional<LeakedCall>& leak)
{
    const std::vector<ToolCall>& calls = c.record.response.toolCalls;
    if (calls.empty()) {
        if (leak)
            return leakedResult(*leak, c.visibleStart);
        GateResult out = result(kToolCall, GateVerdict::Fail,
            QStringLiteral("expected a call to ") + expected.name
                + (hasNonSpace(c.visible) ? QStringLiteral("; answered in text instead")
                                          : QStringLiteral("; no tool call")));
        out.failureClass = QStringLiteral("should_have_called");
        return out;
    }
    const auto named = std::find_if(
        calls.begin(), calls.end(), [&](const ToolCall& call) { return call.name == expected.name; });
    if (named == calls.end()) {
        const bool nameless = std::any_of(
            calls.begin(), calls.end(), [](const ToolCall& call) { return call.name.trimmed().isEmpty(); });
        QStringList names;
        for (const ToolCall& call : calls)
            names << (call.name.isEmpty() ? QStringLiteral("(no name)") : call.name);
        GateResult out = result(kToolCall, GateVerdict::Fail,
            nameless
                ? QString(QStringLiteral("a tool call arrived without a name; expected ") + expected.name)
                : QString(QStringLiteral("called ") + names.join(QStringLiteral(", "))
                    + QStringLiteral(", expected ") + expected.name));
        out.failureClass = nameless ? QStringLiteral("unparsed") : QStringLiteral("wrong_tool");
        return out;
    }

    const QString argsText = named->arguments.trimmed();
    const QByteArray utf8 = (argsText.isEmpty() ? QStringLiteral("{}") : argsText).toUtf8();
    const json args = json::parse(utf8.cbegin(), utf8.cend(), nullptr, false);
    const auto failWith = [&](const QString& failureClass, const QString& reason) {
        GateResult out = result(kToolCall, GateVerdict::Fail, expected.name + QStringLiteral(": ") + reason);
        out.failureClass = failureClass;
        return out;
    };
    if (args.is_discarded())
        return failWith(QStringLiteral("invalid_arguments"),
            QStringLiteral("arguments are not valid JSON: ") + excerpt(argsText, 40));
    if (!args.is_object())
        return failWith(QStringLiteral("invalid_arguments"),
            QStringLiteral("arguments are ") + jsonTypeName(args) + QStringLiteral(", not an object"));
    QStringList missing;
    for (const QString& key : expected.requiredArguments) {
        const auto it = args.find(key.toStdString());
        if (it == args.end() || it->is_null() || (it->is_string() && it->get<std::string>().empty()))
            missing << key;
    }
    if (!missing.isEmpty())
        return failWith(QStringLiteral("missing_arguments"),
            QStringLiteral("missing required argument%1 ")
                    .arg(missing.size() > 1 ? QStringLiteral("s") : QString())
                + missing.join(QStringLiteral(", ")));
    if (const auto problem = schemaProblem(args, toolSchema(c.suite, expected.name)))
        return failWith(QStringLiteral("invalid_arguments"), *problem);

    QString reason = QStringLiteral("called ") + expected.name;
    if (!expected.requiredArguments.isEmpty())
        reason += QStringLiteral(" with ") + expected.requiredArguments.join(QStringLiteral(", "));
    if (calls.size() > 1)
        reason += QStringLiteral(" (+%1 other call%2)")
                      .arg(calls.size() - 1)
                      .arg(calls.size() > 2 ? QStringLiteral("s") : QString());
    return result(kToolCall, GateVerdict::Pass, reason);
}

GateResult toolCall(const Context& c)
{
    const std::optional<LeakedCall> leak = findLeakedCall(c);
    const std::vector<ToolCall>& calls = c.record.response.toolCalls;
    if (c.expectationsApply() && c.test.expect.tool)
        return judgeExpectedCall(c, *c.test.expect.tool, leak);
    if (c.expectationsApply() && c.test.expect.noTool) {
        if (!calls.empty()) {
            GateResult out = result(kToolCall, GateVerdict::Fail,
                QStringLiteral("called ")
                    + (calls.front().name.isEmpty() ? QStringLiteral("a tool") : calls.front().name)
                    + QStringLiteral(" although no tool should be called"));
            out.failureClass = QStringLiteral("should_not_have_called");
            return out;
        }
        if (leak)
            return leakedResult(*leak, c.visibleStart);
        return result(kToolCall, GateVerdict::Pass, QStringLiteral("no tool called, as expected"));
    }
    // No expectation: a call written as text still fails, since a voice assistant would read it out.
    if (leak)
        return leakedResult(*leak, c.visibleStart);
    if (!calls.empty() && !c.test.useTools) {
        GateResult out = result(kToolCall, GateVerdict::Fail,
            QStringLiteral("called ") + calls.front().name
                + QStringLiteral(" although no tools were offered"));
        out.failureClass = QStringLiteral("should_not_have_called");
        return out;
    }
    return result(kToolCall, GateVerdict::NotApplicable,
        c.expectationsApply() ? QStringLiteral("no tool expectation")
                              : QStringLiteral("expectations apply to the last turn"));
}

// ---------------------------------------------------------------------------------------------
// no_markdown

GateResult noMarkdown(const Context& c)
{
    if (!hasNonSpace(c.visible))
        return result(kNoMarkdown, GateVerdict::NotApplicable, QStringLiteral("no visible text"));
    const std::vector<Hit> hits = findAll(c.rules.markdown, c.maskedVisible, c.visibleStart);
    if (hits.empty())
        return result(kNoMarkdown, GateVerdict::Pass, QStringLiteral("plain text"));
    GateResult out = result(kNoMarkdown, GateVerdict::Fail, describeHits(hits, c.content));
    out.ranges = toRanges(hits, kContent);
    return out;
}

// ---------------------------------------------------------------------------------------------
// no_thinking_leak

GateResult noThinkingLeak(const Context& c)
{
    std::vector<Hit> hits;
    int blockBegin = 0;
    if (c.visibleStart > 0) {
        // The whole block before the answer is thinking (<think>…</think>, or text before a bare
        // </think> when the template opened the block in the prompt).
        while (blockBegin < c.visibleStart && c.content.at(blockBegin).isSpace())
            ++blockBegin;
        const bool bare = !QStringView(c.content).sliced(blockBegin).startsWith(QStringLiteral("<think>"));
        hits.push_back({blockBegin, c.visibleStart,
            bare ? QStringLiteral("thinking_before_bare_close_tag") : QStringLiteral("think_block")});
    }
    for (const Hit& h : findAll(c.rules.thinking, c.content, 0))
        if (h.begin >= c.visibleStart || h.end <= blockBegin)
            hits.push_back(h);
    std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.begin < b.begin; });

    GateResult out = result(kNoThinkingLeak, GateVerdict::Pass, QString());
    QStringList reasons;
    if (!hits.empty())
        reasons << describeHits(hits, c.content);
    out.ranges = toRanges(hits, kContent);

    const QString& reasoning = c.record.response.reasoning;
    const std::optional<bool> thinking = thinkingSetting(c);
    if (thinking == false && hasNonSpace(reasoning)) {
        reasons << QStringLiteral(
            "%1 characters of reasoning arrived in their own field although thinking was off")
                       .arg(reasoning.size());
        out.ranges.push_back({0, int(reasoning.size()), kReasoning, QStringLiteral("reasoning_field")});
    }
    if (!reasons.isEmpty()) {
        out.verdict = GateVerdict::Fail;
        out.reason = reasons.join(QStringLiteral("; "));
    } else {
        out.reason = thinking == true && hasNonSpace(reasoning)
            ? QStringLiteral("thinking stayed in the reasoning field")
            : QStringLiteral("no thinking in the answer");
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// coherent

struct Finding {
    Hit hit;
    QString reason;
};

struct LetterRun {
    int begin = 0;
    int end = 0;
    QSet<int> groups;
    QHash<int, int> lettersPerGroup;
    int primary = -1; ///< the group with most letters
};

struct ScriptStats {
    QHash<int, int> letters; ///< per script group
    int total = 0;
    std::vector<LetterRun> runs;
};

ScriptStats scriptStats(const QString& text)
{
    ScriptStats s;
    LetterRun run;
    bool inRun = false;
    const auto close = [&](int at) {
        if (!inRun)
            return;
        run.end = at;
        int best = 0;
        for (auto it = run.lettersPerGroup.cbegin(); it != run.lettersPerGroup.cend(); ++it)
            if (it.value() > best) {
                best = it.value();
                run.primary = it.key();
            }
        s.runs.push_back(run);
        run = LetterRun();
        inRun = false;
    };
    forEachCodePoint(text, [&](int i, int len, char32_t c) {
        const bool letter = QChar::isLetter(c) || QChar::isMark(c);
        if (!letter) {
            close(i);
            return;
        }
        if (!inRun) {
            inRun = true;
            run.begin = i;
        }
        const int g = scriptGroup(c);
        if (g >= 0) {
            run.groups.insert(g);
            ++run.lettersPerGroup[g];
            ++s.letters[g];
            ++s.total;
        }
        run.end = i + len;
    });
    close(int(text.size()));
    return s;
}

// A letter run that glues scripts together ("M刘邦opIS"). CJK text legitimately glues Latin brand
// names to Han ("用iPhone拍照"), so that pairing only counts when the text is not mainly CJK.
bool isMixedRun(const LetterRun& run, int minLetters, bool mainlyCjk)
{
    int strongGroups = 0;
    for (auto it = run.lettersPerGroup.cbegin(); it != run.lettersPerGroup.cend(); ++it)
        if (it.value() >= minLetters)
            ++strongGroups;
    if (strongGroups < 2)
        return false;
    if (mainlyCjk) {
        const bool onlyCjkAndLatin = std::all_of(run.groups.cbegin(), run.groups.cend(),
            [](int g) { return isCjkGroup(g) || g == int(QChar::Script_Latin); });
        if (onlyCjkAndLatin)
            return false;
    }
    return true;
}

struct Token {
    int begin = 0;
    int end = 0;
    QString text; ///< without surrounding punctuation
};

// Whitespace-separated tokens with leading and trailing punctuation stripped.
std::vector<Token> wordTokens(const QString& text)
{
    std::vector<Token> out;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        while (i < n && text[i].isSpace())
            ++i;
        qsizetype j = i;
        while (j < n && !text[j].isSpace())
            ++j;
        qsizetype b = i, e = j;
        while (b < e && !text[b].isLetterOrNumber())
            ++b;
        while (e > b && !text[e - 1].isLetterOrNumber() && !text[e - 1].isMark())
            --e;
        if (e > b)
            out.push_back({int(b), int(e), text.mid(b, e - b)});
        i = j;
    }
    return out;
}

// The letter under its accents: "ủ" → "u", "ộ" → "o" (Vietnamese stacks two).
QChar baseLetter(QChar ch)
{
    for (QString d = ch.decomposition(); !d.isEmpty(); d = ch.decomposition())
        ch = d.at(0);
    return ch;
}

bool isVowel(QChar ch)
{
    static const QString vowels = QStringLiteral("aeiouyæøœəı");
    return vowels.contains(baseLetter(ch).toLower());
}

bool isLatinLetter(QChar ch)
{
    return ch.isLetter() && ch.script() == QChar::Script_Latin;
}

// Suffix stripping, enough to find "helps", "making", "stopped", "cities" in a base-form list.
bool isKnownWord(const QString& lower, const QSet<QString>& words)
{
    if (words.contains(lower))
        return true;
    QString w = lower;
    for (const QString& poss : {QStringLiteral("'s"), QStringLiteral("’s"), QStringLiteral("s'")})
        if (w.endsWith(poss)) {
            w.chop(2);
            if (words.contains(w))
                return true;
        }
    struct Suffix {
        const char16_t* text;
        const char16_t* replacement;
    };
    static const Suffix suffixes[] = {{u"ies", u"y"}, {u"ied", u"y"}, {u"ier", u"y"}, {u"iest", u"y"},
        {u"ily", u"y"}, {u"es", u""}, {u"s", u""}, {u"ed", u""}, {u"ed", u"e"}, {u"d", u""}, {u"ing", u""},
        {u"ing", u"e"}, {u"ly", u""}, {u"er", u""}, {u"er", u"e"}, {u"est", u""}, {u"est", u"e"},
        {u"ness", u""}, {u"ful", u""}, {u"less", u""}, {u"ment", u""}};
    for (const Suffix& s : suffixes) {
        const QString suffix = QString::fromUtf16(s.text);
        if (w.size() <= suffix.size() + 1 || !w.endsWith(suffix))
            continue;
        const QString base = w.chopped(suffix.size());
        if (words.contains(base + QString::fromUtf16(s.replacement)))
            return true;
        // stopped → stop, running → run
        if (base.size() >= 3 && base.back() == base.at(base.size() - 2) && words.contains(base.chopped(1)))
            return true;
    }
    return false;
}

// How much a Latin word looks like a non-word: 0 (fine), 0.5 (a stray single letter), 1 (junk).
double junkScore(const QString& token, const QSet<QString>& words, int maxConsonantRun)
{
    static const QRegularExpression initialism(QStringLiteral("^(?:\\p{L}\\.)+\\p{L}?\\.?$"));
    if (initialism.match(token).hasMatch())
        return 0; // U.S., e.g., a.m.
    static const QRegularExpression separators(QStringLiteral("[-'’._/&+]"));
    const QStringList parts = token.split(separators, Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return 0;
    if (parts.size() == 1 && parts.front().size() == 1) {
        // Before the word list, which holds one-letter words of other languages ("w", "z").
        const QChar ch = parts.front().front().toLower();
        return ch == u'a' || ch == u'i' || ch == u'o' ? 0 : 0.5;
    }
    if (isKnownWord(token.toLower(), words))
        return 0;
    const bool identifier = token.contains(u'_');
    for (const QString& part : parts) {
        if (part.size() == 1) {
            if (identifier)
                return 1; // E_OVER
            continue; // X-ray, T-shirt
        }
        if (isKnownWord(part.toLower(), words))
            continue;
        bool vowel = false;
        bool allUpper = true;
        int consonants = 0, worstRun = 0, lowerToUpper = 0, upperRun = 0, lowerAfterUpperRun = 0;
        bool upperRunThenLower = false;
        for (qsizetype i = 0; i < part.size(); ++i) {
            const QChar ch = part[i];
            if (isVowel(ch)) {
                vowel = true;
                consonants = 0;
            } else {
                worstRun = std::max(worstRun, ++consonants);
            }
            if (ch.isLower()) {
                allUpper = false;
                if (upperRun >= 2 && ++lowerAfterUpperRun >= 3)
                    upperRunThenLower = true;
                if (i + 1 < part.size() && part[i + 1].isUpper())
                    ++lowerToUpper;
            } else if (ch.isUpper()) {
                upperRun = (i > 0 && part[i - 1].isUpper()) || i == 0 ? upperRun + 1 : 1;
                lowerAfterUpperRun = 0;
            }
        }
        if (!vowel && !allUpper)
            return 1; // "xkcd"-like consonant strings (acronyms are upper case)
        if (worstRun > maxConsonantRun)
            return 1;
        if (lowerToUpper >= 2 || upperRunThenLower)
            return 1; // "aBcD", "CSiscoslmogn" (while "iPhone", "YouTube", "PDFs" pass)
    }
    return 0;
}

int letterDigitSwitches(const QString& token)
{
    int switches = 0;
    int previous = 0; // 1 letter, 2 digit
    for (QChar ch : token) {
        const int kind = ch.isLetter() ? 1 : ch.isDigit() ? 2 : 0;
        if (kind == 0)
            continue;
        if (previous != 0 && kind != previous)
            ++switches;
        previous = kind;
    }
    return switches;
}

void checkRepetition(const QString& text, int offset, const Rules::Repeat& rep, std::vector<Finding>& out)
{
    // One character over and over ("!!!!!!!!…", "aaaaaaaa…").
    for (qsizetype i = 0; i < text.size();) {
        qsizetype j = i + 1;
        while (j < text.size() && text[j] == text[i])
            ++j;
        if (!text[i].isSpace() && text[i] != QChar(maskChar) && j - i >= rep.charRun) {
            out.push_back({{offset + int(i), offset + int(j), QStringLiteral("repeated_character")},
                QStringLiteral("\"%1\" repeated %2 times").arg(text[i]).arg(j - i)});
            break;
        }
        i = j;
    }

    // The same n-gram back to back ("the the the …", "I'm here. I'm here. I'm here.").
    static const QRegularExpression wordRe(QStringLiteral("[\\p{L}\\p{M}\\p{N}]+(?:['’][\\p{L}]+)?"),
        QRegularExpression::UseUnicodePropertiesOption);
    std::vector<Token> words;
    auto it = wordRe.globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        words.push_back({int(m.capturedStart()), int(m.capturedEnd()), m.captured().toLower()});
    }
    const int n = int(words.size());
    for (int p = 1; p <= rep.maxPeriod && p < n; ++p) {
        const int needed = p == 1 ? rep.unigram : p <= 3 ? rep.shortNgram : rep.longNgram;
        int runStart = 0, run = 0;
        for (int j = 0; j + p < n; ++j) {
            if (words[std::size_t(j)].text == words[std::size_t(j + p)].text) {
                if (run++ == 0)
                    runStart = j;
                if (run / p + 1 >= needed
                    && (j + p + 1 >= n
                        || words[std::size_t(j + 1)].text != words[std::size_t(j + p + 1)].text)) {
                    const Token& a = words[std::size_t(runStart)];
                    const Token& b = words[std::size_t(j + p)];
                    out.push_back({{offset + a.begin, offset + b.end, QStringLiteral("repetition")},
                        QStringLiteral("%1-word phrase repeated %2 times").arg(p).arg(run / p + 1)});
                    return;
                }
            } else {
                run = 0;
            }
        }
    }

    // The same sentence again and again, not necessarily back to back (a loop).
    static const QRegularExpression sentenceEnd(QStringLiteral("[.!?…。！？]+[\"'”’)\\]]*(?:\\s+|$)"));
    QHash<QString, std::vector<std::pair<int, int>>> seen;
    qsizetype start = 0;
    auto sit = sentenceEnd.globalMatch(text);
    const auto addSentence = [&](qsizetype b, qsizetype e) {
        QStringList key;
        auto wit = wordRe.globalMatch(text.mid(b, e - b));
        while (wit.hasNext())
            key << wit.next().captured().toLower();
        if (key.size() >= rep.sentenceMinWords)
            seen[key.join(u' ')].push_back({int(b), int(e)});
    };
    while (sit.hasNext()) {
        const auto m = sit.next();
        addSentence(start, m.capturedEnd());
        start = m.capturedEnd();
    }
    if (start < text.size())
        addSentence(start, text.size());
    for (auto s = seen.cbegin(); s != seen.cend(); ++s)
        if (int(s.value().size()) >= rep.sentence) {
            out.push_back({{offset + s.value().front().first, offset + s.value().back().second,
                               QStringLiteral("repeated_sentence")},
                QStringLiteral("the same sentence %1 times").arg(s.value().size())});
            return;
        }
}

GateResult coherent(const Context& c)
{
    const Rules::Coherence& rc = c.rules.coherent;
    const QString& text = c.maskedVisible;
    const int offset = c.visibleStart;
    if (!hasNonSpace(text))
        return result(kCoherent, GateVerdict::NotApplicable, QStringLiteral("no visible text"));

    std::vector<Finding> findings;
    for (const Hit& h : findAll(rc.patterns, text, offset))
        findings.push_back({h,
            h.what + QStringLiteral(" \"") + excerpt(QStringView(c.content).sliced(h.begin, h.end - h.begin))
                + u'"'});

    const int replacements = int(text.count(QChar(0xFFFD)));
    if (replacements >= rc.replacementChars) {
        const int first = int(text.indexOf(QChar(0xFFFD)));
        const int last = int(text.lastIndexOf(QChar(0xFFFD)));
        findings.push_back({{offset + first, offset + last + 1, QStringLiteral("replacement_characters")},
            QStringLiteral("%1 undecodable characters (U+FFFD)").arg(replacements)});
    }

    // Scripts glued together inside words, or flipping from word to word.
    const ScriptStats scripts = scriptStats(text);
    // CJK text counts letters per character: a third of the letters is already a CJK sentence.
    const int cjk
        = scripts.letters.value(int(QChar::Script_Han)) + scripts.letters.value(int(QChar::Script_Hangul));
    const bool mainlyCjk = 3 * cjk >= scripts.total;
    std::vector<Hit> mixed;
    for (const LetterRun& run : scripts.runs)
        if (isMixedRun(run, rc.mixedScriptMinLetters, mainlyCjk))
            mixed.push_back({offset + run.begin, offset + run.end, QStringLiteral("mixed_script")});
    if (int(mixed.size()) >= rc.mixedScriptWords) {
        const Hit& first = mixed.front();
        QString reason
            = QStringLiteral("%1 word%2 mixing scripts, e.g. \"%3\"")
                  .arg(mixed.size())
                  .arg(mixed.size() > 1 ? QStringLiteral("s") : QString())
                  .arg(excerpt(QStringView(c.content).sliced(first.begin, first.end - first.begin)));
        for (std::size_t i = 0; i < mixed.size(); ++i)
            findings.push_back({mixed[i], i == 0 ? reason : QString()});
    }
    const bool longEnough = scripts.total >= rc.minLetters;
    if (longEnough && scripts.runs.size() > 1) {
        int switches = 0, previous = -1, considered = 0;
        for (const LetterRun& run : scripts.runs) {
            if (run.primary < 0)
                continue;
            if (previous >= 0) {
                ++considered;
                if (run.primary != previous)
                    ++switches;
            }
            previous = run.primary;
        }
        if (switches >= rc.minScriptSwitches && considered > 0
            && double(switches) / considered >= rc.scriptSwitchShare)
            findings.push_back({{offset, offset + int(text.size()), QStringLiteral("script_switching")},
                QStringLiteral("the script changes %1 times in %2 words").arg(switches).arg(considered + 1)});
    }

    // Words that are not words, and too few ordinary words.
    if (longEnough) {
        double junk = 0;
        int counted = 0, lowercase = 0, known = 0;
        std::vector<Hit> junkHits, unknownHits;
        for (const Token& t : wordTokens(text)) {
            if (t.text.contains(QStringLiteral("://"))
                || t.text.startsWith(QStringLiteral("www."), Qt::CaseInsensitive) || t.text.contains(u'@'))
                continue; // URLs (masked) and e-mail addresses
            const bool digits
                = std::any_of(t.text.begin(), t.text.end(), [](QChar ch) { return ch.isDigit(); });
            const bool latin = std::any_of(t.text.begin(), t.text.end(), isLatinLetter);
            const bool mixedHere = std::any_of(mixed.begin(), mixed.end(),
                [&](const Hit& h) { return h.begin < offset + t.end && offset + t.begin < h.end; });
            if (digits) {
                // "B12", "4K", "H2O", "x86" are fine; "a3f9k2" is token soup.
                if (letterDigitSwitches(t.text) >= 3) {
                    ++counted;
                    junk += 1;
                    junkHits.push_back({offset + t.begin, offset + t.end, QStringLiteral("non_word")});
                }
                continue;
            }
            if (!latin && !mixedHere)
                continue; // words of other scripts are not judged here
            ++counted;
            const double score = mixedHere ? 1.0 : junkScore(t.text, rc.commonWords, rc.maxConsonantRun);
            junk += score;
            if (score > 0)
                junkHits.push_back({offset + t.begin, offset + t.end, QStringLiteral("non_word")});
            if (!mixedHere && t.text.front().isLower() && t.text.size() >= 2) {
                ++lowercase;
                if (isKnownWord(t.text.toLower(), rc.commonWords))
                    ++known;
                else
                    unknownHits.push_back({offset + t.begin, offset + t.end, QStringLiteral("unknown_word")});
            }
        }
        if (counted >= rc.minWordsForShare && junk / counted >= rc.junkWordShare) {
            const QString reason
                = QStringLiteral("%1 of %2 words are not words").arg(junk, 0, 'g', 3).arg(counted);
            for (std::size_t i = 0; i < junkHits.size(); ++i)
                findings.push_back({junkHits[i], i == 0 ? reason : QString()});
        }
        if (lowercase >= rc.minLowercaseWords && double(known) / lowercase < rc.knownWordShare) {
            const QString reason = QStringLiteral("only %1 of %2 lower-case words are ordinary words")
                                       .arg(known)
                                       .arg(lowercase);
            for (std::size_t i = 0; i < unknownHits.size(); ++i)
                findings.push_back({unknownHits[i], i == 0 ? reason : QString()});
        }
    }

    int nonSpace = 0, weird = 0;
    for (QChar ch : text)
        if (!ch.isSpace()) {
            ++nonSpace;
            if (rc.weirdSymbols.contains(ch))
                ++weird;
        }
    if (nonSpace >= 20 && double(weird) / nonSpace >= rc.weirdSymbolShare)
        findings.push_back({{offset, offset + int(text.size()), QStringLiteral("symbols")},
            QStringLiteral("%1 of %2 characters are stray symbols").arg(weird).arg(nonSpace)});

    checkRepetition(text, offset, rc.repeat, findings);

    if (findings.empty())
        return result(kCoherent, GateVerdict::Pass, QStringLiteral("reads as language"));
    std::stable_sort(findings.begin(), findings.end(),
        [](const Finding& a, const Finding& b) { return a.hit.begin < b.hit.begin; });
    GateResult out = result(kCoherent, GateVerdict::Fail, QString());
    QStringList reasons;
    for (const Finding& f : findings) {
        if (!f.reason.isEmpty() && !reasons.contains(f.reason))
            reasons << f.reason;
        out.ranges.push_back({f.hit.begin, f.hit.end, kContent, f.hit.what});
    }
    out.reason = QStringList(reasons.mid(0, reasonExamples)).join(QStringLiteral("; "));
    if (reasons.size() > reasonExamples)
        out.reason += QStringLiteral(" (+%1 more)").arg(reasons.size() - reasonExamples);
    return out;
}

// ---------------------------------------------------------------------------------------------
// within_length

// Sentence ends: . ! ? … (then closing quotes/brackets) before whitespace or the end, and CJK
// 。！？. A '.' after an abbreviation ("Dr.", "e.g.", "U.S.") or an initial ends a sentence only
// at the very end of the text.
std::vector<int> sentenceEnds(const QString& text, const QSet<QString>& abbreviations)
{
    std::vector<int> ends;
    bool inSentence = false;
    const qsizetype n = text.size();
    const auto isCloser = [](QChar ch) {
        return ch == u'"' || ch == u'\'' || ch == u')' || ch == u']' || ch == u'\u201D' || ch == u'\u2019';
    };
    for (qsizetype i = 0; i < n; ++i) {
        const QChar ch = text[i];
        if (ch.isLetterOrNumber())
            inSentence = true;
        if (ch == u'\u3002' || ch == u'\uFF01' || ch == u'\uFF1F') {
            if (inSentence)
                ends.push_back(int(i + 1));
            inSentence = false;
            continue;
        }
        if (!inSentence || (ch != u'.' && ch != u'!' && ch != u'?' && ch != u'\u2026'))
            continue;
        qsizetype j = i + 1;
        while (j < n && (text[j] == u'.' || text[j] == u'!' || text[j] == u'?' || text[j] == u'\u2026'))
            ++j;
        while (j < n && isCloser(text[j]))
            ++j;
        const bool atEnd = j >= n;
        if (!atEnd && !text[j].isSpace())
            continue; // 3.5, U.S.A, example.com
        if (ch == u'.' && j == i + 1 && !atEnd) {
            qsizetype w = i;
            while (w > 0 && !text[w - 1].isSpace())
                --w;
            QString word = text.mid(w, i - w).toLower();
            while (!word.isEmpty() && !word.front().isLetterOrNumber())
                word.remove(0, 1);
            static const QRegularExpression initial(QStringLiteral("^(?:\\p{L}\\.)*\\p{L}$"));
            if (abbreviations.contains(word) || initial.match(word).hasMatch())
                continue;
        }
        ends.push_back(int(j));
        inSentence = false;
        i = j - 1;
    }
    if (inSentence)
        ends.push_back(int(n));
    return ends;
}

GateResult withinLength(const Context& c)
{
    if (c.test.ignoreEos)
        return result(
            kWithinLength, GateVerdict::NotApplicable, QStringLiteral("fixed-length test (ignore_eos)"));
    const bool truncated = c.record.response.finishReason == u"length";
    // -1: no target (plain ints: GCC 12 misreads optionals through a ternary as uninitialised)
    const int maxWords = c.expectationsApply() ? c.test.expect.maxWords.value_or(-1) : -1;
    const int maxSentences = c.expectationsApply() ? c.test.expect.maxSentences.value_or(-1) : -1;
    if (maxWords < 0 && maxSentences < 0 && !truncated)
        return result(kWithinLength, GateVerdict::NotApplicable, QStringLiteral("no length target"));

    static const QRegularExpression wordRe(
        QStringLiteral("\\S*[\\p{L}\\p{N}]\\S*"), QRegularExpression::UseUnicodePropertiesOption);
    std::vector<std::pair<int, int>> words;
    auto it = wordRe.globalMatch(c.visible);
    while (it.hasNext()) {
        const auto m = it.next();
        words.push_back({int(m.capturedStart()), int(m.capturedEnd())});
    }
    const std::vector<int> ends = sentenceEnds(c.visible, c.rules.abbreviations);
    const int wordCount = int(words.size());
    const int sentenceCount = int(ends.size());
    const int end = c.visibleStart + int(c.visible.size());

    GateResult out = result(kWithinLength, GateVerdict::Pass, QString());
    QStringList problems;
    if (truncated) {
        problems << QStringLiteral("hit max_tokens (finish_reason \"length\"): the answer was cut off");
        const int from = words.empty() ? end : c.visibleStart + words.back().first;
        out.ranges.push_back({from, end, kContent, QStringLiteral("truncated")});
    }
    if (maxWords >= 0 && wordCount > maxWords) {
        problems << QStringLiteral("%1 words, target ≤ %2").arg(wordCount).arg(maxWords);
        out.ranges.push_back({c.visibleStart + words[std::size_t(maxWords)].first, end, kContent,
            QStringLiteral("over_words")});
    }
    if (maxSentences >= 1 && sentenceCount > maxSentences) {
        problems << QStringLiteral("%1 sentences, target ≤ %2").arg(sentenceCount).arg(maxSentences);
        int from = ends[std::size_t(maxSentences - 1)];
        while (from < c.visible.size() && c.visible.at(from).isSpace())
            ++from;
        out.ranges.push_back({c.visibleStart + from, end, kContent, QStringLiteral("over_sentences")});
    }
    if (!problems.isEmpty()) {
        out.verdict = GateVerdict::Fail;
        out.reason = problems.join(QStringLiteral("; "));
        return out;
    }
    QStringList targets;
    if (maxWords >= 0)
        targets << QStringLiteral("≤ %1 words").arg(maxWords);
    if (maxSentences >= 0)
        targets << QStringLiteral("≤ %1 sentences").arg(maxSentences);
    out.reason = QStringLiteral("%1 words, %2 sentence%3 (%4)")
                     .arg(wordCount)
                     .arg(sentenceCount)
                     .arg(sentenceCount == 1 ? QString() : QStringLiteral("s"))
                     .arg(targets.join(QStringLiteral(", ")));
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Public API

QString gateVerdictId(GateVerdict verdict)
{
    switch (verdict) {
    case GateVerdict::Pass:
        return QStringLiteral("pass");
    case GateVerdict::Fail:
        return QStringLiteral("fail");
    case GateVerdict::NotApplicable:
        break;
    }
    return QStringLiteral("not_applicable");
}

std::vector<GateResult> evaluateGates(const RequestRecord& record, const Suite& suite, const SuiteTest& test,
    const GatePatterns& patterns, bool finalTurn)
{
    const QString& content = record.response.content;
    const int visibleStart = visibleContentStart(content);
    const QString visible = content.mid(visibleStart);
    const Context c {record, suite, test, patterns.rules(), finalTurn, content, visibleStart, visible,
        maskUrls(visible, patterns.rules().url), suiteToolNames(suite)};
    return {nonEmpty(c), expectedAnswer(c), toolCall(c), noMarkdown(c), noThinkingLeak(c), coherent(c),
        withinLength(c)};
}

nlohmann::json toJson(const TextRange& range)
{
    return {{"field", range.field.toStdString()}, {"begin", range.begin}, {"end", range.end},
        {"what", range.what.toStdString()}};
}

nlohmann::json toJson(const GateResult& r)
{
    json ranges = json::array();
    for (const TextRange& range : r.ranges)
        ranges.push_back(toJson(range));
    return {{"verdict", gateVerdictId(r.verdict).toStdString()}, {"reason", r.reason.toStdString()},
        {"failure_class", r.failureClass.isEmpty() ? json(nullptr) : json(r.failureClass.toStdString())},
        {"ranges", ranges}};
}

void applyGates(RunRecord& record, const Suite& suite, const GatePatterns& patterns)
{
    record.gates = json::object();
    record.gateDetails = json::object();
    const auto notJudged = [&](const QString& reason) {
        for (const QString& name : gateNames()) {
            record.gates[name.toStdString()] = nullptr;
            record.gateDetails[name.toStdString()] = toJson(result(name, GateVerdict::NotApplicable, reason));
        }
    };
    if (record.warmup)
        return notJudged(QStringLiteral("warm-up: not judged"));
    if (!record.request.ok())
        return notJudged(QStringLiteral("request failed (") + failureKindId(record.request.failure.kind)
            + QStringLiteral("): not judged"));
    const auto test = std::find_if(
        suite.tests.begin(), suite.tests.end(), [&](const SuiteTest& t) { return t.id == record.test; });
    if (test == suite.tests.end())
        return notJudged(QStringLiteral("test \"") + record.test + QStringLiteral("\" is not in the suite"));

    const bool finalTurn = record.turn >= test->turnCount();
    for (const GateResult& r : evaluateGates(record.request, suite, *test, patterns, finalTurn)) {
        const std::string name = r.gate.toStdString();
        record.gates[name] = r.verdict == GateVerdict::NotApplicable ? json(nullptr) : json(r.passed());
        record.gateDetails[name] = toJson(r);
    }
}

} // namespace qs

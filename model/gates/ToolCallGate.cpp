// SPDX-License-Identifier: MIT
#include "model/gates/GateFamilies.h"
#include "model/gates/GateText.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

namespace qs::gates {

using json = nlohmann::json;

namespace {

constexpr qsizetype maxCallJson = 20000; // a tool call written as text is short; skip bigger blobs

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
std::optional<LeakedCall> findLeakedCall(const GateContext& c)
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
                // Captured by name: clang 14 (the fuzz build) cannot capture a structured binding.
                ok = std::any_of(type->begin(), type->end(), [&argument = value](const json& t) {
                    return !t.is_string() || hasJsonType(argument, t.get<std::string>());
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
    const GateContext& c, const ExpectedTool& expected, const std::optional<LeakedCall>& leak)
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

} // namespace

GateResult toolCall(const GateContext& c)
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

} // namespace qs::gates

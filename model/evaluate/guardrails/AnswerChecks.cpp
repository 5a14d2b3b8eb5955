// SPDX-License-Identifier: MIT
#include "model/evaluate/guardrails/GuardrailCheck.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <set>

namespace qs::guardrails {

namespace {

bool sentTools(const RunRecord& r)
{
    const json& b = r.request.requestBody;
    return b.is_object() && b.contains("tools") && b["tools"].is_array() && !b["tools"].empty();
}

bool ignoresEos(const RunRecord& r)
{
    const json& b = r.request.requestBody;
    return b.is_object() && b.contains("ignore_eos") && b["ignore_eos"].is_boolean()
        && b["ignore_eos"].get<bool>();
}

std::optional<qint64> requestedMaxTokens(const RunRecord& r)
{
    const json& b = r.request.requestBody;
    for (const char* key : {"max_tokens", "max_completion_tokens", "n_predict"})
        if (b.is_object() && b.contains(key) && b[key].is_number_integer())
            return b[key].get<qint64>();
    return std::nullopt;
}

bool toolMarkup(const QString& content)
{
    static const QRegularExpression markup(QStringLiteral(
        "<tool_call>|</tool_call>|<function=|<\\|tool_call|\\[TOOL_CALLS\\]|<\\|python_tag\\|>|"
        "\"name\"\\s*:\\s*\"[^\"]*\"\\s*,\\s*\"(arguments|parameters)\"\\s*:"));
    return markup.match(content).hasMatch();
}

QString toolFlags(Runtime rt)
{
    switch (rt) {
    case Runtime::Vllm:
        return QStringLiteral(
            "vLLM needs --enable-auto-tool-choice --tool-call-parser <parser> (qwen3_coder for "
            "Qwen3.5, hermes for Qwen2.5/Qwen3)");
    case Runtime::Sglang:
        return QStringLiteral("SGLang needs --tool-call-parser <parser> (qwen3_coder for Qwen3.5, qwen25 for "
                              "Qwen2.5/Qwen3)");
    case Runtime::LlamaServer:
        return QStringLiteral("llama-server needs --jinja (and a chat template that supports tools)");
    case Runtime::Other:
    case Runtime::Unknown:
        break;
    }
    return QStringLiteral("the server needs its tool-call parser enabled");
}

} // namespace

std::optional<Guardrail> checkEstimatedTokens(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        const auto done = ctx.completed(e);
        int n = 0;
        for (const RunRecord* r : done) {
            if (r->request.metrics.completionTokens.isEstimate()) {
                ++n;
                addUnique(tests, r->test);
            }
        }
        if (n == 0)
            return QString();
        return QStringLiteral("%1: completion_tokens of %2/%3 measured requests are estimates (one token per "
                              "token-bearing event): the server sent no usage")
            .arg(ctx.name(e))
            .arg(n)
            .arg(done.size());
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Token counts are estimated, not reported by the server"),
        QStringLiteral(
            "decode_tps and token totals on these arms rest on the estimate, which is wrong whenever the "
            "server batches tokens per event. Let usage through: Quantscope asks for "
            "stream_options.include_usage; a proxy in between may drop it, and old servers ignore it. "
            "The seeds guessed tokens as len(text)/4 and compared the guesses."));
}

std::optional<Guardrail> checkToolParser(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        QStringList problems;
        int notEnabled = 0, toolRequests = 0, structured = 0, markup = 0;
        QString message;
        for (const RunRecord* r : ctx.all[std::size_t(e)]) {
            if (r->request.failure.kind == FailureKind::ToolsNotEnabled) {
                ++notEnabled;
                addUnique(tests, r->test);
                if (message.isEmpty())
                    message = r->request.failure.serverMessage.left(160);
            }
            if (!sentTools(*r) || !r->request.ok())
                continue;
            ++toolRequests;
            structured += r->request.response.toolCalls.empty() ? 0 : 1;
            if (toolMarkup(r->request.response.content)) {
                ++markup;
                addUnique(tests, r->test);
            }
        }
        if (notEnabled > 0)
            problems << QStringLiteral("%1 requests with tools were refused as tools_not_enabled%2")
                            .arg(notEnabled)
                            .arg(
                                message.isEmpty() ? QString() : QStringLiteral(" (server: %1)").arg(message));
        const json& probe = ctx.endpoint(e).probe;
        const bool sawServerInfo
            = jsonString(probe, "runtime_evidence").contains(QStringLiteral("server_info"));
        if (ctx.runtime(e) == Runtime::Sglang && sawServerInfo
            && jsonString(probe, "tool_call_parser").isEmpty() && toolRequests > 0)
            problems << QStringLiteral(
                "/server_info shows no tool_call_parser although %1 requests sent tools")
                            .arg(toolRequests);
        // Markup with no structured call ever: nothing parses tool calls here. (Markup beside working
        // structured calls is the model's own slip, judged by the tool_call quality gate instead.)
        if (markup > 0 && structured == 0)
            problems << QStringLiteral(
                "%1/%2 tool requests came back with tool-call markup in content and none "
                "through the tool_calls channel")
                            .arg(markup)
                            .arg(toolRequests);
        if (problems.isEmpty())
            return QString();
        return QStringLiteral("%1: %2").arg(ctx.name(e), problems.join(QStringLiteral("; ")));
    });
    QStringList flags;
    for (int e : found.endpoints)
        addUnique(flags, toolFlags(ctx.runtime(e)));
    return report(ctx, std::move(found), Severity::Critical,
        QStringLiteral("Tools were requested from a server without a tool-call parser"),
        QStringLiteral(
            "This is the server's configuration, not the model: %1. Restart the server with it and re-run "
            "the tool tests; until then tool results on this arm say nothing about the quantization "
            "(the seeds' v1 got a 400 on every tool call and called it a model failure).")
            .arg(flags.join(QStringLiteral("; "))));
}

std::optional<Guardrail> checkTruncated(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        const auto done = ctx.completed(e);
        std::map<QString, int> perTest;
        std::set<qint64> limits;
        int n = 0, invisible = 0;
        for (const RunRecord* r : done) {
            // Throughput tests ask for exactly max_tokens (ignore_eos): "length" is their purpose.
            if (r->request.response.finishReason != u"length" || ignoresEos(*r))
                continue;
            ++n;
            ++perTest[r->test];
            addUnique(tests, r->test);
            if (const auto limit = requestedMaxTokens(*r))
                limits.insert(*limit);
            invisible += r->request.metrics.ttftVisibleMs ? 0 : 1;
        }
        if (n == 0)
            return QString();
        QStringList where;
        for (const auto& [test, count] : perTest)
            where << QStringLiteral("%1 (%2)").arg(test).arg(count);
        QStringList limitText;
        for (qint64 l : limits)
            limitText << QString::number(l);
        QString line = QStringLiteral("%1: %2/%3 measured requests stopped at max_tokens%4 (finish_reason "
                                      "\"length\"): %5")
                           .arg(ctx.name(e))
                           .arg(n)
                           .arg(done.size())
                           .arg(limitText.isEmpty() ? QString() : QStringLiteral("=") + limitText.join(u'/'),
                               listed(where));
        if (invisible > 0)
            line += QStringLiteral("; %1 of them had no visible answer (thinking used the whole budget)")
                        .arg(invisible);
        return line;
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Answers were cut off at max_tokens"),
        QStringLiteral(
            "A truncated answer has a shorter e2e time and fails quality gates for a reason that is not "
            "the model's. Raise max_tokens for these tests, or turn thinking off (the seeds' v2: the "
            "model spent its whole budget thinking and answered nothing)."));
}

std::optional<Guardrail> checkTokenCounts(const Context& ctx)
{
    const auto disagree = [](qint64 a, qint64 b) {
        const qint64 tolerance
            = std::max(kTokenAbsTolerance, qint64(std::ceil(kTokenRelTolerance * double(std::max(a, b)))));
        return std::llabs(a - b) > tolerance;
    };
    Finding found = perArm(ctx, [&ctx, &disagree](int e, QStringList& tests) {
        const bool oneTokenPerEvent = ctx.runtime(e) == Runtime::LlamaServer;
        int comparable = 0, mismatched = 0;
        std::vector<double> usageN, timingsN, counted, events;
        QStringList kinds;
        for (const RunRecord* r : ctx.completed(e)) {
            const AssembledResponse& a = r->request.response;
            const RequestMetrics& m = r->request.metrics;
            if (!m.completionTokens.value || m.completionTokens.isEstimate())
                continue;
            const qint64 count = *m.completionTokens.value;
            bool bad = false, any = false;
            if (a.usage && a.usage->completionTokens && a.timings && a.timings->predictedN) {
                any = true;
                if (disagree(*a.usage->completionTokens, *a.timings->predictedN)) {
                    bad = true;
                    usageN.push_back(double(*a.usage->completionTokens));
                    timingsN.push_back(double(*a.timings->predictedN));
                    addUnique(kinds, QStringLiteral("usage vs timings"));
                }
            }
            // Events vs count: only for plain text (tool-call parsers buffer many tokens per event).
            if (a.toolCalls.empty() && m.tokenEvents > 0) {
                any = true;
                const qint64 ev = m.tokenEvents;
                // Each token-bearing event carries at least one token: more events than tokens is impossible.
                const bool tooFew = ev > count && disagree(ev, count);
                // llama-server streams one token per event: far more tokens than events is suspicious.
                const bool tooMany = oneTokenPerEvent && double(count) > 1.5 * double(ev) + 4;
                if (tooFew || tooMany) {
                    bad = true;
                    counted.push_back(double(count));
                    events.push_back(double(ev));
                    addUnique(kinds,
                        tooFew ? QStringLiteral("fewer tokens than streamed events")
                               : QStringLiteral("more tokens than events on a one-token-per-event server"));
                }
            }
            comparable += any ? 1 : 0;
            if (bad) {
                ++mismatched;
                addUnique(tests, r->test);
            }
        }
        // Only large, consistent disagreement: at least two requests and half of those comparable.
        if (mismatched < 2 || mismatched * 2 < comparable)
            return QString();
        QString line = QStringLiteral("%1: %2/%3 measured requests (%4)")
                           .arg(ctx.name(e))
                           .arg(mismatched)
                           .arg(comparable)
                           .arg(kinds.join(QStringLiteral(", ")));
        if (!usageN.empty())
            line += QStringLiteral("; median usage.completion_tokens %1 vs timings.predicted_n %2")
                        .arg(median(usageN))
                        .arg(median(timingsN));
        if (!counted.empty())
            line += QStringLiteral("; median completion_tokens %1 vs %2 token-bearing events")
                        .arg(median(counted))
                        .arg(median(events));
        return line;
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("The server's token counts disagree with what it streamed"),
        QStringLiteral(
            "decode_tps divides by completion_tokens, so a wrong count makes a wrong rate. Check what the "
            "server counts (reasoning tokens included or not, a proxy rewriting usage, speculative "
            "decoding) before comparing decode rates; the per-request record keeps both numbers."));
}

std::optional<Guardrail> checkFailures(const Context& ctx)
{
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        const auto& measured = ctx.measured[std::size_t(e)];
        std::map<QString, int> kinds;
        int failed = 0, counted = 0;
        for (const RunRecord* r : measured) {
            const FailureKind k = r->request.failure.kind;
            // Cancelled is the user's doing; tools_not_enabled has its own guardrail.
            if (k == FailureKind::Cancelled || k == FailureKind::ToolsNotEnabled)
                continue;
            ++counted;
            if (k != FailureKind::None) {
                ++failed;
                ++kinds[failureKindId(k)];
                addUnique(tests, r->test);
            }
        }
        if (failed < 2 || double(failed) <= kFailureRate * double(counted))
            return QString();
        QStringList k;
        for (const auto& [kind, n] : kinds)
            k << QStringLiteral("%1 %2").arg(kind).arg(n);
        return QStringLiteral("%1: %2/%3 measured requests failed (%4)")
            .arg(ctx.name(e))
            .arg(failed)
            .arg(counted)
            .arg(k.join(QStringLiteral(", ")));
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Many requests failed on some arms"),
        QStringLiteral(
            "Statistics cover only the requests that succeeded, so a failing arm is summarised by its "
            "survivors. Read each failure's advice in the records, fix the cause and re-run."));
}

std::optional<Guardrail> checkMalformedStreams(const Context& ctx)
{
    // Warm-ups count too: a proxy that corrupts one stream may corrupt any, and a single one is
    // enough to distrust the endpoint's numbers, so there is no rate threshold here.
    Finding found = perArm(ctx, [&ctx](int e, QStringList& tests) {
        int requests = 0, events = 0;
        for (const RunRecord* r : ctx.all[std::size_t(e)]) {
            if (r->request.failure.kind != FailureKind::MalformedStream)
                continue;
            ++requests;
            events += r->request.response.malformedEvents;
            addUnique(tests, r->test);
        }
        if (requests == 0)
            return QString();
        return QStringLiteral("%1: %2 of %3 requests had %4 event(s) that were not valid JSON")
            .arg(ctx.name(e))
            .arg(requests)
            .arg(ctx.all[std::size_t(e)].size())
            .arg(events);
    });
    return report(ctx, std::move(found), Severity::Warning,
        QStringLiteral("Corrupted streams: events that were not valid JSON"),
        QStringLiteral(
            "The server or a proxy corrupted these streams. The requests are kept with what arrived but "
            "count as failed: they are left out of the statistics and the gates. Look for a proxy that "
            "rewrites or re-chunks responses and for errors in the server's log, then re-run."));
}

} // namespace qs::guardrails

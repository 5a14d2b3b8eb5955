// SPDX-License-Identifier: MIT
#include "model/wire/StreamAssembler.h"

#include <algorithm>

namespace qs {

namespace {

constexpr int kMaxMalformedSamples = 5;

/// Field-wise merge: continuous usage stats and a final usage chunk may carry different subsets
/// (e.g. only the final one has cached tokens), so a missing field never erases a known one.
void mergeUsage(std::optional<TokenUsage>& into, const TokenUsage& from)
{
    if (!into) {
        into = from;
        return;
    }
    auto take = [](std::optional<qint64>& dst, const std::optional<qint64>& src) {
        if (src)
            dst = src;
    };
    take(into->promptTokens, from.promptTokens);
    take(into->completionTokens, from.completionTokens);
    take(into->totalTokens, from.totalTokens);
    take(into->reasoningTokens, from.reasoningTokens);
    take(into->cachedPromptTokens, from.cachedPromptTokens);
}

ToolCall& toolCallAt(std::vector<ToolCall>& calls, int index)
{
    auto it = std::lower_bound(
        calls.begin(), calls.end(), index, [](const ToolCall& call, int i) { return call.index < i; });
    if (it == calls.end() || it->index != index) {
        ToolCall call;
        call.index = index;
        it = calls.insert(it, std::move(call));
    }
    return *it;
}

void foldToolFragment(std::vector<ToolCall>& calls, const ToolCallFragment& fragment)
{
    ToolCall& call = toolCallAt(calls, fragment.index);
    // id/type/name: the first non-empty value wins (SGLang repeats them as nulls, some servers
    // repeat the name); arguments are pieces of one text.
    if (call.id.isEmpty())
        call.id = fragment.id;
    if (call.type.isEmpty())
        call.type = fragment.type.isEmpty() ? QStringLiteral("function") : fragment.type;
    if (call.name.isEmpty())
        call.name = fragment.name;
    call.arguments += fragment.arguments;
}

void setIfEmpty(QString& dst, const QString& src)
{
    if (dst.isEmpty())
        dst = src;
}

} // namespace

AssembledResponse StreamAssembler::takeResponse()
{
    AssembledResponse r = std::move(m_response);
    r.content.squeeze();
    r.reasoning.squeeze();
    for (ToolCall& call : r.toolCalls)
        call.arguments.squeeze();
    return r;
}

const StreamChunk& StreamAssembler::add(const SseEvent& event)
{
    m_last = decodeChunk(event.data);
    const StreamChunk& c = m_last;
    AssembledResponse& r = m_response;
    const qint64 stamp = event.stampNs;

    if (r.dataEvents == 0)
        r.firstEventNs = stamp;
    r.lastEventNs = stamp;
    ++r.dataEvents;
    if (!event.complete)
        r.truncatedEvent = true;

    switch (c.kind) {
    case StreamChunk::Kind::Done:
        if (!r.sawDone) {
            r.sawDone = true;
            r.doneNs = stamp;
        }
        return c;
    case StreamChunk::Kind::Error:
        // The first error is the cause; anything after it is fallout.
        if (!r.streamError) {
            r.streamError = c.error;
            r.streamErrorNs = stamp;
        }
        return c;
    case StreamChunk::Kind::Malformed:
        if (r.malformedEvents++ == 0)
            r.firstMalformedQuote = c.malformedQuote;
        if (r.malformedSamples.size() < kMaxMalformedSamples)
            r.malformedSamples.append(c.malformedReason);
        return c;
    case StreamChunk::Kind::Data:
        break;
    }

    setIfEmpty(r.responseId, c.id);
    setIfEmpty(r.model, c.model);
    setIfEmpty(r.role, c.role);
    if (!c.systemFingerprint.isEmpty())
        r.systemFingerprint = c.systemFingerprint;
    if (!c.finishReason.isEmpty())
        r.finishReason = c.finishReason;
    r.reasoningField = ReasoningField(quint8(r.reasoningField) | quint8(c.reasoningField));

    if (c.carriesToken()) {
        TokenEvent token;
        token.stampNs = stamp;
        token.contentBegin = int(r.content.size());
        r.content += c.content;
        token.contentEnd = int(r.content.size());
        token.reasoningBegin = int(r.reasoning.size());
        r.reasoning += c.reasoning;
        token.reasoningEnd = int(r.reasoning.size());
        for (const ToolCallFragment& fragment : c.toolCalls) {
            if (!fragment.name.isEmpty() || !fragment.arguments.isEmpty())
                token.toolCall = true;
        }
        r.tokenEvents.push_back(token);
    } else if (c.hasChoices) {
        ++r.emptyEvents;
    }
    if (!c.hasChoices)
        ++r.usageOnlyEvents;

    // Fragments without a name or arguments still carry the id on some servers (vLLM sends the
    // id and name first, SGLang may send an id with "" arguments), so every fragment is folded.
    for (const ToolCallFragment& fragment : c.toolCalls)
        foldToolFragment(r.toolCalls, fragment);

    // A chunk's logprobs count whether or not it carried text: llama-server puts a token held back
    // (a possible stop string) on the chunk that finally sends it, or on the role-only first chunk.
    if (c.logprobs.present())
        r.logprobs.append(LogprobStream(c.logprobs));

    if (c.usage)
        mergeUsage(r.usage, *c.usage);
    if (c.timings)
        r.timings = c.timings;
    return c;
}

} // namespace qs

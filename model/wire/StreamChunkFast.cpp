// SPDX-License-Identifier: MIT
#include "model/wire/StreamChunkFast.h"

#include "model/wire/JsonScanner.h"

#include <cstring>

namespace qs {

namespace {

using detail::isDigit;
using detail::JsonScanner;
using detail::RawString;

/// A key compared with a literal: the sizes first, so most keys are told apart in one compare.
template <std::size_t N> bool is(QByteArrayView key, const char (&literal)[N])
{
    return key.size() == qsizetype(N - 1) && std::memcmp(key.data(), literal, N - 1) == 0;
}

/// A member this path reads, given twice, stops it: the document keeps the last one.
bool firstTime(unsigned& seen, int bit)
{
    const unsigned mask = 1u << bit;
    if (seen & mask)
        return false;
    seen |= mask;
    return true;
}

struct DeltaFields {
    RawString role, content, reasoning, reasoningContent;
};

struct ChoiceFields {
    enum class Index { Absent, Zero, Other, NotNumber } index = Index::Absent;
    bool deltaObject = false;
    DeltaFields delta;
    bool messageObject = false;
    DeltaFields message;
    RawString finishReason;
    /// StreamChunk.cpp's firstChoice(): an index that is missing, 0, or not a number at all.
    bool isChoiceZero() const { return index != Index::Other; }
};

struct UsageFields {
    std::optional<qint64> prompt, completion, total, reasoning, detailsReasoning, cached;
    bool details = false; ///< completion_tokens_details was an object
};

bool readDelta(JsonScanner& s, DeltaFields& d)
{
    unsigned seen = 0;
    return s.object([&](QByteArrayView key) {
        if (is(key, "role"))
            return firstTime(seen, 0) && s.stringValue(d.role);
        if (is(key, "content"))
            return firstTime(seen, 1) && s.stringValue(d.content);
        if (is(key, "reasoning"))
            return firstTime(seen, 2) && s.stringValue(d.reasoning);
        if (is(key, "reasoning_content"))
            return firstTime(seen, 3) && s.stringValue(d.reasoningContent);
        if (is(key, "tool_calls")) {
            if (!firstTime(seen, 4))
                return false;
            if (s.peek() != '[')
                return s.skipValue();
            // Fragments are rare (a tool call's few events): the document reads them.
            return s.array([&] { return s.stop(); });
        }
        return s.skipValue();
    });
}

bool readChoice(JsonScanner& s, ChoiceFields& c)
{
    unsigned seen = 0;
    return s.object([&](QByteArrayView key) {
        if (is(key, "index")) {
            if (!firstTime(seen, 0))
                return false;
            const char first = s.peek();
            if (first != '-' && !isDigit(first)) {
                c.index = ChoiceFields::Index::NotNumber;
                return s.skipValue();
            }
            std::optional<qint64> index;
            if (!s.intValue(index))
                return false;
            c.index = *index == 0 ? ChoiceFields::Index::Zero : ChoiceFields::Index::Other;
            return true;
        }
        if (is(key, "delta") || is(key, "message")) {
            const bool delta = key.size() == 5;
            if (!firstTime(seen, delta ? 1 : 2))
                return false;
            if (s.peek() != '{')
                return s.skipValue();
            (delta ? c.deltaObject : c.messageObject) = true;
            return readDelta(s, delta ? c.delta : c.message);
        }
        if (is(key, "finish_reason"))
            return firstTime(seen, 3) && s.stringValue(c.finishReason);
        if (is(key, "logprobs")) // an object: the document reads its entries
            return firstTime(seen, 4) && (s.peek() == '{' ? s.stop() : s.skipValue());
        return s.skipValue();
    });
}

/// One `{…}` holding a single count this path reads, e.g. completion_tokens_details.
bool readDetail(JsonScanner& s, const char* name, std::optional<qint64>& out)
{
    unsigned seen = 0;
    return s.object([&](QByteArrayView key) {
        if (key == name)
            return firstTime(seen, 0) && s.intValue(out);
        return s.skipValue();
    });
}

bool readUsage(JsonScanner& s, UsageFields& u)
{
    unsigned seen = 0;
    return s.object([&](QByteArrayView key) {
        if (is(key, "prompt_tokens"))
            return firstTime(seen, 0) && s.intValue(u.prompt);
        if (is(key, "completion_tokens"))
            return firstTime(seen, 1) && s.intValue(u.completion);
        if (is(key, "total_tokens"))
            return firstTime(seen, 2) && s.intValue(u.total);
        if (is(key, "reasoning_tokens"))
            return firstTime(seen, 3) && s.intValue(u.reasoning);
        if (is(key, "completion_tokens_details")) {
            if (!firstTime(seen, 4))
                return false;
            if (s.peek() != '{')
                return s.skipValue();
            u.details = true;
            return readDetail(s, "reasoning_tokens", u.detailsReasoning);
        }
        if (is(key, "prompt_tokens_details")) {
            if (!firstTime(seen, 5))
                return false;
            return s.peek() == '{' ? readDetail(s, "cached_tokens", u.cached) : s.skipValue();
        }
        return s.skipValue();
    });
}

bool readTimings(JsonScanner& s, ServerTimings& t)
{
    unsigned seen = 0;
    return s.object([&](QByteArrayView key) {
        struct IntField {
            const char* name;
            std::optional<qint64> ServerTimings::*member;
        };
        struct DoubleField {
            const char* name;
            std::optional<double> ServerTimings::*member;
        };
        static constexpr IntField ints[] = {{"cache_n", &ServerTimings::cacheN},
            {"prompt_n", &ServerTimings::promptN}, {"predicted_n", &ServerTimings::predictedN},
            {"draft_n", &ServerTimings::draftN}, {"draft_n_accepted", &ServerTimings::draftNAccepted}};
        static constexpr DoubleField doubles[] = {{"prompt_ms", &ServerTimings::promptMs},
            {"prompt_per_token_ms", &ServerTimings::promptPerTokenMs},
            {"prompt_per_second", &ServerTimings::promptPerSecond},
            {"predicted_ms", &ServerTimings::predictedMs},
            {"predicted_per_token_ms", &ServerTimings::predictedPerTokenMs},
            {"predicted_per_second", &ServerTimings::predictedPerSecond}};
        int bit = 0;
        for (const IntField& f : ints) {
            if (key == f.name)
                return firstTime(seen, bit) && s.intValue(t.*f.member);
            ++bit;
        }
        for (const DoubleField& f : doubles) {
            if (key == f.name)
                return firstTime(seen, bit) && s.doubleValue(t.*f.member);
            ++bit;
        }
        return s.skipValue();
    });
}

} // namespace

std::optional<StreamChunk> decodeChunkFast(QByteArrayView trimmed)
{
    JsonScanner s(trimmed);
    if (s.peek() != '{') // arrays, scalars, a BOM, garbage: the document's messages
        return std::nullopt;
    RawString id, model, fingerprint;
    bool choicesArray = false, anyChoice = false, haveChoice = false, usageObject = false,
         timingsObject = false;
    ChoiceFields choice;
    UsageFields usage;
    ServerTimings timings;
    unsigned seen = 0;
    const bool read = s.object([&](QByteArrayView key) {
        if (is(key, "id"))
            return firstTime(seen, 0) && s.stringValue(id);
        if (is(key, "model"))
            return firstTime(seen, 1) && s.stringValue(model);
        if (is(key, "system_fingerprint"))
            return firstTime(seen, 2) && s.stringValue(fingerprint);
        if (is(key, "error")) // an error object, or something that might be read as one
            return s.stop();
        if (is(key, "object")) {
            RawString object;
            if (!firstTime(seen, 3) || !s.stringValue(object))
                return false;
            return object.escaped || QByteArrayView(object.data, object.size) == "error" ? s.stop() : true;
        }
        if (is(key, "choices")) {
            if (!firstTime(seen, 4))
                return false;
            if (s.peek() != '[')
                return s.skipValue();
            choicesArray = true;
            return s.array([&] {
                anyChoice = true;
                if (s.peek() != '{')
                    return s.skipValue();
                ChoiceFields c;
                if (!readChoice(s, c))
                    return false;
                if (!haveChoice && c.isChoiceZero()) {
                    choice = c;
                    haveChoice = true;
                }
                return true;
            });
        }
        if (is(key, "usage")) {
            if (!firstTime(seen, 5))
                return false;
            if (s.peek() != '{')
                return s.skipValue();
            usageObject = true;
            return readUsage(s, usage);
        }
        if (is(key, "timings")) {
            if (!firstTime(seen, 6))
                return false;
            if (s.peek() != '{')
                return s.skipValue();
            timingsObject = true;
            return readTimings(s, timings);
        }
        return s.skipValue();
    });
    if (!read || s.stopped() || !s.atEnd())
        return std::nullopt;
    if (!choicesArray && !usageObject) // not a chunk: the document words why
        return std::nullopt;

    StreamChunk chunk;
    chunk.id = detail::jsonText(id);
    chunk.model = detail::jsonText(model);
    chunk.systemFingerprint = detail::jsonText(fingerprint);
    if (anyChoice) {
        chunk.hasChoices = true;
        if (haveChoice) {
            const DeltaFields* d = choice.deltaObject ? &choice.delta
                : choice.messageObject                ? &choice.message
                                                      : nullptr;
            if (d) {
                chunk.role = detail::jsonText(d->role);
                chunk.content = detail::jsonText(d->content);
                // vLLM 0.11.1-0.15.x sends the same text under both keys: take it once, from `reasoning`.
                if (!d->reasoning.empty()) {
                    chunk.reasoningField
                        = d->reasoningContent.empty() ? ReasoningField::Reasoning : ReasoningField::Both;
                    chunk.reasoning = detail::jsonText(d->reasoning);
                } else if (!d->reasoningContent.empty()) {
                    chunk.reasoningField = ReasoningField::ReasoningContent;
                    chunk.reasoning = detail::jsonText(d->reasoningContent);
                }
            }
            chunk.finishReason = detail::jsonText(choice.finishReason);
        }
    }
    if (usageObject) {
        TokenUsage& u = chunk.usage.emplace();
        u.promptTokens = usage.prompt;
        u.completionTokens = usage.completion;
        u.totalTokens = usage.total;
        // vLLM nests reasoning tokens in completion_tokens_details; SGLang puts them top-level.
        u.reasoningTokens
            = usage.details && usage.detailsReasoning ? usage.detailsReasoning : usage.reasoning;
        u.cachedPromptTokens = usage.cached;
    }
    if (timingsObject)
        chunk.timings = timings;
    return chunk;
}

} // namespace qs

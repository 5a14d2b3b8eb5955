// SPDX-License-Identifier: MIT
#include "model/wire/StreamChunk.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace qs;
using Kind = StreamChunk::Kind;

namespace {

StreamChunk decode(const char* text)
{
    return decodeChunk(QByteArrayView(text));
}

// ---------------------------------------------------------------- sentinel and malformed

TEST(DecodeChunk, DoneSentinelWithWhitespace)
{
    for (const char* text : {"[DONE]", " [DONE]", "[DONE]\n", "\t [DONE] \r\n"}) {
        SCOPED_TRACE(text);
        const StreamChunk c = decode(text);
        EXPECT_EQ(c.kind, Kind::Done);
        EXPECT_FALSE(c.carriesToken());
    }
    EXPECT_EQ(decode("[DONE]x").kind, Kind::Malformed);
    EXPECT_EQ(decode("[done]").kind, Kind::Malformed);
}

TEST(DecodeChunk, EmptyPayloadIsMalformed)
{
    for (const char* text : {"", "   ", "\n"}) {
        const StreamChunk c = decode(text);
        EXPECT_EQ(c.kind, Kind::Malformed);
        EXPECT_TRUE(c.malformedReason.contains(QLatin1String("empty"))) << c.malformedReason.toStdString();
    }
}

TEST(DecodeChunk, NotJsonIsMalformedWithShortExcerpt)
{
    const QByteArray html = "<html><head><title>502 Bad Gateway</title></head><body>" + QByteArray(300, 'z')
        + "TAIL_MARKER</body></html>";
    const StreamChunk c = decodeChunk(html);
    EXPECT_EQ(c.kind, Kind::Malformed);
    EXPECT_TRUE(c.malformedReason.contains(QLatin1String("not JSON"))) << c.malformedReason.toStdString();
    EXPECT_TRUE(c.malformedReason.contains(QLatin1String("<html><head><title>502 Bad Gateway")));
    EXPECT_FALSE(c.malformedReason.contains(QLatin1String("TAIL_MARKER")));
    const QString prefix = QStringLiteral("payload is not JSON: \"");
    ASSERT_TRUE(c.malformedReason.startsWith(prefix));
    EXPECT_LE(c.malformedReason.size() - prefix.size() - 1, 80) << "excerpt of at most 80 characters";
}

TEST(DecodeChunk, ExcerptIsOneLineAndCutsCleanly)
{
    // 100 emoji: the excerpt must not end in half a surrogate pair, and newlines are flattened.
    QString text = QStringLiteral("oops\n");
    for (int i = 0; i < 100; ++i)
        text += QStringLiteral("\U0001F642");
    const StreamChunk c = decodeChunk(text.toUtf8());
    ASSERT_EQ(c.kind, Kind::Malformed);
    EXPECT_FALSE(c.malformedReason.contains(u'\n'));
    EXPECT_TRUE(c.malformedReason.contains(QLatin1String("oops ")));
    for (qsizetype i = 0; i < c.malformedReason.size(); ++i) {
        if (c.malformedReason.at(i).isHighSurrogate()) {
            ASSERT_LT(i + 1, c.malformedReason.size());
            EXPECT_TRUE(c.malformedReason.at(i + 1).isLowSurrogate());
        }
    }
}

TEST(DecodeChunk, TruncatedJsonIsMalformed)
{
    const StreamChunk c = decode(R"({"choices":[{"index":0,"delta":{"content":"Hel)");
    EXPECT_EQ(c.kind, Kind::Malformed);
    EXPECT_TRUE(c.malformedReason.contains(QLatin1String("{\"choices\":[{")));
}

TEST(DecodeChunk, JsonButNotObjectIsMalformed)
{
    for (const char* text : {"[1,2,3]", "\"text\"", "42", "null", "true"}) {
        SCOPED_TRACE(text);
        const StreamChunk c = decode(text);
        EXPECT_EQ(c.kind, Kind::Malformed);
        EXPECT_TRUE(c.malformedReason.contains(QLatin1String("not an object")));
    }
    EXPECT_TRUE(decode("[1,2,3]").malformedReason.contains(QLatin1String("array")));
}

TEST(DecodeChunk, ObjectWithoutChoicesUsageOrErrorIsMalformed)
{
    for (const char* text : {"{}", R"({"object":"chat.completion.chunk","note":"x"})", R"({"choices":null})",
             R"({"choices":{"0":{}}})", R"({"usage":null})", R"({"error":null})"}) {
        SCOPED_TRACE(text);
        const StreamChunk c = decode(text);
        EXPECT_EQ(c.kind, Kind::Malformed);
        EXPECT_TRUE(c.malformedReason.contains(QLatin1String("no choices, usage or error")))
            << c.malformedReason.toStdString();
    }
}

TEST(DecodeChunk, InvalidUtf8IsMalformedNotACrash)
{
    const StreamChunk c = decodeChunk(QByteArray("{\"choices\":[{\"delta\":{\"content\":\"\xFF\xFE\"}}]}"));
    EXPECT_EQ(c.kind, Kind::Malformed);
}

// ---------------------------------------------------------------- llama-server

TEST(DecodeChunk, LlamaRoleChunk)
{
    const StreamChunk c = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1780390177,"id":"chatcmpl-uI7J","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})");
    EXPECT_EQ(c.kind, Kind::Data);
    EXPECT_TRUE(c.hasChoices);
    EXPECT_EQ(c.role, QStringLiteral("assistant"));
    EXPECT_TRUE(c.content.isEmpty());
    EXPECT_TRUE(c.finishReason.isEmpty());
    EXPECT_FALSE(c.carriesToken());
    EXPECT_FALSE(c.carriesVisible());
    EXPECT_EQ(c.id, QStringLiteral("chatcmpl-uI7J"));
    EXPECT_EQ(c.model, QStringLiteral("Qwen3-8B-Q4_K_M.gguf"));
    EXPECT_EQ(c.systemFingerprint, QStringLiteral("b9465-23e6dab86"));
    EXPECT_FALSE(c.usage);
    EXPECT_FALSE(c.timings);
}

TEST(DecodeChunk, LlamaReasoningAndContentInOneDiff)
{
    const StreamChunk c = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"reasoning_content":"\n","content":"Let me"}}],"object":"chat.completion.chunk"})");
    EXPECT_EQ(c.reasoning, QStringLiteral("\n"));
    EXPECT_EQ(c.content, QStringLiteral("Let me"));
    EXPECT_EQ(c.reasoningField, ReasoningField::ReasoningContent);
    EXPECT_TRUE(c.carriesToken());
    EXPECT_TRUE(c.carriesVisible());
}

TEST(DecodeChunk, ReasoningOnlyIsTokenButNotVisible)
{
    const StreamChunk c = decode(R"({"choices":[{"index":0,"delta":{"reasoning_content":"Hmm"}}]})");
    EXPECT_TRUE(c.carriesToken());
    EXPECT_FALSE(c.carriesVisible());
}

TEST(DecodeChunk, LlamaToolCallFragments)
{
    const StreamChunk first = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"id":"Yt3mbB2kQ7ZbX1uE0pV8sQfN4rLcH9aW","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\""}}]}}]})");
    ASSERT_EQ(first.toolCalls.size(), 1u);
    EXPECT_EQ(first.toolCalls[0],
        (ToolCallFragment {0, QStringLiteral("Yt3mbB2kQ7ZbX1uE0pV8sQfN4rLcH9aW"), QStringLiteral("function"),
            QStringLiteral("get_weather"), QStringLiteral("{\"location\":\"")}));
    EXPECT_TRUE(first.carriesToken());
    EXPECT_TRUE(first.carriesVisible());

    const StreamChunk next = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"Paris\"}"}}]}}]})");
    ASSERT_EQ(next.toolCalls.size(), 1u);
    EXPECT_EQ(next.toolCalls[0], (ToolCallFragment {1, {}, {}, {}, QStringLiteral("Paris\"}")}));

    // `arguments` is always present on llama-server, possibly empty; with no name it carries nothing.
    const StreamChunk empty = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":""}}]}}]})");
    ASSERT_EQ(empty.toolCalls.size(), 1u);
    EXPECT_FALSE(empty.carriesToken());
}

TEST(DecodeChunk, LlamaUsageChunkWithTimings)
{
    const StreamChunk c = decode(
        R"({"choices":[],"created":1758108431,"id":"chatcmpl-Ca3q","model":"google/gemma-3-1b-it-qat-q4_0","system_fingerprint":"b6497-cd08fc3e","object":"chat.completion.chunk","usage":{"completion_tokens":31,"prompt_tokens":75,"total_tokens":106},"timings":{"cache_n":0,"prompt_n":75,"prompt_ms":180.025,"prompt_per_token_ms":2.400333333333333,"prompt_per_second":416.60880433273155,"predicted_n":31,"predicted_ms":875.429,"predicted_per_token_ms":28.239645161290323,"predicted_per_second":35.41120981827196}})");
    EXPECT_EQ(c.kind, Kind::Data);
    EXPECT_FALSE(c.hasChoices);
    EXPECT_FALSE(c.carriesToken());
    ASSERT_TRUE(c.usage);
    EXPECT_EQ(*c.usage, (TokenUsage {75, 31, 106, std::nullopt, std::nullopt}));
    ASSERT_TRUE(c.timings);
    EXPECT_EQ(c.timings->cacheN, 0);
    EXPECT_EQ(c.timings->promptN, 75);
    EXPECT_DOUBLE_EQ(*c.timings->promptMs, 180.025);
    EXPECT_DOUBLE_EQ(*c.timings->promptPerSecond, 416.60880433273155);
    EXPECT_EQ(c.timings->predictedN, 31);
    EXPECT_DOUBLE_EQ(*c.timings->predictedMs, 875.429);
    EXPECT_DOUBLE_EQ(*c.timings->predictedPerTokenMs, 28.239645161290323);
    EXPECT_FALSE(c.timings->draftN);
    EXPECT_FALSE(c.timings->draftNAccepted);
}

TEST(DecodeChunk, LlamaTimingsWithDraftCounters)
{
    const StreamChunk c = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"x"}}],"timings":{"prompt_n":5,"prompt_ms":12,"draft_n":10,"draft_n_accepted":7}})");
    ASSERT_TRUE(c.timings);
    EXPECT_EQ(c.timings->draftN, 10);
    EXPECT_EQ(c.timings->draftNAccepted, 7);
    EXPECT_DOUBLE_EQ(*c.timings->promptMs, 12.0) << "an integer where a double is expected";
    EXPECT_FALSE(c.timings->cacheN);
}

// ---------------------------------------------------------------- vLLM eras

TEST(DecodeChunk, VllmReasoningCurrent)
{
    const StreamChunk c = decode(
        R"({"id":"chatcmpl-84fd","object":"chat.completion.chunk","created":1779158289,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":"The"},"logprobs":null,"finish_reason":null,"token_ids":null}]})");
    EXPECT_EQ(c.reasoning, QStringLiteral("The"));
    EXPECT_EQ(c.reasoningField, ReasoningField::Reasoning);
    EXPECT_TRUE(c.content.isEmpty());
    EXPECT_TRUE(c.systemFingerprint.isEmpty());
}

TEST(DecodeChunk, VllmTransitionalBothFieldsTakenOnce)
{
    const StreamChunk c = decode(
        R"({"id":"chatcmpl-84fd","choices":[{"index":0,"delta":{"reasoning":"The","reasoning_content":"The"},"logprobs":null,"finish_reason":null,"token_ids":null}]})");
    EXPECT_EQ(c.reasoning, QStringLiteral("The"));
    EXPECT_EQ(c.reasoningField, ReasoningField::Both);

    const StreamChunk content = decode(
        R"({"choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":null},"logprobs":null,"finish_reason":null}]})");
    EXPECT_EQ(content.content, QStringLiteral("Hi"));
    EXPECT_TRUE(content.reasoning.isEmpty());
    EXPECT_EQ(content.reasoningField, ReasoningField::None);

    const StreamChunk role = decode(
        R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":null},"logprobs":null,"finish_reason":null}],"prompt_token_ids":null})");
    EXPECT_EQ(role.role, QStringLiteral("assistant"));
    EXPECT_FALSE(role.carriesToken());
}

TEST(DecodeChunk, VllmLegacyReasoningContent)
{
    const StreamChunk c
        = decode(R"({"choices":[{"index":0,"delta":{"reasoning_content":"Hmm"},"finish_reason":null}]})");
    EXPECT_EQ(c.reasoning, QStringLiteral("Hmm"));
    EXPECT_EQ(c.reasoningField, ReasoningField::ReasoningContent);
}

TEST(DecodeChunk, VllmFinishChunkWithStopReason)
{
    const StreamChunk c = decode(
        R"({"id":"chatcmpl-84fd","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":151645,"token_ids":null}],"system_fingerprint":"vllm-0.25.1-6cda6dc1"})");
    EXPECT_EQ(c.finishReason, QStringLiteral("stop"));
    EXPECT_FALSE(c.carriesToken());
    EXPECT_EQ(c.systemFingerprint, QStringLiteral("vllm-0.25.1-6cda6dc1"));
}

TEST(DecodeChunk, VllmUsageWithDetails)
{
    const StreamChunk c = decode(
        R"({"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":12,"total_tokens":40,"completion_tokens":28,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":20}},"system_fingerprint":"vllm-0.25.1"})");
    EXPECT_FALSE(c.hasChoices);
    ASSERT_TRUE(c.usage);
    EXPECT_EQ(*c.usage, (TokenUsage {12, 28, 40, 20, 8}));
}

TEST(DecodeChunk, VllmToolCallFirstFragmentWithoutArguments)
{
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"id":"chatcmpl-tool-a331788bab1045a8","type":"function","index":0,"function":{"name":"get_weather"}}]},"logprobs":null,"finish_reason":null,"token_ids":null}]})");
    ASSERT_EQ(c.toolCalls.size(), 1u);
    EXPECT_EQ(c.toolCalls[0].id, QStringLiteral("chatcmpl-tool-a331788bab1045a8"));
    EXPECT_EQ(c.toolCalls[0].name, QStringLiteral("get_weather"));
    EXPECT_TRUE(c.toolCalls[0].arguments.isEmpty());
    EXPECT_TRUE(c.carriesToken());
}

TEST(DecodeChunk, OnlyChoiceIndexZeroIsRead)
{
    const StreamChunk other = decode(R"({"choices":[{"index":1,"delta":{"content":"second"}}]})");
    EXPECT_EQ(other.kind, Kind::Data);
    EXPECT_TRUE(other.hasChoices);
    EXPECT_TRUE(other.content.isEmpty());

    const StreamChunk both = decode(
        R"({"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"content":"first"}}]})");
    EXPECT_EQ(both.content, QStringLiteral("first"));

    const StreamChunk noIndex = decode(R"({"choices":[{"delta":{"content":"x"}}]})");
    EXPECT_EQ(noIndex.content, QStringLiteral("x"));
}

// ---------------------------------------------------------------- SGLang

TEST(DecodeChunk, SglangLegacyNullHeavy)
{
    const StreamChunk role = decode(
        R"({"id":"8fe1630f301c48a3bf7c4600cd5b17bc","object":"chat.completion.chunk","created":1779609667,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})");
    EXPECT_EQ(role.kind, Kind::Data);
    EXPECT_EQ(role.role, QStringLiteral("assistant"));
    EXPECT_FALSE(role.usage) << "\"usage\":null is no usage";
    EXPECT_TRUE(role.toolCalls.empty());
    EXPECT_FALSE(role.carriesToken());
    EXPECT_EQ(role.reasoningField, ReasoningField::None);
    EXPECT_TRUE(role.systemFingerprint.isEmpty());

    const StreamChunk finish = decode(
        R"({"id":"8fe1","object":"chat.completion.chunk","created":1779609668,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":"stop","matched_stop":151645}],"usage":null})");
    EXPECT_EQ(finish.finishReason, QStringLiteral("stop"));
    EXPECT_TRUE(finish.role.isEmpty());
    EXPECT_FALSE(finish.carriesToken());

    const StreamChunk fragment = decode(
        R"({"id":"adce","choices":[{"index":0,"delta":{"role":null,"content":null,"reasoning_content":null,"tool_calls":[{"id":null,"index":0,"type":"function","function":{"name":null,"arguments":"{\"location\": \"Paris\"}"}}]},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})");
    ASSERT_EQ(fragment.toolCalls.size(), 1u);
    EXPECT_EQ(fragment.toolCalls[0],
        (ToolCallFragment {
            0, {}, QStringLiteral("function"), {}, QStringLiteral("{\"location\": \"Paris\"}")}));
}

TEST(DecodeChunk, SglangUsageTopLevelReasoningTokens)
{
    const StreamChunk c = decode(
        R"({"id":"8fe1","object":"chat.completion.chunk","created":1779609668,"model":"Qwen3-8B","choices":[],"usage":{"prompt_tokens":14,"total_tokens":54,"completion_tokens":40,"prompt_tokens_details":null,"reasoning_tokens":0}})");
    ASSERT_TRUE(c.usage);
    EXPECT_EQ(*c.usage, (TokenUsage {14, 40, 54, 0, std::nullopt}));
}

TEST(DecodeChunk, EmptyFinishReasonIsEmpty)
{
    const StreamChunk c = decode(
        R"({"id":"x","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":"","matched_stop":null}]})");
    EXPECT_TRUE(c.finishReason.isEmpty());
    EXPECT_EQ(c.content, QStringLiteral("Hello"));
}

TEST(DecodeChunk, NonAsciiContent)
{
    const StreamChunk c = decodeChunk(QStringLiteral("{\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                                                     "\"\u5929\u6C17 \U0001F324 \\u00e9\\ud83d\\ude42\"}}]}")
                                          .toUtf8());
    EXPECT_EQ(c.content, QStringLiteral("\u5929\u6C17 \U0001F324 \u00E9\U0001F642"));
}

// ---------------------------------------------------------------- wrong types never throw

TEST(DecodeChunk, WrongTypesReadAsMissing)
{
    const StreamChunk c = decode(
        R"({"id":7,"model":["m"],"system_fingerprint":{},"choices":[{"index":0,"delta":{"role":1,"content":5,"reasoning":{},"reasoning_content":[1],"tool_calls":"x"},"finish_reason":1}],"usage":"lots","timings":[]})");
    EXPECT_EQ(c.kind, Kind::Data);
    EXPECT_TRUE(c.hasChoices);
    EXPECT_TRUE(c.id.isEmpty());
    EXPECT_TRUE(c.model.isEmpty());
    EXPECT_TRUE(c.role.isEmpty());
    EXPECT_TRUE(c.content.isEmpty());
    EXPECT_TRUE(c.reasoning.isEmpty());
    EXPECT_TRUE(c.toolCalls.empty());
    EXPECT_TRUE(c.finishReason.isEmpty());
    EXPECT_FALSE(c.usage);
    EXPECT_FALSE(c.timings);
}

TEST(DecodeChunk, WrongTypesInsideToolCallsAndUsage)
{
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[5,null,{"index":"a","id":3,"function":"x"},{"index":-4,"function":{"name":7,"arguments":["a"]}},{"function":{"name":"f","arguments":{"k":1}}}]}}],"usage":{"prompt_tokens":"12","completion_tokens":3.0,"total_tokens":2.5,"completion_tokens_details":[],"prompt_tokens_details":{"cached_tokens":null},"reasoning_tokens":1e30}})");
    EXPECT_EQ(c.kind, Kind::Data);
    // Non-object entries are skipped; a bad index falls back to the position in the array.
    ASSERT_EQ(c.toolCalls.size(), 3u);
    EXPECT_EQ(c.toolCalls[0], (ToolCallFragment {2, {}, {}, {}, {}}));
    EXPECT_EQ(c.toolCalls[1], (ToolCallFragment {3, {}, {}, {}, {}}));
    EXPECT_EQ(c.toolCalls[2].index, 4);
    EXPECT_EQ(c.toolCalls[2].name, QStringLiteral("f"));
    EXPECT_EQ(c.toolCalls[2].arguments, QStringLiteral("{\"k\":1}"))
        << "an object argument is kept as its text";
    ASSERT_TRUE(c.usage);
    EXPECT_EQ(*c.usage, (TokenUsage {std::nullopt, 3, std::nullopt, std::nullopt, std::nullopt}));
}

TEST(DecodeChunk, WrongTypedChoiceEntriesAndDelta)
{
    const StreamChunk c
        = decode(R"({"choices":[null,5,"x",{"index":0,"delta":"text","finish_reason":"length"}]})");
    EXPECT_EQ(c.kind, Kind::Data);
    EXPECT_TRUE(c.hasChoices);
    EXPECT_TRUE(c.content.isEmpty());
    EXPECT_EQ(c.finishReason, QStringLiteral("length"));
}

TEST(DecodeChunk, HugeNumbersAreNotCounts)
{
    const StreamChunk c = decode(
        R"({"choices":[],"usage":{"prompt_tokens":18446744073709551615,"completion_tokens":-3,"total_tokens":9223372036854775807}})");
    ASSERT_TRUE(c.usage);
    EXPECT_FALSE(c.usage->promptTokens);
    EXPECT_EQ(c.usage->completionTokens, -3);
    EXPECT_EQ(c.usage->totalTokens, std::numeric_limits<qint64>::max());
}

// ---------------------------------------------------------------- in-stream errors

TEST(DecodeChunk, LlamaCompactNestedError)
{
    const StreamChunk c = decode(
        R"({"error":{"code":500,"message":"failed to process speculative batch","type":"server_error"}})");
    EXPECT_EQ(c.kind, Kind::Error);
    ASSERT_TRUE(c.error);
    EXPECT_EQ(c.error->code, 500);
    EXPECT_TRUE(c.error->codeText.isEmpty());
    EXPECT_EQ(c.error->type, QStringLiteral("server_error"));
    EXPECT_EQ(c.error->message, QStringLiteral("failed to process speculative batch"));
    EXPECT_FALSE(c.carriesToken());
}

TEST(DecodeChunk, VllmSpacedNestedError)
{
    const StreamChunk c = decode(
        R"({"error": {"message": "Internal server error", "type": "InternalServerError", "param": null, "code": 500}})");
    EXPECT_EQ(c.kind, Kind::Error);
    ASSERT_TRUE(c.error);
    EXPECT_EQ(*c.error,
        (ServerError {500, {}, QStringLiteral("InternalServerError"), QStringLiteral("Internal server error"),
            {}, std::nullopt, std::nullopt}));
}

TEST(DecodeChunk, SglangNestedErrorWithObjectKey)
{
    const StreamChunk c = decode(
        R"({"error": {"object": "error", "message": "Generation aborted.", "type": "SERVICE_UNAVAILABLE", "param": null, "code": 503}})");
    EXPECT_EQ(c.kind, Kind::Error);
    ASSERT_TRUE(c.error);
    EXPECT_EQ(c.error->code, 503);
    EXPECT_EQ(c.error->type, QStringLiteral("SERVICE_UNAVAILABLE"));
    EXPECT_EQ(c.error->message, QStringLiteral("Generation aborted."));
}

TEST(DecodeChunk, FlatError)
{
    const StreamChunk c = decode(
        R"({"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","param":null,"code":400})");
    EXPECT_EQ(c.kind, Kind::Error);
    ASSERT_TRUE(c.error);
    EXPECT_EQ(c.error->code, 400);
    EXPECT_EQ(c.error->type, QStringLiteral("BadRequestError"));
    EXPECT_TRUE(c.error->message.startsWith(QLatin1String("The input (5000 tokens)")));
}

TEST(DecodeChunk, StringAndNullErrorCodes)
{
    const StreamChunk s = decode(
        R"({"error":{"message":"too long","type":"BadRequestError","param":"input_tokens","code":"context_length_exceeded"}})");
    ASSERT_TRUE(s.error);
    EXPECT_EQ(s.error->code, 0);
    EXPECT_EQ(s.error->codeText, QStringLiteral("context_length_exceeded"));
    EXPECT_EQ(s.error->param, QStringLiteral("input_tokens"));

    const StreamChunk n = decode(R"({"error":{"message":"m","type":"t","code":null}})");
    ASSERT_TRUE(n.error);
    EXPECT_EQ(n.error->code, 0);
    EXPECT_TRUE(n.error->codeText.isEmpty());
}

TEST(DecodeChunk, ErrorOddShapes)
{
    const StreamChunk text = decode(R"({"error":"upstream timed out"})");
    EXPECT_EQ(text.kind, Kind::Error);
    ASSERT_TRUE(text.error);
    EXPECT_EQ(text.error->message, QStringLiteral("upstream timed out"));

    const StreamChunk listMessage = decode(R"({"error":{"message":["a","b"],"code":422}})");
    ASSERT_TRUE(listMessage.error);
    EXPECT_EQ(listMessage.error->message, QStringLiteral("[\"a\",\"b\"]"));
    EXPECT_EQ(listMessage.error->code, 422);

    // "error": null next to choices is a normal chunk.
    const StreamChunk nullError = decode(R"({"error":null,"choices":[{"index":0,"delta":{"content":"x"}}]})");
    EXPECT_EQ(nullError.kind, Kind::Data);
    EXPECT_EQ(nullError.content, QStringLiteral("x"));
}

} // namespace

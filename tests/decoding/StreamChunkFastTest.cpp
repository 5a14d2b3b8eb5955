// SPDX-License-Identifier: MIT
// decodeChunk's fast path (StreamChunkFast.h) against the document it stands in for: on every
// payload both must give the same chunk, field for field; and the fast path must really take the
// ordinary chunks of every dialect, or the client is back to a document per token.
#include "model/wire/StreamChunkFast.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <random>

using namespace qs;

namespace {

void expectSameText(const QString& a, const QString& b, const char* field)
{
    EXPECT_EQ(a, b) << field;
    EXPECT_EQ(a.isNull(), b.isNull()) << field << " (null against empty)";
}

/// Every field of the two chunks, strings including their null-ness.
void expectSame(const StreamChunk& a, const StreamChunk& b)
{
    EXPECT_EQ(a.kind, b.kind);
    expectSameText(a.role, b.role, "role");
    expectSameText(a.content, b.content, "content");
    expectSameText(a.reasoning, b.reasoning, "reasoning");
    EXPECT_EQ(a.reasoningField, b.reasoningField);
    EXPECT_EQ(a.toolCalls, b.toolCalls);
    expectSameText(a.finishReason, b.finishReason, "finish_reason");
    EXPECT_EQ(a.hasChoices, b.hasChoices);
    EXPECT_EQ(a.usage, b.usage);
    EXPECT_EQ(a.timings, b.timings);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.logprobs, b.logprobs);
    expectSameText(a.id, b.id, "id");
    expectSameText(a.model, b.model, "model");
    expectSameText(a.systemFingerprint, b.systemFingerprint, "system_fingerprint");
    expectSameText(a.malformedReason, b.malformedReason, "malformedReason");
    expectSameText(a.malformedQuote, b.malformedQuote, "malformedQuote");
}

/// decodeChunk (fast path first) and the document give the same chunk; true when the fast path
/// took the payload.
bool checkPayload(QByteArrayView payload)
{
    SCOPED_TRACE(payload.toByteArray().toStdString());
    expectSame(decodeChunk(payload), decodeChunkWithDom(payload));
    const QByteArrayView trimmed = payload.trimmed();
    if (trimmed.isEmpty() || trimmed == QByteArrayView("[DONE]"))
        return false;
    const std::optional<StreamChunk> fast = decodeChunkFast(trimmed);
    if (fast)
        expectSame(*fast, decodeChunkWithDom(payload));
    return fast.has_value();
}

std::vector<QByteArray> fixturePayloads()
{
    std::vector<QByteArray> payloads;
    for (const QString& name : test::fixtureNames())
        for (const SseEvent& e : test::parseInPieces(test::loadFixture(name), 0).events)
            payloads.push_back(e.data);
    return payloads;
}

} // namespace

TEST(StreamChunkFast, EveryFixturePayloadDecodesAsTheDocumentDoes)
{
    const std::vector<QByteArray> payloads = fixturePayloads();
    ASSERT_GT(payloads.size(), 100u);
    for (const QByteArray& p : payloads)
        checkPayload(p);
}

TEST(StreamChunkFast, TakesTheOrdinaryChunksOfEveryDialect)
{
    // Role, text, reasoning, finish and usage chunks of llama-server, vLLM (every era) and SGLang.
    const char* const ordinary[] = {
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1780390177,"id":"chatcmpl-uI7J","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})",
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hello"}}],"created":1780390177,"id":"chatcmpl-uI7J","model":"m","system_fingerprint":"b9465","object":"chat.completion.chunk"})",
        R"({"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1,"id":"x","model":"m","object":"chat.completion.chunk","usage":{"completion_tokens":12,"prompt_tokens":30,"total_tokens":42,"prompt_tokens_details":{"cached_tokens":0}},"timings":{"cache_n":0,"prompt_n":30,"prompt_ms":12.5,"prompt_per_token_ms":0.4166666666666667,"prompt_per_second":2400.0,"predicted_n":12,"predicted_ms":310.123,"predicted_per_token_ms":25.84358333333333,"predicted_per_second":38.69443}})",
        R"({"id":"chatcmpl-84fd","object":"chat.completion.chunk","created":1779158289,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":" user"},"logprobs":null,"finish_reason":null,"token_ids":null}]})",
        R"({"id":"chatcmpl-84fd","object":"chat.completion.chunk","created":1,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"reasoning":"x","reasoning_content":"x"},"logprobs":null,"finish_reason":null}]})",
        R"({"id":"chatcmpl-84fd","object":"chat.completion.chunk","created":1,"model":"q","choices":[],"usage":{"prompt_tokens":9,"total_tokens":20,"completion_tokens":11,"completion_tokens_details":{"reasoning_tokens":4}}})",
        R"({"id":"5c1f","object":"chat.completion.chunk","created":1,"model":"default","choices":[{"index":0,"delta":{"role":null,"content":"Hi","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null})",
        R"({"id":"5c1f","object":"chat.completion.chunk","created":1,"model":"default","choices":[{"index":0,"delta":{"content":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"},"finish_reason":null}]})",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x99\x82\"}}]}",
        R"({"choices":[{"delta":{"content":"no index"},"finish_reason":null}],"usage":{"reasoning_tokens":3}})",
        R"({"choices":[{"index":1,"delta":{"content":"one"}},{"index":0,"delta":{"content":"zero"}}]})",
        R"({"choices":[{"index":0,"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]})",
        R"(  {"choices" : [ { "index" : 0 , "delta" : { "content" : "spaced" } } ] , "n":-0.5e-3 , "t":true, "f":false, "z":null, "a":[1,[2,{}],[]] }  )",
    };
    for (const char* payload : ordinary) {
        EXPECT_TRUE(checkPayload(payload))
            << "the fast path left this ordinary chunk to the document: " << payload;
    }
    // The recorded streams hold the unusual on purpose (errors, tool calls, logprobs, garbage, and
    // every stream's [DONE]): the fast path may leave a payload to the document only for a reason
    // StreamChunkFast.h gives, and each such reason shows in what the document decodes.
    int taken = 0;
    for (const QByteArray& p : fixturePayloads()) {
        if (checkPayload(p)) {
            ++taken;
            continue;
        }
        const StreamChunk dom = decodeChunkWithDom(p);
        const bool documented
            = dom.kind != StreamChunk::Kind::Data || !dom.toolCalls.empty() || dom.logprobs.chunks > 0;
        EXPECT_TRUE(documented) << "the fast path left this recorded chunk to the document: "
                                << p.toStdString();
    }
    EXPECT_GE(taken, 80) << "the recorded streams' ordinary chunks (80 when this was written)";
}

TEST(StreamChunkFast, LeavesTheUnusualToTheDocument)
{
    // Each is decoded by the document, with the same result through decodeChunk.
    const char* const unusual[] = {
        R"({"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]})", // the last one counts
        R"({"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]})",
        R"({"choices":[{"index":0,"index":1,"delta":{"content":"a"}}]})",
        R"({"choices":[{"index":0,"delta":{"con\u0074ent":"escaped key"}}]})",
        R"({"choices":[{"index":0.0,"delta":{"content":"fractional index"}}]})",
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]}}]})",
        R"({"choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":-0.5}]}}]})",
        R"({"error":{"message":"boom","type":"server_error","code":500}})",
        R"({"object":"error","message":"flat","type":"BadRequestError","code":400})",
        R"({"object":"err\u006fr","message":"escaped"})",
        R"({"choices":[],"usage":{"prompt_tokens":1.0}})",
        R"({"choices":[],"usage":{"prompt_tokens":12345678901234567890}})",
        R"({"choices":[],"timings":{"prompt_ms":1e400}})",
        R"({"choices":[],"timings":{"prompt_ms":1e-400}})",
        R"({"choices":[],"timings":{"prompt_ms":1.5e2,"predicted_per_second":-2E-3}})",
        "\xEF\xBB\xBF{\"choices\":[]}",
        R"({"id":"only an id"})",
        R"({"choices":{"index":0}})",
        R"([{"choices":[]}])",
        R"("just a string")",
        R"({"choices":[{"index":0,"delta":{"content":"bad \ud800 surrogate"}}]})",
        R"({"choices":[{"index":0,"delta":{"content":"lone \udc00 low"}}]})",
        R"({"choices":[{"index":0,"delta":{"content":"bad \x escape"}}]})",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ctrl \x01 char\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"bad \xC0\xAF utf8\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"surrogate \xED\xA0\x80 in utf8\"}}]}",
        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"cut \xE6\x97\"}}]}",
        R"({"choices":[{"index":0,"delta":{"content":"x"}}],})",
        R"({"choices":[{"index":0,"delta":{"content":"x"}},]})",
        R"({"choices":[{"index":0,"delta":{"content":"x"}}]} trailing)",
        R"({"choices":[],"n":01})",
        R"({"choices":[],"n":1.})",
        R"({"choices":[],"n":-})",
        R"({"choices":[],"n":.5})",
        R"({"choices":[],"n":tru})",
        R"({"choices":[],"n":NaN,"m":-Infinity})",
        R"({"choices":[{"index":0,"delta":{"content":"x"},"logprobs":{"content":[{"token":"x","logprob":-Infinity}]}}]})",
        R"({"choices":[],"usage":{"prompt_tokens":3},"usage":null})",
        "{\"choices\":[],\"v\":\"\\u0000\"}\f",
        "{\"choices\":[]}\v",
    };
    for (const char* payload : unusual)
        checkPayload(payload);
    // Deep nesting: the fast path stops at 64 levels, the document reads on.
    QByteArray deep = "{\"choices\":[],\"x\":";
    for (int i = 0; i < 200; ++i)
        deep += "[";
    for (int i = 0; i < 200; ++i)
        deep += "]";
    checkPayload(QByteArray(deep + "}"));
}

TEST(StreamChunkFast, MutatedPayloadsDecodeAsTheDocumentDoes)
{
    // Every recorded payload, cut, with bytes changed, dropped and doubled: whatever the fast path
    // takes must be what the document reads. Seeded: the same cases on every run.
    const std::vector<QByteArray> payloads = fixturePayloads();
    std::mt19937 random(24);
    const char interesting[] = {'"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '-', 'e', '.', 'u', 'n',
        '\0', '\n', char(0xC3), char(0xA9), char(0xED), char(0xF0), char(0x80), char(0xFF)};
    int cases = 0;
    for (const QByteArray& original : payloads) {
        for (int round = 0; round < 40; ++round) {
            QByteArray p = original;
            const int edits = 1 + int(random() % 3);
            for (int e = 0; e < edits && !p.isEmpty(); ++e) {
                const qsizetype at = qsizetype(random() % std::uint32_t(p.size()));
                switch (random() % 4) {
                case 0:
                    p[at] = interesting[random() % sizeof(interesting)];
                    break;
                case 1:
                    p.remove(at, 1);
                    break;
                case 2:
                    p.insert(at, p.mid(at, 1 + qsizetype(random() % 8)));
                    break;
                default:
                    p.truncate(at);
                    break;
                }
            }
            checkPayload(p);
            ++cases;
            if (::testing::Test::HasFailure())
                return; // one mismatch says it; thousands would bury it
        }
    }
    EXPECT_GT(cases, 4000);
}

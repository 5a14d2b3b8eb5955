// SPDX-License-Identifier: MIT
// `logprobs` on the wire: each server's entries decoded exactly (reference Part 2), the
// non-standard literals of Python servers, and the three logprob fixtures assembled end to end.
#include "TestSupport.h"
#include "model/wire/StreamAssembler.h"
#include "model/wire/StreamChunk.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace qs;
using namespace qs::test;
using Kind = StreamChunk::Kind;

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

/// The servers compute in float32; the JSON carries the float widened to double.
constexpr double f32(float f)
{
    return f;
}

StreamChunk decode(const char* text)
{
    return decodeChunk(QByteArrayView(text));
}

QByteArray utf8(const char* text)
{
    return QByteArray(text);
}

TokenCandidate candidate(const char* token, double logprob, std::optional<qint64> id = std::nullopt)
{
    return {QString::fromUtf8(token), utf8(token), logprob, id};
}

TokenCandidate candidate(const char* token, QByteArray bytes, double logprob, std::optional<qint64> id)
{
    return {QString::fromUtf8(token), std::move(bytes), logprob, id};
}

QByteArray bytesOf(std::initializer_list<int> values)
{
    QByteArray b;
    for (const int v : values)
        b.append(char(static_cast<unsigned char>(v)));
    return b;
}

// ---------------------------------------------------------------- the reference's examples

TEST(DecodeLogprobs, LlamaServerExampleWithIds)
{
    // Part 2 §2.2, byte for byte.
    const StreamChunk c = decode(
        R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":" Paris"},"logprobs":{"content":[{"id":12095,"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.0124,"top_logprobs":[{"id":12095,"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.0124},{"id":279,"token":" the","bytes":[32,116,104,101],"logprob":-4.6107}]}]}}],"created":1760000000,"id":"chatcmpl-Xq2","model":"qwen3-8b","system_fingerprint":"b6500-1a2b3c4d","object":"chat.completion.chunk"})");
    ASSERT_EQ(c.kind, Kind::Data);
    EXPECT_EQ(c.content, QStringLiteral(" Paris"));
    ASSERT_TRUE(c.logprobs.present());
    EXPECT_EQ(c.logprobs.chunks, 1);
    ASSERT_EQ(c.logprobs.tokens.size(), 1u);
    const TokenLogprob& t = c.logprobs.tokens[0];
    EXPECT_EQ(t.token, QStringLiteral(" Paris"));
    EXPECT_EQ(t.bytes, utf8(" Paris"));
    EXPECT_EQ(t.logprob, -0.0124);
    EXPECT_EQ(t.id, 12095);
    EXPECT_TRUE(t.hasTop);
    const std::vector<TokenCandidate> top {
        candidate(" Paris", -0.0124, 12095), candidate(" the", -4.6107, 279)};
    EXPECT_EQ(t.top, top);
    EXPECT_EQ(c.logprobs.impossible, 0);
    EXPECT_EQ(c.logprobs.unreadable, 0);
}

TEST(DecodeLogprobs, VllmExampleWithoutIdsAndClamp)
{
    // Part 2 §2.3: no ids, the chosen token first, -9999.0 for −∞.
    const StreamChunk c = decode(
        R"({"id":"chatcmpl-8c1f","object":"chat.completion.chunk","created":1760000000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" Paris"},"logprobs":{"content":[{"token":" Paris","logprob":-0.01237,"bytes":[32,80,97,114,105,115],"top_logprobs":[{"token":" Paris","logprob":-0.01237,"bytes":[32,80,97,114,105,115]},{"token":" the","logprob":-4.6109,"bytes":[32,116,104,101]},{"token":" Lyon","logprob":-9999.0,"bytes":[32,76,121,111,110]}]}]},"finish_reason":null,"token_ids":null}]})");
    ASSERT_EQ(c.logprobs.tokens.size(), 1u);
    const TokenLogprob& t = c.logprobs.tokens[0];
    EXPECT_EQ(t.logprob, -0.01237);
    EXPECT_FALSE(t.id);
    const std::vector<TokenCandidate> top {
        candidate(" Paris", -0.01237), candidate(" the", -4.6109), candidate(" Lyon", kMinusInf)};
    EXPECT_EQ(t.top, top);
    EXPECT_EQ(c.logprobs.impossible, 1);
}

TEST(DecodeLogprobs, SglangSeveralEntriesAndNull)
{
    const StreamChunk c = decode(
        R"({"id":"3f0c5e","object":"chat.completion.chunk","created":1760000000,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"content":" Paris is"},"logprobs":{"content":[{"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.01241,"top_logprobs":[{"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.01241}]},{"token":" is","bytes":[32,105,115],"logprob":null,"top_logprobs":[{"token":" was","bytes":[32,119,97,115],"logprob":-0.1},{"token":" is","bytes":[32,105,115],"logprob":null}]}]},"finish_reason":null,"matched_stop":null}]})");
    ASSERT_EQ(c.logprobs.tokens.size(), 2u);
    EXPECT_EQ(c.logprobs.chunks, 1);
    EXPECT_EQ(c.logprobs.tokens[0].logprob, -0.01241);
    EXPECT_EQ(c.logprobs.tokens[1].token, QStringLiteral(" is"));
    EXPECT_EQ(c.logprobs.tokens[1].logprob, kMinusInf);
    const std::vector<TokenCandidate> top {candidate(" was", -0.1), candidate(" is", kMinusInf)};
    EXPECT_EQ(c.logprobs.tokens[1].top, top);
    EXPECT_EQ(c.logprobs.impossible, 2);
    EXPECT_EQ(c.logprobs.unreadable, 0);
}

// ---------------------------------------------------------------- absent, null and odd values

TEST(DecodeLogprobs, NullOrMissingLogprobsMeansNone)
{
    for (const char* text : {R"({"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null}]})",
             R"({"choices":[{"index":0,"delta":{"content":"a"}}]})",
             R"({"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":null}}]})",
             R"({"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{}}]})",
             R"({"choices":[{"index":0,"delta":{"content":"a"},"logprobs":[1,2]}]})"}) {
        SCOPED_TRACE(text);
        const StreamChunk c = decode(text);
        EXPECT_EQ(c.kind, Kind::Data);
        EXPECT_FALSE(c.logprobs.present());
        EXPECT_EQ(c.logprobs, LogprobStream {});
    }
}

TEST(DecodeLogprobs, EmptyContentIsPresentWithoutTokens)
{
    const StreamChunk c = decode(R"({"choices":[{"index":0,"delta":{},"logprobs":{"content":[]}}]})");
    EXPECT_TRUE(c.logprobs.present());
    EXPECT_TRUE(c.logprobs.tokens.empty());
}

TEST(DecodeLogprobs, MissingLogprobIsUnknownAndBytesDefaultToText)
{
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"delta":{"content":"é"},"logprobs":{"content":[{"token":"é"},{"token":"x","bytes":null,"logprob":-1,"top_logprobs":null},{"token":"y","bytes":[1,256],"logprob":0.5}]}}]})");
    ASSERT_EQ(c.logprobs.tokens.size(), 3u);
    const TokenLogprob& a = c.logprobs.tokens[0];
    EXPECT_FALSE(a.logprob) << "no logprob key: unknown, not −∞";
    EXPECT_EQ(a.bytes, QStringLiteral("é").toUtf8());
    EXPECT_FALSE(a.hasTop);
    EXPECT_EQ(c.logprobs.tokens[1].bytes, utf8("x"));
    EXPECT_EQ(c.logprobs.tokens[1].logprob, -1.0);
    EXPECT_FALSE(c.logprobs.tokens[1].hasTop) << "top_logprobs: null is no list";
    EXPECT_EQ(c.logprobs.tokens[2].bytes, utf8("y")) << "a byte out of range: the bytes are not trusted";
    EXPECT_EQ(c.logprobs.tokens[2].logprob, 0.0) << "a positive logprob is rounding above 0";
    EXPECT_EQ(c.logprobs.impossible, 0);
    EXPECT_EQ(c.logprobs.unreadable, 0);
}

TEST(DecodeLogprobs, UnreadableValuesAreDroppedAndCounted)
{
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[{"token":"a","logprob":"-0.5","top_logprobs":[{"token":"a"},{"token":"b","logprob":"x"},{"token":"c","logprob":-2},7,{"token":"d","logprob":-3.4028234663852886e+38}]},"junk",{"token":"e","logprob":[-1]}]}}]})");
    ASSERT_EQ(c.logprobs.tokens.size(), 2u) << "the string entry is dropped";
    const TokenLogprob& a = c.logprobs.tokens[0];
    EXPECT_FALSE(a.logprob);
    const std::vector<TokenCandidate> top {candidate("c", -2.0), candidate("d", kMinusInf)};
    EXPECT_EQ(a.top, top);
    EXPECT_FALSE(c.logprobs.tokens[1].logprob) << "a list is no logprob";
    // "-0.5", the top entry without logprob, "x", 7, "junk", [-1]
    EXPECT_EQ(c.logprobs.unreadable, 6);
    EXPECT_EQ(c.logprobs.impossible, 1);
}

TEST(DecodeLogprobs, LongTopListIsCut)
{
    QByteArray top;
    for (std::size_t i = 0; i < MaxTopCandidates + 10; ++i)
        top += (i ? "," : "") + QByteArray(R"({"token":"t","logprob":-1})");
    const QByteArray chunk
        = R"({"choices":[{"index":0,"delta":{"content":"t"},"logprobs":{"content":[{"token":"t","logprob":-1,"top_logprobs":[)"
        + top + "]}]}}]}";
    const StreamChunk c = decodeChunk(chunk);
    ASSERT_EQ(c.logprobs.tokens.size(), 1u);
    EXPECT_EQ(c.logprobs.tokens[0].top.size(), MaxTopCandidates);
}

TEST(DecodeLogprobs, MessageBodyReadsTheSameWay)
{
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.25,"top_logprobs":[]}]}}]})");
    ASSERT_EQ(c.logprobs.tokens.size(), 1u);
    EXPECT_TRUE(c.logprobs.tokens[0].hasTop);
    EXPECT_TRUE(c.logprobs.tokens[0].top.empty());
}

// ---------------------------------------------------------------- Python's bare literals

TEST(DecodeLogprobs, BareInfinityAndNanOutsideStrings)
{
    // json.dumps(allow_nan=True) writes these; strict JSON parsers refuse them.
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"delta":{"content":"-Infinity NaN"},"logprobs":{"content":[{"token":"-Infinity","logprob":-Infinity,"top_logprobs":[{"token":"NaN","logprob":NaN},{"token":"\"Infinity","logprob":Infinity},{"token":"x\\","logprob":-Infinity}]}]}}]})");
    ASSERT_EQ(c.kind, Kind::Data) << c.malformedReason.toStdString();
    EXPECT_EQ(c.content, QStringLiteral("-Infinity NaN")) << "strings are left alone";
    ASSERT_EQ(c.logprobs.tokens.size(), 1u);
    const TokenLogprob& t = c.logprobs.tokens[0];
    EXPECT_EQ(t.token, QStringLiteral("-Infinity"));
    EXPECT_EQ(t.logprob, kMinusInf);
    const std::vector<TokenCandidate> top {candidate("x\\", kMinusInf)};
    EXPECT_EQ(t.top, top);
    EXPECT_EQ(c.logprobs.impossible, 2);
    EXPECT_EQ(c.logprobs.unreadable, 2) << "NaN and Infinity";
}

TEST(DecodeLogprobs, RetryDoesNotRescueOtherJunk)
{
    for (const char* text :
        {R"({"choices":[{"index":0,"delta":{},"logprobs":{"content":[{"logprob":-Infinity}]}})",
            R"({"choices":[{"index":0,"delta":{},"logprobs":{"content":[{"logprob":-Inf}]}}]})",
            R"({"choices":[{"index":0,"delta":{},"logprobs":{"content":[{"logprob":-NaN}]}}]})", "NaN",
            "-Infinity", R"("unterminated -Infinity)", R"(Infinity{"choices":[]})"}) {
        SCOPED_TRACE(text);
        EXPECT_EQ(decode(text).kind, Kind::Malformed);
    }
    EXPECT_TRUE(decode("-Infinity").malformedReason.contains(QLatin1String("-Infinity")))
        << "the message quotes the original payload";
}

TEST(DecodeLogprobs, RewriteKeepsEscapedQuotes)
{
    // An escaped quote does not end the string: the NaN inside stays text.
    const StreamChunk c = decode(
        R"({"choices":[{"index":0,"delta":{"content":"a\" NaN \\"},"logprobs":{"content":[{"token":"a","logprob":NaN}]}}]})");
    ASSERT_EQ(c.kind, Kind::Data);
    EXPECT_EQ(c.content, QStringLiteral("a\" NaN \\"));
    ASSERT_EQ(c.logprobs.tokens.size(), 1u);
    EXPECT_FALSE(c.logprobs.tokens[0].logprob);
    EXPECT_EQ(c.logprobs.unreadable, 1);
}

TEST(DecodeLogprobs, DeepOrLongJunkStaysBounded)
{
    // The fuzzer's favourites: deep nesting and long runs of literals must neither crash nor hang.
    const QByteArray deep = QByteArray(100000, '[') + "NaN" + QByteArray(100000, ']');
    EXPECT_EQ(decodeChunk(deep).kind, Kind::Malformed);
    QByteArray run = "[";
    for (int i = 0; i < 50000; ++i)
        run += "NaN,-Infinity,";
    run += "0]";
    EXPECT_EQ(decodeChunk(run).kind, Kind::Malformed) << "an array, not a chunk";
}

// ---------------------------------------------------------------- assembly

SseEvent event(const QByteArray& data, qint64 stamp)
{
    SseEvent e;
    e.data = data;
    e.stampNs = stamp;
    e.complete = true;
    return e;
}

TEST(AssembleLogprobs, ChunksFoldInArrivalOrder)
{
    StreamAssembler a;
    a.add(event(R"({"choices":[{"index":0,"delta":{"role":"assistant"},"logprobs":null}]})", 1));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"content":"ab"},"logprobs":{"content":[{"token":"a","logprob":-1},{"token":"b","logprob":null}]}}]})",
        2));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{},"logprobs":{"content":[{"token":"","logprob":-0.5}]}}]})", 3));
    a.add(event(
        R"({"choices":[{"index":0,"delta":{"content":"c"},"logprobs":{"content":[{"token":"c","logprob":NaN}]}}]})",
        4));
    const AssembledResponse& r = a.response();
    EXPECT_EQ(r.content, QStringLiteral("abc"));
    ASSERT_EQ(r.logprobs.tokens.size(), 4u);
    EXPECT_EQ(r.logprobs.tokens[0].token, QStringLiteral("a"));
    EXPECT_EQ(r.logprobs.tokens[1].logprob, kMinusInf);
    EXPECT_EQ(r.logprobs.tokens[2].token, QString()) << "a chunk without text still brings its logprobs";
    EXPECT_EQ(r.logprobs.tokens[2].logprob, -0.5);
    EXPECT_EQ(r.logprobs.tokens[3].token, QStringLiteral("c"));
    EXPECT_EQ(r.logprobs.chunks, 3);
    EXPECT_EQ(r.logprobs.impossible, 1);
    EXPECT_EQ(r.logprobs.unreadable, 1);
    EXPECT_EQ(r.emptyEvents, 2) << "the text-less chunk is still an empty event for the timings";
}

TEST(AssembleLogprobs, ServerThatIgnoresLogprobs)
{
    StreamAssembler a;
    a.add(event(R"({"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null}]})", 1));
    a.add(event(R"({"choices":[{"index":0,"delta":{"content":"b"}}]})", 2));
    EXPECT_FALSE(a.response().logprobs.present());
}

AssembledResponse assembleFixture(const char* name)
{
    const Parsed parsed = parseInPieces(loadFixture(QString::fromUtf8(name)), 13);
    StreamAssembler a;
    for (const SseEvent& e : parsed.events)
        a.add(e);
    return a.takeResponse();
}

TEST(AssembleLogprobs, LlamaServerFixture)
{
    const AssembledResponse r = assembleFixture("llama-current-logprobs.sse");
    EXPECT_EQ(r.content, QStringLiteral(" The capital is Paris —."));
    const LogprobStream& lp = r.logprobs;
    EXPECT_EQ(lp.chunks, 6);
    EXPECT_EQ(lp.impossible, 1);
    EXPECT_EQ(lp.unreadable, 0);
    ASSERT_EQ(lp.tokens.size(), 6u);

    // The first token held back (it could start a stop string) on the role-only chunk.
    const TokenLogprob& held = lp.tokens[0];
    EXPECT_EQ(held.token, QString());
    EXPECT_EQ(held.bytes, QByteArray());
    EXPECT_EQ(held.id, 578);
    EXPECT_EQ(held.logprob, f32(-0.21f));
    EXPECT_EQ(held.top,
        (std::vector<TokenCandidate> {
            candidate(" The", f32(-0.21f), 578), candidate(" Paris", f32(-1.67f), 12095)}));

    // The next entry carries the text released with it; its top list has the token's own piece.
    EXPECT_EQ(lp.tokens[1].token, QStringLiteral(" The capital"));
    EXPECT_EQ(lp.tokens[1].id, 6722);
    EXPECT_EQ(lp.tokens[1].top[0], candidate(" capital", f32(-0.05f), 6722));

    // float lowest (p = 0) is −∞; a partial UTF-8 candidate has text "" and its raw bytes.
    const TokenLogprob& is = lp.tokens[2];
    EXPECT_EQ(is.logprob, f32(-0.0012f));
    EXPECT_EQ(is.top,
        (std::vector<TokenCandidate> {candidate(" is", f32(-0.0012f), 374), candidate("'s", f32(-6.9f), 596),
            candidate("", bytesOf({226, 128}), f32(-9.1f), 2001), candidate(" Berlin", kMinusInf, 75503)}));

    EXPECT_EQ(lp.tokens[3].token, QStringLiteral(" Paris"));
    EXPECT_EQ(lp.tokens[3].logprob, f32(-0.0124f));

    // A character of two tokens: one entry, the last token's id, continuation bytes in the top list.
    const TokenLogprob& dash = lp.tokens[4];
    EXPECT_EQ(dash.token, QStringLiteral(" —"));
    EXPECT_EQ(dash.bytes, bytesOf({32, 226, 128, 148}));
    EXPECT_EQ(dash.id, 2345);
    EXPECT_EQ(dash.top,
        (std::vector<TokenCandidate> {candidate("", bytesOf({148}), f32(-0.4f), 2345),
            candidate("", bytesOf({147}), f32(-1.2f), 2346)}));

    EXPECT_EQ(lp.tokens[5].top[1], candidate("", QByteArray(), f32(-1.5f), 151645))
        << "<|im_end|> without --special";
}

TEST(AssembleLogprobs, VllmFixture)
{
    const AssembledResponse r = assembleFixture("vllm-logprobs.sse");
    EXPECT_EQ(r.content, QStringLiteral("Paris is the capital."));
    const LogprobStream& lp = r.logprobs;
    EXPECT_EQ(lp.chunks, 6) << "the role chunk sends logprobs: null";
    EXPECT_EQ(lp.impossible, 1);
    EXPECT_EQ(lp.unreadable, 0);
    ASSERT_EQ(lp.tokens.size(), 6u);
    for (const TokenLogprob& t : lp.tokens) {
        EXPECT_FALSE(t.id) << "vLLM sends no ids";
        ASSERT_FALSE(t.top.empty());
        EXPECT_EQ(t.top[0].token, t.token) << "the chosen token comes first";
        EXPECT_EQ(t.top[0].logprob, t.logprob);
    }
    // Sampled outside the top 3: [sampled, top1, top2]; the third best is not sent.
    EXPECT_EQ(lp.tokens[2].top,
        (std::vector<TokenCandidate> {
            candidate(" the", f32(-7.5f)), candidate(" a", f32(-0.2f)), candidate(" one", f32(-1.9f))}));
    EXPECT_EQ(lp.tokens[3].top[2], candidate(" centre", kMinusInf)) << "-9999.0 is −∞";
    // The end-of-turn token decodes to "": its chunk has no text but its logprobs count.
    EXPECT_EQ(lp.tokens[5].token, QString());
    EXPECT_EQ(lp.tokens[5].logprob, f32(-0.0009f));
    EXPECT_EQ(lp.tokens[5].top[1], candidate("\n", f32(-7.2f)));
}

TEST(AssembleLogprobs, SglangFixture)
{
    const AssembledResponse r = assembleFixture("sglang-logprobs.sse");
    EXPECT_EQ(r.content, QStringLiteral("Paris, of course."));
    const LogprobStream& lp = r.logprobs;
    EXPECT_EQ(lp.chunks, 3);
    EXPECT_EQ(lp.impossible, 2) << "a null and a bare -Infinity";
    EXPECT_EQ(lp.unreadable, 0);
    ASSERT_EQ(lp.tokens.size(), 5u);
    EXPECT_EQ(lp.tokens[0].token, QStringLiteral("Paris"));
    EXPECT_EQ(lp.tokens[1].token, QStringLiteral(","));
    EXPECT_EQ(lp.tokens[1].logprob, f32(-0.6f));
    EXPECT_EQ(lp.tokens[2].token, QStringLiteral(" of"));
    EXPECT_EQ(lp.tokens[2].logprob, kMinusInf);
    EXPECT_EQ(lp.tokens[3].top,
        (std::vector<TokenCandidate> {candidate(" course", f32(-0.001f)),
            candidate("\xEF\xBF\xBD", f32(-7.9f)), candidate(" courses", kMinusInf)}));
    EXPECT_EQ(lp.tokens[4].logprob, f32(-0.05f));
}

} // namespace

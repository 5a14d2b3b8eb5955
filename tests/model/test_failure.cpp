// SPDX-License-Identifier: MIT
#include "model/core/Failure.h"
#include "model/wire/ByteQuote.h"
#include "model/wire/FailureClassifier.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {
Failure http(
    int status, const char* body, Runtime runtime = Runtime::Unknown, const char* type = "application/json")
{
    FailureContext ctx;
    ctx.runtime = runtime;
    ctx.model = QStringLiteral("qwen3.5-9b");
    ctx.path = QStringLiteral("/v1/chat/completions");
    return classifyHttpError(status, QByteArray(body), QByteArray(type), ctx);
}
} // namespace

TEST(Failure, VllmToolsWithoutFlagsNamesTheFlags)
{
    // The seeds lost benchmark round v1 to this 400 (reference §4.5), nested and flat eras.
    for (const char* body :
        {R"({"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}})",
            R"({"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400})"}) {
        const Failure f = http(400, body, Runtime::Vllm);
        EXPECT_EQ(f.kind, FailureKind::ToolsNotEnabled) << body;
        EXPECT_TRUE(f.advice.contains(QStringLiteral("--enable-auto-tool-choice")));
        EXPECT_TRUE(f.advice.contains(QStringLiteral("--tool-call-parser")));
        EXPECT_TRUE(f.advice.contains(QStringLiteral("not a model failure")));
        EXPECT_EQ(f.httpStatus, 400);
    }
}

TEST(Failure, LlamaServerNoJinja)
{
    const Failure f = http(
        500, R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})");
    EXPECT_EQ(f.kind, FailureKind::ToolsNotEnabled);
    EXPECT_TRUE(f.advice.contains(QStringLiteral("--jinja")));
}

TEST(Failure, ContextExceededInEachDialect)
{
    const Failure llama = http(400,
        R"({"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}})",
        Runtime::LlamaServer);
    EXPECT_EQ(llama.kind, FailureKind::ContextExceeded);
    EXPECT_TRUE(llama.summary.contains(QStringLiteral("5000")));
    EXPECT_TRUE(llama.advice.contains(QStringLiteral("--ctx-size")));
    const Failure vllm = http(400,
        R"J({"error":{"message":"This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=5000)","type":"BadRequestError","param":"input_tokens","code":400}})J",
        Runtime::Vllm);
    EXPECT_EQ(vllm.kind, FailureKind::ContextExceeded);
    EXPECT_TRUE(vllm.advice.contains(QStringLiteral("--max-model-len")));
    const Failure sglang = http(400,
        R"({"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","param":null,"code":400})",
        Runtime::Sglang);
    EXPECT_EQ(sglang.kind, FailureKind::ContextExceeded);
    EXPECT_TRUE(sglang.advice.contains(QStringLiteral("--context-length")));
}

TEST(Failure, ModelNotFoundVersusNoSuchRoute)
{
    const Failure model = http(404,
        R"({"error":{"message":"The model `x` does not exist.","type":"NotFoundError","param":"model","code":404}})");
    EXPECT_EQ(model.kind, FailureKind::ModelNotFound);
    EXPECT_TRUE(model.advice.contains(QStringLiteral("/v1/models")));
    const Failure route
        = http(404, R"({"error":{"message":"File Not Found","type":"not_found_error","code":404}})");
    EXPECT_EQ(route.kind, FailureKind::RouteNotFound);
    const Failure html = http(404, "<html><body>nginx</body></html>", Runtime::Unknown, "text/html");
    EXPECT_EQ(html.kind, FailureKind::RouteNotFound);
}

TEST(Failure, AuthLoadingAndServerErrors)
{
    EXPECT_EQ(
        http(401, R"({"error":{"message":"Invalid API Key","type":"authentication_error","code":401}})").kind,
        FailureKind::Unauthorized);
    EXPECT_EQ(http(401, R"({"error":"Unauthorized"})").kind, FailureKind::Unauthorized);
    const Failure loading
        = http(503, R"({"error":{"message":"Loading model","type":"unavailable_error","code":503}})");
    EXPECT_EQ(loading.kind, FailureKind::ServerLoading);
    EXPECT_EQ(loading.serverMessage, QStringLiteral("Loading model"));
    EXPECT_EQ(
        http(500,
            R"({"object":"error","message":"Internal server error: boom","type":"InternalServerError","param":null,"code":500})")
            .kind,
        FailureKind::ServerError);
    EXPECT_EQ(
        http(400,
            R"({"error":{"message":"1 validation error","type":"Bad Request","param":"messages","code":400}})")
            .kind,
        FailureKind::BadRequest);
    EXPECT_EQ(http(405, "<html>Method Not Allowed</html>", Runtime::Unknown, "text/html").kind,
        FailureKind::NotOpenAiCompatible);
}

TEST(Failure, MalformedStreamQuotesTheBadBytes)
{
    AssembledResponse r;
    r.dataEvents = 9;
    r.malformedEvents = 2;
    r.malformedSamples = {QStringLiteral("payload is not JSON: \"{\"choi\"")};
    r.firstMalformedQuote = quoteBytes(QByteArrayView("{\"choi\x01\r\n"));
    const Failure f = classifyMalformedStream(r, 200);
    EXPECT_EQ(f.kind, FailureKind::MalformedStream);
    EXPECT_TRUE(f.isFailure());
    EXPECT_EQ(failureKindId(f.kind), QStringLiteral("malformed_stream"));
    EXPECT_EQ(f.httpStatus, 200);
    EXPECT_TRUE(f.summary.contains(QStringLiteral("2 of 9"))) << f.summary.toStdString();
    EXPECT_TRUE(f.summary.contains(QStringLiteral(R"("{"choi\x01\x0d\x0a")"))) << f.summary.toStdString();
    EXPECT_TRUE(f.summary.contains(QStringLiteral("payload is not JSON")));
    EXPECT_TRUE(f.advice.startsWith(QStringLiteral("The server or a proxy corrupted the stream")));
}

TEST(Failure, QuoteBytesEscapesAndShortens)
{
    EXPECT_EQ(quoteBytes(QByteArrayView("ab")), QStringLiteral("\"ab\""));
    EXPECT_EQ(quoteBytes(QByteArrayView("\0\xff", 2)), QStringLiteral(R"("\x00\xff")"));
    // UTF-8 is shown as its bytes: a cut sequence must be visible, not replaced.
    EXPECT_EQ(quoteBytes(QByteArrayView("\xc3\xa9")), QStringLiteral(R"("\xc3\xa9")"));
    const QByteArray big(4096, 'x');
    const QString q = quoteBytes(big);
    EXPECT_EQ(q, u'"' + QString(120, u'x') + QChar(0x2026) + QStringLiteral("\" (4096 bytes)"));
    // An escape is never cut in half at the limit.
    const QString e = quoteBytes(QByteArray(QByteArray(118, 'y') + QByteArray(10, '\n')));
    EXPECT_TRUE(e.startsWith(u'"' + QString(118, u'y') + QChar(0x2026))) << e.toStdString();
    EXPECT_TRUE(e.endsWith(QStringLiteral("(128 bytes)")));
    EXPECT_EQ(quoteBytes(QByteArray(30, '\n')).count(QStringLiteral("\\x0a")), 30);
}

TEST(Failure, StreamErrorsAndSockets)
{
    ServerError e;
    e.code = 500;
    e.type = QStringLiteral("server_error");
    e.message = QStringLiteral("failed to process speculative batch");
    const Failure f = classifyStreamError(e, {});
    EXPECT_EQ(f.kind, FailureKind::StreamError);
    EXPECT_TRUE(f.advice.contains(QStringLiteral("partial response")));
    e.message = QStringLiteral("Context size has been exceeded.");
    EXPECT_EQ(classifyStreamError(e, {}).kind, FailureKind::ContextExceeded);

    FailureContext ctx;
    ctx.hostPort = QStringLiteral("10.0.0.5:8003");
    const Failure refused = classifySocketError(QAbstractSocket::ConnectionRefusedError, QString(), ctx);
    EXPECT_EQ(refused.kind, FailureKind::ConnectionRefused);
    EXPECT_TRUE(refused.summary.contains(QStringLiteral("10.0.0.5:8003")));
    EXPECT_EQ(classifySocketError(QAbstractSocket::HostNotFoundError, QString(), ctx).kind,
        FailureKind::HostNotFound);
    EXPECT_EQ(
        classifySocketError(QAbstractSocket::SslHandshakeFailedError, QString(), ctx).kind, FailureKind::Tls);
    EXPECT_EQ(failureKindId(FailureKind::ToolsNotEnabled), QStringLiteral("tools_not_enabled"));
}

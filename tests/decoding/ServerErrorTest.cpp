// SPDX-License-Identifier: MIT
// parseServerError against the HTTP error bodies of server-stream-formats.md §3.5, §4.6, §5.5, §6.4.
#include "TestSupport.h"
#include "model/wire/StreamChunk.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

std::optional<ServerError> parse(const char* body)
{
    return parseServerError(QByteArrayView(body));
}

TEST(ParseServerError, LlamaContextExceeded)
{
    const auto e = parse(
        R"({"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, 400);
    EXPECT_TRUE(e->codeText.isEmpty());
    EXPECT_EQ(e->type, QStringLiteral("exceed_context_size_error"));
    EXPECT_EQ(e->message,
        QStringLiteral(
            "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it"));
    EXPECT_EQ(e->nPromptTokens, 5000);
    EXPECT_EQ(e->nCtx, 4096);
    EXPECT_TRUE(e->param.isEmpty());
}

TEST(ParseServerError, LlamaOtherBodies)
{
    const auto badJson = parse(
        R"({"error":{"code":500,"message":"[json.exception.parse_error.101] parse error at line 1, column 1: syntax error","type":"server_error"}})");
    ASSERT_TRUE(badJson);
    EXPECT_EQ(badJson->code, 500);
    EXPECT_EQ(badJson->type, QStringLiteral("server_error"));
    EXPECT_FALSE(badJson->nPromptTokens);

    // Middleware order: message, type, code.
    const auto loading
        = parse(R"({"error":{"message":"Loading model","type":"unavailable_error","code":503}})");
    ASSERT_TRUE(loading);
    EXPECT_EQ(*loading,
        (ServerError {503, {}, QStringLiteral("unavailable_error"), QStringLiteral("Loading model"), {},
            std::nullopt, std::nullopt}));

    const auto jinja = parse(
        R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})");
    ASSERT_TRUE(jinja);
    EXPECT_EQ(jinja->message, QStringLiteral("tools param requires --jinja flag"));
}

TEST(ParseServerError, VllmToolsNotEnabled)
{
    const auto e = parse(
        R"({"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}})");
    ASSERT_TRUE(e);
    EXPECT_EQ(*e,
        (ServerError {400, {}, QStringLiteral("BadRequestError"),
            QStringLiteral("\"auto\" tool choice requires --enable-auto-tool-choice and "
                           "--tool-call-parser to be set"),
            {}, std::nullopt, std::nullopt}));
}

TEST(ParseServerError, VllmToolsNotEnabledFlatBefore0101)
{
    const auto e = parse(
        R"({"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, 400);
    EXPECT_EQ(e->type, QStringLiteral("BadRequestError"));
    EXPECT_TRUE(e->message.startsWith(QLatin1String("\"auto\" tool choice")));
}

TEST(ParseServerError, VllmModelNotFound)
{
    const auto e = parse(
        R"({"error":{"message":"The model `x` does not exist.","type":"NotFoundError","param":"model","code":404}})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, 404);
    EXPECT_EQ(e->type, QStringLiteral("NotFoundError"));
    EXPECT_EQ(e->message, QStringLiteral("The model `x` does not exist."));
    EXPECT_EQ(e->param, QStringLiteral("model"));
}

TEST(ParseServerError, VllmContextLengthAndValidation)
{
    const auto ctx = parse(
        R"json({"error":{"message":"This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value=5000)","type":"BadRequestError","param":"input_tokens","code":400}})json");
    ASSERT_TRUE(ctx);
    EXPECT_EQ(ctx->param, QStringLiteral("input_tokens"));
    EXPECT_TRUE(ctx->message.contains(QLatin1String("maximum context length")));
    EXPECT_FALSE(ctx->nCtx) << "vLLM does not send n_ctx";

    const auto validation = parse(
        R"({"error":{"message":"1 validation error:\n  {'type': 'missing', 'loc': ('body', 'messages')}","type":"Bad Request","param":"messages","code":400}})");
    ASSERT_TRUE(validation);
    EXPECT_EQ(validation->type, QStringLiteral("Bad Request"));
    EXPECT_TRUE(validation->message.contains(u'\n'));
}

TEST(ParseServerError, Vllm2026StringCode)
{
    const auto e = parse(
        R"({"error":{"message":"too long","type":"BadRequestError","param":"input_tokens","code":"context_length_exceeded"}})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, 0);
    EXPECT_EQ(e->codeText, QStringLiteral("context_length_exceeded"));
}

TEST(ParseServerError, SglangFlat)
{
    const auto e = parse(
        R"({"object":"error","message":"The input (5000 tokens) is longer than the model's context length (4096 tokens).","type":"BadRequestError","param":null,"code":400})");
    ASSERT_TRUE(e);
    EXPECT_EQ(*e,
        (ServerError {400, {}, QStringLiteral("BadRequestError"),
            QStringLiteral("The input (5000 tokens) is longer than the model's context length "
                           "(4096 tokens)."),
            {}, std::nullopt, std::nullopt}));

    const auto validation = parse(
        R"({"object":"error","message":"1 validation error [{'type': 'missing', 'loc': ('body', 'messages')}]","type":"Bad Request","param":null,"code":400})");
    ASSERT_TRUE(validation);
    EXPECT_EQ(validation->type, QStringLiteral("Bad Request"));
}

TEST(ParseServerError, NotAnErrorObject)
{
    for (const char* body : {"", "not json", "[1]", "null", "{}", R"({"status":"ok"})", R"({"choices":[]})",
             R"({"object":"list","data":[]})", R"({"error":null})", R"({"error":42})",
             R"({"object":"error")"}) {
        SCOPED_TRACE(body);
        EXPECT_FALSE(parse(body));
    }
}

} // namespace

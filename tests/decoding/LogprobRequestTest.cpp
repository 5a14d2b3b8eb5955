// SPDX-License-Identifier: MIT
// Asking for logprobs: the request body per server, and the advice for the 400s it can meet.
#include "model/core/ChatRequest.h"
#include "model/wire/FailureClassifier.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

ChatRequest withTools()
{
    ChatRequest r = ChatRequest::fromPrompt(QStringLiteral("weather?"));
    r.tools = nlohmann::json::array({{{"type", "function"}, {"function", {{"name", "get_weather"}}}}});
    return r;
}

Endpoint endpointOf(Runtime runtime)
{
    Endpoint e;
    e.runtime = runtime;
    return e;
}

TEST(LogprobRequest, NotAskedNothingSent)
{
    const auto body = buildChatBody(endpointOf(Runtime::Vllm), ChatRequest::fromPrompt(QStringLiteral("hi")));
    EXPECT_FALSE(body.contains("logprobs"));
    EXPECT_FALSE(body.contains("top_logprobs"));
    EXPECT_FALSE(body.contains("n_probs"));
}

TEST(LogprobRequest, OpenAiFieldsOnEveryServer)
{
    for (const Runtime runtime : {Runtime::Unknown, Runtime::LlamaServer, Runtime::Vllm, Runtime::Sglang}) {
        SCOPED_TRACE(runtimeName(runtime).toStdString());
        ChatRequest r = ChatRequest::fromPrompt(QStringLiteral("hi"));
        r.topLogprobs = 20;
        const auto body = buildChatBody(endpointOf(runtime), r);
        EXPECT_EQ(body["logprobs"], true);
        EXPECT_EQ(body["top_logprobs"], 20);
        EXPECT_FALSE(body.contains("n_probs"));
    }
}

TEST(LogprobRequest, LlamaServerToolsInAStreamUseNProbs)
{
    ChatRequest r = withTools();
    r.topLogprobs = 5;
    const auto llama = buildChatBody(endpointOf(Runtime::LlamaServer), r);
    EXPECT_EQ(llama["n_probs"], 5);
    EXPECT_FALSE(llama.contains("logprobs")) << "logprobs + tools + stream is a 400 (llama.cpp #28478)";
    EXPECT_FALSE(llama.contains("top_logprobs"));

    // Not streamed, other servers, or a server not known to be llama-server: the OpenAI fields.
    r.stream = false;
    EXPECT_EQ(buildChatBody(endpointOf(Runtime::LlamaServer), r)["logprobs"], true);
    r.stream = true;
    for (const Runtime runtime : {Runtime::Unknown, Runtime::Vllm, Runtime::Sglang}) {
        const auto body = buildChatBody(endpointOf(runtime), r);
        EXPECT_EQ(body["top_logprobs"], 5);
        EXPECT_FALSE(body.contains("n_probs"));
    }
}

TEST(LogprobRequest, ExtraBodyHasTheLastWord)
{
    Endpoint e = endpointOf(Runtime::Vllm);
    e.extraBody = {{"top_logprobs", 3}};
    ChatRequest r = ChatRequest::fromPrompt(QStringLiteral("hi"));
    r.topLogprobs = 20;
    r.extraBody = {{"logprobs", nullptr}};
    const auto body = buildChatBody(e, r);
    EXPECT_EQ(body["top_logprobs"], 3);
    EXPECT_FALSE(body.contains("logprobs"));
}

Failure http400(const char* body, Runtime runtime)
{
    FailureContext ctx;
    ctx.runtime = runtime;
    ctx.path = QStringLiteral("/v1/chat/completions");
    return classifyHttpError(400, QByteArray(body), QByteArray("application/json"), ctx);
}

TEST(LogprobRefusal, VllmCapNamesTheFlagAndTheNumber)
{
    for (const char* body :
        {R"({"error":{"message":"Requested sample logprobs of 32, which is greater than max allowed: 20","type":"BadRequestError","param":null,"code":400}})",
            R"({"object":"error","message":"Requested sample logprobs of 32, which is greater than max allowed: 20","type":"BadRequestError","param":null,"code":400})"}) {
        const Failure f = http400(body, Runtime::Vllm);
        EXPECT_EQ(f.kind, FailureKind::BadRequest);
        EXPECT_EQ(f.httpStatus, 400);
        EXPECT_TRUE(f.summary.contains(QStringLiteral("at most 20"))) << f.summary.toStdString();
        EXPECT_TRUE(f.summary.contains(QStringLiteral("asked for 32")));
        EXPECT_TRUE(
            f.advice.startsWith(QStringLiteral("Start vLLM with --max-logprobs 32 (or lower top_logprobs "
                                               "in the suite)")))
            << f.advice.toStdString();
        EXPECT_TRUE(f.serverMessage.contains(QStringLiteral("max allowed")));
    }
}

TEST(LogprobRefusal, LlamaServerToolsStream)
{
    const Failure f = http400(
        R"({"error":{"code":400,"message":"logprobs is not supported with tools + stream","type":"invalid_request_error"}})",
        Runtime::Unknown);
    EXPECT_EQ(f.kind, FailureKind::BadRequest);
    EXPECT_TRUE(f.summary.contains(QStringLiteral("#28478"))) << f.summary.toStdString();
    EXPECT_TRUE(f.advice.contains(QStringLiteral("n_probs")));
    EXPECT_TRUE(f.advice.contains(QStringLiteral("runtime to llama-server")));
}

TEST(LogprobRefusal, TopLogprobsWithoutLogprobs)
{
    for (const auto& [body, runtime] :
        {std::pair {
             R"({"error":{"code":400,"message":"top_logprobs requires logprobs to be set to true","type":"invalid_request_error"}})",
             Runtime::LlamaServer},
            std::pair {
                R"({"error":{"message":"when using `top_logprobs`, `logprobs` must be set to true.","type":"BadRequestError","param":null,"code":400}})",
                Runtime::Vllm}}) {
        const Failure f = http400(body, runtime);
        EXPECT_EQ(f.kind, FailureKind::BadRequest);
        EXPECT_TRUE(f.summary.contains(QStringLiteral("top_logprobs without logprobs")))
            << f.summary.toStdString();
        EXPECT_TRUE(f.advice.contains(QStringLiteral("extra_body")));
    }
}

TEST(LogprobRefusal, OtherBadRequestsKeepTheGenericAdvice)
{
    const Failure f = http400(
        R"({"error":{"message":"temperature must be non-negative","type":"BadRequestError","code":400}})",
        Runtime::Vllm);
    EXPECT_EQ(f.kind, FailureKind::BadRequest);
    EXPECT_FALSE(f.advice.contains(QStringLiteral("logprobs")));
}

} // namespace

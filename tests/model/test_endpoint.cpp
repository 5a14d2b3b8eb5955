// SPDX-License-Identifier: MIT
#include "model/core/ChatRequest.h"
#include "model/core/Endpoint.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace qs;

TEST(Endpoint, NormalizesWhatUsersType)
{
    EXPECT_EQ(
        normalizeBaseUrl(QStringLiteral("10.0.0.5:8003")).toString(), QStringLiteral("http://10.0.0.5:8003"));
    EXPECT_EQ(
        normalizeBaseUrl(QStringLiteral("http://h:8000/v1/")).toString(), QStringLiteral("http://h:8000"));
    EXPECT_EQ(normalizeBaseUrl(QStringLiteral("https://h/api/v1/chat/completions")).toString(),
        QStringLiteral("https://h/api"));
    QString error;
    EXPECT_TRUE(normalizeBaseUrl(QStringLiteral("ftp://h"), &error).isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("http://")));
    EXPECT_TRUE(normalizeBaseUrl(QString(), &error).isEmpty());
}

TEST(Endpoint, JsonRoundTripKeepsEveryFieldButNeverAKey)
{
    Endpoint e;
    e.label = QStringLiteral("NVFP4 vLLM");
    e.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
    e.model = QStringLiteral("m");
    e.apiKeyEnv = QStringLiteral("QS_TEST_KEY");
    e.runtime = Runtime::Vllm;
    e.quantization = QStringLiteral("NVFP4");
    e.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
    e.timeouts.idleMs = 1234;
    e.meta = {{QStringLiteral("calibration"), QStringLiteral("annie-500")},
        {QStringLiteral("method"), QStringLiteral("awq_lite")}};
    qputenv("QS_TEST_KEY", "secret-value");
    const auto j = toJson(e);
    EXPECT_EQ(j.dump().find("secret-value"), std::string::npos);
    EXPECT_EQ(endpointFromJson(j), e);
    EXPECT_EQ(j["meta"]["calibration"], "annie-500");
    e.meta.clear(); // written only when there are facts: older files keep their bytes
    EXPECT_FALSE(toJson(e).contains("meta"));
    EXPECT_EQ(e.apiKey(), QStringLiteral("secret-value"));
    qunsetenv("QS_TEST_KEY");
    EXPECT_TRUE(e.apiKey().isEmpty());
}

TEST(Endpoint, RefusesKeysAndBadFieldsWithTheFieldName)
{
    const auto expectError = [](const nlohmann::json& j, const char* needle) {
        try {
            endpointFromJson(j);
            FAIL() << "accepted " << j.dump();
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectError({{"base_url", "http://h:1"}, {"api_key", "sk-1"}}, "api_key_env");
    expectError({{"base_url", "nonsense://"}}, "base_url");
    expectError({{"base_url", "http://h:1"}, {"runtime", "tgi"}}, "runtime");
    expectError({{"base_url", "http://h:1"}, {"extra_body", 3}}, "extra_body");
    expectError({{"base_url", "http://h:1"}, {"timeouts", {{"idle_ms", -1}}}}, "idle_ms");
    expectError({{"base_url", "http://h:1"}, {"meta", "awq"}}, "\"meta\"");
    expectError({{"base_url", "http://h:1"}, {"meta", {{"samples", 500}}}}, "meta.samples");
}

TEST(ChatRequest, BodyAsksForUsageAndMergesExtrasInOrder)
{
    Endpoint e;
    e.model = QStringLiteral("qwen");
    e.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}, {"top_k", 20}};
    ChatRequest r = ChatRequest::fromPrompt(QStringLiteral("hi"), QStringLiteral("be brief"));
    r.maxTokens = 64;
    r.temperature = 0;
    r.tools = nlohmann::json::array({{{"type", "function"}, {"function", {{"name", "web_search"}}}}});
    r.extraBody = {{"top_k", nullptr}, {"seed", 7}};
    const auto body = buildChatBody(e, r);
    EXPECT_EQ(body["model"], "qwen");
    EXPECT_EQ(body["stream"], true);
    EXPECT_EQ(body["stream_options"]["include_usage"], true);
    EXPECT_EQ(body["messages"].size(), 2u);
    EXPECT_EQ(body["messages"][0]["role"], "system");
    EXPECT_EQ(body["max_tokens"], 64);
    EXPECT_EQ(body["chat_template_kwargs"]["enable_thinking"], false);
    EXPECT_FALSE(body.contains("top_k")); // null in a merge patch removes the key
    EXPECT_EQ(body["seed"], 7);
    EXPECT_EQ(body["tools"][0]["function"]["name"], "web_search");
}

// SPDX-License-Identifier: MIT
// The built-in simulated endpoints (SimulatedProfiles.h): timing shaped like the seeds, the
// keyword model's answers, and the NVFP4 imitation's bad manners at roughly the seeds' rates.

#include "model/core/Clock.h"
#include "tests/emulator/EmulatorTestClient.h"
#include "tests/support/SimulatedProfiles.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>

using namespace qs::emu;
using namespace qs::emu::test;

namespace {

// ~80 words, like a voice assistant's system prompt.
const QString kSystem = QStringLiteral(
    "You are Annie, a warm and concise voice assistant. Your answers are spoken aloud by a text to speech "
    "engine, so never use markdown, lists, headings or emoji. Keep replies to one or two short sentences "
    "unless the user asks for more detail. Use the tools you are given when the user asks about their "
    "memories, their notes, or anything that needs current information from the web. Be friendly, honest "
    "and natural, and remember what the user tells you during the conversation.");

const QStringList kTurns
    = {QStringLiteral("Hi, I'm Sam."), QStringLiteral("I've been getting into sailing lately."),
        QStringLiteral("What do you think makes a good first boat for a beginner?"),
        QStringLiteral("Do you remember what my hobby is?"), QStringLiteral("And what's my name?")};

QJsonObject message(const char* role, const QString& text)
{
    return QJsonObject {
        {QStringLiteral("role"), QString::fromLatin1(role)}, {QStringLiteral("content"), text}};
}

QJsonObject tool(const char* name, const char* description, bool query)
{
    QJsonObject parameters {{QStringLiteral("type"), QStringLiteral("object")}};
    if (query) {
        parameters.insert(QStringLiteral("properties"),
            QJsonObject {
                {QStringLiteral("query"), QJsonObject {{QStringLiteral("type"), QStringLiteral("string")}}}});
        parameters.insert(QStringLiteral("required"), QJsonArray {QStringLiteral("query")});
    }
    return QJsonObject {{QStringLiteral("type"), QStringLiteral("function")},
        {QStringLiteral("function"),
            QJsonObject {{QStringLiteral("name"), QString::fromLatin1(name)},
                {QStringLiteral("description"), QString::fromLatin1(description)},
                {QStringLiteral("parameters"), parameters}}}};
}

QJsonArray voiceTools()
{
    return {tool("search_memory", "Search the user's saved memories and past conversations.", true),
        tool("web_search", "Search the web for current information such as weather or news.", true),
        tool("read_notes", "Read the user's notes.", false)};
}

QJsonObject chatRequest(const QString& model, const QJsonArray& messages, int maxTokens = 256)
{
    return QJsonObject {{QStringLiteral("model"), model}, {QStringLiteral("messages"), messages},
        {QStringLiteral("stream"), true}, {QStringLiteral("max_tokens"), maxTokens},
        {QStringLiteral("temperature"), 0},
        {QStringLiteral("stream_options"), QJsonObject {{QStringLiteral("include_usage"), true}}},
        {QStringLiteral("chat_template_kwargs"), QJsonObject {{QStringLiteral("enable_thinking"), false}}}};
}

QJsonObject ask(const QString& model, const QString& question, bool tools = false)
{
    QJsonObject body = chatRequest(model, QJsonArray {message("system", kSystem), message("user", question)});
    if (tools)
        body.insert(QStringLiteral("tools"), voiceTools());
    return body;
}

/// A streamed reply as a client sees it.
struct Reply {
    int status = 0;
    QString content;
    QString reasoning;
    QStringList toolNames;
    QStringList toolArguments;
    QString finishReason;
    int tokenEvents = 0;
    int usageCompletionTokens = -1;
    double ttftMs = 0; ///< request sent -> first token-bearing chunk
    double decodeTps = 0; ///< (tokens - 1) / (last - first)
};

int applyDelta(Reply& reply, const QJsonObject& delta)
{
    int tokens = 0;
    const QString content = delta.value(QLatin1String("content")).toString();
    QString reasoning = delta.value(QLatin1String("reasoning")).toString();
    if (reasoning.isEmpty())
        reasoning = delta.value(QLatin1String("reasoning_content")).toString();
    reply.content += content;
    reply.reasoning += reasoning;
    tokens += !content.isEmpty() || !reasoning.isEmpty();
    for (const QJsonValue call : delta.value(QLatin1String("tool_calls")).toArray()) {
        const int index = call.toObject().value(QLatin1String("index")).toInt();
        const QJsonObject function = call.toObject().value(QLatin1String("function")).toObject();
        while (reply.toolNames.size() <= index) {
            reply.toolNames << QString();
            reply.toolArguments << QString();
        }
        reply.toolNames[index] += function.value(QLatin1String("name")).toString();
        reply.toolArguments[index] += function.value(QLatin1String("arguments")).toString();
        tokens = 1;
    }
    return tokens;
}

Reply chat(EmulatorThread& emu, const QJsonObject& body)
{
    TestClient client(emu.server()->port());
    const qint64 sentNs = client.postJson("/v1/chat/completions", body);
    const RawResponse raw = client.read(60000);
    Reply reply;
    reply.status = raw.status;
    qint64 firstNs = 0;
    qint64 lastNs = 0;
    for (std::size_t i = 0; i < raw.chunks.size(); ++i) {
        for (const QByteArray& event : raw.chunks[i].split('\n')) {
            if (!event.startsWith("data: {"))
                continue;
            const QJsonObject json = QJsonDocument::fromJson(event.mid(6)).object();
            if (json.contains(QLatin1String("usage")) && json.value(QLatin1String("usage")).isObject())
                reply.usageCompletionTokens = json.value(QLatin1String("usage"))
                                                  .toObject()
                                                  .value(QLatin1String("completion_tokens"))
                                                  .toInt();
            const QJsonObject choice = json.value(QLatin1String("choices")).toArray().at(0).toObject();
            if (choice.value(QLatin1String("finish_reason")).isString())
                reply.finishReason = choice.value(QLatin1String("finish_reason")).toString();
            const int tokens = applyDelta(reply, choice.value(QLatin1String("delta")).toObject());
            if (tokens == 0)
                continue;
            reply.tokenEvents += tokens;
            firstNs = firstNs ? firstNs : raw.chunkNs[i];
            lastNs = raw.chunkNs[i];
        }
    }
    if (firstNs)
        reply.ttftMs = qs::msBetween(sentNs, firstNs);
    if (reply.tokenEvents > 1 && lastNs > firstNs)
        reply.decodeTps = (reply.tokenEvents - 1) / (qs::msBetween(firstNs, lastNs) / 1000.0);
    return reply;
}

std::unique_ptr<EmulatorThread> startProfile(const char* name, quint64 seed = 1)
{
    const auto config = simulatedProfile(QString::fromLatin1(name), seed);
    if (!config)
        return nullptr;
    auto emu = std::make_unique<EmulatorThread>();
    if (!emu->start(*config))
        return nullptr;
    return emu;
}

QString modelOf(const char* profile)
{
    return simulatedProfile(QString::fromLatin1(profile))->modelId;
}

/// The 5-turn conversation, each assistant turn being the model's own previous reply.
/// `cold`: every turn says `"cache_prompt": false` (llama-server computes it all, as the seeds'
/// server did; vLLM ignores the field).
std::vector<Reply> conversation(
    EmulatorThread& emu, const QString& model, int maxTokens = 256, bool cold = false)
{
    QJsonArray messages {message("system", kSystem)};
    std::vector<Reply> replies;
    for (const QString& turn : kTurns) {
        messages.append(message("user", turn));
        QJsonObject body = chatRequest(model, messages, maxTokens);
        if (cold)
            body.insert(QStringLiteral("cache_prompt"), false);
        replies.push_back(chat(emu, body));
        messages.append(message("assistant", replies.back().content));
    }
    return replies;
}

bool hasMarkdown(const QString& text)
{
    static const QRegularExpression re(
        QStringLiteral("\\*\\*|^#{1,6} |^\\s*[-*] "), QRegularExpression::MultilineOption);
    return text.contains(re);
}

bool hasThinkingLeak(const QString& text)
{
    return text.contains(QLatin1String("Thinking Process:")) || text.contains(QLatin1String("<think>"))
        || text.contains(QLatin1String("</think>"));
}

/// The script a profile would play for a request, without the network (for rates over many
/// requests and for determinism).
QString scriptText(const Script& s)
{
    QString text = s.reasoningMode == ReasoningMode::LeakedWithTags && !s.reasoning.isEmpty()
        ? QStringLiteral("<think>") + s.reasoning.join(QString()) + QStringLiteral("</think>")
        : QString();
    return text + s.content.join(QString());
}

RequestInfo requestInfo(const QJsonObject& body)
{
    RequestInfo info;
    info.method = "POST";
    info.path = "/v1/chat/completions";
    info.body = body;
    info.stream = true;
    info.hasTools = !body.value(QLatin1String("tools")).toArray().isEmpty();
    info.promptTokens = 100;
    return info;
}

const QStringList kTextPrompts = {QStringLiteral("What is the capital of Japan?"),
    QStringLiteral("If I have 3 boxes with 5 balls each, how many balls do I have?"),
    QStringLiteral("Hello there!"), QStringLiteral("I'm feeling a bit stressed about work."),
    QStringLiteral("Tell me about the history of tea."), QStringLiteral("Can you recommend something fun?")};

} // namespace

TEST(SimulatedProfiles, NamesDescriptionsAndUnknown)
{
    EXPECT_EQ(simulatedProfileNames(),
        (QStringList {QStringLiteral("nvfp4-like"), QStringLiteral("q4km-like"),
            QStringLiteral("nvfp4-base-like"), QStringLiteral("nvfp4-fixed-like"),
            QStringLiteral("bf16-like")}));
    for (const QString& name : simulatedProfileNames()) {
        EXPECT_TRUE(
            simulatedProfileDescription(name).contains(QLatin1String("Simulated"), Qt::CaseInsensitive));
        const auto config = simulatedProfile(name);
        ASSERT_TRUE(config);
        EXPECT_TRUE(config->scriptFor);
        EXPECT_FALSE(config->modelId.contains(u' '));
        EXPECT_TRUE(config->modelId.startsWith(QLatin1String("sim-")));
    }
    EXPECT_FALSE(simulatedProfile(QStringLiteral("fp8-like")));
    EXPECT_TRUE(simulatedProfileDescription(QStringLiteral("fp8-like")).isEmpty());
}

TEST(SimulatedProfiles, DialectsAndModels)
{
    const auto q4 = simulatedProfile(QStringLiteral("q4km-like"));
    const auto fp4 = simulatedProfile(QStringLiteral("nvfp4-like"));
    ASSERT_TRUE(q4 && fp4);
    EXPECT_EQ(q4->dialect, Dialect::LlamaServer);
    EXPECT_EQ(fp4->dialect, Dialect::Vllm);
    EXPECT_EQ(q4->era, Era::Current);
    EXPECT_EQ(fp4->modelId, QStringLiteral("sim-qwen3.5-9b-nvfp4"));

    auto llama = startProfile("q4km-like");
    auto vllm = startProfile("nvfp4-like");
    ASSERT_TRUE(llama && vllm);
    TestClient a(llama->server()->port());
    a.get("/props");
    const RawResponse props = a.read();
    EXPECT_EQ(props.status, 200);
    EXPECT_EQ(props.json().value(QLatin1String("model_alias")).toString(), q4->modelId);
    TestClient b(vllm->server()->port());
    b.get("/v1/models");
    const RawResponse models = b.read();
    EXPECT_TRUE(models.body.contains("sim-qwen3.5-9b-nvfp4"));
    EXPECT_EQ(models.header("server"), QByteArray("uvicorn"));
}

TEST(SimulatedProfiles, Q4kmTtftGrowsOverAFiveTurnConversation)
{
    auto emu = startProfile("q4km-like");
    ASSERT_TRUE(emu);
    // The seeds' llama-server recomputed every turn: no prefix is reused, even when warm.
    const std::vector<Reply> replies = conversation(*emu, modelOf("q4km-like"));
    const std::vector<ServedRequest> served = emu->server()->servedRequests();
    for (std::size_t i = 0; i < replies.size(); ++i) {
        std::cout << "q4km-like turn " << i + 1 << ": prompt " << served.at(i).request.promptTokens
                  << " tokens, TTFT " << replies[i].ttftMs << " ms, " << replies[i].decodeTps << " tok/s, "
                  << replies[i].content.toStdString() << '\n';
        EXPECT_EQ(replies[i].status, 200);
        EXPECT_EQ(served.at(i).request.cachedTokens, 0) << "turn " << i + 1;
        EXPECT_FALSE(hasMarkdown(replies[i].content)) << i;
    }
    // TTFT = 40 + 0.12·n + 0.00001·n² (~350 ms at the voice-assistant suite's ~2.2K tokens).
    const auto expected = [&](std::size_t i) {
        const double n = served.at(i).request.promptTokens;
        return 40 + 0.12 * n + 0.00001 * n * n;
    };
    for (std::size_t i = 0; i < replies.size(); ++i)
        EXPECT_NEAR(replies[i].ttftMs, expected(i), 0.15 * expected(i) + 25) << "turn " << i + 1;
    EXPECT_GT(served.back().request.promptTokens, 2 * served.front().request.promptTokens);
    EXPECT_GT(replies.back().ttftMs, replies.front().ttftMs);
    // The context visibly matters: turn 4 recalls the hobby, turn 5 the name.
    EXPECT_TRUE(replies[0].content.contains(QLatin1String("Sam")));
    EXPECT_TRUE(replies[3].content.contains(QLatin1String("sailing"))) << replies[3].content.toStdString();
    EXPECT_TRUE(replies[4].content.contains(QLatin1String("Sam"))) << replies[4].content.toStdString();
}

TEST(SimulatedProfiles, AWarmConversationPaysOnlyForEachNewTurn)
{
    auto emu = startProfile("nvfp4-fixed-like");
    ASSERT_TRUE(emu);
    const std::vector<Reply> replies = conversation(*emu, modelOf("nvfp4-fixed-like"));
    const std::vector<ServedRequest> served = emu->server()->servedRequests();
    ASSERT_EQ(served.size(), replies.size());
    EXPECT_EQ(served.front().request.cachedTokens, 0);
    for (std::size_t i = 1; i < replies.size(); ++i) {
        // The previous turn's prompt and answer are cached; only the new user turn is computed:
        // 80 + 0.04·(n − c).
        const double n = served.at(i).request.promptTokens;
        const double c = served.at(i).request.cachedTokens;
        std::cout << "nvfp4-fixed-like warm turn " << i + 1 << ": prompt " << n << " tokens, " << c
                  << " cached, TTFT " << replies[i].ttftMs << " ms\n";
        EXPECT_GE(c, double(served.at(i - 1).request.promptTokens)) << "turn " << i + 1;
        const double expected = 80 + 0.04 * (n - c);
        EXPECT_NEAR(replies[i].ttftMs, expected, 0.15 * expected + 25) << "turn " << i + 1;
    }
}

TEST(SimulatedProfiles, Nvfp4TtftStaysFlat)
{
    auto emu = startProfile("nvfp4-like");
    ASSERT_TRUE(emu);
    const std::vector<Reply> replies = conversation(*emu, modelOf("nvfp4-like"), 60); // verbose and slow
    const std::vector<ServedRequest> served = emu->server()->servedRequests();
    for (std::size_t i = 0; i < replies.size(); ++i) {
        std::cout << "nvfp4-like turn " << i + 1 << ": prompt " << served.at(i).request.promptTokens
                  << " tokens, TTFT " << replies[i].ttftMs << " ms, " << replies[i].decodeTps << " tok/s\n";
        EXPECT_EQ(replies[i].status, 200);
        EXPECT_NEAR(replies[i].ttftMs, 95, 45) << "turn " << i + 1;
    }
    EXPECT_LT(replies.back().ttftMs - replies.front().ttftMs, 40);
    EXPECT_TRUE(replies[4].content.contains(QLatin1String("Sam"))) << replies[4].content.toStdString();
}

TEST(SimulatedProfiles, DecodeRatesNearTarget)
{
    for (const auto& [name, target] : {std::pair {"q4km-like", 38.0}, std::pair {"nvfp4-like", 20.0}}) {
        auto emu = startProfile(name);
        ASSERT_TRUE(emu);
        double sum = 0;
        const int n = 2;
        for (int i = 0; i < n; ++i) {
            const Reply r = chat(*emu, [&] {
                QJsonObject body = ask(modelOf(name), QStringLiteral("Tell me about the history of tea."));
                body.insert(QStringLiteral("max_tokens"), 40);
                return body;
            }());
            EXPECT_EQ(r.tokenEvents, 40) << name;
            EXPECT_EQ(r.finishReason, QStringLiteral("length"));
            sum += r.decodeTps;
        }
        std::cout << name << ": mean decode " << sum / n << " tok/s\n";
        EXPECT_NEAR(sum / n, target, 0.25 * target) << name;
    }
}

TEST(SimulatedProfiles, AnswersAreRightOnBothProfiles)
{
    for (const char* name : {"q4km-like", "nvfp4-like"}) {
        auto emu = startProfile(name);
        ASSERT_TRUE(emu);
        const QString model = modelOf(name);
        const Reply tokyo = chat(*emu, ask(model, QStringLiteral("What is the capital of Japan?")));
        EXPECT_TRUE(tokyo.content.contains(QLatin1String("Tokyo"))) << tokyo.content.toStdString();
        const Reply balls = chat(*emu,
            ask(model,
                QStringLiteral("If I have 3 boxes with 5 balls in each box, how many balls do I have?")));
        EXPECT_TRUE(balls.content.contains(QLatin1String("15"))) << balls.content.toStdString();
        const Reply hello = chat(*emu, ask(model, QStringLiteral("Hello!")));
        EXPECT_FALSE(hello.content.isEmpty());
        EXPECT_TRUE(hello.reasoning.isEmpty()); // thinking off
    }
}

TEST(SimulatedProfiles, NameRecallNeedsTheHistory)
{
    auto emu = startProfile("q4km-like");
    ASSERT_TRUE(emu);
    const QString model = modelOf("q4km-like");
    const Reply withHistory = chat(*emu,
        chatRequest(model,
            {message("system", kSystem), message("user", QStringLiteral("Hi, my name is Priya.")),
                message("assistant", QStringLiteral("Hi Priya, it's lovely to meet you!")),
                message("user", QStringLiteral("What's my name?"))}));
    EXPECT_TRUE(withHistory.content.contains(QLatin1String("Priya"))) << withHistory.content.toStdString();
    const Reply without = chat(*emu, ask(model, QStringLiteral("What's my name?")));
    EXPECT_FALSE(without.content.contains(QLatin1String("Priya")));
    EXPECT_TRUE(without.content.contains(QLatin1String("told me"))) << without.content.toStdString();
}

TEST(SimulatedProfiles, Q4kmCallsToolsCorrectly)
{
    auto emu = startProfile("q4km-like");
    ASSERT_TRUE(emu);
    const QString model = modelOf("q4km-like");
    const struct {
        const char* prompt;
        const char* tool;
        const char* queryPart;
    } cases[] = {{"What's the weather like in Paris today?", "web_search", "Paris"},
        {"Do you remember what I told you about my sister's birthday?", "search_memory", "sister"},
        {"Can you read my notes from yesterday?", "read_notes", nullptr}};
    for (const auto& c : cases) {
        const Reply r = chat(*emu, ask(model, QString::fromLatin1(c.prompt), true));
        ASSERT_EQ(r.toolNames.size(), 1) << c.prompt;
        EXPECT_EQ(r.toolNames.first(), QString::fromLatin1(c.tool));
        EXPECT_EQ(r.finishReason, QStringLiteral("tool_calls"));
        EXPECT_TRUE(r.content.isEmpty()) << r.content.toStdString();
        const QJsonObject args = QJsonDocument::fromJson(r.toolArguments.first().toUtf8()).object();
        if (c.queryPart) {
            EXPECT_TRUE(args.value(QLatin1String("query")).toString().contains(QLatin1String(c.queryPart)))
                << r.toolArguments.first().toStdString();
        }
    }
    // Tools offered but not needed: a plain answer. The schemas lengthen the prompt, and so the
    // prefill (the seeds: ~760 ms for a tool test against ~300 ms without tools).
    const auto cold = [](QJsonObject body) {
        body.insert(QStringLiteral("cache_prompt"), false);
        return body;
    };
    const Reply plain = chat(*emu, cold(ask(model, QStringLiteral("What is the capital of Japan?"), true)));
    EXPECT_TRUE(plain.toolNames.isEmpty());
    EXPECT_TRUE(plain.content.contains(QLatin1String("Tokyo")));
    const Reply noTools = chat(*emu, cold(ask(model, QStringLiteral("What is the capital of Japan?"))));
    std::cout << "q4km-like TTFT with tools " << plain.ttftMs << " ms, without " << noTools.ttftMs << " ms\n";
    EXPECT_GT(plain.ttftMs, noTools.ttftMs + 20);
}

TEST(SimulatedProfiles, ThinkingOnlyWhenAskedFor)
{
    auto emu = startProfile("q4km-like");
    ASSERT_TRUE(emu);
    QJsonObject body = ask(modelOf("q4km-like"), QStringLiteral("What is the capital of Japan?"));
    body.insert(
        QStringLiteral("chat_template_kwargs"), QJsonObject {{QStringLiteral("enable_thinking"), true}});
    const Reply r = chat(*emu, body);
    EXPECT_FALSE(r.reasoning.isEmpty());
    EXPECT_TRUE(r.content.contains(QLatin1String("Tokyo")));
    EXPECT_FALSE(hasThinkingLeak(r.content));
}

TEST(SimulatedProfiles, IgnoreEosGivesExactlyMaxTokens)
{
    for (const char* name : {"q4km-like", "nvfp4-like"}) {
        auto emu = startProfile(name);
        ASSERT_TRUE(emu);
        QJsonObject body = ask(modelOf(name), QStringLiteral("Hi"), false);
        body.insert(QStringLiteral("max_tokens"), 40);
        body.insert(QStringLiteral("ignore_eos"), true);
        const Reply r = chat(*emu, body);
        EXPECT_EQ(r.tokenEvents, 40) << name;
        EXPECT_EQ(r.usageCompletionTokens, 40) << name;
        EXPECT_EQ(r.finishReason, QStringLiteral("length")) << name;
    }
    // Far longer than any answer: still exactly max_tokens.
    const auto config = simulatedProfile(QStringLiteral("nvfp4-like"));
    QJsonObject body = ask(config->modelId, QStringLiteral("Hi"));
    body.insert(QStringLiteral("max_tokens"), 1024);
    body.insert(QStringLiteral("ignore_eos"), true);
    EXPECT_GT(config->scriptFor(requestInfo(body)).content.size(), 1024); // the emulator cuts it
}

// Over the wire: 40 concurrent requests to the NVFP4 imitation show its manners.
TEST(SimulatedProfiles, Nvfp4LeaksOnTheWire)
{
    auto emu = startProfile("nvfp4-like", 7);
    ASSERT_TRUE(emu);
    const QString model = modelOf("nvfp4-like");
    const int n = 40;
    std::vector<std::unique_ptr<TestClient>> clients;
    for (int i = 0; i < n; ++i) {
        QJsonObject body = ask(model, kTextPrompts.at(i % 4)); // the short ones
        clients.push_back(std::make_unique<TestClient>(emu->server()->port()));
        clients.back()->postJson("/v1/chat/completions", body);
    }
    int markdown = 0;
    int leaks = 0;
    int right = 0;
    for (int i = 0; i < n; ++i) {
        const RawResponse raw = clients[std::size_t(i)]->read(60000);
        ASSERT_EQ(raw.status, 200);
        QString content;
        for (const QByteArray& payload : raw.dataPayloads()) {
            const QJsonObject delta = QJsonDocument::fromJson(payload)
                                          .object()
                                          .value(QLatin1String("choices"))
                                          .toArray()
                                          .at(0)
                                          .toObject()
                                          .value(QLatin1String("delta"))
                                          .toObject();
            content += delta.value(QLatin1String("content")).toString();
        }
        markdown += hasMarkdown(content);
        leaks += hasThinkingLeak(content);
        right += i % 4 == 0 ? content.contains(QLatin1String("Tokyo"))
            : i % 4 == 1    ? content.contains(QLatin1String("15"))
                            : !content.isEmpty();
    }
    std::cout << "nvfp4-like over the wire: markdown " << markdown << '/' << n << ", thinking leaks " << leaks
              << '/' << n << ", right " << right << '/' << n << '\n';
    EXPECT_EQ(right, n); // FP4 keeps the facts...
    EXPECT_GE(markdown, n * 4 / 10); // ...and loses the manners
    EXPECT_LE(markdown, n * 95 / 100);
    EXPECT_GE(leaks, 1);
    EXPECT_LE(leaks, n / 2);
}

// Rates over many requests, straight from the scripts (no network: fast and exact).
TEST(SimulatedProfiles, Nvfp4RatesRoughlyLikeTheSeeds)
{
    const auto config = simulatedProfile(QStringLiteral("nvfp4-like"), 42);
    ASSERT_TRUE(config);
    const int n = 400;
    int markdown = 0, leaks = 0, verbose = 0, toolOk = 0, toolRequests = 0;
    for (int i = 0; i < n; ++i) {
        const Script text = config->scriptFor(requestInfo(ask(config->modelId, kTextPrompts.at(i % 6))));
        const QString content = scriptText(text);
        markdown += hasMarkdown(content);
        leaks += hasThinkingLeak(content);
        verbose += text.content.size() > 40;
        const QString toolPrompt = i % 2 ? QStringLiteral("What's the latest news about electric cars?")
                                         : QStringLiteral("Do you remember what I said about my trip?");
        const Script call = config->scriptFor(requestInfo(ask(config->modelId, toolPrompt, true)));
        ++toolRequests;
        toolOk += call.toolCalls.size() == 1
            && call.toolCalls[0].argumentsJson.contains(QLatin1String("\"query\""))
            && !call.content.join(QString()).contains(QLatin1String("<tool_call>"));
    }
    std::cout << "nvfp4-like over " << n << " text answers: markdown " << markdown << ", thinking leaks "
              << leaks << ", long " << verbose << "; tool calls right " << toolOk << '/' << toolRequests
              << '\n';
    EXPECT_NEAR(double(markdown) / n, 0.7, 0.1);
    EXPECT_NEAR(double(leaks) / n, 0.2, 0.07);
    EXPECT_LE(double(toolOk) / toolRequests, 0.4);
    EXPECT_GE(double(toolOk) / toolRequests, 0.05);
}

TEST(SimulatedProfiles, Q4kmIsCleanEveryTime)
{
    const auto config = simulatedProfile(QStringLiteral("q4km-like"), 42);
    ASSERT_TRUE(config);
    for (int i = 0; i < 200; ++i) {
        const Script s = config->scriptFor(requestInfo(ask(config->modelId, kTextPrompts.at(i % 6))));
        const QString content = scriptText(s);
        EXPECT_FALSE(hasMarkdown(content)) << content.toStdString();
        EXPECT_FALSE(hasThinkingLeak(content)) << content.toStdString();
        EXPECT_TRUE(s.reasoning.isEmpty());
        const Script call = config->scriptFor(
            requestInfo(ask(config->modelId, QStringLiteral("What's the weather in Oslo tomorrow?"), true)));
        ASSERT_EQ(call.toolCalls.size(), 1u);
        EXPECT_EQ(call.toolCalls[0].name, QStringLiteral("web_search"));
        EXPECT_TRUE(call.content.isEmpty());
    }
}

TEST(SimulatedProfiles, DeterministicForAFixedSeed)
{
    auto run = [](quint64 seed) {
        const auto config = simulatedProfile(QStringLiteral("nvfp4-like"), seed);
        QStringList out;
        for (int i = 0; i < 30; ++i) {
            const Script s
                = config->scriptFor(requestInfo(ask(config->modelId, kTextPrompts.at(i % 6), i % 3 == 0)));
            QStringList calls;
            for (const ToolCallSpec& call : s.toolCalls)
                calls << call.name + call.argumentsJson;
            out << scriptText(s) + calls.join(u'|') + QString::number(s.ttftMs)
                    + QString::number(s.tokensPerSecond);
        }
        return out;
    };
    EXPECT_EQ(run(3), run(3));
    EXPECT_NE(run(3), run(4));
}

TEST(SimulatedProfiles, LongRequestsAreLongAndTheRestShort)
{
    const auto config = simulatedProfile(QStringLiteral("q4km-like"));
    ASSERT_TRUE(config);
    for (int i = 0; i < 6; ++i) {
        const QStringList words
            = scriptText(config->scriptFor(requestInfo(ask(config->modelId, kTextPrompts.at(i)))))
                  .split(u' ', Qt::SkipEmptyParts);
        if (kTextPrompts.at(i).startsWith(QLatin1String("Tell me about"))) {
            EXPECT_GE(words.size(), 80);
            EXPECT_LE(words.size(), 120);
        } else {
            EXPECT_LE(words.size(), 40) << kTextPrompts.at(i).toStdString();
        }
    }
}

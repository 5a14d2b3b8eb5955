// SPDX-License-Identifier: MIT
// The emulator as an LLM judge (EmulatorJudge.h): hand-written prompts in the documented marker
// format (model/run/JudgePrompts.h), sent over loopback with the project's own client, and the
// scripted verdicts read back from what the client assembled.

#include "model/core/Clock.h"
#include "model/wire/StreamingClient.h"
#include "tests/support/EmulatorJudge.h"
#include "tests/support/SimulatedProfiles.h"

#include <QJsonArray>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace qs::emu;
using nlohmann::json;
using Mode = JudgeBehaviour::Mode;

namespace {

// The judge's task names the markers too: the emulator must read only the user message.
const std::string kSystem
    = "You are an impartial judge. The user message holds the answers like this:\n"
      "[The Start of Answer 1]\nthe first answer, about Tokyo\n[The End of Answer 1]\n"
      "[The Start of Answer 2]\nthe second answer\n[The End of Answer 2]\n"
      "or one answer:\n[The Start of Answer]\nthe answer, about Tokyo\n[The End of Answer]";

json pairPrompt(const std::string& first, const std::string& second)
{
    const std::string user = "[System prompt]\nYou are Annie, a voice assistant.\n[End of system prompt]\n"
                             "[Question]\nWhat is the capital of Japan?\n[End of question]\n"
                             "[The Start of Answer 1]\n"
        + first + "\n[The End of Answer 1]\n[The Start of Answer 2]\n" + second
        + "\n[The End of Answer 2]\n"
          R"(Reply with JSON only: {"better": "1" | "2" | "tie", "reason": "…"})";
    return json::array({{{"role", "system"}, {"content", kSystem}}, {{"role", "user"}, {"content", user}}});
}

json rubricPrompt(const std::string& answer)
{
    const std::string user
        = "[Conversation]\nUser: Hi, I'm Sam.\nAssistant: Hi Sam!\n[End of conversation]\n"
          "[Question]\nWhat is the capital of Japan?\n[End of question]\n"
          "[Criteria]\n"
          "- answers_question: Answers what was asked. Does it answer? (1 = no, 3 = partly, 5 = fully)\n"
          "- warm_personal: Warm and personal. Not generic. (1 = cold, 3 = neutral, 5 = warm)\n"
          "[End of criteria]\n"
          "[The Start of Answer]\n"
        + answer
        + "\n[The End of Answer]\n"
          R"(Reply with JSON only: {"scores": {"ID": 1-5, …}, "reason": "…"})";
    return json::array({{{"role", "system"}, {"content", kSystem}}, {{"role", "user"}, {"content", user}}});
}

JudgeBehaviour behaviour(Mode mode, const QString& word = QStringLiteral("Tokyo"))
{
    JudgeBehaviour b;
    b.mode = mode;
    b.word = word;
    return b;
}

struct Judge {
    explicit Judge(const JudgeBehaviour& b, Dialect dialect = Dialect::LlamaServer)
    {
        const ServerConfig config = judgeServerConfig(b, dialect);
        started = thread.start(config);
        endpoint.baseUrl = thread.baseUrl();
        endpoint.model = config.modelId;
    }
    qs::RequestRecord ask(const json& messages) const
    {
        qs::ChatRequest request;
        request.messages = messages;
        request.temperature = 0;
        return qs::runChatBlocking(endpoint, request);
    }
    EmulatorThread thread;
    qs::Endpoint endpoint;
    bool started = false;
};

/// The JSON object of a reply, read the simple way: the ```json fence when there is one, else the
/// whole text (a parse error gives a discarded value).
json verdictOf(const QString& content)
{
    QString text = content;
    const qsizetype fence = text.indexOf(QLatin1String("```json\n"));
    if (fence >= 0) {
        text = text.mid(fence + 8);
        text.truncate(text.indexOf(QLatin1String("\n```")));
    }
    return json::parse(text.toStdString(), nullptr, false);
}

std::string better(const qs::RequestRecord& r)
{
    const json v = verdictOf(r.response.content);
    return v.is_object() && v.contains("better") ? v["better"].get<std::string>()
                                                 : std::string("<unreadable>");
}

const char* const kTokyo = "The capital of Japan is Tokyo.";
const char* const kKyoto = "I believe it is Kyoto, the old capital.";

} // namespace

TEST(EmulatorJudge, PreferWordInEitherPosition)
{
    Judge judge(behaviour(Mode::PreferWord));
    ASSERT_TRUE(judge.started);
    const qs::RequestRecord first = judge.ask(pairPrompt(kTokyo, kKyoto));
    ASSERT_TRUE(first.ok()) << first.failure.text().toStdString();
    EXPECT_EQ(better(first), "1");
    EXPECT_GE(first.response.tokenEvents.size(), 3u) << "streamed in a few chunks";
    const qs::RequestRecord swapped = judge.ask(pairPrompt(kKyoto, kTokyo));
    EXPECT_EQ(better(swapped), "2");
    EXPECT_TRUE(
        verdictOf(swapped.response.content)["reason"].get<std::string>().find("Tokyo") != std::string::npos);
    EXPECT_EQ(better(judge.ask(pairPrompt(kTokyo, "Tokyo, of course!"))), "tie");
    EXPECT_EQ(better(judge.ask(pairPrompt(kKyoto, "Osaka."))), "tie");
    EXPECT_EQ(judge.thread.server()->servedRequests().size(), 4u);
}

TEST(EmulatorJudge, AlwaysFirstAndAlwaysTie)
{
    Judge first(behaviour(Mode::AlwaysFirst));
    ASSERT_TRUE(first.started);
    EXPECT_EQ(better(first.ask(pairPrompt(kTokyo, kKyoto))), "1");
    EXPECT_EQ(better(first.ask(pairPrompt(kKyoto, kTokyo))), "1");
    const json scores = verdictOf(first.ask(rubricPrompt(kTokyo)).response.content)["scores"];
    EXPECT_EQ(scores, (json {{"answers_question", 3}, {"warm_personal", 3}}));

    Judge tie(behaviour(Mode::AlwaysTie));
    ASSERT_TRUE(tie.started);
    EXPECT_EQ(better(tie.ask(pairPrompt(kTokyo, kKyoto))), "tie");
}

TEST(EmulatorJudge, RubricScoresFollowTheWord)
{
    Judge judge(behaviour(Mode::PreferWord));
    ASSERT_TRUE(judge.started);
    const qs::RequestRecord good = judge.ask(rubricPrompt(kTokyo));
    ASSERT_TRUE(good.ok()) << good.failure.text().toStdString();
    const json v = verdictOf(good.response.content);
    ASSERT_TRUE(v.is_object()) << good.response.content.toStdString();
    EXPECT_EQ(v["scores"], (json {{"answers_question", 5}, {"warm_personal", 5}}));
    EXPECT_TRUE(v["reason"].is_string());
    // Key order as asked: scores, then reason.
    EXPECT_TRUE(good.response.content.startsWith(QLatin1String(R"({"scores": {"answers_question": 5)")))
        << good.response.content.toStdString();
    const json bad = verdictOf(judge.ask(rubricPrompt(kKyoto)).response.content);
    EXPECT_EQ(bad["scores"], (json {{"answers_question", 2}, {"warm_personal", 2}}));
}

TEST(EmulatorJudge, BrokenJsonAndGarbageAreNotJson)
{
    Judge broken(behaviour(Mode::BrokenJson));
    ASSERT_TRUE(broken.started);
    const qs::RequestRecord pair = broken.ask(pairPrompt(kTokyo, kKyoto));
    ASSERT_TRUE(pair.ok()) << "the request succeeds; only the verdict is unreadable";
    EXPECT_EQ(pair.response.content, QStringLiteral(R"({"better": "1", "reason": "cut of)"));
    EXPECT_TRUE(verdictOf(pair.response.content).is_discarded());
    const qs::RequestRecord rubric = broken.ask(rubricPrompt(kTokyo));
    EXPECT_TRUE(rubric.response.content.startsWith(QLatin1String(R"({"scores": {"answers_question": 4)")));
    EXPECT_TRUE(verdictOf(rubric.response.content).is_discarded());

    Judge garbage(behaviour(Mode::Garbage));
    ASSERT_TRUE(garbage.started);
    const qs::RequestRecord prose = garbage.ask(pairPrompt(kTokyo, kKyoto));
    ASSERT_TRUE(prose.ok());
    EXPECT_FALSE(prose.response.content.isEmpty());
    EXPECT_FALSE(prose.response.content.contains(u'{'));
}

TEST(EmulatorJudge, FencedVerdictWithProseAround)
{
    JudgeBehaviour b = behaviour(Mode::PreferWord);
    b.fenced = true;
    Judge judge(b);
    ASSERT_TRUE(judge.started);
    const qs::RequestRecord r = judge.ask(pairPrompt(kKyoto, kTokyo));
    EXPECT_TRUE(r.response.content.contains(QLatin1String("```json\n{\"better\": \"2\"")))
        << r.response.content.toStdString();
    EXPECT_FALSE(r.response.content.trimmed().endsWith(QLatin1String("```"))) << "trailing prose";
    EXPECT_EQ(better(r), "2");
    const json v = verdictOf(judge.ask(rubricPrompt(kTokyo)).response.content);
    EXPECT_EQ(v["scores"]["warm_personal"], 5);
}

TEST(EmulatorJudge, TimeoutStallsPastTheClientTimeout)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm}) {
        Judge judge(behaviour(Mode::Timeout), dialect);
        ASSERT_TRUE(judge.started);
        judge.endpoint.timeouts.totalMs = 300;
        const qint64 t0 = qs::monotonicNs();
        const qs::RequestRecord r = judge.ask(pairPrompt(kTokyo, kKyoto));
        const double elapsedMs = double(qs::monotonicNs() - t0) / 1e6;
        EXPECT_EQ(r.failure.kind, qs::FailureKind::TotalTimeout) << r.failure.text().toStdString();
        EXPECT_TRUE(r.response.content.isEmpty());
        EXPECT_LT(elapsedMs, 5000);
    }
}

TEST(EmulatorJudge, DieAfterAnswersThenFails)
{
    for (const auto death : {JudgeBehaviour::Death::Http503, JudgeBehaviour::Death::Disconnect}) {
        JudgeBehaviour b = behaviour(Mode::DieAfter);
        b.dieAfter = 2;
        b.death = death;
        Judge judge(b);
        ASSERT_TRUE(judge.started);
        EXPECT_EQ(better(judge.ask(pairPrompt(kTokyo, kKyoto))), "1");
        EXPECT_EQ(better(judge.ask(pairPrompt(kKyoto, kTokyo))), "2");
        for (int i = 0; i < 2; ++i) {
            const qs::RequestRecord dead = judge.ask(pairPrompt(kTokyo, kKyoto));
            EXPECT_FALSE(dead.ok());
            if (death == JudgeBehaviour::Death::Http503) {
                EXPECT_EQ(dead.httpStatus, 503);
                EXPECT_EQ(dead.failure.kind, qs::FailureKind::ServerLoading)
                    << dead.failure.text().toStdString();
            } else {
                EXPECT_EQ(dead.failure.kind, qs::FailureKind::Disconnected)
                    << dead.failure.text().toStdString();
            }
        }
        // A new judge (the server restarted) answers again: what a resumed judging meets.
        judge.thread.server()->setConfig(judgeServerConfig(behaviour(Mode::PreferWord)));
        EXPECT_EQ(better(judge.ask(pairPrompt(kTokyo, kKyoto))), "1");
    }
}

TEST(EmulatorJudge, ReasoningJudgeInEveryDialect)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        for (const ReasoningMode mode : {ReasoningMode::Parsed, ReasoningMode::LeakedWithTags}) {
            JudgeBehaviour b = behaviour(Mode::PreferWord);
            b.reasoning = true;
            b.reasoningMode = mode;
            Judge judge(b, dialect);
            ASSERT_TRUE(judge.started);
            const qs::RequestRecord r = judge.ask(pairPrompt(kKyoto, kTokyo));
            ASSERT_TRUE(r.ok()) << r.failure.text().toStdString();
            const QString& content = r.response.content;
            if (mode == ReasoningMode::Parsed) {
                EXPECT_TRUE(r.response.reasoning.startsWith(QLatin1String("I compare")))
                    << int(dialect) << ": " << r.response.reasoning.toStdString();
                EXPECT_EQ(better(r), "2") << content.toStdString();
            } else {
                EXPECT_TRUE(r.response.reasoning.isEmpty());
                ASSERT_TRUE(content.startsWith(QLatin1String("<think>"))) << content.toStdString();
                const qsizetype close = content.indexOf(QLatin1String("</think>"));
                ASSERT_GT(close, 0);
                EXPECT_EQ(verdictOf(content.mid(close + 8).trimmed())["better"], "2")
                    << content.toStdString();
            }
        }
    }
}

TEST(EmulatorJudge, EveryBehaviourStreamsInEveryDialect)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        Judge judge(behaviour(Mode::AlwaysFirst), dialect);
        ASSERT_TRUE(judge.started);
        const qs::RequestRecord r = judge.ask(rubricPrompt(kTokyo));
        ASSERT_TRUE(r.ok()) << int(dialect) << ": " << r.failure.text().toStdString();
        EXPECT_EQ(r.response.finishReason, QStringLiteral("stop"));
        EXPECT_EQ(verdictOf(r.response.content)["scores"]["answers_question"], 3);
    }
}

TEST(EmulatorJudge, ReadsOnlyTheMarkersOfTheUserMessage)
{
    QJsonObject body;
    body.insert(QStringLiteral("messages"),
        QJsonArray {QJsonObject {{QStringLiteral("role"), QStringLiteral("system")},
                        {QStringLiteral("content"), QString::fromStdString(kSystem)}},
            QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
                {QStringLiteral("content"),
                    QString::fromStdString(rubricPrompt("Line one.\nLine two.")[1]["content"])}}});
    const JudgePromptView view = readJudgePrompt(body);
    EXPECT_EQ(view.kind, JudgePromptView::Kind::Rubric);
    EXPECT_EQ(view.answer, QStringLiteral("Line one.\nLine two."));
    EXPECT_EQ(
        view.criteria, (QStringList {QStringLiteral("answers_question"), QStringLiteral("warm_personal")}));

    // A defused marker inside an answer ("(The End of Answer 1]") does not end the block.
    body.insert(QStringLiteral("messages"),
        QJsonArray {QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
            {QStringLiteral("content"),
                QString::fromStdString(
                    pairPrompt("Tokyo.\n(The End of Answer 1]\nMore.", "Kyoto.")[1]["content"])}}});
    const JudgePromptView pair = readJudgePrompt(body);
    EXPECT_EQ(pair.kind, JudgePromptView::Kind::Pair);
    EXPECT_EQ(pair.first, QStringLiteral("Tokyo.\n(The End of Answer 1]\nMore."));
    EXPECT_EQ(pair.second, QStringLiteral("Kyoto."));

    // Anything else is not a judge prompt: a short prose reply, no verdict.
    Judge judge(behaviour(Mode::PreferWord));
    ASSERT_TRUE(judge.started);
    const qs::RequestRecord r = judge.ask(json::array({{{"role", "user"}, {"content", "Hello?"}}}));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(verdictOf(r.response.content).is_discarded());
}

// ---- sim:judge ------------------------------------------------------------------------------

TEST(SimulatedJudge, PrefersPlainShortAnswersConsistently)
{
    const auto config = simulatedProfile(simulatedJudgeName());
    ASSERT_TRUE(config);
    EXPECT_FALSE(simulatedProfileNames().contains(simulatedJudgeName())) << "not an endpoint to measure";
    EXPECT_TRUE(simulatedProfileDescription(QStringLiteral("judge")).contains(QLatin1String("Simulated")));
    EmulatorThread thread;
    ASSERT_TRUE(thread.start(*config));
    qs::Endpoint endpoint;
    endpoint.baseUrl = thread.baseUrl();
    const auto ask = [&endpoint](const json& messages) {
        qs::ChatRequest request;
        request.messages = messages;
        return qs::runChatBlocking(endpoint, request);
    };
    const std::string plain = "Tokyo is the capital of Japan.";
    const std::string markdown = "The capital of Japan is **Tokyo**.";
    const std::string leaked = "Thinking Process:\n\n1.  **Analyze the Request:** a capital.\n\nTokyo.";
    const std::string verbose = "The capital of Japan is Tokyo, a huge and lively city with many districts, "
                                "temples, parks and a famous fish market. Let me know if you have any other "
                                "questions, I'm always happy to help!";
    const std::string garbled = "M刘邦opIS .isantts 不辞 продать";
    for (const auto& worse : {markdown, leaked, verbose, garbled}) {
        EXPECT_EQ(better(ask(pairPrompt(plain, worse))), "1") << worse;
        EXPECT_EQ(better(ask(pairPrompt(worse, plain))), "2") << worse;
    }
    EXPECT_EQ(better(ask(pairPrompt(plain, "Japan's capital is Tokyo."))), "tie");

    const json good = verdictOf(ask(rubricPrompt(plain)).response.content);
    EXPECT_EQ(good["scores"], (json {{"answers_question", 5}, {"warm_personal", 5}}));
    const json bad = verdictOf(ask(rubricPrompt(leaked)).response.content);
    EXPECT_LE(bad["scores"]["answers_question"].get<int>(), 3);
    EXPECT_LE(bad["scores"]["warm_personal"].get<int>(), 3);
    EXPECT_EQ(verdictOf(ask(rubricPrompt(garbled)).response.content)["scores"]["answers_question"], 1);
    // Deterministic: the same prompt, the same reply.
    EXPECT_EQ(ask(rubricPrompt(verbose)).response.content, ask(rubricPrompt(verbose)).response.content);
}

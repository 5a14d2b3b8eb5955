// SPDX-License-Identifier: MIT
// The judge runner end to end against the loopback emulator playing a judge: real threads, real
// sockets, scripted replies, faults and a dead port.
#include "JudgingTestSupport.h"
#include "model/core/Clock.h"
#include "model/run/JudgeRunner.h"
#include "tests/support/Emulator.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTcpServer>
#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace qs;
using namespace qs::test;

namespace {

/// The judge's reply to a user message of the prompt contract: every criterion scored 4, or
/// answer 1 preferred.
QString goodReply(const QString& user)
{
    if (!user.contains(QStringLiteral("[Criteria]")))
        return QStringLiteral("```json\n{\"better\": \"1\", \"reason\": \"the first is warmer\"}\n```");
    static const QRegularExpression criterion(
        QStringLiteral("^- ([A-Za-z0-9_.-]+): "), QRegularExpression::MultilineOption);
    QStringList scores;
    for (auto it = criterion.globalMatch(user); it.hasNext();)
        scores << QStringLiteral("\"%1\": 4").arg(it.next().captured(1));
    return QStringLiteral("<think>grading</think>{\"scores\": {%1}, \"reason\": \"fine\"}")
        .arg(scores.join(QStringLiteral(", ")));
}

/// `text` streamed as three content tokens.
emu::Script replyScript(const QString& text, double ttftMs = 10)
{
    emu::Script s;
    const qsizetype third = text.size() / 3;
    s.content = {text.left(third), text.mid(third, third), text.mid(2 * third)};
    s.ttftMs = ttftMs;
    s.tokensPerSecond = 500;
    return s;
}

emu::ServerConfig judgeServer(std::function<emu::Script(const QString& user)> script)
{
    emu::ServerConfig c;
    c.modelId = QStringLiteral("judge-model");
    c.scriptFor = [script = std::move(script)](const emu::RequestInfo& info) {
        const QJsonArray messages = info.body.value(QStringLiteral("messages")).toArray();
        return script(messages.size() > 1 ? messages[1].toObject().value(QStringLiteral("content")).toString()
                                          : QString());
    };
    return c;
}

emu::ServerConfig goodJudge(double ttftMs = 10)
{
    return judgeServer([ttftMs](const QString& user) { return replyScript(goodReply(user), ttftMs); });
}

JudgeRequest judgeRequest(const QUrl& url, bool rubric = true, bool pairwise = true)
{
    JudgeRequest r;
    r.result = twoArmRun();
    r.judge.label = QStringLiteral("judge");
    r.judge.baseUrl = url;
    r.judge.model = QStringLiteral("judge-model");
    r.judge.timeouts.connectMs = 2000;
    r.identity.spec = QStringLiteral("sim:judge");
    r.identity.url = url.toString();
    r.identity.model = QStringLiteral("judge-model");
    r.identity.seed = 42;
    if (rubric)
        r.plan.rubric = handRubric();
    if (pairwise)
        r.plan.pairwiseBaseline = 0;
    r.concurrency = 2;
    r.timeoutMs = 20000;
    r.maxTokens = 300;
    return r;
}

int failures(const Judging& j)
{
    return int(std::count_if(j.rubricVerdicts.begin(), j.rubricVerdicts.end(), [](const RubricVerdict& v) {
        return v.failed();
    }) + std::count_if(j.pairVerdicts.begin(), j.pairVerdicts.end(), [](const PairVerdict& v) {
        return v.exchange.failed();
    }));
}

/// Every verdict's key is there once.
void expectNoDuplicates(const Judging& j)
{
    std::set<std::tuple<int, QString, int, int>> graded;
    for (const RubricVerdict& v : j.rubricVerdicts)
        EXPECT_TRUE(
            graded.emplace(v.answer.endpoint, v.answer.test, v.answer.turn, v.answer.iteration).second)
            << "graded twice: " << v.answer.test.toStdString() << " " << v.answer.endpoint;
    std::set<std::tuple<int, QString, int, int, bool>> paired;
    for (const PairVerdict& v : j.pairVerdicts)
        EXPECT_TRUE(paired.emplace(v.candidate, v.test, v.turn, v.iteration, v.candidateFirst).second);
}

/// What a judging through JudgeController delivered.
struct Outcome {
    std::optional<Judging> judging;
    JudgeProgress progress;
    QString failed;
    int rubricVerdicts = 0;
    int pairVerdicts = 0;
};

Outcome runController(
    JudgeRequest request, const std::function<void(JudgeController&, const Outcome&)>& onVerdict = {})
{
    JudgeController controller;
    Outcome o;
    bool done = false;
    QObject::connect(&controller, &JudgeController::rubricVerdict, [&](const RubricVerdict&) {
        ++o.rubricVerdicts;
        if (onVerdict)
            onVerdict(controller, o);
    });
    QObject::connect(&controller, &JudgeController::pairVerdict, [&](const PairVerdict&) {
        ++o.pairVerdicts;
        if (onVerdict)
            onVerdict(controller, o);
    });
    QObject::connect(&controller, &JudgeController::finished, [&](const Judging& j, const JudgeProgress& p) {
        o.judging = j;
        o.progress = p;
        done = true;
    });
    QObject::connect(&controller, &JudgeController::failed, [&](const QString& m) {
        o.failed = m;
        done = true;
    });
    controller.start(std::move(request));
    EXPECT_TRUE(controller.running());
    const qint64 until = monotonicNs() + qint64(60e9);
    while (!done && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    EXPECT_TRUE(done) << "the judging did not end within 60 s";
    EXPECT_FALSE(controller.running());
    return o;
}

} // namespace

TEST(JudgeRunner, VerdictsLandWithPromptsAndRawReplies)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(goodJudge()));
    JudgeRequest request = judgeRequest(judge.baseUrl());
    JudgePlanOptions plan = request.plan;
    const std::vector<JudgeTask> tasks = planJudging(request.result, plan);
    ASSERT_EQ(tasks.size(), 16u);

    int calls = 0;
    JudgeProgress last;
    std::size_t lastVerdicts = 0;
    const Judging j = runJudgingBlocking(request, [&](const JudgeProgress& p, const Judging& so) {
        ++calls;
        last = p;
        EXPECT_GE(so.rubricVerdicts.size() + so.pairVerdicts.size(), lastVerdicts);
        lastVerdicts = so.rubricVerdicts.size() + so.pairVerdicts.size();
        EXPECT_EQ(std::size_t(p.done), lastVerdicts);
    });
    EXPECT_EQ(calls, 17); // the start, then after every verdict
    EXPECT_EQ(last.done, 16);
    EXPECT_EQ(last.total, 16);
    EXPECT_EQ(last.failed, 0);
    ASSERT_EQ(j.rubricVerdicts.size(), 8u);
    ASSERT_EQ(j.pairVerdicts.size(), 8u);
    EXPECT_EQ(failures(j), 0);
    EXPECT_TRUE(j.complete);
    EXPECT_TRUE(j.notes.isEmpty()) << j.notes.join(u'\n').toStdString();
    EXPECT_EQ(j.judge, request.identity);
    ASSERT_TRUE(j.rubric);
    EXPECT_EQ(j.rubric->id, QStringLiteral("hand"));
    EXPECT_TRUE(j.startedAt.isValid());
    EXPECT_TRUE(j.endedAt.isValid());
    expectNoDuplicates(j);

    for (const RubricVerdict& v : j.rubricVerdicts) {
        EXPECT_EQ(v.scores.at(QStringLiteral("correct")), 4);
        EXPECT_EQ(v.scores.count(QStringLiteral("warm")), v.answer.test == u"chat" ? 1u : 0u);
        EXPECT_EQ(v.reason, QStringLiteral("fine"));
        EXPECT_TRUE(v.exchange.reply.startsWith(QStringLiteral("<think>grading</think>{\"scores\"")));
        EXPECT_TRUE(v.exchange.at.isValid());
        EXPECT_GT(v.exchange.durationMs, 0);
        // The prompt recorded is the one planned for this answer.
        const auto task = std::find_if(tasks.begin(), tasks.end(),
            [&](const JudgeTask& t) { return t.kind == JudgeTask::Kind::Rubric && t.answer == v.answer; });
        ASSERT_NE(task, tasks.end());
        EXPECT_EQ(v.exchange.messages, task->messages);
    }
    for (const PairVerdict& v : j.pairVerdicts) {
        EXPECT_EQ(v.pick, PairPick::First);
        EXPECT_EQ(v.reason, QStringLiteral("the first is warmer"));
        EXPECT_TRUE(v.exchange.reply.contains(QStringLiteral("```json")));
    }

    // What went over the wire: the recorded prompts, at temperature 0 with the seed, never a secret.
    const std::vector<emu::ServedRequest> served = judge.server()->servedRequests();
    ASSERT_EQ(served.size(), 16u);
    for (const emu::ServedRequest& s : served) {
        const QJsonObject& body = s.request.body;
        EXPECT_EQ(body.value(QStringLiteral("temperature")).toDouble(-1), 0.0);
        EXPECT_EQ(body.value(QStringLiteral("seed")).toInteger(), 42);
        EXPECT_EQ(body.value(QStringLiteral("max_tokens")).toInt(), 300);
        EXPECT_TRUE(body.value(QStringLiteral("stream")).toBool());
        const QString sent = QString::fromUtf8(QJsonDocument(body).toJson());
        for (const QString& secret : SecretWords)
            EXPECT_FALSE(sent.contains(secret)) << secret.toStdString();
    }
}

TEST(JudgeRunner, ConcurrencyIsBounded)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(goodJudge(120)));
    JudgeRequest request = judgeRequest(judge.baseUrl());
    request.concurrency = 3;
    const Judging j = runJudgingBlocking(request);
    EXPECT_EQ(j.rubricVerdicts.size() + j.pairVerdicts.size(), 16u);
    EXPECT_EQ(failures(j), 0);
    std::vector<std::pair<qint64, int>> events;
    for (const emu::ServedRequest& s : judge.server()->servedRequests()) {
        events.emplace_back(s.receivedNs, +1);
        events.emplace_back(s.endNs, -1);
    }
    std::sort(events.begin(), events.end()); // at the same stamp an end (-1) comes first
    int inFlight = 0;
    int most = 0;
    for (const auto& [at, delta] : events)
        most = std::max(most, inFlight += delta);
    EXPECT_LE(most, 3);
    EXPECT_GE(most, 2); // 16 judgements of 120 ms each do overlap
}

TEST(JudgeRunner, UnreadableReplyFailsAndKeepsTheRawText)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(judgeServer([](const QString& user) {
        if (user.contains(QStringLiteral("[Criteria]")))
            return replyScript(goodReply(user));
        return replyScript(QStringLiteral("I like answer one {\"better\": }"));
    })));
    const Judging j = runJudgingBlocking(judgeRequest(judge.baseUrl()));
    ASSERT_EQ(j.pairVerdicts.size(), 8u);
    for (const PairVerdict& v : j.pairVerdicts) {
        EXPECT_EQ(v.pick, PairPick::Failed);
        EXPECT_EQ(v.exchange.reply, QStringLiteral("I like answer one {\"better\": }"));
        EXPECT_TRUE(v.exchange.error.startsWith(QStringLiteral("the reply could not be read: ")))
            << v.exchange.error.toStdString();
        EXPECT_TRUE(v.exchange.error.contains(QStringLiteral("JSON"))) << v.exchange.error.toStdString();
        EXPECT_FALSE(v.exchange.messages.empty());
    }
    EXPECT_EQ(failures(j), 8);
    EXPECT_TRUE(j.complete); // every planned judgement has a verdict or a failure
    ASSERT_EQ(j.notes.size(), 1);
    EXPECT_TRUE(j.notes[0].contains(QStringLiteral("failed on 8 of 16"))) << j.notes[0].toStdString();
}

TEST(JudgeRunner, HttpErrorsAndTimeoutsAreFailuresNotScores)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(judgeServer([](const QString& user) {
        emu::Script s = replyScript(goodReply(user));
        if (user.contains(QStringLiteral("on fact"))) {
            s.fault = emu::Fault::HttpError;
            s.httpError = emu::HttpErrorKind::ServerError;
        } else {
            s.fault = emu::Fault::Stall;
            s.faultAfterTokens = 1;
            s.stallMs = 5000;
        }
        return s;
    })));
    JudgeRequest request = judgeRequest(judge.baseUrl(), true, false);
    request.timeoutMs = 600;
    const qint64 t0 = monotonicNs();
    const Judging j = runJudgingBlocking(request);
    EXPECT_LT(double(monotonicNs() - t0) / 1e9, 4.5); // four stalls of 0.6 s, two at a time
    ASSERT_EQ(j.rubricVerdicts.size(), 8u);
    for (const RubricVerdict& v : j.rubricVerdicts) {
        ASSERT_TRUE(v.failed());
        EXPECT_TRUE(v.scores.empty());
        if (v.answer.test == u"fact") {
            EXPECT_TRUE(v.exchange.error.startsWith(QStringLiteral("the judge request failed: ")))
                << v.exchange.error.toStdString();
            EXPECT_TRUE(v.exchange.error.contains(QStringLiteral("500"))) << v.exchange.error.toStdString();
        } else {
            EXPECT_TRUE(v.exchange.error.startsWith(QStringLiteral("timed out after 0.6 s")))
                << v.exchange.error.toStdString();
            EXPECT_FALSE(v.exchange.reply.isEmpty()); // what arrived before the stall is kept
        }
    }
    EXPECT_TRUE(j.complete);
}

TEST(JudgeRunner, UnreachableJudgeStopsEarly)
{
    QTcpServer probe;
    ASSERT_TRUE(probe.listen(QHostAddress::LocalHost, 0));
    const quint16 port = probe.serverPort();
    probe.close(); // nothing listens there now
    JudgeRequest request = judgeRequest(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)));
    request.concurrency = 1;
    const Judging j = runJudgingBlocking(request);
    EXPECT_EQ(j.rubricVerdicts.size() + j.pairVerdicts.size(), 3u);
    EXPECT_EQ(failures(j), 3);
    for (const RubricVerdict& v : j.rubricVerdicts)
        EXPECT_TRUE(v.exchange.error.startsWith(QStringLiteral("the judge request failed: ")));
    EXPECT_FALSE(j.complete);
    EXPECT_TRUE(
        j.notes.join(u'\n').contains(QStringLiteral("stopped after 3 judgements in a row could not reach")))
        << j.notes.join(u'\n').toStdString();
}

TEST(JudgeRunner, CancelThenResumeCompletesWithoutDuplicates)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(goodJudge(80)));
    JudgeRequest request = judgeRequest(judge.baseUrl());
    bool cancelled = false;
    const Outcome first = runController(request, [&](JudgeController& c, const Outcome& o) {
        if (!cancelled && o.rubricVerdicts + o.pairVerdicts >= 3) {
            cancelled = true;
            c.cancel();
        }
    });
    ASSERT_TRUE(first.judging);
    const Judging& partial = *first.judging;
    EXPECT_FALSE(partial.complete);
    EXPECT_EQ(failures(partial), 0); // judgements in flight at the cancel are dropped, not failed
    const std::size_t kept = partial.rubricVerdicts.size() + partial.pairVerdicts.size();
    EXPECT_GE(kept, 3u);
    EXPECT_LT(kept, 16u);
    EXPECT_EQ(std::size_t(first.progress.done), kept);
    EXPECT_TRUE(partial.notes.join(u'\n').contains(QStringLiteral("cancelled after")))
        << partial.notes.join(u'\n').toStdString();

    request.result.judging = partial;
    JudgeProgress last;
    const Judging whole
        = runJudgingBlocking(request, [&](const JudgeProgress& p, const Judging&) { last = p; });
    EXPECT_EQ(last.resumed, int(kept));
    EXPECT_EQ(last.total, int(16 - kept));
    EXPECT_EQ(whole.rubricVerdicts.size(), 8u);
    EXPECT_EQ(whole.pairVerdicts.size(), 8u);
    EXPECT_EQ(failures(whole), 0);
    EXPECT_TRUE(whole.complete);
    EXPECT_TRUE(whole.notes.isEmpty()) << whole.notes.join(u'\n').toStdString();
    EXPECT_EQ(whole.startedAt, partial.startedAt);
    expectNoDuplicates(whole);

    // Nothing left: resuming again sends nothing and is complete.
    request.result.judging = whole;
    judge.server()->clearServedRequests();
    const Judging again = runJudgingBlocking(request);
    EXPECT_TRUE(again.complete);
    EXPECT_EQ(again.rubricVerdicts.size() + again.pairVerdicts.size(), 16u);
    EXPECT_TRUE(judge.server()->servedRequests().empty());
}

TEST(JudgeRunner, ResumeRetriesFailedJudgementsAndReplacesThem)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(judgeServer([](const QString& user) {
        return replyScript(
            user.contains(QStringLiteral("on chat")) ? QStringLiteral("no idea") : goodReply(user));
    })));
    JudgeRequest request = judgeRequest(judge.baseUrl(), true, false);
    const Judging first = runJudgingBlocking(request);
    EXPECT_EQ(failures(first), 4);

    judge.server()->setConfig(goodJudge());
    request.result.judging = first;
    JudgeProgress last;
    const Judging second
        = runJudgingBlocking(request, [&](const JudgeProgress& p, const Judging&) { last = p; });
    EXPECT_EQ(last.resumed, 4);
    EXPECT_EQ(last.total, 4);
    EXPECT_EQ(second.rubricVerdicts.size(), 8u);
    EXPECT_EQ(failures(second), 0);
    EXPECT_TRUE(second.complete);
    expectNoDuplicates(second);
}

TEST(JudgeRunner, AnotherJudgeStartsAfresh)
{
    Judging existing;
    existing.judge.spec = QStringLiteral("sim:judge");
    existing.judge.url = QStringLiteral("http://127.0.0.1:1");
    existing.judge.model = QStringLiteral("judge-model");
    existing.rubric = handRubric();
    JudgeIdentity same = existing.judge;
    EXPECT_TRUE(canResume(existing, same, handRubric()));
    EXPECT_TRUE(canResume(existing, same, std::nullopt)); // pairwise only: adds to the grades
    JudgeIdentity otherModel = same;
    otherModel.model = QStringLiteral("other");
    EXPECT_FALSE(canResume(existing, otherModel, handRubric()));
    JudgeIdentity otherUrl = same;
    otherUrl.url = QStringLiteral("http://127.0.0.1:2");
    EXPECT_FALSE(canResume(existing, otherUrl, handRubric()));
    Rubric edited = handRubric();
    edited.raw["criteria"] = nlohmann::json::array();
    EXPECT_FALSE(canResume(existing, same, edited));
    JudgeIdentity probed = same;
    probed.runtime = QStringLiteral("vllm"); // not part of the identity that must match
    EXPECT_TRUE(canResume(existing, probed, handRubric()));

    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(goodJudge()));
    JudgeRequest request = judgeRequest(judge.baseUrl(), true, false);
    RubricVerdict old;
    old.answer = {0, QStringLiteral("fact"), 1, 1};
    old.scores = {{QStringLiteral("correct"), 1}};
    existing.rubricVerdicts = {old};
    request.result.judging = existing; // another URL: not resumable
    const Judging j = runJudgingBlocking(request);
    EXPECT_EQ(j.rubricVerdicts.size(), 8u);
    for (const RubricVerdict& v : j.rubricVerdicts)
        EXPECT_EQ(v.scores.at(QStringLiteral("correct")), 4);
    EXPECT_TRUE(j.notes.join(u'\n').contains(QStringLiteral("was replaced")))
        << j.notes.join(u'\n').toStdString();
}

TEST(JudgeRunner, NothingToJudgeFails)
{
    JudgeRequest request = judgeRequest(QUrl(QStringLiteral("http://127.0.0.1:1")), false, false);
    const Outcome o = runController(request);
    EXPECT_TRUE(o.failed.startsWith(QStringLiteral("nothing to judge"))) << o.failed.toStdString();
    EXPECT_FALSE(o.judging);

    request = judgeRequest(QUrl(QStringLiteral("http://127.0.0.1:1")));
    request.plan.pairwiseBaseline = 5;
    const Judging j = runJudgingBlocking(request);
    ASSERT_EQ(j.notes.size(), 1);
    EXPECT_TRUE(j.notes[0].contains(QStringLiteral("baseline 5"))) << j.notes[0].toStdString();
    EXPECT_FALSE(j.complete);

    request = judgeRequest(QUrl(QStringLiteral("http://127.0.0.1:1")));
    for (RunRecord& r : request.result.records)
        r.request.failure = makeFailure(FailureKind::ServerError, QStringLiteral("x"), QStringLiteral("y"));
    EXPECT_TRUE(runJudgingBlocking(request).notes.value(0).startsWith(QStringLiteral("nothing to judge")));
}

TEST(JudgeRunner, DestroyingTheControllerMidJudgingJoinsCleanly)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(goodJudge(200)));
    const qint64 t0 = monotonicNs();
    {
        JudgeController controller;
        int verdicts = 0;
        QObject::connect(
            &controller, &JudgeController::rubricVerdict, [&](const RubricVerdict&) { ++verdicts; });
        controller.start(judgeRequest(judge.baseUrl()));
        const qint64 until = monotonicNs() + qint64(10e9);
        while (verdicts < 1 && monotonicNs() < until)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        EXPECT_GE(verdicts, 1);
        EXPECT_TRUE(controller.running());
    } // in flight: cancelled, the thread joined
    EXPECT_LT(double(monotonicNs() - t0) / 1e9, 10.0);
}

TEST(JudgeRunner, BuiltinRubricEndToEnd)
{
    emu::EmulatorThread judge;
    ASSERT_TRUE(judge.start(goodJudge()));
    JudgeRequest request = judgeRequest(judge.baseUrl(), false, false);
    request.plan.rubric = loadBuiltinRubric(QStringLiteral("voice-assistant"));
    const Judging j = runJudgingBlocking(request);
    ASSERT_EQ(j.rubricVerdicts.size(), 8u);
    EXPECT_EQ(failures(j), 0);
    for (const RubricVerdict& v : j.rubricVerdicts)
        EXPECT_EQ(v.scores.size(), request.plan.rubric->criteriaFor(v.answer.test).size());
    const QString system
        = QString::fromStdString(j.rubricVerdicts[0].exchange.messages[0]["content"].get<std::string>());
    EXPECT_TRUE(system.contains(QStringLiteral("spoken aloud"))); // the rubric's instructions
}

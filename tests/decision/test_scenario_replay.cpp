// SPDX-License-Identifier: MIT
// The seeds' three situations, run for real: RunController runs the built-in voice-assistant suite
// (its short-answer categories: greetings, facts, the briefing, every tool test, the no-tool tests,
// the thinking pairs and a five-turn conversation; one run each, answers capped at 48 tokens, so
// that the simulated 20 tok/s NVFP4 finishes in a few minutes) against q4km-like and each
// candidate's simulated endpoint (loopback emulators with real sockets, threads and timing), and the
// voice-assistant profile must reach the seed authors' conclusions (ScenarioSupport.h). The three runs go
// side by side to save time; each is interleaved, as a real comparison should be.
//
// QS_WRITE_SCENARIOS=DIR also writes DIR/scenario-NAME.json: how tests/data/results/scenario-*.json
// were made (`QS_WRITE_SCENARIOS=tests/data/results build/tests/decision/test_decision_replay`).
#include "ScenarioSupport.h"
#include "model/core/Clock.h"
#include "model/core/Suite.h"
#include "model/run/RunController.h"
#include "model/run/SuiteComposition.h"
#include "model/store/ResultFile.h"
#include "tests/support/SimulatedProfiles.h"

#include <QCoreApplication>
#include <QDir>
#include <gtest/gtest.h>
#include <memory>

using namespace qs;
using namespace qs::test;

namespace {

struct Simulated {
    std::unique_ptr<emu::EmulatorThread> thread = std::make_unique<emu::EmulatorThread>();
    RunEndpoint endpoint;
};

std::unique_ptr<Simulated> simulate(
    const char* profile, const char* label, const char* quantization, quint64 seed)
{
    auto config = emu::simulatedProfile(QString::fromUtf8(profile), seed);
    if (!config)
        throw std::runtime_error(std::string("no simulated profile ") + profile);
    auto s = std::make_unique<Simulated>();
    if (!s->thread->start(*config))
        throw std::runtime_error("the emulator failed to listen");
    RunEndpoint& e = s->endpoint;
    e.spec = QStringLiteral("sim:") + QString::fromUtf8(profile);
    e.simulated = true;
    e.endpoint.label = QString::fromUtf8(label);
    e.endpoint.quantization = QString::fromUtf8(quantization);
    e.endpoint.baseUrl = s->thread->baseUrl();
    return s;
}

struct Replay {
    QString name;
    std::vector<std::unique_ptr<Simulated>> servers;
    std::unique_ptr<RunController> controller = std::make_unique<RunController>();
    std::optional<RunResult> result;
    QString failed;
    bool done = false;
};

} // namespace

namespace {

// The voice-assistant suite without its long-answer categories (conversational, long, persona,
// refusal, reasoning: 60-200-token answers, minutes at the simulated 20 tok/s) and with one
// conversation.
Suite replaySuite()
{
    Suite suite = loadBuiltinSuite(QStringLiteral("voice-assistant"));
    static const QStringList longAnswers = {QStringLiteral("conversational"), QStringLiteral("long"),
        QStringLiteral("persona"), QStringLiteral("refusal"), QStringLiteral("reasoning")};
    std::vector<SuiteTest> kept;
    nlohmann::json raw = nlohmann::json::array();
    for (std::size_t i = 0; i < suite.tests.size(); ++i) {
        const SuiteTest& t = suite.tests[i];
        if (longAnswers.contains(t.category) || (t.category == u"multi-turn" && t.id != u"multi-turn-5"))
            continue;
        kept.push_back(t);
        raw.push_back(suite.raw["tests"][i]);
    }
    suite.tests = kept;
    suite.raw["tests"] = raw;
    return suite;
}

} // namespace

TEST(ScenarioReplay, SeedsSituationsReachTheSeedsConclusions)
{
    const Suite suite = replaySuite();
    std::vector<std::unique_ptr<Replay>> replays;
    quint64 seed = 6;
    for (const Scenario& s : scenarios) {
        auto r = std::make_unique<Replay>();
        r->name = QString::fromUtf8(s.name);
        r->servers.push_back(simulate("q4km-like", baselineLabel, "Q4_K_M", seed));
        r->servers.push_back(simulate(s.candidateProfile, s.candidateLabel, "NVFP4", seed));
        RunRequest request;
        request.suite = suite;
        request.settings.warmup = 0;
        request.settings.runs = 1;
        request.settings.maxTokens = 48;
        request.settings.seed = seed++;
        for (const auto& server : r->servers)
            request.endpoints.push_back(server->endpoint);
        Replay* raw = r.get();
        QObject::connect(raw->controller.get(), &RunController::finished,
            [raw](const std::shared_ptr<const RunResult>& result, const RunStats&) {
                raw->result = *result;
                raw->done = true;
            });
        QObject::connect(raw->controller.get(), &RunController::failed, [raw](const QString& message) {
            raw->failed = message;
            raw->done = true;
        });
        raw->controller->start(std::move(request));
        replays.push_back(std::move(r));
    }

    const qint64 until = monotonicNs() + qint64(600e9);
    const auto allDone
        = [&] { return std::all_of(replays.begin(), replays.end(), [](const auto& r) { return r->done; }); };
    while (!allDone() && monotonicNs() < until)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
    ASSERT_TRUE(allDone()) << "the runs did not end within 10 minutes";

    const QString outDir = qEnvironmentVariable("QS_WRITE_SCENARIOS");
    for (const auto& r : replays) {
        SCOPED_TRACE(r->name.toStdString());
        ASSERT_TRUE(r->failed.isEmpty()) << r->failed.toStdString();
        ASSERT_TRUE(r->result);
        const RunResult& result = *r->result;
        // Every request: the tests' turns, once each, on both endpoints.
        int perRepeat = 0;
        for (const CategoryComposition& c : suiteComposition(suite, result.settings).categories)
            perRepeat += c.requestsPerRepeat;
        int measured = 0, failed = 0;
        for (const RunRecord& rec : result.records) {
            measured += rec.warmup ? 0 : 1;
            failed += !rec.warmup && !rec.request.ok() ? 1 : 0;
        }
        EXPECT_EQ(measured, 2 * perRepeat);
        EXPECT_EQ(failed, 0);
        expectScenario(r->name, judgeScenario(result));
        if (!outDir.isEmpty()) {
            const QString path
                = QDir(outDir).filePath(QStringLiteral("scenario-") + r->name + QStringLiteral(".json"));
            EXPECT_EQ(saveResults(result, path), QString());
        }
    }
}

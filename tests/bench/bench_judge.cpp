// SPDX-License-Identifier: MIT
// What judging costs Quantscope itself (docs/benchmarks.md, "Judging"): reading judge replies
// (typical and hostile), the judging pipeline against an instant loopback judge at several
// concurrencies (so the time is ours, not a model's), and deriving the figures from many verdicts.
//   bench_judge [--pairs N]

#include "model/core/Clock.h"
#include "model/evaluate/JudgedQuality.h"
#include "model/run/JudgeRunner.h"
#include "model/wire/JudgeReply.h"
#include "tests/judging/JudgingTestSupport.h"
#include "tests/support/Emulator.h"
#include "tests/support/EmulatorJudge.h"

#include <QCoreApplication>
#include <QTextStream>
#include <cstdio>

using namespace qs;

namespace {

template <typename F> double usPer(int n, F f)
{
    const qint64 t0 = monotonicNs();
    for (int i = 0; i < n; ++i)
        f();
    return double(monotonicNs() - t0) / 1e3 / n;
}

RunResult pairsRun(int pairs)
{
    RunResult result;
    result.endpoints = {test::secretEndpoint(0), test::secretEndpoint(1)};
    for (int i = 1; i <= pairs; ++i)
        for (int e = 0; e < 2; ++e)
            result.records.push_back(test::answerRecord(e, QStringLiteral("chat"), 1, i,
                e == 1 ? QStringLiteral("Sunshine in Paris today, %1.").arg(i)
                       : QStringLiteral("Paris, %1.").arg(i)));
    return result;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int pairs = 100;
    const QStringList args = app.arguments();
    if (const auto i = args.indexOf(QStringLiteral("--pairs")); i > 0 && i + 1 < args.size())
        pairs = args[i + 1].toInt();
    QTextStream out(stdout);

    // 1. Reading replies.
    const QString typical = QStringLiteral(
        "Let me compare them.\n```json\n{\"better\": \"2\", \"reason\": \"Answer 2 is warmer and answers the "
        "question in one sentence, as speech should; answer 1 lists facts.\"}\n```\nThat is my verdict.");
    const QStringList criteria {QStringLiteral("answers_question"), QStringLiteral("correct"),
        QStringLiteral("warm_personal"), QStringLiteral("spoken_length"), QStringLiteral("persona")};
    const QString rubric = QStringLiteral(
        "{\"scores\": {\"answers_question\": 5, \"correct\": 4, \"warm_personal\": 3, \"spoken_length\": 5, "
        "\"persona\": 4}, \"reason\": \"Direct and right, a little flat.\"}");
    const QString braces = QString(1 << 20, u'{');
    const QString fences = QStringLiteral("```").repeated((1 << 20) / 3);
    const QString thinking = QStringLiteral("<think>") + QString(1 << 20, u'x');
    out << "Reading judge replies (µs per reply):\n";
    out << "  pairwise, fenced with prose   " << usPer(100000, [&] { (void)readPairReply(typical); }) << '\n';
    out << "  rubric, 5 criteria            "
        << usPer(100000, [&] { (void)readRubricReply(rubric, criteria); }) << '\n';
    out << "  1 MiB of '{'                  " << usPer(20, [&] { (void)readPairReply(braces); }) << '\n';
    out << "  1 MiB of ```                  " << usPer(20, [&] { (void)readPairReply(fences); }) << '\n';
    out << "  1 MiB unclosed <think>        " << usPer(20, [&] { (void)readPairReply(thinking); }) << '\n';

    // 2. The pipeline against an instant judge: rubric + both orders of every pair.
    emu::JudgeBehaviour instant;
    instant.word = QStringLiteral("sunshine");
    instant.ttftMs = 0;
    instant.tokensPerSecond = 1e6;
    emu::EmulatorThread judge;
    if (!judge.start(emu::judgeServerConfig(instant))) {
        std::fprintf(stderr, "could not start the emulated judge\n");
        return 1;
    }
    out << "\nJudging " << pairs << " pairs (" << 2 * pairs << " rubric + " << 2 * pairs
        << " pairwise judgements) against an instant loopback judge:\n";
    for (const int concurrency : {1, 2, 4, 8}) {
        JudgeRequest r;
        r.result = pairsRun(pairs);
        r.judge.baseUrl = judge.baseUrl();
        r.judge.model = QStringLiteral("judge-emulated");
        r.identity.spec = QStringLiteral("bench");
        r.identity.url = judge.baseUrl().toString();
        r.identity.model = QStringLiteral("judge-emulated");
        r.plan.rubric = loadBuiltinRubric(QStringLiteral("voice-assistant"));
        r.plan.pairwiseBaseline = 0;
        r.concurrency = concurrency;
        const qint64 t0 = monotonicNs();
        const Judging j = runJudgingBlocking(r);
        const double s = double(monotonicNs() - t0) / 1e9;
        const int n = int(j.rubricVerdicts.size() + j.pairVerdicts.size());
        int failed = 0;
        for (const RubricVerdict& v : j.rubricVerdicts)
            failed += v.failed() ? 1 : 0;
        for (const PairVerdict& v : j.pairVerdicts)
            failed += v.exchange.failed() ? 1 : 0;
        out << QStringLiteral(
            "  concurrency %1: %2 judgements (%6 failed) in %3 s = %4 /s (%5 ms each, wall)\n")
                   .arg(concurrency)
                   .arg(n)
                   .arg(s, 0, 'f', 2)
                   .arg(n / s, 0, 'f', 0)
                   .arg(1000 * s / n, 0, 'f', 2)
                   .arg(failed);
    }

    // 3. Deriving the figures from many verdicts.
    JudgeRequest big;
    big.result = pairsRun(pairs);
    big.judge.baseUrl = judge.baseUrl();
    big.identity.spec = QStringLiteral("bench");
    big.identity.url = judge.baseUrl().toString();
    big.plan.rubric = loadBuiltinRubric(QStringLiteral("voice-assistant"));
    big.plan.pairwiseBaseline = 0;
    big.concurrency = 8;
    RunResult judged = big.result;
    judged.judging = runJudgingBlocking(big);
    out << "\njudgeQuality() over "
        << judged.judging.rubricVerdicts.size() + judged.judging.pairVerdicts.size()
        << " verdicts: " << usPer(20, [&] { (void)judgeQuality(judged); }) / 1000.0 << " ms\n";
    return 0;
}

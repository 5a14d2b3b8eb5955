// SPDX-License-Identifier: MIT
// The verdict end to end against scripted servers (not the project's emulator): `quantscope run`
// over real loopback sockets, then `quantscope summary --json --profile`, read as a script would.
// Each server answers prompt N after base(N) × its own factor(N) milliseconds, so per-prompt ratios
// scatter around the true one as real servers' do, and may answer chosen prompts wrongly.
#include "tests/app/CliSupport.h"
#include "tests/app/ScriptedServers.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

using namespace qs::test;

namespace {

struct Verdict {
    QString ttft;
    QString answers;
    QString ttftMeasured;
};

/// Runs both arms over `prompts` distinct prompts (2 runs each) and reads the verdict back.
Verdict decide(const Arm& base, const Arm& cand, int prompts)
{
    QTemporaryDir dir;
    const auto b = serve(base);
    const auto c = serve(cand);
    const QString out = dir.filePath(QStringLiteral("r.json"));
    const CliRun run
        = runCli({QStringLiteral("run"), QStringLiteral("--suite"), writeSuite(dir, prompts),
                     QStringLiteral("--endpoint"), QStringLiteral("name=Base,url=") + b->baseUrl().toString(),
                     QStringLiteral("--endpoint"), QStringLiteral("name=Cand,url=") + c->baseUrl().toString(),
                     QStringLiteral("--no-server-metrics"), QStringLiteral("--out"), out},
            240000);
    if (run.code != 0)
        qWarning("run: %s", qPrintable(run.err));
    const CliRun s = runCli({QStringLiteral("summary"), out, QStringLiteral("--json"),
        QStringLiteral("--profile"), writeProfile(dir)});
    Verdict v;
    const QJsonArray recs
        = QJsonDocument::fromJson(s.out.toUtf8()).object().value(QStringLiteral("recommendations")).toArray();
    if (recs.size() != 1) {
        qWarning("summary: %s", qPrintable(s.err));
        return v;
    }
    for (const auto& x : recs.first().toObject().value(QStringLiteral("criteria")).toArray()) {
        const QJsonObject o = x.toObject();
        const QString id = o.value(QStringLiteral("id")).toString();
        (id == u"ttft" ? v.ttft : v.answers) = o.value(QStringLiteral("outcome")).toString();
        if (id == u"ttft")
            v.ttftMeasured = o.value(QStringLiteral("measured")).toString();
    }
    return v;
}

struct Rounds {
    int code = -1;
    QString err; ///< what the CLI printed
    nlohmann::json untilDecided; ///< the file's record of the rounds
    nlohmann::json recommendation; ///< summary --json --profile's verdict of the saved file
    int testsAsked = 0; ///< distinct tests among the file's records
};

/// `run --until-decided` over a suite of `prompts` distinct prompts, then the saved file's verdict.
Rounds untilDecided(const Arm& base, const Arm& cand, int prompts, const QStringList& budget)
{
    QTemporaryDir dir;
    const auto b = serve(base);
    const auto c = serve(cand);
    const QString out = dir.filePath(QStringLiteral("r.json"));
    const QString profile = writeProfile(dir);
    const CliRun run
        = runCli(QStringList {QStringLiteral("run"), QStringLiteral("--suite"), writeSuite(dir, prompts),
                     QStringLiteral("--endpoint"), QStringLiteral("name=Base,url=") + b->baseUrl().toString(),
                     QStringLiteral("--endpoint"), QStringLiteral("name=Cand,url=") + c->baseUrl().toString(),
                     QStringLiteral("--no-server-metrics"), QStringLiteral("--until-decided"),
                     QStringLiteral("--profile"), profile, QStringLiteral("--out"), out}
                + budget,
            240000);
    Rounds r;
    r.code = run.code;
    r.err = run.err;
    for (const QString& line : run.err.split(u'\n')) // the looks, for the log
        if (line.startsWith(QLatin1String("look ")) || line.startsWith(QLatin1String("  ttft"))
            || line.startsWith(QLatin1String("  answers")) || line.startsWith(QLatin1String("Until decided")))
            qInfo().noquote() << line;
    QFile f(out);
    if (!f.open(QIODevice::ReadOnly))
        return r;
    const nlohmann::json file = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    if (file.is_object() && file.contains("until_decided"))
        r.untilDecided = file["until_decided"];
    std::set<std::string> tests;
    if (file.is_object() && file.contains("records"))
        for (const auto& record : file["records"])
            tests.insert(record.value("test", std::string()));
    r.testsAsked = int(tests.size());
    const CliRun s = runCli(
        {QStringLiteral("summary"), out, QStringLiteral("--json"), QStringLiteral("--profile"), profile});
    const nlohmann::json j = nlohmann::json::parse(s.out.toStdString(), nullptr, false);
    if (j.is_object() && j.contains("recommendations") && j["recommendations"].size() == 1)
        r.recommendation = j["recommendations"][0];
    return r;
}

} // namespace

class TestScriptedVerdicts : public QObject {
    Q_OBJECT

private slots:
    void equalArmsWithScatterAreNotFailed()
    {
        // Each server its own fixed factor per prompt (15 % scatter), true ratio 1: the issue's
        // measurement failed such arms 5 times in 14; over prompts, against the margin, never.
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            const Verdict v = decide({1, 0.15, seed * 2}, {1, 0.15, seed * 2 + 1}, 8);
            QVERIFY2(
                v.ttft == u"pass" || v.ttft == u"inconclusive", qPrintable(v.ttft + u' ' + v.ttftMeasured));
        }
    }

    void aCandidate35PercentSlowerFails()
    {
        const Verdict v = decide({1, 0.05, 3}, {1.35, 0.05, 4}, 16);
        QVERIFY2(v.ttft == u"fail", qPrintable(v.ttft + u' ' + v.ttftMeasured));
    }

    void identicalArmsOverSixteenPromptsPass()
    {
        const Verdict v = decide({1, 0.15, 5}, {1, 0.15, 5}, 16);
        QVERIFY2(v.ttft == u"pass", qPrintable(v.ttft + u' ' + v.ttftMeasured));
        QCOMPARE(v.answers, QStringLiteral("pass")); // 16 prompts right on both: within 30 points
    }

    void untilDecidedStopsEarlyOnAClearCase()
    {
        // 35 % slower on every prompt: the first look (12 of 40 prompts) shows it beyond the margin
        // even at its stricter level, so the run stops there and keeps the baseline.
        const Rounds r = untilDecided({1, 0.05, 3}, {1.35, 0.05, 4}, 40, {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(
            QString::fromStdString(r.untilDecided.value("stop", std::string())), QStringLiteral("decided"));
        QCOMPARE(r.untilDecided["looks"].size(), std::size_t(1));
        QCOMPARE(r.untilDecided["looks"][0].value("prompts", 0), 12);
        QVERIFY2(
            r.err.contains(QStringLiteral("decided after 12 distinct prompts (look 1)")), qPrintable(r.err));
        // The saved file reads the same verdict, at the look's level, as the run printed.
        QCOMPARE(QString::fromStdString(r.recommendation.value("decision", std::string())),
            QStringLiteral("keep_baseline"));
        QCOMPARE(r.recommendation.value("looks", 0), 1);
        QCOMPARE(r.testsAsked, 12); // the other 28 prompts were never asked
    }

    void untilDecidedIdenticalArmsSwitchBeforeThePoolEnds()
    {
        const Rounds r = untilDecided({1, 0.15, 5}, {1, 0.15, 5}, 40, {});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(
            QString::fromStdString(r.untilDecided.value("stop", std::string())), QStringLiteral("decided"));
        QVERIFY2(r.untilDecided["looks"].back().value("prompts", 0) < 40, qPrintable(r.err));
        QCOMPARE(QString::fromStdString(r.recommendation.value("decision", std::string())),
            QStringLiteral("switch"));
    }

    void untilDecidedRunsToItsBudgetOnACloseCase()
    {
        // Exactly at the 10 % margin, with scatter: no number of prompts settles it, so the run goes
        // to its --max-prompts, says why, and the verdict stays open.
        const Rounds r = untilDecided(
            {1, 0.15, 7}, {1.1, 0.15, 8}, 40, {QStringLiteral("--max-prompts"), QStringLiteral("20")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QString::fromStdString(r.untilDecided.value("stop", std::string())),
            QStringLiteral("max_prompts"));
        QCOMPARE(r.untilDecided["looks"].size(), std::size_t(2)); // 12, then 18 (27 would pass 20)
        QCOMPARE(r.untilDecided["looks"][1].value("prompts", 0), 18);
        QVERIFY2(
            r.err.contains(QStringLiteral("undecided after 18 distinct prompts: the next round would pass "
                                          "--max-prompts 20")),
            qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("open: ttft")), qPrintable(r.err));
        QCOMPARE(QString::fromStdString(r.recommendation.value("decision", std::string())),
            QStringLiteral("inconclusive"));
        QCOMPARE(r.recommendation.value("looks", 0), 2);
    }

    void untilDecidedRefusesWhatItCannotDo()
    {
        QTemporaryDir dir;
        const QString suite = writeSuite(dir, 20);
        const QString out = dir.filePath(QStringLiteral("r.json"));
        const QStringList two {QStringLiteral("--endpoint"), QStringLiteral("name=A,url=http://127.0.0.1:9"),
            QStringLiteral("--endpoint"), QStringLiteral("name=B,url=http://127.0.0.1:9")};
        const auto run = [&](const QStringList& more) {
            return runCli(QStringList {QStringLiteral("run"), QStringLiteral("--suite"), suite,
                              QStringLiteral("--out"), out}
                + more);
        };
        const struct {
            QStringList args;
            const char* says;
        } cases[] = {
            {two + QStringList {QStringLiteral("--until-decided")}, "needs --profile"},
            {two + QStringList {QStringLiteral("--max-prompts"), QStringLiteral("20")},
                "belongs to --until-decided"},
            {two
                    + QStringList {QStringLiteral("--until-decided"), QStringLiteral("--profile"),
                        QStringLiteral("voice-assistant"), QStringLiteral("--prompts-per-category"),
                        QStringLiteral("2")},
                "drop --prompts-per-category"},
            {QStringList {QStringLiteral("--endpoint"), QStringLiteral("url=http://127.0.0.1:9"),
                 QStringLiteral("--until-decided"), QStringLiteral("--profile"),
                 QStringLiteral("voice-assistant")},
                "at least two endpoints"},
            {two
                    + QStringList {QStringLiteral("--until-decided"), QStringLiteral("--profile"),
                        QStringLiteral("voice-assistant"), QStringLiteral("--budget-minutes"),
                        QStringLiteral("0")},
                "--budget-minutes must be"},
        };
        for (const auto& c : cases) {
            const CliRun r = run(c.args);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(QString::fromLatin1(c.says)), qPrintable(r.err));
        }
        QVERIFY(!QFile::exists(out));
    }

    void oneOfThreePromptsAlwaysWrongIsInconclusive()
    {
        Arm wrong {1, 0, 6};
        wrong.wrong = {1};
        const Verdict v = decide({1, 0, 6}, wrong, 3);
        QCOMPARE(v.answers, QStringLiteral("inconclusive"));
    }
};

QTEST_GUILESS_MAIN(TestScriptedVerdicts)
#include "tst_scripted_verdicts.moc"

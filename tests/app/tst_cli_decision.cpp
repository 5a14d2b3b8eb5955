// SPDX-License-Identifier: MIT
// `quantscope summary FILE --json --profile P`: the recommendations, as scripts read them, from the
// committed seed scenarios (tests/data/results/scenario-*.json).
#include "tests/app/CliSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using qs::test::CliRun;
using qs::test::runCli;

class TestCliDecision : public QObject {
    Q_OBJECT

    static QString scenario(const char* name)
    {
        return QStringLiteral(QS_TEST_DATA_DIR "/results/scenario-") + QString::fromUtf8(name)
            + QStringLiteral(".json");
    }

    static QJsonObject recommendation(const char* name)
    {
        const CliRun r = runCli({QStringLiteral("summary"), scenario(name), QStringLiteral("--json"),
            QStringLiteral("--profile"), QStringLiteral("voice-assistant")});
        if (r.code != 0)
            qWarning("%s", qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonArray recs = o.value(QStringLiteral("recommendations")).toArray();
        return recs.size() == 1 ? recs.first().toObject() : QJsonObject {};
    }

    static QString outcomeOf(const QJsonObject& rec, const QString& id)
    {
        for (const auto& c : rec.value(QStringLiteral("criteria")).toArray())
            if (c.toObject().value(QStringLiteral("id")).toString() == id)
                return c.toObject().value(QStringLiteral("outcome")).toString();
        return {};
    }

private slots:
    void aPilotFilePlansAnUntilDecidedRun()
    {
        const CliRun r = runCli({QStringLiteral("summary"), scenario("fair-switch"), QStringLiteral("--json"),
            QStringLiteral("--profile"), QStringLiteral("voice-assistant"), QStringLiteral("--plan")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject plan
            = QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("plan")).toObject();
        QCOMPARE(plan.value(QStringLiteral("suite")).toString(), QStringLiteral("voice-assistant"));
        const QJsonArray at = plan.value(QStringLiteral("looks_at_prompts")).toArray();
        QVERIFY(at.size() >= 4);
        QCOMPARE(at.first().toInt(), 12);
        bool ttft = false;
        for (const auto& v : plan.value(QStringLiteral("criteria")).toArray()) {
            const QJsonObject c = v.toObject();
            if (c.value(QStringLiteral("id")).toString() != u"ttft_not_worse")
                continue;
            ttft = true;
            // A clear pass in the pilot: the first look would already decide it.
            QCOMPARE(c.value(QStringLiteral("prompts_needed")).toInt(), 12);
        }
        QVERIFY(ttft);
        const CliRun bare
            = runCli({QStringLiteral("summary"), scenario("fair-switch"), QStringLiteral("--plan")});
        QCOMPARE(bare.code, 2);
        QVERIFY(bare.err.contains(QStringLiteral("give --profile too")));
    }

    void theFairSwitchSwitches()
    {
        const QJsonObject rec = recommendation("fair-switch");
        QCOMPARE(rec.value(QStringLiteral("decision")).toString(), QStringLiteral("switch"));
        QCOMPARE(outcomeOf(rec, QStringLiteral("ttft_not_worse")), QStringLiteral("pass"));
        QCOMPARE(outcomeOf(rec, QStringLiteral("energy_not_worse")), QStringLiteral("not_measured"));
        // Every interval-based criterion says what it rests on.
        for (const auto& v : rec.value(QStringLiteral("criteria")).toArray()) {
            const QJsonObject c = v.toObject();
            if (c.value(QStringLiteral("id")).toString() == u"answers_not_worse") {
                QCOMPARE(c.value(QStringLiteral("margin")).toDouble(), 0.15);
                QVERIFY(c.value(QStringLiteral("prompts")).toInt() >= 20);
                QVERIFY(c.contains(QStringLiteral("interval")));
                QCOMPARE(c.value(QStringLiteral("worse_side")).toString(), QStringLiteral("below"));
            }
        }
        QVERIFY(rec.value(QStringLiteral("error_rates")).toString().contains(QStringLiteral("at most 5 %")));
    }

    void theBrokenOnesKeepTheBaseline()
    {
        for (const char* name : {"base-garbled", "broken-manners"}) {
            const QJsonObject rec = recommendation(name);
            QCOMPARE(rec.value(QStringLiteral("decision")).toString(), QStringLiteral("keep_baseline"));
        }
        QCOMPARE(outcomeOf(recommendation("broken-manners"), QStringLiteral("thinking_leaks")),
            QStringLiteral("fail"));
    }

    void theTextEndsWithTheVerdictAndABadProfileIsRefused()
    {
        const CliRun text = runCli({QStringLiteral("summary"), scenario("fair-switch"),
            QStringLiteral("--profile"), QStringLiteral("voice-assistant")});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("Switch from Q4_K_M")), qPrintable(text.out.right(2000)));
        QVERIFY(text.out.contains(QStringLiteral("What this verdict promises")));

        const CliRun bad = runCli({QStringLiteral("summary"), scenario("fair-switch"),
            QStringLiteral("--profile"), QStringLiteral("voice-asistant")});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("voice-assistant")), qPrintable(bad.err));
        // Without --profile there is no "recommendations" key (scripts test for it).
        const CliRun plain
            = runCli({QStringLiteral("summary"), scenario("fair-switch"), QStringLiteral("--json")});
        QCOMPARE(plain.code, 0);
        QVERIFY(!QJsonDocument::fromJson(plain.out.toUtf8())
                     .object()
                     .contains(QStringLiteral("recommendations")));
    }
};

QTEST_GUILESS_MAIN(TestCliDecision)
#include "tst_cli_decision.moc"

// SPDX-License-Identifier: MIT
// `quantscope campaign` end to end (issue #25): three attempts run for real against scripted
// loopback servers, at different times — a candidate that leaks its thinking, one that writes
// markdown, one clean and faster while the baseline itself became 40 % slower — given out of order.
#include "tests/app/CliSupport.h"
#include "tests/app/ScriptedServers.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace qs::test;
using json = nlohmann::json;

namespace {

QString writeCampaignProfile(const QTemporaryDir& dir)
{
    const json profile = {{"id", "campaign-test"},
        {"criteria",
            {{{"id", "thinking_leaks"}, {"gate", "no_thinking_leak"}, {"max_failures", 0}},
                {{"id", "markdown"}, {"gate", "no_markdown"}, {"max_failures", 0}},
                {{"id", "ttft"}, {"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}},
                {{"id", "answers"}, {"gate", "expected_answer"}, {"not_worse_than_baseline", true},
                    {"margin", 0.3}}}}};
    return writeJsonFile(dir, QStringLiteral("profile.json"), profile);
}

/// One attempt: the baseline (Q4_K_M) and one candidate, 16 prompts × 2 runs, saved to `out`.
bool attempt(const QString& suite, const Arm& base, const Arm& cand, const QString& candSpec,
    const QString& note, const QString& out)
{
    const auto b = serve(base);
    const auto c = serve(cand);
    const CliRun run = runCli(
        {QStringLiteral("run"), QStringLiteral("--suite"), suite, QStringLiteral("--endpoint"),
            QStringLiteral("name=Q4_K_M,quant=Q4_K_M,url=") + b->baseUrl().toString(),
            QStringLiteral("--endpoint"), candSpec + QStringLiteral(",url=") + c->baseUrl().toString(),
            QStringLiteral("--no-server-metrics"), QStringLiteral("--note"), note, QStringLiteral("--out"),
            out},
        240000);
    if (run.code != 0)
        qWarning("run: %s", qPrintable(run.err));
    return run.code == 0;
}

} // namespace

class TestCampaign : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_files[3];
    QString m_profile;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (qEnvironmentVariableIsSet("QS_KEEP_CAMPAIGN")) { // to look at the files and the document
            m_dir.setAutoRemove(false);
            qInfo("files kept in %s", qPrintable(m_dir.path()));
        }
        const QString suite = writeSuite(m_dir, 16);
        m_profile = writeCampaignProfile(m_dir);
        for (int i = 0; i < 3; ++i)
            m_files[i] = m_dir.filePath(QStringLiteral("attempt%1.json").arg(i + 1));
        Arm base {1, 0.05, 5};
        Arm leaks {0.9, 0.05, 6};
        leaks.style = AnswerStyle::ThinkingLeak;
        QVERIFY(attempt(suite, base, leaks,
            QStringLiteral("name=NVFP4 vLLM,quant=NVFP4,meta.calibration=generic-512"),
            QStringLiteral("v1: first try"), m_files[0]));
        Arm markdown {0.9, 0.05, 7};
        markdown.style = AnswerStyle::Markdown;
        QVERIFY(attempt(suite, base, markdown,
            QStringLiteral("name=NVFP4 vLLM,quant=NVFP4,meta.calibration=annie-500"),
            QStringLiteral("v2: thinking off, calibrated on Annie"), m_files[1]));
        Arm slowerBase {1.4, 0.05, 5}; // the baseline itself 40 % slower on the last day
        Arm clean {0.7, 0.05, 8};
        QVERIFY(attempt(suite, slowerBase, clean,
            QStringLiteral("name=NVFP4 vLLM,quant=NVFP4-MLP,meta.calibration=annie-500,meta.method=mlp_only"),
            QStringLiteral("v3: MLP-only"), m_files[2]));
    }

    void timeOrderDecisionsBestChangesAndDrift()
    {
        // Out of order on the command line; the campaign puts them in the order they ran.
        const CliRun r = runCli({QStringLiteral("campaign"), m_files[2], m_files[0], m_files[1],
            QStringLiteral("--profile"), m_profile, QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const json j = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(j.is_object() && j.contains("campaign"), qPrintable(r.out));
        const json& c = j["campaign"];
        QCOMPARE(QString::fromStdString(c["baseline"].get<std::string>()), QStringLiteral("Q4_K_M"));
        const json& attempts = c["attempts"];
        QCOMPARE(attempts.size(), std::size_t(3));
        const char* decisions[] = {"keep_baseline", "keep_baseline", "switch"};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(QString::fromStdString(attempts[i]["file"].get<std::string>()), m_files[i]);
            QCOMPARE(QString::fromStdString(attempts[i]["decision"].get<std::string>()),
                QString::fromLatin1(decisions[i]));
            QVERIFY(attempts[i].contains("started_at") && attempts[i].contains("candidate_label"));
            QVERIFY(attempts[i]["criteria"].size() == 4);
        }
        QVERIFY(attempts[0]["started_at"].get<std::string>() < attempts[1]["started_at"].get<std::string>());
        QVERIFY(attempts[1]["started_at"].get<std::string>() < attempts[2]["started_at"].get<std::string>());
        // Why each was kept out: the criterion that failed, with its count.
        const auto outcome = [&](int a, const char* id) {
            for (const json& k : attempts[a]["criteria"])
                if (k["id"] == id)
                    return QString::fromStdString(k["outcome"].get<std::string>());
            return QString();
        };
        QCOMPARE(outcome(0, "thinking_leaks"), QStringLiteral("fail"));
        QCOMPARE(outcome(1, "thinking_leaks"), QStringLiteral("pass"));
        QCOMPARE(outcome(1, "markdown"), QStringLiteral("fail"));
        QCOMPARE(outcome(2, "ttft"), QStringLiteral("pass"));
        // The last is best.
        QVERIFY2(c["best"].is_object(), qPrintable(QString::fromStdString(c.dump(1))));
        QCOMPARE(c["best"]["attempt"].get<int>(), 2);
        // What changed: the quant label (and the calibration before it), from the files.
        bool quant = false;
        for (const json& ch : attempts[2]["changes"])
            quant = quant
                || (ch["field"] == "quantization" && ch["from"] == "NVFP4" && ch["to"] == "NVFP4-MLP");
        QVERIFY2(quant, attempts[2]["changes"].dump().c_str());
        bool calibration = false;
        for (const json& ch : attempts[1]["changes"])
            calibration = calibration || (ch["field"] == "meta.calibration" && ch["to"] == "annie-500");
        QVERIFY2(calibration, attempts[1]["changes"].dump().c_str());
        QVERIFY(attempts[2]["notes"].dump().find("v3: MLP-only") != std::string::npos);
        // The baseline's drift: 40 % slower from the second file to the third, flagged; not before.
        bool flagged = false;
        for (const json& d : c["baseline_drift"]) {
            QVERIFY(d.contains("metric") && d.contains("from") && d.contains("to") && d.contains("interval")
                && d.contains("significant"));
            if (d["metric"] != "ttft_visible_ms")
                continue;
            if (d["to"] == m_files[2].toStdString()) {
                QVERIFY2(d["significant"].get<bool>(), d.dump().c_str());
                QVERIFY2(d["estimate"].get<double>() > 1.25, d.dump().c_str());
                flagged = true;
            } else {
                QVERIFY2(!d["significant"].get<bool>(), d.dump().c_str());
            }
        }
        QVERIFY(flagged);
    }

    void writesTheDocumentAndReadsAFolder()
    {
        const QString md = m_dir.filePath(QStringLiteral("campaign.md"));
        // The folder holds the suite and the profile too: skipped, with a note.
        const CliRun r = runCli({QStringLiteral("campaign"), m_dir.path(), QStringLiteral("--profile"),
            m_profile, QStringLiteral("--out"), md});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("skipped, not a results file")), qPrintable(r.err));
        QVERIFY2(
            r.out.contains(QStringLiteral("changed: quantization: NVFP4 → NVFP4-MLP")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("The baseline moved")), qPrintable(r.out));
        QFile f(md);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        for (const char* s : {"# Campaign: replacing Q4", "The baseline moved", "## The story",
                 "keep baseline", "switch", "## Baseline drift", "v3: MLP", "Best so far"})
            QVERIFY2(text.contains(QString::fromUtf8(s)), s);
        // The same document as one HTML page and as a PDF.
        for (const char* suffix : {"html", "pdf"}) {
            const QString path = m_dir.filePath(QStringLiteral("campaign.") + QLatin1String(suffix));
            const CliRun doc = runCli({QStringLiteral("campaign"), m_files[0], m_files[1], m_files[2],
                QStringLiteral("--profile"), m_profile, QStringLiteral("--out"), path});
            QVERIFY2(doc.code == 0, qPrintable(doc.err));
            QFile out(path);
            QVERIFY(out.open(QIODevice::ReadOnly));
            const QByteArray head = out.read(15);
            QVERIFY2(head.startsWith(suffix[0] == 'h' ? "<!DOCTYPE html" : "%PDF-"), head.constData());
        }
    }

    void saysWhatIsWrong()
    {
        QCOMPARE(runCli({QStringLiteral("campaign")}).code, 2);
        const CliRun missing
            = runCli({QStringLiteral("campaign"), m_dir.filePath(QStringLiteral("nope.json"))});
        QCOMPARE(missing.code, 1);
        QVERIFY2(missing.err.contains(QStringLiteral("no such file")), qPrintable(missing.err));
        const CliRun nobody = runCli({QStringLiteral("campaign"), m_files[0], QStringLiteral("--profile"),
            m_profile, QStringLiteral("--baseline"), QStringLiteral("BF16")});
        QCOMPARE(nobody.code, 1);
        QVERIFY2(nobody.err.contains(QStringLiteral("no file has the baseline")), qPrintable(nobody.err));
        const CliRun format = runCli({QStringLiteral("campaign"), m_files[0], QStringLiteral("--out"),
            m_dir.filePath(QStringLiteral("c.txt"))});
        QCOMPARE(format.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestCampaign)
#include "tst_campaign.moc"

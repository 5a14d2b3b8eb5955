// SPDX-License-Identifier: MIT
// The quantscope binary end to end: real process, real sockets, emulators started by the test.
#include "tests/app/CliSupport.h"
#include "tests/support/Emulator.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <sys/types.h>

class TestCli : public QObject {
    Q_OBJECT

    using Run = qs::test::CliRun;
    static Run run(const QStringList& args, int timeoutMs = 60000)
    {
        return qs::test::runCli(args, timeoutMs);
    }

private slots:
    void version()
    {
        const Run r = run({QStringLiteral("--version")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("quantscope ")));
    }

    void defaultRunsTheSuiteOnSimulatedEndpoints()
    {
        // The README's first command runs this; shortened here to keep the test quick.
        const Run r
            = run({QStringLiteral("demo"), QStringLiteral("--runs"), QStringLiteral("1"),
                      QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("--max-tokens"),
                      QStringLiteral("24"), QStringLiteral("--prompts-per-category"), QStringLiteral("1")},
                120000);
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("(simulated)")) && r.out.contains(QStringLiteral("SIMULATED")),
            qPrintable(r.out));
        // One prompt of every category, the draw said before the run.
        QVERIFY2(r.out.contains(QStringLiteral("greet-")) && r.out.contains(QStringLiteral("think-")),
            qPrintable(r.out));
        QVERIFY2(r.err.contains(QStringLiteral("12 distinct prompts (greeting 1, ")), qPrintable(r.err));
        // It ends with the built-in profile's verdict.
        const QStringList lines = r.out.trimmed().split(u'\n');
        QVERIFY2(lines.back().startsWith(QStringLiteral("Verdict (voice-assistant): ")), qPrintable(r.out));
    }

    void probeWithoutUrlUsesTheSimulatedEndpoints()
    {
        const Run r = run({QStringLiteral("probe"), QStringLiteral("--samples"), QStringLiteral("2")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("llama-server")) && r.out.contains(QStringLiteral("vllm")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("(simulated)")));
    }

    void probeJsonAgainstAnEmulator()
    {
        qs::emu::EmulatorThread emulator;
        qs::emu::ServerConfig config;
        config.dialect = qs::emu::Dialect::Vllm;
        config.modelId = QStringLiteral("m-under-test");
        config.contextSize = 4096;
        QVERIFY(emulator.start(config));
        const Run r = run({QStringLiteral("probe"), emulator.baseUrl().toString(), QStringLiteral("--json"),
            QStringLiteral("--samples"), QStringLiteral("3")});
        QCOMPARE(r.code, 0);
        const QJsonArray all = QJsonDocument::fromJson(r.out.toUtf8()).array();
        QCOMPARE(all.size(), 1);
        const QJsonObject o = all.first().toObject();
        QCOMPARE(o.value(QStringLiteral("runtime")).toString(), QStringLiteral("vllm"));
        QCOMPARE(o.value(QStringLiteral("model")).toString(), QStringLiteral("m-under-test"));
        QCOMPARE(o.value(QStringLiteral("context_size")).toInt(), 4096);
        QCOMPARE(o.value(QStringLiteral("rtt_samples_ms")).toArray().size(), 3);
    }

    void chatJsonReportsMeasurementsWithSources()
    {
        qs::emu::EmulatorThread emulator;
        qs::emu::ServerConfig config;
        config.dialect = qs::emu::Dialect::LlamaServer;
        config.script = qs::emu::simpleScript(8, 60, 100);
        QVERIFY(emulator.start(config));
        const Run r = run({QStringLiteral("chat"), emulator.baseUrl().toString(), QStringLiteral("--json"),
            QStringLiteral("--prompt"), QStringLiteral("hi"), QStringLiteral("--no-think")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject m = o.value(QStringLiteral("metrics")).toObject();
        QVERIFY(m.value(QStringLiteral("ttft_any_ms")).toDouble() >= 50);
        QCOMPARE(m.value(QStringLiteral("completion_tokens"))
                     .toObject()
                     .value(QStringLiteral("source"))
                     .toString(),
            QStringLiteral("usage"));
        QCOMPARE(o.value(QStringLiteral("request"))
                     .toObject()
                     .value(QStringLiteral("chat_template_kwargs"))
                     .toObject()
                     .value(QStringLiteral("enable_thinking"))
                     .toBool(true),
            false);
        QVERIFY(o.value(QStringLiteral("failure")).isNull());
    }

    void deadServerExplainsItself()
    {
        QTcpServer s;
        s.listen(QHostAddress::LocalHost, 0);
        const quint16 port = s.serverPort();
        s.close();
        const Run r = run({QStringLiteral("chat"), QStringLiteral("127.0.0.1:%1").arg(port)});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.contains(QStringLiteral("Connection refused")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("connection_refused")));
    }

    void wrongCommandLinesExitTwoWithAHint()
    {
        Run r = run({QStringLiteral("frobnicate")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("unknown command")));
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
            QStringLiteral("--out"), QDir::temp().filePath(QStringLiteral("qs-never-written.json")),
            QStringLiteral("--endpoint"), QStringLiteral("url=sim:q4km-like,meta.=x")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("meta. needs a name")), qPrintable(r.err));
        r = run({QStringLiteral("probe"), QStringLiteral("ftp://x")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("http://")));
        r = run({QStringLiteral("chat"), QStringLiteral("http://127.0.0.1:1"),
            QStringLiteral("--api-key-env"), QStringLiteral("sk-abc123")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("NAME of an environment variable")));
        r = run({QStringLiteral("chat"), QStringLiteral("--extra"), QStringLiteral("{nope")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("JSON object")));
    }

    void summaryJsonHasResourcesPerEndpoint()
    {
        // Issue #11's script interface: one "resources" entry per endpoint with these keys, null
        // where not measured; the client's token sums are always there.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("r.json"));
        const Run r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
                              QStringLiteral("--endpoint"), QStringLiteral("name=Q,url=sim:q4km-like"),
                              QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--warmup"),
                              QStringLiteral("0"), QStringLiteral("--out"), out},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const Run s = run({QStringLiteral("summary"), out, QStringLiteral("--json")});
        QCOMPARE(s.code, 0);
        const QJsonArray resources
            = QJsonDocument::fromJson(s.out.toUtf8()).object().value(QStringLiteral("resources")).toArray();
        QCOMPARE(resources.size(), 1);
        const QJsonObject e = resources.first().toObject();
        QCOMPARE(e.value(QStringLiteral("endpoint")).toString(), QStringLiteral("Q (simulated)"));
        QVERIFY(e.value(QStringLiteral("sources")).isArray());
        QVERIFY(e.value(QStringLiteral("memory_by_concurrency")).isObject());
        for (const char* key : {"memory_idle_bytes", "memory_peak_bytes", "power_median_w",
                 "energy_per_token_j", "server_generated_tokens", "server_prompt_tokens"}) {
            const QJsonValue v = e.value(QLatin1String(key));
            QVERIFY2(v.isNull() || v.isDouble(), key);
        }
        QVERIFY(e.value(QStringLiteral("client_generated_tokens")).toDouble() > 0);
        QVERIFY(e.value(QStringLiteral("client_prompt_tokens")).toDouble() > 0);
    }

    void simulatedEndpointsReportResourcesAndNoServerMetricsNullsThem()
    {
        // Each sim: endpoint comes with a simulated DCGM exporter (power, energy) and node
        // exporter (unified memory) that follow its load; its /metrics counts its tokens.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("sim.json"));
        const QStringList common = {QStringLiteral("run"), QStringLiteral("--suite"),
            QStringLiteral("quick-smoke"), QStringLiteral("--endpoint"),
            QStringLiteral("name=Q,url=sim:q4km-like"), QStringLiteral("--endpoint"),
            QStringLiteral("name=F,url=sim:nvfp4-like"), QStringLiteral("--runs"), QStringLiteral("1"),
            QStringLiteral("--warmup"), QStringLiteral("1")};
        Run r = run(common
                + QStringList {QStringLiteral("--scrape-ms"), QStringLiteral("100"), QStringLiteral("--out"),
                    out},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto resourcesOf = [](const QString& file) {
            const Run s = run({QStringLiteral("summary"), file, QStringLiteral("--json")});
            return std::make_pair(s.code,
                QJsonDocument::fromJson(s.out.toUtf8())
                    .object()
                    .value(QStringLiteral("resources"))
                    .toArray());
        };
        auto [code, resources] = resourcesOf(out);
        QCOMPARE(code, 0);
        QCOMPARE(resources.size(), 2);
        for (const auto& entry : resources) {
            const QJsonObject e = entry.toObject();
            const QByteArray dump = QJsonDocument(e).toJson();
            QCOMPARE(e.value(QStringLiteral("sources")).toArray().size(), 3); // /metrics, DCGM, node
            QCOMPARE(e.value(QStringLiteral("memory_kind")).toString(), QStringLiteral("host"));
            for (const char* key :
                {"memory_idle_bytes", "memory_peak_bytes", "power_median_w", "energy_per_token_j"})
                QVERIFY2(e.value(QLatin1String(key)).toDouble() > 0,
                    QByteArray(QByteArray(key) + ": " + dump).constData());
            QVERIFY2(e.value(QStringLiteral("memory_peak_bytes")).toDouble()
                    >= e.value(QStringLiteral("memory_idle_bytes")).toDouble(),
                dump.constData());
            const double server = e.value(QStringLiteral("server_generated_tokens")).toDouble(-1);
            QVERIFY2(server > 0, dump.constData());
            QCOMPARE(server, e.value(QStringLiteral("client_generated_tokens")).toDouble());
            QCOMPARE(e.value(QStringLiteral("failed_scrapes")).toInt(), 0);
        }
        // The text summary prints them (its power column once read freed memory).
        const Run text = run({QStringLiteral("summary"), out});
        QVERIFY2(text.code == 0, qPrintable(text.err));
        QVERIFY2(
            text.out.contains(QStringLiteral("Server resources")) && text.out.contains(QStringLiteral(" W ")),
            qPrintable(text.out));

        // --no-server-metrics: nothing scraped, every server figure null, and the file says why.
        const QString off = dir.filePath(QStringLiteral("off.json"));
        r = run(common + QStringList {QStringLiteral("--no-server-metrics"), QStringLiteral("--out"), off},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::tie(code, resources) = resourcesOf(off);
        QCOMPARE(code, 0);
        QCOMPARE(resources.size(), 2);
        for (const auto& entry : resources) {
            const QJsonObject e = entry.toObject();
            const QByteArray dump = QJsonDocument(e).toJson();
            QVERIFY2(e.value(QStringLiteral("sources")).toArray().isEmpty(), dump.constData());
            for (const char* key : {"memory_idle_bytes", "memory_peak_bytes", "power_median_w",
                     "energy_per_token_j", "server_generated_tokens", "server_prompt_tokens"})
                QVERIFY2(e.value(QLatin1String(key)).isNull(),
                    QByteArray(QByteArray(key) + ": " + dump).constData());
            QVERIFY(e.value(QStringLiteral("client_generated_tokens")).toDouble() > 0);
        }
        QFile file(off);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject telemetry
            = QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("telemetry")).toObject();
        QVERIFY2(telemetry.value(QStringLiteral("notes"))
                     .toArray()
                     .contains(QJsonValue(QStringLiteral("scraping off (--no-server-metrics)"))),
            QJsonDocument(telemetry).toJson().constData());
        QVERIFY(telemetry.value(QStringLiteral("sources")).toArray().isEmpty());
        // …and summary --json tells it too.
        const Run summary = run({QStringLiteral("summary"), off, QStringLiteral("--json")});
        QCOMPARE(summary.code, 0);
        QVERIFY2(QJsonDocument::fromJson(summary.out.toUtf8())
                     .object()
                     .value(QStringLiteral("telemetry_notes"))
                     .toArray()
                     .contains(QJsonValue(QStringLiteral("scraping off (--no-server-metrics)"))),
            qPrintable(summary.out.left(400)));
    }

    void runThenSummary()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("r.json"));
        // With what the user says of the run and of an endpoint (a campaign shows both).
        const Run r = run(
            {QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
                QStringLiteral("--endpoint"),
                QStringLiteral("name=Q,url=sim:q4km-like,meta.calibration=annie-500,meta.method=awq_lite"),
                QStringLiteral("--endpoint"), QStringLiteral("url=sim:nvfp4-like"), QStringLiteral("--note"),
                QStringLiteral("strategy B: MLP-only"), QStringLiteral("--out"), out},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(QFile::exists(out));
        {
            QFile f(out);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject file = QJsonDocument::fromJson(f.readAll()).object();
            QCOMPARE(
                file.value(QStringLiteral("user_note")).toString(), QStringLiteral("strategy B: MLP-only"));
            const QJsonArray endpoints = file.value(QStringLiteral("endpoints")).toArray();
            const QJsonObject meta = endpoints[0]
                                         .toObject()
                                         .value(QStringLiteral("endpoint"))
                                         .toObject()
                                         .value(QStringLiteral("meta"))
                                         .toObject();
            QCOMPARE(meta.value(QStringLiteral("calibration")).toString(), QStringLiteral("annie-500"));
            QCOMPARE(meta.value(QStringLiteral("method")).toString(), QStringLiteral("awq_lite"));
            QVERIFY(!endpoints[1]
                         .toObject()
                         .value(QStringLiteral("endpoint"))
                         .toObject()
                         .contains(QStringLiteral("meta")));
        }
        QVERIFY(!QFile::exists(out + QStringLiteral(".journal"))); // removed once the results are safe
        const Run s = run({QStringLiteral("summary"), out, QStringLiteral("--json")});
        QCOMPARE(s.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(s.out.toUtf8()).object();
        const QJsonArray rows = o.value(QStringLiteral("rows")).toArray();
        QVERIFY2(rows.size() >= 4, qPrintable(s.out)); // 2 tests × 2 endpoints
        QStringList labels;
        for (const auto& row : rows)
            labels << row.toObject().value(QStringLiteral("endpoint")).toString();
        QVERIFY(labels.contains(QStringLiteral("Q (simulated)")));
        const Run text = run({QStringLiteral("summary"), out});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains(QStringLiteral("SIMULATED")));
        QVERIFY2(
            text.out.contains(QStringLiteral("about this run: strategy B: MLP-only")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("calibration=annie-500, method=awq_lite")),
            qPrintable(text.out));

        // `run --like` repeats it: the same suite, endpoints (with their facts) and settings, but
        // what is given on the command line wins, and the note belongs to the earlier run alone.
        const QString again = dir.filePath(QStringLiteral("again.json"));
        const Run like
            = run({QStringLiteral("run"), QStringLiteral("--like"), out, QStringLiteral("--seed"),
                      QStringLiteral("2"), QStringLiteral("--out"), again, QStringLiteral("--quiet")},
                120000);
        QVERIFY2(like.code == 0, qPrintable(like.err));
        {
            QFile a(out), b(again);
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            const QJsonObject before = QJsonDocument::fromJson(a.readAll()).object();
            const QJsonObject after = QJsonDocument::fromJson(b.readAll()).object();
            QCOMPARE(after.value(QStringLiteral("suite")), before.value(QStringLiteral("suite")));
            const QJsonArray eb = before.value(QStringLiteral("endpoints")).toArray();
            const QJsonArray ea = after.value(QStringLiteral("endpoints")).toArray();
            QCOMPARE(ea.size(), eb.size());
            const auto facts = [](const QJsonValue& e) {
                return e.toObject()
                    .value(QStringLiteral("endpoint"))
                    .toObject()
                    .value(QStringLiteral("meta"));
            };
            for (qsizetype i = 0; i < ea.size(); ++i) {
                QCOMPARE(ea[i].toObject().value(QStringLiteral("label")),
                    eb[i].toObject().value(QStringLiteral("label")));
                QCOMPARE(ea[i].toObject().value(QStringLiteral("spec")),
                    eb[i].toObject().value(QStringLiteral("spec")));
                QCOMPARE(facts(ea[i]), facts(eb[i]));
            }
            QJsonObject settingsBefore = before.value(QStringLiteral("settings")).toObject();
            const QJsonObject settingsAfter = after.value(QStringLiteral("settings")).toObject();
            QCOMPARE(settingsAfter.value(QStringLiteral("seed")).toInt(), 2);
            settingsBefore.insert(QStringLiteral("seed"), 2);
            QCOMPARE(settingsAfter, settingsBefore);
            QVERIFY(!after.contains(QStringLiteral("user_note")));
        }
        // An --endpoint named like one of the file's replaces that one alone, in its place.
        const QString third = dir.filePath(QStringLiteral("third.json"));
        const Run one
            = run({QStringLiteral("run"), QStringLiteral("--like"), out, QStringLiteral("--endpoint"),
                      QStringLiteral("name=Q,url=sim:q4km-like,quant=Q4_K_M-v2,meta.method=mlp_only"),
                      QStringLiteral("--out"), third, QStringLiteral("--quiet")},
                120000);
        QVERIFY2(one.code == 0, qPrintable(one.err));
        {
            QFile f(third);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonArray e
                = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("endpoints")).toArray();
            QCOMPARE(e.size(), 2);
            const QJsonObject first = e[0].toObject().value(QStringLiteral("endpoint")).toObject();
            QCOMPARE(first.value(QStringLiteral("quantization")).toString(), QStringLiteral("Q4_K_M-v2"));
            QCOMPARE(
                first.value(QStringLiteral("meta")).toObject().value(QStringLiteral("method")).toString(),
                QStringLiteral("mlp_only"));
            QCOMPARE(e[1].toObject().value(QStringLiteral("label")).toString(),
                QStringLiteral("nvfp4-like (simulated)"));
        }
        const Run missing
            = run({QStringLiteral("run"), QStringLiteral("--like"), dir.filePath(QStringLiteral("none.json")),
                QStringLiteral("--out"), dir.filePath(QStringLiteral("x.json"))});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains(QStringLiteral("--like: ")), qPrintable(missing.err));
        // An until-decided run's suite holds every prompt a round could draw: never repeated as a
        // fixed run of all of them by accident.
        {
            QFile a(out);
            QVERIFY(a.open(QIODevice::ReadOnly));
            QJsonObject file = QJsonDocument::fromJson(a.readAll()).object();
            file.insert(QStringLiteral("until_decided"),
                QJsonObject {{QStringLiteral("profile"), QStringLiteral("voice-assistant")}});
            QFile ud(dir.filePath(QStringLiteral("ud.json")));
            QVERIFY(ud.open(QIODevice::WriteOnly));
            ud.write(QJsonDocument(file).toJson());
        }
        const Run decided
            = run({QStringLiteral("run"), QStringLiteral("--like"), dir.filePath(QStringLiteral("ud.json")),
                QStringLiteral("--out"), dir.filePath(QStringLiteral("x.json"))});
        QCOMPARE(decided.code, 2);
        QVERIFY2(decided.err.contains(QStringLiteral("add --until-decided --profile voice-assistant")),
            qPrintable(decided.err));

        // --baseline by label turns the comparison around; an unknown one lists the endpoints.
        const Run flipped = run({QStringLiteral("summary"), out, QStringLiteral("--json"),
            QStringLiteral("--baseline"), QStringLiteral("nvfp4-like (simulated)")});
        QVERIFY2(flipped.code == 0, qPrintable(flipped.err));
        const QJsonObject arm = QJsonDocument::fromJson(flipped.out.toUtf8())
                                    .object()
                                    .value(QStringLiteral("comparison"))
                                    .toObject()
                                    .value(QStringLiteral("comparisons"))
                                    .toArray()
                                    .first()
                                    .toObject();
        QCOMPARE(arm.value(QStringLiteral("baseline")).toObject().value(QStringLiteral("index")).toInt(), 1);
        QCOMPARE(arm.value(QStringLiteral("candidate")).toObject().value(QStringLiteral("index")).toInt(), 0);
        const Run unknown
            = run({QStringLiteral("summary"), out, QStringLiteral("--baseline"), QStringLiteral("Z")});
        QCOMPARE(unknown.code, 2);
        QVERIFY2(unknown.err.contains(
                     QStringLiteral("use one of: 0 \"Q (simulated)\", 1 \"nvfp4-like (simulated)\"")),
            qPrintable(unknown.err));
    }

    void judgeGradesComparesResumesAndExplainsItself()
    {
        QTemporaryDir dir;
        const QString measured = dir.filePath(QStringLiteral("r.json"));
        const QString judged = dir.filePath(QStringLiteral("judged.json"));
        const Run r
            = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
                      QStringLiteral("--endpoint"), QStringLiteral("name=Q,url=sim:q4km-like"),
                      QStringLiteral("--endpoint"), QStringLiteral("name=N,url=sim:nvfp4-like"),
                      QStringLiteral("--runs"), QStringLiteral("3"), QStringLiteral("--out"), measured},
                120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QStringList judgeArgs {QStringLiteral("judge"), measured, QStringLiteral("--judge"),
            QStringLiteral("url=sim:judge"), QStringLiteral("--rubric"), QStringLiteral("voice-assistant"),
            QStringLiteral("--pairwise"), QStringLiteral("Q (simulated)"), QStringLiteral("--out"), judged};
        const Run j = run(judgeArgs, 120000);
        QVERIFY2(j.code == 0, qPrintable(j.err));
        QVERIFY2(j.err.contains(QStringLiteral("Judged: ")), qPrintable(j.err));

        const Run s = run({QStringLiteral("summary"), judged, QStringLiteral("--json")});
        QCOMPARE(s.code, 0);
        const QJsonObject judge
            = QJsonDocument::fromJson(s.out.toUtf8()).object().value(QStringLiteral("judge")).toObject();
        QCOMPARE(judge.value(QStringLiteral("judge")).toObject().value(QStringLiteral("model")).toString(),
            QStringLiteral("sim-judge-heuristic"));
        QCOMPARE(judge.value(QStringLiteral("rubric")).toArray().size(), 2);
        const QJsonObject pair = judge.value(QStringLiteral("pairwise")).toArray().first().toObject();
        for (const char* key : {"candidate", "baseline", "pairs", "wins", "losses", "ties", "inconsistent",
                 "consistency", "first_position_rate", "win_rate", "win_rate_ci", "winner"})
            QVERIFY2(pair.contains(QLatin1String(key)), key);
        QCOMPARE(pair.value(QStringLiteral("baseline")).toString(), QStringLiteral("Q (simulated)"));
        QCOMPARE(pair.value(QStringLiteral("pairs")).toInt(), 6); // 2 tests × 3 runs
        const Run text = run({QStringLiteral("summary"), judged});
        QVERIFY2(text.out.contains(QStringLiteral("Judged quality"))
                && text.out.contains(QStringLiteral("blind pairwise")),
            qPrintable(text.out));
        // The measured file is untouched; the judged one still has every record.
        const Run plain = run({QStringLiteral("summary"), measured, QStringLiteral("--json")});
        QVERIFY(QJsonDocument::fromJson(plain.out.toUtf8()).object().value(QStringLiteral("judge")).isNull());

        // Again on the judged file: everything is kept, nothing is asked again.
        QStringList againArgs = judgeArgs;
        againArgs[1] = judged;
        const Run again = run(againArgs, 120000);
        QVERIFY2(again.code == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains(QStringLiteral("Resuming"))
                && again.err.contains(QStringLiteral("Judged: 0 judgements")),
            qPrintable(again.err));

        // Wrong command lines exit 2 and say what to type; a dead judge exits 1 and changes nothing.
        const Run noJob = run({QStringLiteral("judge"), measured, QStringLiteral("--judge"),
            QStringLiteral("url=sim:judge"), QStringLiteral("--out"), judged});
        QCOMPARE(noJob.code, 2);
        QVERIFY2(noJob.err.contains(QStringLiteral("--rubric NAME|FILE")), qPrintable(noJob.err));
        const Run badRubric = run(
            {QStringLiteral("judge"), measured, QStringLiteral("--judge"), QStringLiteral("url=sim:judge"),
                QStringLiteral("--rubric"), QStringLiteral("nosuch"), QStringLiteral("--out"), judged});
        QCOMPARE(badRubric.code, 2);
        QVERIFY2(badRubric.err.contains(QStringLiteral("bad rubric")), qPrintable(badRubric.err));
        const Run badBaseline = run(
            {QStringLiteral("judge"), measured, QStringLiteral("--judge"), QStringLiteral("url=sim:judge"),
                QStringLiteral("--pairwise"), QStringLiteral("Z"), QStringLiteral("--out"), judged});
        QCOMPARE(badBaseline.code, 2);
        QVERIFY2(
            badBaseline.err.contains(QStringLiteral("0 \"Q (simulated)\"")), qPrintable(badBaseline.err));
        const QString dead = dir.filePath(QStringLiteral("dead.json"));
        const Run deadJudge = run({QStringLiteral("judge"), measured, QStringLiteral("--judge"),
            QStringLiteral("url=http://127.0.0.1:1"), QStringLiteral("--pairwise"), QStringLiteral("0"),
            QStringLiteral("--out"), dead});
        QCOMPARE(deadJudge.code, 1);
        QVERIFY2(deadJudge.err.contains(QStringLiteral("cannot be used")), qPrintable(deadJudge.err));
        QVERIFY(!QFile::exists(dead));
    }

    void sigkillLosesNoFinishedRequest()
    {
        QTemporaryDir dir;
        const QString suite = dir.filePath(QStringLiteral("long.json"));
        QFile f(suite);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"id": "long", "name": "Long",
                   "defaults": {"max_tokens": 32, "temperature": 0, "warmup": 0, "runs": 40},
                   "tests": [{"id": "factual", "prompt": "What is the capital of Japan?", "expect": ["Tokyo"]}]})");
        f.close();
        const QString out = dir.filePath(QStringLiteral("killed.json"));
        const QString journal = out + QStringLiteral(".journal");
        QProcess p;
        p.start(QStringLiteral(QS_BINARY),
            {QStringLiteral("run"), QStringLiteral("--suite"), suite, QStringLiteral("--endpoint"),
                QStringLiteral("url=sim:q4km-like"), QStringLiteral("--out"), out,
                QStringLiteral("--quiet")});
        QVERIFY(p.waitForStarted());
        // Whole lines after the header that hold a record (server metrics sources and samples,
        // journalled beside them, start with {"source": and {"telemetry":).
        const auto journalRecords = [&] {
            QFile j(journal);
            if (!j.open(QIODevice::ReadOnly))
                return 0;
            QList<QByteArray> lines = j.readAll().split('\n');
            lines.removeLast(); // after the last newline: empty, or a line cut short
            return int(std::count_if(
                lines.begin() + std::min<qsizetype>(1, lines.size()), lines.end(), [](const QByteArray& l) {
                    return !l.startsWith("{\"telemetry\":") && !l.startsWith("{\"source\":");
                }));
        };
        QTRY_VERIFY_WITH_TIMEOUT(journalRecords() >= 5, 60000);
        QVERIFY(p.state() == QProcess::Running);
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);
        QVERIFY(!QFile::exists(out));
        const int finished = journalRecords();
        QVERIFY(finished >= 5 && finished < 40);

        // A second run into the same file refuses to overwrite the evidence.
        Run again = run({QStringLiteral("run"), QStringLiteral("--suite"), suite,
            QStringLiteral("--endpoint"), QStringLiteral("url=sim:q4km-like"), QStringLiteral("--out"), out});
        QCOMPARE(again.code, 2);
        QVERIFY(again.err.contains(QStringLiteral("quantscope recover")));

        const QString recovered = dir.filePath(QStringLiteral("recovered.json"));
        const Run rec = run({QStringLiteral("recover"), journal, QStringLiteral("--out"), recovered});
        QVERIFY2(rec.code == 0, qPrintable(rec.err));
        const Run s = run({QStringLiteral("summary"), recovered, QStringLiteral("--json")});
        QCOMPARE(s.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(s.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("records")).toInt(), finished);
        QCOMPARE(o.value(QStringLiteral("failures")).toInt(), 0);
    }

    void badSuitesAndDeadEndpointsExplainThemselves()
    {
        QTemporaryDir dir;
        const QString suite = dir.filePath(QStringLiteral("bad.json"));
        QFile f(suite);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"id": "bad", "tests": [{"id": "x", "prompt": 42}]})");
        f.close();
        const QString out = dir.filePath(QStringLiteral("o.json"));
        Run r = run({QStringLiteral("run"), QStringLiteral("--suite"), suite, QStringLiteral("--endpoint"),
            QStringLiteral("url=sim:q4km-like"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("tests[0].prompt")), qPrintable(r.err));

        QTcpServer s;
        s.listen(QHostAddress::LocalHost, 0);
        const quint16 port = s.serverPort();
        s.close();
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
            QStringLiteral("--endpoint"), QStringLiteral("name=dead,url=http://127.0.0.1:%1").arg(port),
            QStringLiteral("--out"), out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("no endpoint is reachable")), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));

        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("no-such-suite"),
            QStringLiteral("--endpoint"), QStringLiteral("url=sim:q4km-like"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
            QStringLiteral("--endpoint"), QStringLiteral("url=sim:no-such-profile"), QStringLiteral("--out"),
            out});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("sim:q4km-like")));
        r = run({QStringLiteral("summary"), suite});
        QCOMPARE(r.code, 1);
        QVERIFY2(!r.err.isEmpty(), "a suite file is not a results file");
    }
    void fidelitySuiteWithAReference()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("fidelity.json"));
        const QStringList endpoints
            = {QStringLiteral("--endpoint"), QStringLiteral("name=Ref,url=sim:q4km-like"),
                QStringLiteral("--endpoint"), QStringLiteral("name=Q,url=sim:nvfp4-like")};
        // A reference that names no endpoint is refused before anything runs.
        Run r = run(QStringList {QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("fidelity")}
            + endpoints
            + QStringList {
                QStringLiteral("--reference"), QStringLiteral("Nope"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral(
                     "--reference Nope is not one of the endpoints; use one of: 0 \"Ref (simulated)\", "
                     "1 \"Q (simulated)\"")),
            qPrintable(r.err));
        QVERIFY(!QFile::exists(out));

        // Shortened (no warm-up, 8 tokens, both arms at once) to keep the test quick; the name= given
        // finds the endpoint as well as its label "Ref (simulated)" would.
        r = run(QStringList {QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("fidelity")}
                + endpoints
                + QStringList {QStringLiteral("--reference"), QStringLiteral("Ref"),
                    QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("--max-tokens"),
                    QStringLiteral("8"), QStringLiteral("--order"), QStringLiteral("parallel"),
                    QStringLiteral("--no-server-metrics"), QStringLiteral("--quiet"), QStringLiteral("--out"),
                    out},
            180000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile results(out);
        QVERIFY(results.open(QIODevice::ReadOnly));
        const QJsonObject file = QJsonDocument::fromJson(results.readAll()).object();
        const QJsonArray fileEndpoints = file.value(QStringLiteral("endpoints")).toArray();
        QCOMPARE(fileEndpoints.size(), 2);
        QCOMPARE(fileEndpoints[0].toObject().value(QStringLiteral("reference")), QJsonValue(true));
        QVERIFY(!fileEndpoints[1].toObject().value(QStringLiteral("reference")).toBool());
        // Every request of the fidelity suite: greedy, seeded, logprobs asked for, 8 tokens on both arms.
        const QJsonArray records = file.value(QStringLiteral("records")).toArray();
        QCOMPARE(records.size(), 2 * 48);
        for (const auto& v : records) {
            const QJsonObject rec = v.toObject();
            const QJsonObject body = rec.value(QStringLiteral("request")).toObject();
            const QString where = rec.value(QStringLiteral("endpoint")).toString() + QStringLiteral(" ")
                + rec.value(QStringLiteral("test")).toString();
            QVERIFY2(body.value(QStringLiteral("temperature")) == QJsonValue(0), qPrintable(where));
            QVERIFY2(body.value(QStringLiteral("seed")) == QJsonValue(1), qPrintable(where));
            QVERIFY2(body.value(QStringLiteral("max_tokens")) == QJsonValue(8), qPrintable(where));
            QVERIFY2(body.value(QStringLiteral("top_logprobs")) == QJsonValue(20)
                    || body.value(QStringLiteral("n_probs")) == QJsonValue(20),
                qPrintable(where));
        }

        Run s = run({QStringLiteral("summary"), out, QStringLiteral("--json")});
        QVERIFY2(s.code == 0, qPrintable(s.err));
        QVERIFY2(QJsonDocument::fromJson(s.out.toUtf8()).object().value(QStringLiteral("fidelity")).isArray(),
            qPrintable(s.out));
        s = run({QStringLiteral("summary"), out});
        QCOMPARE(s.code, 0);
        QVERIFY2(s.out.contains(QStringLiteral("Ref (simulated)  sim:q4km-like")), qPrintable(s.out));
        QVERIFY2(s.out.contains(QStringLiteral("fidelity reference")), qPrintable(s.out));
        // summary --reference overrides the file's; one that names no endpoint lists them.
        s = run({QStringLiteral("summary"), out, QStringLiteral("--json"), QStringLiteral("--reference"),
            QStringLiteral("1")});
        QVERIFY2(s.code == 0, qPrintable(s.err));
        QVERIFY(QJsonDocument::fromJson(s.out.toUtf8()).object().value(QStringLiteral("fidelity")).isArray());
        s = run({QStringLiteral("summary"), out, QStringLiteral("--reference"), QStringLiteral("Z")});
        QCOMPARE(s.code, 2);
        QVERIFY2(s.err.contains(QStringLiteral("--reference Z is not one of the endpoints; use one of: 0 ")),
            qPrintable(s.err));

        // A suite without fidelity tests: the reference is kept, and a note says nothing is compared.
        QTcpServer closed;
        closed.listen(QHostAddress::LocalHost, 0);
        const quint16 port = closed.serverPort();
        closed.close();
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
            QStringLiteral("--endpoint"), QStringLiteral("name=dead,url=http://127.0.0.1:%1").arg(port),
            QStringLiteral("--reference"), QStringLiteral("dead"), QStringLiteral("--out"),
            dir.filePath(QStringLiteral("none.json"))});
        QVERIFY2(r.err.contains(QStringLiteral("suite \"quick-smoke\" has none (try --suite fidelity)")),
            qPrintable(r.err));
    }

    void endpointSpecsAndFilesReachTheRequests()
    {
        QTemporaryDir dir;
        const QString endpoints = dir.filePath(QStringLiteral("endpoints.json"));
        QFile f(endpoints);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"([{"name": "From file", "url": "sim:nvfp4-like", "quant": "NVFP4", "body": {"top_k": 7}}])");
        f.close();
        const QString out = dir.filePath(QStringLiteral("specs.json"));
        const Run r = run(
            {QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
                QStringLiteral("--endpoints"), endpoints, QStringLiteral("--endpoint"),
                QStringLiteral("name=Spec,url=sim:q4km-like,quant=Q4_K_M,body={\"top_p\":0.5,\"min_p\":0.1}"),
                QStringLiteral("--order"), QStringLiteral("sequential"), QStringLiteral("--runs"),
                QStringLiteral("2"), QStringLiteral("--out"), out},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile results(out);
        QVERIFY(results.open(QIODevice::ReadOnly));
        const QJsonObject file = QJsonDocument::fromJson(results.readAll()).object();
        QCOMPARE(file.value(QStringLiteral("settings")).toObject().value(QStringLiteral("order")).toString(),
            QStringLiteral("sequential"));
        const QJsonArray records = file.value(QStringLiteral("records")).toArray();
        QCOMPARE(records.size(), 2 * 2 * 2); // 2 endpoints × 2 tests × --runs 2
        int spec = 0, fromFile = 0;
        for (const auto& v : records) {
            const QJsonObject rec = v.toObject();
            const QJsonObject body = rec.value(QStringLiteral("request")).toObject();
            if (rec.value(QStringLiteral("endpoint")).toString() == QStringLiteral("Spec (simulated)")) {
                ++spec;
                QCOMPARE(body.value(QStringLiteral("top_p")).toDouble(), 0.5); // body= kept its comma
                QCOMPARE(body.value(QStringLiteral("min_p")).toDouble(), 0.1);
            } else {
                ++fromFile;
                QCOMPARE(body.value(QStringLiteral("top_k")).toInt(), 7);
            }
        }
        QCOMPARE(spec, 4);
        QCOMPARE(fromFile, 4);
    }

    void metricsUrlsScrapeMsAndNoServerMetrics()
    {
        QTemporaryDir dir;
        QTcpServer s;
        s.listen(QHostAddress::LocalHost, 0);
        const quint16 port = s.serverPort();
        s.close(); // a dead exporter: the run goes on, its samples are a gap with a note
        const QString dead = QStringLiteral("127.0.0.1:%1").arg(port);
        const QString endpoints = dir.filePath(QStringLiteral("endpoints.json"));
        QFile f(endpoints);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(R"([{"name": "F", "url": "sim:nvfp4-like", "metrics": ["%1"]}])")
                    .arg(dead)
                    .toUtf8());
        f.close();
        const QString out = dir.filePath(QStringLiteral("m.json"));
        Run r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
                        QStringLiteral("--endpoint"),
                        QStringLiteral("name=S,url=sim:q4km-like,metrics=%1|http://%1/custom").arg(dead),
                        QStringLiteral("--endpoints"), endpoints, QStringLiteral("--runs"),
                        QStringLiteral("1"), QStringLiteral("--warmup"), QStringLiteral("0"),
                        QStringLiteral("--scrape-ms"), QStringLiteral("100"), QStringLiteral("--out"), out},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile results(out);
        QVERIFY(results.open(QIODevice::ReadOnly));
        const QJsonObject file = QJsonDocument::fromJson(results.readAll()).object();
        const QJsonArray eps = file.value(QStringLiteral("endpoints")).toArray();
        const auto metricsOf = [&](int i) {
            return eps[i]
                .toObject()
                .value(QStringLiteral("endpoint"))
                .toObject()
                .value(QStringLiteral("metrics"))
                .toArray();
        };
        // The user's URLs first, then the simulated DCGM and node exporters of the sim: endpoint.
        QCOMPARE(metricsOf(0).size(), 4);
        QCOMPARE(metricsOf(0)[0].toString(), QStringLiteral("http://%1/metrics").arg(dead)); // normalised
        QCOMPARE(metricsOf(0)[1].toString(), QStringLiteral("http://%1/custom").arg(dead));
        QCOMPARE(metricsOf(1).size(), 3);
        QCOMPARE(metricsOf(1)[0].toString(), QStringLiteral("http://%1/metrics").arg(dead));
        const QJsonObject telemetry = file.value(QStringLiteral("telemetry")).toObject();
        QCOMPARE(telemetry.value(QStringLiteral("period_ms")).toInt(), 100);
        const QJsonArray sources = telemetry.value(QStringLiteral("sources")).toArray();
        QVERIFY2(sources.size() >= 3, QJsonDocument(telemetry).toJson().constData());
        bool noted = false;
        for (const auto& src : sources)
            for (const auto& n : src.toObject().value(QStringLiteral("notes")).toArray())
                noted = noted || n.toString().contains(QStringLiteral("down: connection refused"));
        QVERIFY(noted);

        // Bad periods are refused with the range; --no-server-metrics says so in the file.
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
            QStringLiteral("--endpoint"), QStringLiteral("url=sim:q4km-like"), QStringLiteral("--scrape-ms"),
            QStringLiteral("10"), QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--scrape-ms must be a whole number from 50 to 60000")),
            qPrintable(r.err));
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
            QStringLiteral("--endpoint"), QStringLiteral("url=sim:q4km-like,metrics=ftp://x"),
            QStringLiteral("--out"), out});
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.err.contains(QStringLiteral("not an http(s) URL of a Prometheus page")), qPrintable(r.err));
        const QString off = dir.filePath(QStringLiteral("off.json"));
        r = run({QStringLiteral("run"), QStringLiteral("--suite"), QStringLiteral("quick-smoke"),
                    QStringLiteral("--endpoint"), QStringLiteral("url=sim:q4km-like,metrics=%1").arg(dead),
                    QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--warmup"),
                    QStringLiteral("0"), QStringLiteral("--no-server-metrics"), QStringLiteral("--out"), off},
            120000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile offFile(off);
        QVERIFY(offFile.open(QIODevice::ReadOnly));
        const QJsonObject offTelemetry = QJsonDocument::fromJson(offFile.readAll())
                                             .object()
                                             .value(QStringLiteral("telemetry"))
                                             .toObject();
        QCOMPARE(offTelemetry.value(QStringLiteral("period_ms")).toInt(), 0);
        QVERIFY(offTelemetry.value(QStringLiteral("notes"))
                    .toArray()
                    .contains(QJsonValue(QStringLiteral("scraping off (--no-server-metrics)"))));
        QVERIFY(run({QStringLiteral("run"), QStringLiteral("--help")})
                    .out.contains(QStringLiteral("--scrape-ms")));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"

// SPDX-License-Identifier: MIT
// The quantscope binary end to end: real process, real sockets, emulators started by the test.
#include "tests/support/Emulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QtTest>

class TestCli : public QObject {
    Q_OBJECT

    struct Run {
        int code = -1;
        QString out;
        QString err;
    };

    static Run run(const QStringList& args, int timeoutMs = 60000)
    {
        QProcess p;
        p.start(QStringLiteral(QS_BINARY), args);
        Run r;
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            r.err = QStringLiteral("timed out");
            return r;
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

private slots:
    void version()
    {
        const Run r = run({QStringLiteral("--version")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("quantscope ")));
    }

    void defaultRunsTheSimulatedEndpoints()
    {
        const Run r = run({});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("llama-server")) && r.out.contains(QStringLiteral("vllm"))
                && r.out.contains(QStringLiteral("sglang")),
            qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("ttft_visible_ms")));
        QVERIFY(!r.out.contains(QStringLiteral("FAILED")));
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
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"

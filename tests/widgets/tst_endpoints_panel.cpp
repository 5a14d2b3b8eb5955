// SPDX-License-Identifier: MIT
// Endpoints panel, fed from the fixture's endpoints and probes: adding, duplicating and removing
// entries, probe states and what a probe found (its metrics pages too), locking, the fidelity
// reference role; and the screenshots of the panels (endpoints, editor, run). Writes screenshots to
// $QS_SHOTS_DIR when it is set.
#include "PanelsTestSupport.h"
#include "WidgetTestSupport.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/Theme.h"
#include "widgets/panels/EndpointEditor.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/ProbeMetricsText.h"
#include "widgets/panels/RunPanel.h"

#include <QApplication>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStyleFactory>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>

using namespace qs;
using namespace qs::test;

namespace {

/// The probe the fixture's run stored for endpoint `index`, back as a ProbeResult.
ProbeResult fixtureProbe(const RunResult& run, int index)
{
    const nlohmann::json& j = run.endpoints[std::size_t(index)].probe;
    ProbeResult p;
    p.endpoint = run.endpoints[std::size_t(index)].endpoint;
    p.reachable = j.value("reachable", false);
    p.healthPath = str(j["health"], "path");
    p.healthStatus = j["health"].value("status", 0);
    p.healthy = j["health"].value("healthy", false);
    p.healthDetail = str(j["health"], "detail");
    p.model = str(j, "model");
    for (const auto& m : j["models"])
        p.models << QString::fromStdString(m.get<std::string>());
    p.modelListed = j.value("model_listed", true);
    p.runtime = runtimeFromName(str(j, "runtime")).value_or(Runtime::Unknown);
    p.runtimeEvidence = str(j, "runtime_evidence");
    p.serverVersion = str(j, "server_version");
    p.serverHeader = str(j, "server_header");
    if (j["context_size"].is_number())
        p.contextSize = j["context_size"].get<qint64>();
    p.contextSource = str(j, "context_source");
    if (j["total_slots"].is_number())
        p.totalSlots = j["total_slots"].get<int>();
    for (const auto& s : j["rtt_samples_ms"])
        p.rttSamplesMs.push_back(s.get<double>());
    p.rttMedianMs = j["rtt_median_ms"].get<double>();
    return p;
}

/// Renders at 2×, checks the image is not blank, and keeps it when QS_SHOTS_DIR is set.
void shoot(QWidget* w, const QString& name, Theme theme)
{
    qApp->setPalette(themePalette(theme));
    w->setPalette(themePalette(theme));
    w->show();
    QCoreApplication::processEvents();
    const QImage image = renderWidget(w, 2.0);
    QCOMPARE(image.size(), w->size() * 2);
    QVERIFY2(test::distinctColours(image) > 20, qPrintable(name));
    const QString dir = qEnvironmentVariable("QS_SHOTS_DIR");
    if (!dir.isEmpty())
        QCOMPARE(
            savePng(image, dir + u'/' + name + u'-' + themeId(theme) + QStringLiteral(".png")), QString());
}

} // namespace

class TestEndpointsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    // --- EndpointsPanel ------------------------------------------------------------------------

    void probeShowsWhatMetricsAnswered()
    {
        const ThemeColors& c = themeColors(Theme::Light);
        QCOMPARE(probeMetricsHtml(nlohmann::json::object(), c), QString()); // the key is absent: nothing
        QCOMPARE(probeMetricsHtml(nlohmann::json {{"metrics", "garbage"}, {"exporters", 3}}, c), QString());
        nlohmann::json probe = {{"runtime", "vllm"},
            {"metrics",
                {{"url", "http://10.0.0.5:8000/metrics"}, {"answered", true}, {"status", 200},
                    {"format", "prometheus-0.0.4"}, {"flavour", "vllm"},
                    {"families", {"vllm:num_requests_running", "vllm:kv_cache_usage_perc"}}}},
            {"exporters",
                {{{"url", "http://10.0.0.5:9400/metrics"}, {"answered", false}, {"status", 0},
                    {"error", "connection refused <b>"}}}}};
        QTextBrowser view;
        view.setHtml(QStringLiteral("<table>") + probeMetricsHtml(probe, c) + QStringLiteral("</table>"));
        const QString text = view.toPlainText();
        QVERIFY2(text.contains(u"✓ answered (vllm, prometheus-0.0.4): 2 known families — "
                               u"vllm:num_requests_running, vllm:kv_cache_usage_perc"),
            qPrintable(text));
        QVERIFY(text.contains(u"http://10.0.0.5:9400/metrics"));
        QVERIFY(text.contains(u"✗ no answer: connection refused <b>")); // escaped, shown as text

        // Not answering: the server flag that turns it on (the probe's hint, or the runtime's).
        probe = {{"runtime", "llama-server"},
            {"metrics", {{"url", "http://h:8080/metrics"}, {"answered", false}, {"status", 501}}}};
        view.setHtml(QStringLiteral("<table>") + probeMetricsHtml(probe, c) + QStringLiteral("</table>"));
        QVERIFY2(view.toPlainText().contains(u"✗ HTTP 501"), qPrintable(view.toPlainText()));
        QVERIFY(view.toPlainText().contains(u"start llama-server with --metrics"));
        probe["metrics"]["hint"] = "start SGLang with --enable-metrics";
        view.setHtml(QStringLiteral("<table>") + probeMetricsHtml(probe, c) + QStringLiteral("</table>"));
        QVERIFY(view.toPlainText().contains(u"start SGLang with --enable-metrics"));
        QVERIFY(!view.toPlainText().contains(u"--metrics\n"));
    }

    void panelAddDuplicateRemove()
    {
        const auto run = test::loadFixture();
        EndpointsPanel panel;
        QSignalSpy changed(&panel, &EndpointsPanel::entriesChanged);
        auto* tree = panel.findChild<QTreeWidget*>();
        const auto entries = fixtureEntries(*run);
        panel.addEntry(entries[0]);
        panel.addEntry(entries[1]);
        QCOMPARE(changed.size(), 2);
        auto list = panel.entries();
        QCOMPARE(list.size(), std::size_t(2));
        QVERIFY(list[0].id != list[1].id);
        QCOMPARE(list[1].endpoint.label, QStringLiteral("nvfp4-like (simulated)"));
        QCOMPARE(tree->topLevelItem(1)->text(1), QStringLiteral("simulated: nvfp4-like"));
        QCOMPARE(tree->topLevelItem(0)->text(2), QStringLiteral("sim-qwen3.5-9b-q4_k_m"));
        QCOMPARE(tree->topLevelItem(1)->text(3), QStringLiteral("vllm"));
        QCOMPARE(panel.selectedEntryId(), list[1].id); // the one just added

        panel.duplicateEntry(list[0].id);
        QCOMPARE(changed.size(), 3);
        list = panel.entries();
        QCOMPARE(list.size(), std::size_t(3));
        QCOMPARE(list[1].endpoint.label, QStringLiteral("q4km-like (simulated) (copy)"));
        QCOMPARE(list[1].simulatedProfile, QStringLiteral("q4km-like"));
        QVERIFY(list[1].id != list[0].id && list[1].id != list[2].id);
        QCOMPARE(panel.selectedEntryId(), list[1].id);

        panel.removeEntry(list[1].id);
        QCOMPARE(changed.size(), 4);
        QCOMPARE(panel.entries().size(), std::size_t(2));
        QCOMPARE(panel.selectedEntryId(), list[2].id); // the next one takes the place
        panel.removeEntry(12345); // unknown: nothing happens
        QCOMPARE(changed.size(), 4);

        // setEntries reassigns ids and keeps the order.
        panel.setEntries(entries);
        QCOMPARE(changed.size(), 5);
        QCOMPARE(panel.entries()[0].endpoint.label, entries[0].endpoint.label);
        QVERIFY(panel.entries()[0].id != list[0].id);
    }

    void panelProbeStates()
    {
        const auto run = test::loadFixture();
        EndpointsPanel panel;
        panel.setEntries(fixtureEntries(*run));
        auto* tree = panel.findChild<QTreeWidget*>();
        auto* details = panel.findChild<QTextBrowser*>();
        const int q4 = panel.entries()[0].id;
        const int nv = panel.entries()[1].id;
        panel.selectEntry(q4);
        QCOMPARE(panel.probeState(q4), EndpointsPanel::ProbeState::NotProbed);
        QVERIFY(details->toPlainText().contains(u"Not probed yet"));

        QSignalSpy requested(&panel, &EndpointsPanel::probeRequested);
        buttonNamed(&panel, QStringLiteral("Probe"))->click();
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested[0][0].toInt(), q4);
        buttonNamed(&panel, QStringLiteral("Probe all"))->click();
        QCOMPARE(requested.size(), 3);

        panel.setProbing(q4);
        QCOMPARE(panel.probeState(q4), EndpointsPanel::ProbeState::Probing);

        // Usable → green dot; the details show what the fixture's probe found.
        const ProbeResult p = fixtureProbe(*run, 0);
        panel.setProbeResult(q4, p);
        QCOMPARE(panel.probeState(q4), EndpointsPanel::ProbeState::Usable);
        const QImage dot = tree->topLevelItem(0)->icon(0).pixmap(24, 24).toImage();
        QCOMPARE(dot.pixelColor(12, 12).rgb(), themeColors(Theme::Light).pass.rgb());
        QCOMPARE(tree->topLevelItem(0)->text(4), QLocale().toString(qint64(32768)) + QStringLiteral(" tok"));
        QCOMPARE(tree->topLevelItem(0)->text(5), QStringLiteral("0.03 ms"));
        const QString text = details->toPlainText();
        QVERIFY2(text.contains(u"GET /health → 200 healthy (ok)"), qPrintable(text));
        QVERIFY(text.contains(u"llama-server"));
        QVERIFY(text.contains(u"owned_by \"llamacpp\""));
        QVERIFY(text.contains(u"b9478-simulated"));
        QVERIFY(text.contains(QLocale().toString(qint64(32768)) + QStringLiteral(" tokens per request")));
        QVERIFY(text.contains(u"n_ctx (per slot)"));
        QVERIFY(text.contains(u"median 0.03 ms over 3 requests"));
        QVERIFY(text.contains(u"listed in /v1/models"));

        // Warnings → amber.
        ProbeResult warned = fixtureProbe(*run, 1);
        warned.warnings << QStringLiteral("/health answered 503 (Loading model): the server is not ready");
        panel.setProbeResult(nv, warned);
        QCOMPARE(panel.probeState(nv), EndpointsPanel::ProbeState::Warnings);
        QCOMPARE(panel.selectedEntryId(), q4); // a result for another entry keeps the selection
        panel.selectEntry(nv);
        QVERIFY(details->toPlainText().contains(u"Loading model"));

        // Failure → red, with the advice shown.
        ProbeResult failed;
        failed.endpoint = run->endpoints[1].endpoint;
        failed.failure = makeFailure(FailureKind::ConnectionRefused,
            QStringLiteral("connection refused by 127.0.0.1:44745"),
            QStringLiteral("Is the server running? Check the port and that it listens on this address."));
        panel.setProbeResult(nv, failed);
        QCOMPARE(panel.probeState(nv), EndpointsPanel::ProbeState::Unusable);
        QCOMPARE(tree->topLevelItem(1)->icon(0).pixmap(24, 24).toImage().pixelColor(12, 12).rgb(),
            themeColors(Theme::Light).criticalAccent.rgb());
        QVERIFY(details->toPlainText().contains(u"connection refused by 127.0.0.1:44745"));
        QVERIFY(details->toPlainText().contains(u"Is the server running?"));
        QVERIFY(details->toHtml().contains(themeColors(Theme::Light).criticalAccent.name()));
        QVERIFY(tree->topLevelItem(1)->toolTip(0).contains(u"Is the server running?"));
    }

    void panelLockDisablesEditing()
    {
        EndpointsPanel panel;
        panel.setEntries(fixtureEntries(*test::loadFixture()));
        panel.selectEntry(panel.entries()[0].id);
        for (const QString& b : {QStringLiteral("Add…"), QStringLiteral("Edit…"), QStringLiteral("Duplicate"),
                 QStringLiteral("Remove"), QStringLiteral("Probe")})
            QVERIFY2(buttonNamed(&panel, b)->isEnabled(), qPrintable(b));
        panel.setLocked(true);
        for (const QString& b : {QStringLiteral("Add…"), QStringLiteral("Edit…"), QStringLiteral("Duplicate"),
                 QStringLiteral("Remove"), QStringLiteral("Probe all")})
            QVERIFY2(!buttonNamed(&panel, b)->isEnabled(), qPrintable(b));
        QVERIFY(!panel.editEntry(panel.entries()[0].id));
        panel.setLocked(false);
        QVERIFY(buttonNamed(&panel, QStringLiteral("Remove"))->isEnabled());
    }

    void panelEmpty()
    {
        EndpointsPanel panel;
        QCOMPARE(panel.selectedEntryId(), -1);
        QVERIFY(panel.entries().empty());
        QVERIFY(!buttonNamed(&panel, QStringLiteral("Edit…"))->isEnabled());
        QVERIFY(!buttonNamed(&panel, QStringLiteral("Probe all"))->isEnabled());
        QVERIFY(panel.findChild<QTextBrowser*>()->toPlainText().contains(u"No endpoints yet"));
        panel.setProbeResult(7, ProbeResult()); // unknown id: ignored
        panel.duplicateEntry(7);
        QVERIFY(panel.entries().empty());
    }

    // --- The fidelity reference role ------------------------------------------------------------

    void referenceIsExclusive()
    {
        const auto run = test::loadFixture();
        std::vector<EndpointEntry> entries = fixtureEntries(*run);
        entries.push_back(entries[0]);
        entries[0].reference = true;
        entries[2].reference = true; // a hand-edited settings file: the first one stays
        EndpointsPanel panel;
        panel.setEntries(entries);
        const auto marked = [&panel] {
            QList<bool> out;
            for (const EndpointEntry& e : panel.entries())
                out << e.reference;
            return out;
        };
        QCOMPARE(marked(), (QList<bool> {true, false, false}));
        const int first = panel.entries()[0].id;
        const int second = panel.entries()[1].id;
        QCOMPARE(panel.referenceEntryId(), first);

        QSignalSpy changed(&panel, &EndpointsPanel::entriesChanged);
        panel.setReferenceEntry(second);
        QCOMPARE(marked(), (QList<bool> {false, true, false}));
        QCOMPARE(changed.count(), 1);
        panel.setReferenceEntry(second); // already: nothing changes
        QCOMPARE(changed.count(), 1);

        // The list tags it where the eye lands.
        auto* tree = panel.findChild<QTreeWidget*>();
        QVERIFY(tree);
        QVERIFY(!tree->topLevelItem(0)->text(0).contains(u"reference"));
        QVERIFY(tree->topLevelItem(1)->text(0).endsWith(u"(fidelity reference)"));
        QVERIFY(tree->topLevelItem(1)->font(0).bold());

        // A duplicate is not a second reference; an added reference takes the role over.
        panel.duplicateEntry(second);
        QCOMPARE(marked(), (QList<bool> {false, true, false, false}));
        EndpointEntry added = entries[1];
        added.reference = true;
        panel.addEntry(added);
        QCOMPARE(marked(), (QList<bool> {false, false, false, false, true}));
        QVERIFY(!tree->topLevelItem(1)->text(0).contains(u"reference"));

        panel.setReferenceEntry(-1);
        QCOMPARE(panel.referenceEntryId(), -1);
        QVERIFY(!marked().contains(true));
    }

    // --- Screenshots ---------------------------------------------------------------------------

    void render_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::newRow("light") << Theme::Light;
        QTest::newRow("dark") << Theme::Dark;
    }
    void render()
    {
        QFETCH(Theme, theme);
        qApp->setPalette(themePalette(theme));
        const auto run = test::loadFixture();

        EndpointsPanel endpoints;
        endpoints.resize(900, 560);
        auto entries = fixtureEntries(*run);
        EndpointEntry real;
        real.endpoint.label = QStringLiteral("Q4_K_M llama-server (spark)");
        real.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8003"));
        real.endpoint.quantization = QStringLiteral("Q4_K_M");
        entries.push_back(real);
        endpoints.setEntries(entries);
        endpoints.setProbeResult(endpoints.entries()[0].id, fixtureProbe(*run, 0));
        ProbeResult warned = fixtureProbe(*run, 1);
        warned.warnings << QStringLiteral("tool calls need --enable-auto-tool-choice and --tool-call-parser");
        endpoints.setProbeResult(endpoints.entries()[1].id, warned);
        ProbeResult failed;
        failed.endpoint = real.endpoint;
        failed.failure = makeFailure(FailureKind::ConnectionRefused,
            QStringLiteral("Connection refused by 10.0.0.5:8003"),
            QStringLiteral("Nothing listens there: is the server running, and on this port?"));
        endpoints.setProbeResult(endpoints.entries()[2].id, failed);
        endpoints.selectEntry(endpoints.entries()[0].id);
        shoot(&endpoints, QStringLiteral("endpoints"), theme);
        endpoints.selectEntry(endpoints.entries()[2].id);
        shoot(&endpoints, QStringLiteral("endpoints-failure"), theme);

        EndpointEntry edited = fixtureEntries(*run)[1];
        edited.simulatedProfile.clear();
        edited.endpoint.label = QStringLiteral("NVFP4 vLLM (spark)");
        edited.endpoint.model = QStringLiteral("qwen3.5-9b-nvfp4");
        edited.endpoint.quantization = QStringLiteral("NVFP4");
        edited.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
        edited.endpoint.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
        edited.endpoint.metricsUrls = {QStringLiteral("http://10.0.0.5:9400/metrics")};
        EndpointEditor editor(edited, profiles);
        child<QPlainTextEdit>(&editor, "metricsUrls")
            ->setPlainText(
                QStringLiteral("http://10.0.0.5:9400/metrics\n10.0.0.5:9100 | ftp://10.0.0.5/metrics"));
        editor.resize(620, editor.sizeHint().height());
        child<QLineEdit>(&editor, "apiKeyEnv")->setText(QStringLiteral("sk-proj-4f9aQ2x7Lm3Np8Rt"));
        shoot(&editor, QStringLiteral("editor"), theme);

        RunPanel runPanel;
        runPanel.resize(900, 560);
        runPanel.setBuiltinSuites(
            {QStringLiteral("voice-assistant"), QStringLiteral("quick-smoke"), QStringLiteral("throughput")});
        RunPanelSettings s;
        s.settings.runs = 3;
        s.settings.warmup = 1;
        runPanel.setSettings(s);
        runPanel.setRunning(true);
        runPanel.setStatusText(QStringLiteral("Running: 2 endpoints, 8 tests"));
        runPanel.beginLive({endpointTitle(*run, 0), endpointTitle(*run, 1)});
        QList<LiveDelta> deltas;
        for (int e = 0; e < 2; ++e) {
            const RunRecord* last = nullptr;
            for (const RunRecord& r : run->records)
                if (r.endpoint == e && r.test == u"factual" && r.iteration == 1 && !r.warmup)
                    last = &r;
            QVERIFY(last);
            LiveDelta d;
            d.endpoint = e;
            d.slot = e;
            d.test = last->test;
            d.turn = last->turn;
            d.iteration = last->iteration;
            d.started = true;
            d.reasoning = last->request.response.reasoning;
            // The second endpoint is slower: catch it mid-answer.
            const QString content = last->request.response.content;
            d.content = e == 0 ? content : content.left(content.size() * 3 / 4);
            deltas.append(d);
        }
        runPanel.addDeltas(deltas);
        RunProgress p;
        p.done = 37;
        p.total = 96;
        p.endpointLabel = endpointTitle(*run, 0);
        p.test = QStringLiteral("factual");
        p.turn = 1;
        p.iteration = 1;
        p.etaMs = 65000;
        runPanel.setProgress(p);
        shoot(&runPanel, QStringLiteral("run"), theme);
    }
};

QTEST_MAIN(TestEndpointsPanel)
#include "tst_endpoints_panel.moc"

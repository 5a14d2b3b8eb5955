// SPDX-License-Identifier: MIT
// Endpoints panel, endpoint editor and run panel, fed from the fixture's endpoints, probes and
// answers. Writes screenshots to $QS_SHOTS_DIR when it is set.
#include "WidgetTestSupport.h"
#include "model/core/Suite.h"
#include "widgets/ScreenshotRenderer.h"
#include "widgets/Theme.h"
#include "widgets/panels/EndpointEditor.h"
#include "widgets/panels/EndpointsPanel.h"
#include "widgets/panels/ProbeMetricsText.h"
#include "widgets/panels/RunPanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTreeWidget>
#include <stdexcept>

using namespace qs;

namespace {

const std::vector<std::pair<QString, QString>> profiles {
    {QStringLiteral("nvfp4-like"), QStringLiteral("simulated NVFP4 on vLLM: fast TTFT, 20 tok/s, leaks")},
    {QStringLiteral("q4km-like"), QStringLiteral("simulated Q4_K_M on llama-server: 38 tok/s, clean")},
};

QString str(const nlohmann::json& j, const char* key)
{
    return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>())
                                                 : QString();
}

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

/// The fixture's endpoints as the panel keeps them ("sim:q4km-like" → simulated entry).
std::vector<EndpointEntry> fixtureEntries(const RunResult& run)
{
    std::vector<EndpointEntry> out;
    for (const RunEndpoint& e : run.endpoints) {
        EndpointEntry entry;
        entry.endpoint = e.endpoint;
        if (e.spec.startsWith(u"sim:")) {
            entry.simulatedProfile = e.spec.mid(4);
            entry.endpoint.baseUrl = QUrl();
        }
        out.push_back(entry);
    }
    return out;
}

template <typename T> T* child(QWidget* w, const char* name)
{
    T* c = w->findChild<T*>(QString::fromLatin1(name));
    if (!c)
        qFatal("no child %s", name);
    return c;
}

QPushButton* okButton(EndpointEditor& editor)
{
    return editor.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
}

QPushButton* buttonNamed(QWidget* w, const QString& text)
{
    for (QPushButton* b : w->findChildren<QPushButton*>())
        if (b->text().remove(u'&') == text)
            return b;
    qFatal("no button %s", qPrintable(text));
    return nullptr;
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

/// A small suite with the shape of the voice-assistant one: categories of distinct prompts (one a
/// conversation), its own warm-up and timing repeats, the prefix cache warm.
std::shared_ptr<const Suite> smallSuite()
{
    const nlohmann::json j = {{"id", "small"}, {"prefix_cache", "warm"},
        {"defaults", {{"warmup", 1}, {"runs", 3}, {"max_tokens", 128}}},
        {"tests",
            {{{"id", "f1"}, {"category", "factual"}, {"prompt", "Capital of France?"}},
                {{"id", "f2"}, {"category", "factual"}, {"prompt", "Capital of Spain?"}},
                {{"id", "f3"}, {"category", "factual"}, {"prompt", "Capital of Italy?"}},
                {{"id", "g1"}, {"category", "greeting"}, {"prompt", "Hello!"}},
                {{"id", "m1"}, {"category", "multi-turn"}, {"turns", {"Hi", "Plan my day", "Thanks"}}}}}};
    return std::make_shared<const Suite>(parseSuite(j, QStringLiteral("small.json")));
}

} // namespace

class TestPanels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

    // --- EndpointEntry -------------------------------------------------------------------------

    void entryJsonRoundTrip()
    {
        const auto run = test::loadFixture();
        for (const EndpointEntry& e : fixtureEntries(*run)) {
            QVERIFY(e.simulated());
            const nlohmann::json j = toJson(e);
            QCOMPARE(str(j, "simulated_profile"), e.simulatedProfile);
            const EndpointEntry back = endpointEntryFromJson(j);
            QCOMPARE(back.simulatedProfile, e.simulatedProfile);
            QVERIFY(back.endpoint == e.endpoint);
            QVERIFY(back.endpoint.baseUrl.isEmpty());
            QCOMPARE(back.spec(), QStringLiteral("sim:") + e.simulatedProfile);
        }
        EndpointEntry real;
        real.endpoint = run->endpoints[1].endpoint;
        real.endpoint.apiKeyEnv = QStringLiteral("VLLM_KEY");
        real.endpoint.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}};
        real.endpoint.timeouts = {1000, 2000, 3000, 4000};
        const EndpointEntry back = endpointEntryFromJson(toJson(real));
        QVERIFY(!back.simulated());
        QVERIFY(back.endpoint == real.endpoint);
        QCOMPARE(back.spec(), QStringLiteral("http://127.0.0.1:44745"));
        QVERIFY(!toJson(real).contains("simulated_profile"));
    }

    void entryJsonErrorsNameTheField_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("url") << QStringLiteral("{\"base_url\":\"ftp://x\"}") << QStringLiteral("base_url");
        QTest::newRow("no url") << QStringLiteral("{\"label\":\"a\"}") << QStringLiteral("base_url");
        QTest::newRow("runtime") << QStringLiteral("{\"base_url\":\"h:1\",\"runtime\":\"tgi\"}")
                                 << QStringLiteral("runtime");
        QTest::newRow("profile") << QStringLiteral("{\"simulated_profile\":5}")
                                 << QStringLiteral("simulated_profile");
        QTest::newRow("sim body") << QStringLiteral(
            "{\"simulated_profile\":\"q4km-like\",\"extra_body\":[1]}")
                                  << QStringLiteral("extra_body");
        QTest::newRow("api_key") << QStringLiteral("{\"base_url\":\"h:1\",\"api_key\":\"sk-1\"}")
                                 << QStringLiteral("api_key");
    }
    void entryJsonErrorsNameTheField()
    {
        QFETCH(QString, json);
        QFETCH(QString, field);
        try {
            endpointEntryFromJson(nlohmann::json::parse(json.toStdString()));
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(field), e.what());
        }
    }

    // --- EndpointEditor ------------------------------------------------------------------------

    void editorRoundTripsEveryField()
    {
        EndpointEntry entry;
        entry.id = 42;
        Endpoint& e = entry.endpoint;
        e.label = QStringLiteral("NVFP4 vLLM");
        e.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8003"));
        e.model = QStringLiteral("qwen3.5-9b");
        e.apiKeyEnv = QStringLiteral("VLLM_API_KEY");
        e.runtime = Runtime::Vllm;
        e.quantization = QStringLiteral("NVFP4");
        e.extraBody = {{"chat_template_kwargs", {{"enable_thinking", false}}}, {"top_k", 20}};
        e.timeouts = {1500, 0, 45000, 600000};
        EndpointEditor editor(entry, profiles);
        QCOMPARE(editor.errors(), QStringList());
        QVERIFY(okButton(editor)->isEnabled());
        const EndpointEntry back = editor.entry();
        QCOMPARE(back.id, 42);
        QVERIFY(!back.simulated());
        QCOMPARE(back.endpoint.label, e.label);
        QCOMPARE(back.endpoint.baseUrl, e.baseUrl);
        QCOMPARE(back.endpoint.runtime, Runtime::Vllm);
        QVERIFY(back.endpoint.extraBody == e.extraBody);
        QCOMPARE(back.endpoint.timeouts, e.timeouts);
        QVERIFY(back.endpoint == e);
        QCOMPARE(child<QSpinBox>(&editor, "firstByteMs")->text(), QStringLiteral("off"));

        // Edits land in the entry: a trailing /v1 is normalised away.
        child<QLineEdit>(&editor, "baseUrl")->setText(QStringLiteral("192.168.1.9:8080/v1/"));
        child<QComboBox>(&editor, "runtime")->setCurrentIndex(0);
        child<QSpinBox>(&editor, "totalMs")->setValue(0);
        const EndpointEntry edited = editor.entry();
        QCOMPARE(edited.endpoint.baseUrl, QUrl(QStringLiteral("http://192.168.1.9:8080")));
        QCOMPARE(edited.endpoint.runtime, Runtime::Unknown);
        QCOMPARE(child<QComboBox>(&editor, "runtime")->currentText(), QStringLiteral("detect"));
        QCOMPARE(edited.endpoint.timeouts.totalMs, 0);
    }

    void editorRejectsBadUrl()
    {
        EndpointEntry entry;
        EndpointEditor editor(entry, profiles);
        QVERIFY(!okButton(editor)->isEnabled()); // a new entry has no URL yet
        auto* url = child<QLineEdit>(&editor, "baseUrl");
        url->setText(QStringLiteral("ftp://example.org"));
        QCOMPARE(editor.errors().size(), 1);
        QVERIFY(editor.errors().front().startsWith(u"base URL"));
        QVERIFY(child<QLabel>(&editor, "baseUrlError")->text().contains(u"http://"));
        QVERIFY(!okButton(editor)->isEnabled());
        url->setText(QStringLiteral("127.0.0.1:8080"));
        QCOMPARE(editor.errors(), QStringList());
        QVERIFY(okButton(editor)->isEnabled());
        QVERIFY(child<QLabel>(&editor, "baseUrlError")->isHidden());
    }

    void editorTakesMetricsUrls()
    {
        EndpointEntry entry;
        entry.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:8000"));
        entry.endpoint.metricsUrls = {QStringLiteral("http://10.0.0.5:9400/metrics")};
        EndpointEditor editor(entry, profiles);
        auto* urls = child<QPlainTextEdit>(&editor, "metricsUrls");
        QCOMPARE(urls->toPlainText(), QStringLiteral("http://10.0.0.5:9400/metrics"));
        QCOMPARE(editor.entry().endpoint.metricsUrls, entry.endpoint.metricsUrls);

        // One per line or '|'-separated; scheme and /metrics added; blanks and repeats dropped.
        urls->setPlainText(
            QStringLiteral("10.0.0.5:9400 | http://10.0.0.5:9100/metrics\n\n  10.0.0.5:9400/metrics\n"));
        QCOMPARE(editor.errors(), QStringList());
        QVERIFY(okButton(editor)->isEnabled());
        QCOMPARE(editor.entry().endpoint.metricsUrls,
            QStringList({QStringLiteral("http://10.0.0.5:9400/metrics"),
                QStringLiteral("http://10.0.0.5:9100/metrics")}));

        // A bad one: the error inline names the line, OK is off, the entry keeps the old list.
        urls->setPlainText(QStringLiteral("10.0.0.5:9400\nftp://10.0.0.5/metrics"));
        QCOMPARE(editor.errors().size(), 1);
        QVERIFY(editor.errors().front().startsWith(u"metrics URLs: line 2"));
        auto* error = child<QLabel>(&editor, "metricsUrlsError");
        QVERIFY(!error->isHidden());
        QVERIFY2(
            error->text().contains(u"not an http(s) URL of a Prometheus page"), qPrintable(error->text()));
        QVERIFY(!okButton(editor)->isEnabled());
        QCOMPARE(editor.entry().endpoint.metricsUrls, entry.endpoint.metricsUrls);
        urls->clear();
        QCOMPARE(editor.errors(), QStringList());
        QVERIFY(error->isHidden());
        QVERIFY(editor.entry().endpoint.metricsUrls.isEmpty());

        // What the editor gives survives the settings' JSON.
        urls->setPlainText(QStringLiteral("10.0.0.5:9400|10.0.0.5:9100"));
        const EndpointEntry edited = editor.entry();
        const EndpointEntry back = endpointEntryFromJson(toJson(edited));
        QCOMPARE(back.endpoint.metricsUrls, edited.endpoint.metricsUrls);
        QCOMPARE(back.endpoint.metricsUrls.size(), 2);
        QString why;
        QCOMPARE(parseMetricsUrls(QStringLiteral("a:1|ftp://b"), &why),
            QStringList {QStringLiteral("http://a:1/metrics")});
        QVERIFY2(why.startsWith(u"line 1: \"ftp://b\" is not an http(s) URL"), qPrintable(why));
    }

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

    void editorRejectsBodyThatIsNotAnObject()
    {
        EndpointEntry entry;
        entry.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:8080"));
        EndpointEditor editor(entry, profiles);
        auto* body = child<QPlainTextEdit>(&editor, "extraBody");
        body->setPlainText(QStringLiteral("[1, 2]"));
        QCOMPARE(editor.errors().size(), 1);
        QVERIFY(editor.errors().front().contains(u"must be a JSON object"));
        QVERIFY(!okButton(editor)->isEnabled());
        body->setPlainText(QStringLiteral("{\n  \"top_k\": 20,\n  \"x\": }"));
        QVERIFY2(
            editor.errors().value(0).contains(u"line 3, column 8"), qPrintable(editor.errors().value(0)));
        body->setPlainText(QStringLiteral("{\"top_k\": 20}"));
        QCOMPARE(editor.errors(), QStringList());
        QVERIFY(editor.entry().endpoint.extraBody == nlohmann::json({{"top_k", 20}}));
        body->setPlainText(QString());
        QVERIFY(editor.entry().endpoint.extraBody == nlohmann::json::object());
    }

    void editorRefusesKeysAsEnvVarNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("openai key") << QStringLiteral("sk-proj-4f9aQ2x7Lm3Np8Rt") << false;
        QTest::newRow("random") << QStringLiteral("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY") << false;
        QTest::newRow("hex") << QStringLiteral("4f9a2b7c1d3e5f60718293a4b5c6d7e8") << false;
        QTest::newRow("hf token") << QStringLiteral("hf_AbCdEfGhIjKlMnOpQrStUv") << false;
        QTest::newRow("space") << QStringLiteral("MY KEY") << false;
        QTest::newRow("leading digit") << QStringLiteral("1KEY") << false;
        QTest::newRow("openai name") << QStringLiteral("OPENAI_API_KEY") << true;
        QTest::newRow("lower name") << QStringLiteral("vllm_key_2") << true;
        QTest::newRow("HF_TOKEN") << QStringLiteral("HF_TOKEN") << true;
        QTest::newRow("empty") << QString() << true;
    }
    void editorRefusesKeysAsEnvVarNames()
    {
        QFETCH(QString, name);
        QFETCH(bool, accepted);
        QCOMPARE(isPlausibleEnvVarName(name), accepted);
        EndpointEntry entry;
        entry.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:8080"));
        EndpointEditor editor(entry, profiles);
        child<QLineEdit>(&editor, "apiKeyEnv")->setText(name);
        QCOMPARE(editor.errors().isEmpty(), accepted);
        QCOMPARE(okButton(editor)->isEnabled(), accepted);
        if (!accepted)
            QVERIFY(child<QLabel>(&editor, "apiKeyEnvError")->text().contains(u"never the key"));
    }

    void editorShowsWhetherTheVariableIsSet()
    {
        qputenv("QS_TEST_PANELS_KEY", "x");
        qunsetenv("QS_TEST_PANELS_UNSET");
        EndpointEntry entry;
        entry.endpoint.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:8080"));
        EndpointEditor editor(entry, profiles);
        auto* key = child<QLineEdit>(&editor, "apiKeyEnv");
        auto* status = child<QLabel>(&editor, "apiKeyEnvStatus");
        key->setText(QStringLiteral("QS_TEST_PANELS_KEY"));
        QVERIFY(status->text().contains(u"set in this environment"));
        QVERIFY(!status->text().contains(u"not set"));
        key->setText(QStringLiteral("QS_TEST_PANELS_UNSET"));
        QCOMPARE(status->text(), QStringLiteral("not set in this environment"));
    }

    void editorSimulatedProfileNeedsNoUrl()
    {
        EndpointEntry entry;
        EndpointEditor editor(entry, profiles);
        auto* profile = child<QComboBox>(&editor, "simulatedProfile");
        QCOMPARE(profile->count(), 3);
        QVERIFY(!editor.errors().isEmpty());
        profile->setCurrentIndex(profile->findData(QStringLiteral("q4km-like")));
        QVERIFY(!child<QLineEdit>(&editor, "baseUrl")->isEnabled());
        QCOMPARE(editor.errors(), QStringList());
        QCOMPARE(editor.entry().simulatedProfile, QStringLiteral("q4km-like"));
        QCOMPARE(editor.entry().spec(), QStringLiteral("sim:q4km-like"));
        // The description is shown next to the choice.
        QVERIFY(child<QLabel>(&editor, "simulatedProfileDescription")->text().contains(u"38 tok/s"));
    }

    // --- EndpointsPanel ------------------------------------------------------------------------

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

    // --- RunPanel ------------------------------------------------------------------------------

    void runSettingsRoundTrip()
    {
        RunPanel panel;
        panel.setBuiltinSuites(
            {QStringLiteral("voice-assistant"), QStringLiteral("quick-smoke"), QStringLiteral("throughput")});
        QCOMPARE(panel.settings().suite, QStringLiteral("voice-assistant"));
        QCOMPARE(panel.settings().settings.warmup, -1);
        QCOMPARE(panel.settings().settings.runs, -1);
        QVERIFY(!panel.settings().settings.maxTokens);

        QSignalSpy changed(&panel, &RunPanel::settingsChanged);
        RunPanelSettings s;
        s.suite = test::fixturePath(); // any file will do: the panel does not parse suites
        s.settings.warmup = 0;
        s.settings.runs = 3;
        s.settings.maxTokens = 256;
        s.settings.order = RunOrder::Parallel;
        s.settings.concurrency = 4;
        s.settings.seed = 7;
        s.settings.requestTimeoutMs = 90000;
        panel.setSettings(s);
        QCOMPARE(changed.size(), 1);
        const RunPanelSettings back = panel.settings();
        QCOMPARE(back.suite, s.suite);
        QCOMPARE(back.settings.warmup, 0);
        QCOMPARE(back.settings.runs, 3);
        QCOMPARE(back.settings.maxTokens, std::optional<int>(256));
        QCOMPARE(back.settings.order, RunOrder::Parallel);
        QCOMPARE(back.settings.concurrency, 4);
        QCOMPARE(back.settings.seed, quint64(7));
        QCOMPARE(back.settings.requestTimeoutMs, 90000);

        // Built-ins, then the file, then "Open suite file…".
        auto* suite = child<QComboBox>(&panel, "suite");
        QCOMPARE(suite->itemText(0), QStringLiteral("voice-assistant"));
        QCOMPARE(suite->currentText(), QStringLiteral("voice-sim.json"));
        QCOMPARE(suite->itemText(suite->count() - 1), QStringLiteral("Open suite file…"));

        // Back to the suite's defaults; the file stays in the list.
        panel.setSettings(RunPanelSettings());
        QCOMPARE(panel.settings().suite, QStringLiteral("voice-assistant"));
        QCOMPARE(panel.settings().settings.warmup, -1);
        QCOMPARE(panel.settings().settings.runs, -1);
        QVERIFY(!panel.settings().settings.maxTokens);
        QVERIFY(suite->findData(s.suite) >= 0);
        panel.setSuiteDefaults(1, 5);
        QCOMPARE(child<QSpinBox>(&panel, "runs")->text(), QStringLiteral("suite default (5)"));

        // A user edit is announced; rebuilding the built-ins keeps the choice.
        suite->setCurrentIndex(1);
        QCOMPARE(panel.settings().suite, QStringLiteral("quick-smoke"));
        QVERIFY(changed.size() >= 3);
        panel.setBuiltinSuites({QStringLiteral("throughput"), QStringLiteral("quick-smoke")});
        QCOMPARE(panel.settings().suite, QStringLiteral("quick-smoke"));

        panel.setSuiteError(QStringLiteral("my.json: tests[2]: unknown field"));
        QVERIFY(child<QLabel>(&panel, "suiteError")->isVisibleTo(&panel));
        panel.setSuiteError(QString());
        QVERIFY(!child<QLabel>(&panel, "suiteError")->isVisibleTo(&panel));
    }

    void runPromptsSpinRoundTrips()
    {
        RunPanel panel;
        auto* prompts = child<QSpinBox>(&panel, "prompts");
        QCOMPARE(panel.settings().settings.promptsPerCategory, 0);
        QCOMPARE(prompts->text(), QStringLiteral("all"));
        QVERIFY(prompts->toolTip().contains(QStringLiteral("never on the repeats")));
        RunPanelSettings s;
        s.settings.promptsPerCategory = 2;
        panel.setSettings(s);
        QCOMPARE(panel.settings().settings.promptsPerCategory, 2);
        QCOMPARE(prompts->text(), QStringLiteral("2 per category"));
        prompts->setValue(0);
        QCOMPARE(panel.settings().settings.promptsPerCategory, 0);
        panel.setRunning(true);
        QVERIFY(!prompts->isEnabled());
    }

    void runInForceLineSaysWhatRunWillDo()
    {
        RunPanel panel;
        auto* line = child<QLabel>(&panel, "inForce");
        QVERIFY(!line->isVisibleTo(&panel)); // nothing to say before the window hands a suite over
        QCOMPARE(panel.inForceText(), QString());

        // The suite's own numbers: 5 prompts (the conversation counts once), 3 repeats each.
        panel.setSuite(smallSuite());
        QVERIFY(line->isVisibleTo(&panel));
        QCOMPARE(child<QSpinBox>(&panel, "runs")->text(), QStringLiteral("suite default (3)"));
        QString text = panel.inForceText();
        QVERIFY2(text.startsWith(
                     QStringLiteral("5 distinct prompts (factual 3, greeting 1, multi-turn 1); 3 timing "
                                    "repeats per prompt")),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Interleaved order")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("one request at a time per endpoint")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral("The suite's own warm-ups and repeats, every prompt.")),
            qPrintable(text));
        QVERIFY(line->text().contains(QStringLiteral("Settings in force:")));
        QCOMPARE(text.count(u'\n'), 2); // what, how, whose: a line each in the narrow dock

        // Overridden here: the line follows every edit and names each override against the suite's.
        child<QSpinBox>(&panel, "runs")->setValue(2);
        child<QSpinBox>(&panel, "prompts")->setValue(1);
        text = panel.inForceText();
        QVERIFY2(text.startsWith(
                     QStringLiteral("3 distinct prompts (factual 1, greeting 1, multi-turn 1); 2 timing "
                                    "repeats per prompt")),
            qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral(
                "Overridden here: 2 runs instead of the suite's 3, 1 prompt per category instead of every "
                "prompt.")),
            qPrintable(text));
        QVERIFY(line->text().contains(QStringLiteral("2 runs instead of the suite's 3")));

        // The demo's numbers say whose they are; a value equal to the suite's own is no override;
        // more prompts than a category holds draws them all.
        RunPanelSettings demo;
        demo.settings.warmup = 1;
        demo.settings.runs = 2;
        demo.settings.promptsPerCategory = 2;
        demo.settings.order = RunOrder::Parallel;
        demo.settings.concurrency = 4;
        demo.demoDefaults = true;
        panel.setSettings(demo);
        text = panel.inForceText();
        QVERIFY2(text.contains(
                     QStringLiteral("Parallel order (every endpoint at once: only for endpoints on separate "
                                    "machines), 4 conversations in flight per endpoint.")),
            qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("Overridden here for the demo's short run: 2 runs instead of the "
                                         "suite's 3, 2 prompts per category instead of every prompt.")),
            qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("warm-up instead")), qPrintable(text));
        demo.settings.promptsPerCategory = 5;
        demo.settings.runs = 3;
        demo.settings.warmup = 0;
        panel.setSettings(demo);
        text = panel.inForceText();
        QVERIFY2(text.startsWith(QStringLiteral("5 distinct prompts")), qPrintable(text));
        QVERIFY2(text.endsWith(QStringLiteral("0 warm-ups instead of the suite's 1.")), qPrintable(text));
    }

    void runInForceLineOnASuiteThatCannotBeRead()
    {
        RunPanel panel;
        panel.setSuite(smallSuite());
        panel.setSuiteError(QStringLiteral("my.json: tests[2]: unknown field"));
        panel.setSuite(nullptr);
        auto* line = child<QLabel>(&panel, "inForce");
        QVERIFY(line->isVisibleTo(&panel));
        QVERIFY2(panel.inForceText().contains(QStringLiteral("the suite could not be read")),
            qPrintable(panel.inForceText()));
        // Its numbers are gone with it: no "suite default (3)" from the suite shown before.
        QCOMPARE(child<QSpinBox>(&panel, "runs")->text(), QStringLiteral("suite default"));
    }

    void runDemoDefaultsEndWithTheUsersNumbers()
    {
        RunPanel panel;
        panel.setSuite(smallSuite());
        QVERIFY(!panel.settings().demoDefaults);
        RunPanelSettings demo;
        demo.settings.warmup = 1;
        demo.settings.runs = 2;
        demo.settings.promptsPerCategory = 2;
        demo.demoDefaults = true;
        panel.setSettings(demo);
        QVERIFY(panel.settings().demoDefaults);
        // Order, concurrency and max tokens are not the demo's numbers: the flag stays.
        child<QComboBox>(&panel, "order")->setCurrentIndex(1);
        child<QSpinBox>(&panel, "concurrency")->setValue(2);
        QVERIFY(panel.settings().demoDefaults);
        // Any of warm-up, runs and prompts touched: the numbers are the user's.
        for (const char* name : {"warmup", "runs", "prompts"}) {
            panel.setSettings(demo);
            QVERIFY(panel.settings().demoDefaults);
            auto* spin = child<QSpinBox>(&panel, name);
            spin->setValue(spin->value() + 1);
            QVERIFY2(!panel.settings().demoDefaults, name);
            // The line already says whose numbers they are.
            QVERIFY2(panel.inForceText().contains(QStringLiteral("Overridden here: ")),
                qPrintable(panel.inForceText()));
        }
    }

    // --- The fidelity reference role ------------------------------------------------------------

    void referenceRoundTripsThroughTheEntry()
    {
        const auto run = test::loadFixture();
        EndpointEntry e = fixtureEntries(*run)[0];
        QVERIFY(!toJson(e).contains("fidelity_reference")); // unmarked entries keep their old form
        QVERIFY(!endpointEntryFromJson(toJson(e)).reference);
        e.reference = true;
        const nlohmann::json j = toJson(e);
        QVERIFY(j.at("fidelity_reference").get<bool>());
        QVERIFY(endpointEntryFromJson(j).reference);
        nlohmann::json bad = j;
        bad["fidelity_reference"] = "yes";
        try {
            endpointEntryFromJson(bad);
            QFAIL("a non-boolean fidelity_reference was accepted");
        } catch (const std::invalid_argument& error) {
            QVERIFY(QString::fromUtf8(error.what()).contains(u"fidelity_reference"));
        }
    }

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

    void editorHasTheReferenceBox()
    {
        const auto run = test::loadFixture();
        EndpointEntry e = fixtureEntries(*run)[1];
        e.reference = true;
        EndpointEditor editor(e, profiles);
        auto* box = editor.findChild<QCheckBox*>(QStringLiteral("fidelityReference"));
        QVERIFY(box);
        QVERIFY(box->isChecked());
        QVERIFY(editor.entry().reference);
        box->setChecked(false);
        QVERIFY(!editor.entry().reference);
        QVERIFY(editor.errors().isEmpty());
    }

    void runProgressText()
    {
        RunPanel panel;
        RunPanelSettings s;
        s.settings.runs = 3;
        panel.setSettings(s);
        RunProgress p;
        p.done = 37;
        p.total = 96;
        p.endpoint = 0;
        p.endpointLabel = QStringLiteral("q4km-like");
        p.test = QStringLiteral("multi-turn-5");
        p.turn = 3;
        p.iteration = 2;
        p.etaMs = 65000;
        panel.setProgress(p);
        QCOMPARE(panel.progressText(),
            QStringLiteral("q4km-like · multi-turn-5 · turn 3 · run 2/3 · ETA 1 min 05 s"));
        auto* bar = panel.findChild<QProgressBar*>();
        QCOMPARE(bar->value(), 37);
        QCOMPARE(bar->maximum(), 96);
        QCOMPARE(bar->text(), QStringLiteral("37 / 96 requests"));

        p.warmup = true;
        p.iteration = 1;
        p.etaMs = 3723000;
        p.failed = 2;
        panel.setProgress(p);
        QCOMPARE(panel.progressText(),
            QStringLiteral("q4km-like · multi-turn-5 · turn 3 · warm-up 1 · 2 failed · ETA 1 h 02 min"));

        // Runs left to the suite: the suite's count when known, else none.
        panel.setSettings(RunPanelSettings());
        p.warmup = false;
        p.failed = 0;
        p.etaMs = 42400;
        panel.setProgress(p);
        QCOMPARE(
            panel.progressText(), QStringLiteral("q4km-like · multi-turn-5 · turn 3 · run 1 · ETA 42 s"));
        panel.setSuiteDefaults(1, 5);
        panel.setProgress(p);
        QVERIFY(panel.progressText().contains(u"run 1/5"));
    }

    void runLiveText()
    {
        const auto run = test::loadFixture();
        RunPanel panel;
        panel.beginLive({endpointTitle(*run, 0), endpointTitle(*run, 1)});
        // Stream the fixture's last measured answer of each endpoint in small pieces.
        QString expected[2];
        QList<LiveDelta> batch;
        int slot = 0;
        for (int e = 0; e < 2; ++e) {
            const RunRecord* last = nullptr;
            for (const RunRecord& r : run->records)
                if (r.endpoint == e && !r.warmup && !r.request.response.content.isEmpty())
                    last = &r;
            QVERIFY(last);
            const QString content = last->request.response.content;
            for (qsizetype at = 0; at < content.size(); at += 7) {
                LiveDelta d;
                d.slot = slot + e;
                d.endpoint = e;
                d.test = last->test;
                d.turn = last->turn;
                d.iteration = last->iteration;
                d.content = content.mid(at, 7);
                d.started = at == 0;
                batch.append(d);
            }
            expected[e] = content;
        }
        panel.addDeltas(batch.mid(0, batch.size() / 2));
        panel.addDeltas(batch.mid(batch.size() / 2));
        QCOMPARE(panel.liveText(0), expected[0]);
        QCOMPARE(panel.liveText(1), expected[1]);

        // Reasoning is appended in grey italics, after the content already there.
        LiveDelta thinking;
        thinking.endpoint = 1;
        thinking.slot = 1;
        thinking.reasoning = QStringLiteral("Let me think.");
        panel.addDeltas({thinking});
        QCOMPARE(panel.liveText(1), expected[1] + thinking.reasoning);
        const auto columns = panel.findChildren<QPlainTextEdit*>();
        QCOMPARE(columns.size(), 2);
        const QTextBlock block = columns[1]->document()->lastBlock();
        QTextCursor c(block);
        c.movePosition(QTextCursor::EndOfBlock);
        QVERIFY(c.charFormat().fontItalic());
        c.setPosition(block.position() + 1);
        QVERIFY(!c.charFormat().fontItalic());

        // Another slot of the same endpoint is ignored until it starts a request.
        LiveDelta other;
        other.endpoint = 0;
        other.slot = 9;
        other.content = QStringLiteral("stray");
        panel.addDeltas({other});
        QCOMPARE(panel.liveText(0), expected[0]);

        // A started delta clears only its endpoint's column, and the header says where it is.
        LiveDelta fresh;
        fresh.endpoint = 0;
        fresh.slot = 9;
        fresh.test = QStringLiteral("multi-turn-5");
        fresh.turn = 2;
        fresh.iteration = 1;
        fresh.warmup = true;
        fresh.started = true;
        fresh.content = QStringLiteral("Hello");
        panel.addDeltas({fresh});
        QCOMPARE(panel.liveText(0), QStringLiteral("Hello"));
        QCOMPARE(panel.liveText(1), expected[1] + thinking.reasoning);
        bool headerFound = false;
        for (QLabel* l : panel.findChildren<QLabel*>())
            headerFound = headerFound || l->text().contains(u"multi-turn-5 · turn 2 · warm-up 1");
        QVERIFY(headerFound);

        // The cap keeps the end of a long answer.
        QList<LiveDelta> flood;
        for (int i = 0; i < 400; ++i) {
            LiveDelta d;
            d.endpoint = 0;
            d.slot = 9;
            d.content = QStringLiteral("%1 ").arg(i, 4, 10, QLatin1Char('0')).repeated(20); // 100 chars
            flood.append(d);
        }
        panel.addDeltas(flood);
        const QString capped = panel.liveText(0);
        QVERIFY2(
            capped.size() <= RunPanel::liveCharacterCap * 6 / 5, qPrintable(QString::number(capped.size())));
        QVERIFY(capped.size() >= RunPanel::liveCharacterCap - 1);
        QVERIFY(capped.endsWith(QStringLiteral("0399 ")));
        QVERIFY(!capped.contains(u"Hello"));

        // Deltas for an endpoint without a column make one.
        LiveDelta third;
        third.endpoint = 2;
        third.slot = 3;
        third.started = true;
        third.content = QStringLiteral("third");
        panel.addDeltas({third});
        QCOMPARE(panel.liveText(2), QStringLiteral("third"));
        panel.beginLive({QStringLiteral("a")});
        QCOMPARE(panel.liveText(0), QString());
        QCOMPARE(panel.liveText(1), QString());
    }

    void runRunningToggles()
    {
        RunPanel panel;
        QSignalSpy run(&panel, &RunPanel::runRequested);
        QSignalSpy stop(&panel, &RunPanel::stopRequested);
        auto* runButton = buttonNamed(&panel, QStringLiteral("Run"));
        auto* stopButton = buttonNamed(&panel, QStringLiteral("Stop"));
        QVERIFY(!panel.running());
        QVERIFY(runButton->isEnabled());
        QVERIFY(!stopButton->isEnabled());
        runButton->click();
        QCOMPARE(run.size(), 1);
        panel.setRunning(true);
        QVERIFY(panel.running());
        QVERIFY(!runButton->isEnabled());
        QVERIFY(stopButton->isEnabled());
        QVERIFY(!child<QComboBox>(&panel, "suite")->isEnabled());
        QVERIFY(!child<QSpinBox>(&panel, "runs")->isEnabled());
        stopButton->click();
        QCOMPARE(stop.size(), 1);
        panel.setRunning(false);
        QVERIFY(runButton->isEnabled());
        QVERIFY(!stopButton->isEnabled());
        QVERIFY(child<QSpinBox>(&panel, "runs")->isEnabled());
        panel.setStatusText(QStringLiteral("Cancelled: 12 records kept"));
        QCOMPARE(child<QLabel>(&panel, "status")->text(), QStringLiteral("Cancelled: 12 records kept"));
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

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"

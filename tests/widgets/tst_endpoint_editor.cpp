// SPDX-License-Identifier: MIT
// An endpoint entry and its editor: the entry's settings JSON (round trip, errors naming the field,
// the fidelity reference flag) and the editor's fields, checks and inline errors, from the
// fixture's endpoints.
#include "PanelsTestSupport.h"
#include "WidgetTestSupport.h"
#include "widgets/panels/EndpointEditor.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTest>
#include <stdexcept>

using namespace qs;
using namespace qs::test;

namespace {

QPushButton* okButton(EndpointEditor& editor)
{
    return editor.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
}

} // namespace

class TestEndpointEditor : public QObject {
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
        e.meta = {{QStringLiteral("calibration"), QStringLiteral("annie-500")},
            {QStringLiteral("method"), QStringLiteral("awq_lite")}};
        EndpointEditor editor(entry, profiles);
        QCOMPARE(child<QLineEdit>(&editor, "facts")->text(),
            QStringLiteral("calibration=annie-500, method=awq_lite"));
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

        // Facts: name=value pairs; a pair without a name is refused and keeps the earlier ones.
        child<QLineEdit>(&editor, "facts")
            ->setText(QStringLiteral(" method = mlp_only ,calibration=annie-500,"));
        QCOMPARE(editor.errors(), QStringList());
        const auto facts = editor.entry().endpoint.meta;
        QCOMPARE(facts.size(), std::size_t(2));
        QCOMPARE(facts.at(QStringLiteral("method")), QStringLiteral("mlp_only"));
        child<QLineEdit>(&editor, "facts")->setText(QStringLiteral("method=mlp_only, =x"));
        QCOMPARE(editor.errors().size(), 1);
        QVERIFY2(editor.errors().front().startsWith(QStringLiteral("facts: \"=x\" is not name=value")),
            qPrintable(editor.errors().front()));
        QVERIFY(!okButton(editor)->isEnabled());
        QVERIFY(editor.entry().endpoint.meta == e.meta);
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
};

QTEST_MAIN(TestEndpointEditor)
#include "tst_endpoint_editor.moc"

// SPDX-License-Identifier: MIT
#include "widgets/panels/EndpointEditor.h"

#include "widgets/Theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace qs {

namespace {

const QString keyAdvice()
{
    return QStringLiteral("enter the NAME of an environment variable (e.g. OPENAI_API_KEY), never the key");
}

/// Parses the extra body text. Empty means no extra body. Returns an error message with line and
/// column when it is not a JSON object.
nlohmann::json parseExtraBody(const QString& text, QString* error)
{
    if (text.trimmed().isEmpty())
        return nlohmann::json::object();
    const QByteArray utf8 = text.toUtf8();
    try {
        nlohmann::json j = nlohmann::json::parse(utf8.constData(), utf8.constData() + utf8.size());
        if (!j.is_object()) {
            *error = QStringLiteral("must be a JSON object, e.g. {\"chat_template_kwargs\": "
                                    "{\"enable_thinking\": false}}");
            return {};
        }
        return j;
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based and points at the byte where parsing stopped.
        const qsizetype at = qBound(qsizetype(0), qsizetype(e.byte) - 1, utf8.size());
        const QByteArrayView before = QByteArrayView(utf8).first(at);
        const int line = int(before.count('\n')) + 1;
        const qsizetype lineStart = before.lastIndexOf('\n') + 1;
        const int column = int(QString::fromUtf8(before.sliced(lineStart)).size()) + 1;
        // what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: <why>".
        QString why = QString::fromUtf8(e.what());
        const qsizetype colon = why.indexOf(QStringLiteral(": "), why.indexOf(u"column"));
        if (colon >= 0)
            why = why.mid(colon + 2);
        *error = QStringLiteral("not valid JSON at line %1, column %2: %3").arg(line).arg(column).arg(why);
        return {};
    }
}

QSpinBox* timeoutSpin(int value, const QString& tip)
{
    auto* spin = new QSpinBox;
    spin->setRange(0, 86400000);
    spin->setSingleStep(1000);
    spin->setSuffix(QStringLiteral(" ms"));
    spin->setSpecialValueText(QStringLiteral("off"));
    spin->setGroupSeparatorShown(true);
    spin->setValue(value);
    spin->setToolTip(tip);
    spin->setAccessibleName(tip);
    return spin;
}

} // namespace

std::map<QString, QString> parseFacts(const QString& text, QString* error)
{
    std::map<QString, QString> facts;
    for (const QString& part : text.split(u',', Qt::SkipEmptyParts)) {
        if (part.trimmed().isEmpty())
            continue;
        const qsizetype eq = part.indexOf(u'=');
        const QString name = part.left(eq).trimmed();
        if (eq < 0 || name.isEmpty()) {
            if (error && error->isEmpty())
                *error
                    = QStringLiteral("\"%1\" is not name=value (e.g. calibration=annie-500, method=awq_lite)")
                          .arg(part.trimmed());
            continue;
        }
        facts[name] = part.mid(eq + 1).trimmed();
    }
    return facts;
}

QString factsText(const std::map<QString, QString>& facts)
{
    QStringList parts;
    for (const auto& [name, value] : facts)
        parts << name + u'=' + value;
    return parts.join(QStringLiteral(", "));
}

QStringList parseMetricsUrls(const QString& text, QString* error)
{
    QStringList urls;
    QString firstError;
    const QStringList lines = text.split(u'\n');
    for (qsizetype line = 0; line < lines.size(); ++line) {
        for (const QString& part : lines[line].split(u'|')) {
            const QString typed = part.trimmed();
            if (typed.isEmpty())
                continue;
            QString why;
            const QUrl url = normalizeMetricsUrl(typed, &why);
            if (url.isEmpty()) {
                if (firstError.isEmpty())
                    firstError = QStringLiteral("line %1: %2").arg(line + 1).arg(why);
                continue;
            }
            if (!urls.contains(url.toString()))
                urls << url.toString();
        }
    }
    if (error)
        *error = firstError;
    return urls;
}

bool isPlausibleEnvVarName(const QString& name)
{
    if (name.isEmpty())
        return true;
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    if (!identifier.match(name).hasMatch())
        return false;
    // Well-known key prefixes (OpenAI, Hugging Face, GitHub, Groq, Google).
    for (const auto& prefix : {u"sk_", u"hf_", u"ghp_", u"gho_", u"github_pat_", u"gsk_", u"AIza"})
        if (name.startsWith(QStringView(prefix)))
            return false;
    // Names are words joined by underscores; keys are long runs of mixed letters and digits.
    bool digit = false, lower = false, upper = false;
    for (const QChar c : name) {
        digit |= c.isDigit();
        lower |= c.isLower();
        upper |= c.isUpper();
    }
    const bool noUnderscore = !name.contains(u'_');
    if (name.size() >= 20 && noUnderscore && digit)
        return false;
    if (name.size() >= 32 && digit && lower && upper)
        return false;
    return true;
}

EndpointEditor::EndpointEditor(const EndpointEntry& entry,
    const std::vector<std::pair<QString, QString>>& simulatedProfiles, QWidget* parent)
    : QDialog(parent)
    , m_entry(entry)
{
    setWindowTitle(entry.endpoint.label.isEmpty() ? QStringLiteral("Endpoint")
                                                  : QStringLiteral("Endpoint — ") + entry.endpoint.label);
    const Endpoint& e = entry.endpoint;

    m_label = new QLineEdit(e.label);
    m_label->setPlaceholderText(QStringLiteral("e.g. Q4_K_M llama-server"));
    m_label->setToolTip(QStringLiteral("What the charts and tables call this endpoint"));

    m_profile = new QComboBox;
    m_profile->addItem(QStringLiteral("None — a real server at a URL"), QString());
    for (const auto& [name, description] : simulatedProfiles) {
        m_profile->addItem(name, name);
        m_profile->setItemData(m_profile->count() - 1, description, Qt::ToolTipRole);
    }
    if (entry.simulated() && m_profile->findData(entry.simulatedProfile) < 0)
        m_profile->addItem(
            entry.simulatedProfile + QStringLiteral(" (unknown profile)"), entry.simulatedProfile);
    m_profile->setCurrentIndex(qMax(0, m_profile->findData(entry.simulatedProfile)));
    m_profile->setToolTip(QStringLiteral(
        "A built-in simulated endpoint, started on loopback by Quantscope: no inference server needed"));
    m_profileDescription = new QLabel;
    m_profileDescription->setWordWrap(true);

    m_url = new QLineEdit(e.baseUrl.toString());
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:8080 (a trailing /v1 is removed)"));
    m_urlError = makeErrorLabel();

    m_model = new QLineEdit(e.model);
    m_model->setPlaceholderText(QStringLiteral("empty = discover from /v1/models"));
    m_model->setToolTip(QStringLiteral("Model id sent in every request"));

    m_keyEnv = new QLineEdit(e.apiKeyEnv);
    m_keyEnv->setPlaceholderText(QStringLiteral("e.g. OPENAI_API_KEY (empty = no key)"));
    m_keyEnv->setToolTip(QStringLiteral("The NAME of the environment variable holding the API key. The key "
                                        "itself is read when a request is sent and never stored."));
    m_keyStatus = new QLabel;
    m_keyError = makeErrorLabel();

    m_runtime = new QComboBox;
    m_runtime->addItem(QStringLiteral("detect"), int(Runtime::Unknown));
    for (Runtime r : {Runtime::LlamaServer, Runtime::Vllm, Runtime::Sglang, Runtime::Other})
        m_runtime->addItem(runtimeName(r), int(r));
    m_runtime->setCurrentIndex(qMax(0, m_runtime->findData(int(e.runtime))));
    m_runtime->setToolTip(QStringLiteral(
        "The server software; \"detect\" asks the server (/props, /version, /server_info) when probing"));

    m_quantization = new QLineEdit(e.quantization);
    m_quantization->setPlaceholderText(QStringLiteral("free label, e.g. Q4_K_M, NVFP4"));

    m_facts = new QLineEdit(factsText(e.meta));
    m_facts->setPlaceholderText(QStringLiteral("calibration=annie-500, method=awq_lite"));
    m_facts->setToolTip(QStringLiteral(
        "Free facts about what is behind this endpoint, name=value separated by commas (meta.NAME=VALUE on "
        "the command line): saved with the run, so a campaign says what changed between attempts as data"));
    m_factsError = makeErrorLabel();

    m_reference = new QCheckBox(QStringLiteral("Fidelity reference"));
    m_reference->setChecked(m_entry.reference);
    m_reference->setToolTip(QStringLiteral(
        "Compare every other endpoint's next-token choices with this one's (e.g. BF16 on vLLM) when the "
        "fidelity suite runs (`--reference` on the command line). At most one endpoint is the reference: "
        "marking this one unmarks the others. With none, fidelity is measured against the baseline."));

    m_extraBody = new QPlainTextEdit;
    m_extraBody->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_extraBody->setPlaceholderText(
        QStringLiteral("{\"chat_template_kwargs\": {\"enable_thinking\": false}}"));
    m_extraBody->setToolTip(
        QStringLiteral("A JSON object merged into every request body (RFC 7386 merge patch)"));
    if (!e.extraBody.is_null() && !e.extraBody.empty())
        m_extraBody->setPlainText(QString::fromStdString(e.extraBody.dump(2)));
    m_extraBody->setTabChangesFocus(true);
    m_extraBody->setMinimumHeight(fontMetrics().lineSpacing() * 4);
    m_extraBody->setMaximumHeight(fontMetrics().lineSpacing() * 9);
    m_bodyError = makeErrorLabel();

    m_metricsUrls = new QPlainTextEdit;
    m_metricsUrls->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_metricsUrls->setPlaceholderText(QStringLiteral("http://10.0.0.5:9400/metrics (a DCGM exporter)\n"
                                                     "http://10.0.0.5:9100/metrics (a node exporter)"));
    m_metricsUrls->setToolTip(QStringLiteral(
        "Prometheus pages scraped during a run besides the runtime's own /metrics (found at the base "
        "URL): a DCGM exporter for GPU memory, utilisation and power, a node exporter for host memory "
        "(what unified-memory machines such as the DGX Spark report). One per line or separated by '|'; "
        "http:// and /metrics are added when missing."));
    m_metricsUrls->setPlainText(e.metricsUrls.join(u'\n'));
    m_metricsUrls->setTabChangesFocus(true);
    m_metricsUrls->setMinimumHeight(fontMetrics().lineSpacing() * 3);
    m_metricsUrls->setMaximumHeight(fontMetrics().lineSpacing() * 6);
    m_metricsError = makeErrorLabel();

    m_connectMs = timeoutSpin(e.timeouts.connectMs, QStringLiteral("TCP (and TLS) connection established"));
    m_firstByteMs = timeoutSpin(e.timeouts.firstByteMs,
        QStringLiteral("Request written → first response byte (prefill of long prompts, queueing)"));
    m_idleMs = timeoutSpin(
        e.timeouts.idleMs, QStringLiteral("Silence between two reads once the response has started"));
    m_totalMs = timeoutSpin(e.timeouts.totalMs,
        QStringLiteral("The whole request; off = no limit (a slow but steady stream is not an error)"));

    // Names for tests and accessibility tools.
    const std::pair<QWidget*, const char*> names[] = {{m_label, "label"}, {m_profile, "simulatedProfile"},
        {m_profileDescription, "simulatedProfileDescription"}, {m_url, "baseUrl"},
        {m_urlError, "baseUrlError"}, {m_model, "model"}, {m_keyEnv, "apiKeyEnv"},
        {m_keyStatus, "apiKeyEnvStatus"}, {m_keyError, "apiKeyEnvError"}, {m_runtime, "runtime"},
        {m_quantization, "quantization"}, {m_facts, "facts"}, {m_factsError, "factsError"},
        {m_reference, "fidelityReference"}, {m_extraBody, "extraBody"}, {m_bodyError, "extraBodyError"},
        {m_metricsUrls, "metricsUrls"}, {m_metricsError, "metricsUrlsError"}, {m_connectMs, "connectMs"},
        {m_firstByteMs, "firstByteMs"}, {m_idleMs, "idleMs"}, {m_totalMs, "totalMs"}};
    for (const auto& [widget, name] : names)
        widget->setObjectName(QString::fromLatin1(name));

    auto column = [](QWidget* field, QWidget* below, QWidget* below2 = nullptr) {
        auto* w = new QWidget;
        auto* v = new QVBoxLayout(w);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(2);
        v->addWidget(field);
        v->addWidget(below);
        if (below2)
            v->addWidget(below2);
        return w;
    };

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(QStringLiteral("&Label:"), m_label);
    form->addRow(QStringLiteral("&Simulated:"), column(m_profile, m_profileDescription));
    form->addRow(QStringLiteral("Base &URL:"), column(m_url, m_urlError));
    form->addRow(QStringLiteral("&Model:"), m_model);
    form->addRow(QStringLiteral("API &key variable:"), column(m_keyEnv, m_keyStatus, m_keyError));
    form->addRow(QStringLiteral("&Runtime:"), m_runtime);
    form->addRow(QStringLiteral("&Quantization:"), m_quantization);
    form->addRow(QStringLiteral("F&acts:"), column(m_facts, m_factsError));
    form->addRow(QStringLiteral("Fidelity:"), m_reference);
    form->addRow(QStringLiteral("E&xtra body:"), column(m_extraBody, m_bodyError));
    form->addRow(QStringLiteral("Me&trics URLs:"), column(m_metricsUrls, m_metricsError));

    auto* timeouts = new QGroupBox(QStringLiteral("Timeouts (off = no limit)"));
    auto* grid = new QGridLayout(timeouts);
    grid->addWidget(new QLabel(QStringLiteral("Connect:")), 0, 0);
    grid->addWidget(m_connectMs, 0, 1);
    grid->addWidget(new QLabel(QStringLiteral("First byte:")), 0, 2);
    grid->addWidget(m_firstByteMs, 0, 3);
    grid->addWidget(new QLabel(QStringLiteral("Idle:")), 1, 0);
    grid->addWidget(m_idleMs, 1, 1);
    grid->addWidget(new QLabel(QStringLiteral("Total:")), 1, 2);
    grid->addWidget(m_totalMs, 1, 3);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (m_errors.isEmpty())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(timeouts);
    layout->addWidget(buttons);
    setMinimumWidth(560);

    for (QLineEdit* edit : {m_label, m_url, m_model, m_keyEnv, m_quantization, m_facts})
        connect(edit, &QLineEdit::textChanged, this, &EndpointEditor::validate);
    connect(m_extraBody, &QPlainTextEdit::textChanged, this, &EndpointEditor::validate);
    connect(m_metricsUrls, &QPlainTextEdit::textChanged, this, &EndpointEditor::validate);
    connect(m_profile, &QComboBox::currentIndexChanged, this, &EndpointEditor::validate);

    applyColors();
    validate();
}

QLabel* EndpointEditor::makeErrorLabel()
{
    auto* label = new QLabel;
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->hide();
    return label;
}

void EndpointEditor::applyColors()
{
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const ThemeColors& c = themeColors(dark ? Theme::Dark : Theme::Light);
    const QString error = QStringLiteral("color: %1;").arg(c.criticalAccent.name());
    for (QLabel* l : {m_urlError, m_keyError, m_bodyError, m_metricsError, m_factsError})
        l->setStyleSheet(error);
    m_profileDescription->setStyleSheet(QStringLiteral("color: %1;").arg(c.mutedText.name()));
    m_keyStatus->setStyleSheet(QStringLiteral("color: %1;").arg((m_keySet ? c.pass : c.mutedText).name()));
}

void EndpointEditor::changeEvent(QEvent* event)
{
    QDialog::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyColors();
}

void EndpointEditor::validate()
{
    m_errors.clear();
    auto show = [this](QLabel* label, const QString& field, const QString& message) {
        label->setText(message);
        label->setVisible(!message.isEmpty());
        if (!message.isEmpty())
            m_errors << field + QStringLiteral(": ") + message;
    };

    const QString profile = m_profile->currentData().toString();
    m_profileDescription->setText(m_profile->itemData(m_profile->currentIndex(), Qt::ToolTipRole).toString());
    m_profileDescription->setVisible(!profile.isEmpty() && !m_profileDescription->text().isEmpty());
    m_url->setEnabled(profile.isEmpty());
    QString urlError;
    if (profile.isEmpty())
        normalizeBaseUrl(m_url->text(), &urlError);
    show(m_urlError, QStringLiteral("base URL"), urlError);

    const QString key = m_keyEnv->text().trimmed();
    const bool keyOk = isPlausibleEnvVarName(key);
    show(m_keyError, QStringLiteral("API key variable"), keyOk ? QString() : keyAdvice());
    m_keySet = keyOk && !key.isEmpty() && qEnvironmentVariableIsSet(key.toLocal8Bit().constData());
    m_keyStatus->setText(m_keySet ? QStringLiteral("✓ set in this environment")
                                  : QStringLiteral("not set in this environment"));
    m_keyStatus->setVisible(keyOk && !key.isEmpty());

    QString bodyError;
    parseExtraBody(m_extraBody->toPlainText(), &bodyError);
    show(m_bodyError, QStringLiteral("extra body"), bodyError);

    QString metricsError;
    parseMetricsUrls(m_metricsUrls->toPlainText(), &metricsError);
    show(m_metricsError, QStringLiteral("metrics URLs"), metricsError);

    QString factsError;
    parseFacts(m_facts->text(), &factsError);
    show(m_factsError, QStringLiteral("facts"), factsError);

    m_ok->setEnabled(m_errors.isEmpty());
    applyColors();
}

QStringList EndpointEditor::errors() const
{
    return m_errors;
}

EndpointEntry EndpointEditor::entry() const
{
    EndpointEntry out = m_entry;
    Endpoint& e = out.endpoint;
    out.simulatedProfile = m_profile->currentData().toString();
    e.label = m_label->text().trimmed();
    // A simulated entry keeps a valid URL it had (switching back restores it), never a broken one.
    e.baseUrl = normalizeBaseUrl(m_url->text());
    e.model = m_model->text().trimmed();
    e.apiKeyEnv = m_keyEnv->text().trimmed();
    e.runtime = Runtime(m_runtime->currentData().toInt());
    e.quantization = m_quantization->text().trimmed();
    QString factsError;
    const auto facts = parseFacts(m_facts->text(), &factsError);
    e.meta = factsError.isEmpty() ? facts : m_entry.endpoint.meta;
    out.reference = m_reference->isChecked();
    QString error;
    const nlohmann::json body = parseExtraBody(m_extraBody->toPlainText(), &error);
    e.extraBody = error.isEmpty() ? body : m_entry.endpoint.extraBody;
    QString metricsError;
    const QStringList metrics = parseMetricsUrls(m_metricsUrls->toPlainText(), &metricsError);
    e.metricsUrls = metricsError.isEmpty() ? metrics : m_entry.endpoint.metricsUrls;
    e.timeouts.connectMs = m_connectMs->value();
    e.timeouts.firstByteMs = m_firstByteMs->value();
    e.timeouts.idleMs = m_idleMs->value();
    e.timeouts.totalMs = m_totalMs->value();
    return out;
}

} // namespace qs

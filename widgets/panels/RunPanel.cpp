// SPDX-License-Identifier: MIT
#include "widgets/panels/RunPanel.h"

#include "widgets/Theme.h"
#include "widgets/panels/RunInForce.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

constexpr int KindRole = Qt::UserRole + 1;
enum SuiteKind { Builtin, File, OpenFile };

bool isDark(const QWidget* w)
{
    return w->palette().color(QPalette::Window).lightness() < 128;
}

QString formatEta(double ms)
{
    const qint64 s = qint64(std::llround(std::max(0.0, ms) / 1000.0));
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

/// "multi-turn-5 · turn 3 · run 2/3" (or "warm-up 1"), the part of a request's place both the
/// progress line and the live column headers show.
QString placeText(const QString& test, int turn, int iteration, bool warmup, int runs)
{
    QStringList parts;
    if (!test.isEmpty())
        parts << test;
    if (turn > 0)
        parts << QStringLiteral("turn %1").arg(turn);
    if (iteration > 0) {
        if (warmup)
            parts << QStringLiteral("warm-up %1").arg(iteration);
        else if (runs > 0)
            parts << QStringLiteral("run %1/%2").arg(iteration).arg(runs);
        else
            parts << QStringLiteral("run %1").arg(iteration);
    }
    return parts.join(QStringLiteral(" · "));
}

QSpinBox* spin(int min, int max, const QString& tip)
{
    auto* s = new QSpinBox;
    s->setRange(min, max);
    s->setToolTip(tip);
    s->setAccessibleName(tip);
    return s;
}

} // namespace

RunPanel::RunPanel(QWidget* parent)
    : QWidget(parent)
{
    m_suite = new QComboBox;
    m_suite->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_suite->setMinimumContentsLength(14); // the panel lives in a side dock: stay narrow
    m_suite->setToolTip(QStringLiteral("The tests to run: a built-in suite or a suite file (JSON)"));
    m_suiteError = new QLabel;
    m_suiteError->setWordWrap(true);
    m_suiteError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_suiteError->hide();

    // Warm-up 0 is a real choice (none), so "suite default" sits below it at −1; runs and max
    // tokens have no meaningful 0, which stands for "suite default" there.
    m_warmup = spin(-1, 100,
        QStringLiteral("Warm-up requests per endpoint and test, run just before it with their own prompts; "
                       "stored but never in statistics"));
    m_runs = spin(0, 10000, QStringLiteral("Measured runs per endpoint and test"));
    m_prompts = spin(0, 10000,
        QStringLiteral("A short run draws N prompts of each category (with the seed); all asks every prompt. "
                       "The statistics rest on the prompts, never on the repeats"));
    m_prompts->setSpecialValueText(QStringLiteral("all"));
    m_prompts->setSuffix(QStringLiteral(" per category"));
    m_maxTokens
        = spin(0, 1048576, QStringLiteral("max_tokens of every request (overrides the suite and its tests)"));
    m_maxTokens->setSingleStep(64);
    m_concurrency = spin(1, 64,
        QStringLiteral("Conversations of the same endpoint and test kept in flight (in waves); ignored by a "
                       "suite's concurrency sweep"));
    m_order = new QComboBox;
    const std::pair<RunOrder, const char16_t*> orders[] = {
        {RunOrder::Interleaved,
            u"Per test, the endpoints alternate A B, B A… run by run, so slow drift hits every arm alike"},
        {RunOrder::Sequential, u"All of the first endpoint, then all of the next"},
        {RunOrder::Parallel,
            u"Every endpoint at once, each in its own lane: only for endpoints on separate machines"},
    };
    for (const auto& [order, tip] : orders) {
        m_order->addItem(runOrderId(order), int(order));
        m_order->setItemData(m_order->count() - 1, QString::fromUtf16(tip), Qt::ToolTipRole);
    }

    m_run = new QPushButton(QStringLiteral("&Run"));
    m_run->setToolTip(QStringLiteral("Probe the endpoints, then run the suite"));
    m_run->setDefault(true);
    m_stop = new QPushButton(QStringLiteral("&Stop"));
    m_stop->setToolTip(
        QStringLiteral("Stop launching requests and abort those in flight; finished records are kept"));

    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("No run yet"));
    m_progressLine = new QLabel;
    m_progressLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // It changes several times a second with long labels and test names: wrapped within a fixed
    // two lines, it neither widens the dock (it once pushed the window's layout around) nor jumps.
    m_progressLine->setWordWrap(true);
    m_progressLine->setMinimumHeight(2 * m_progressLine->fontMetrics().lineSpacing());
    m_progressLine->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_inForce = new QLabel;
    m_inForce->setWordWrap(true);
    m_inForce->setTextFormat(Qt::RichText);
    m_inForce->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_inForce->hide(); // until the window hands the suite over

    const std::pair<QWidget*, const char*> names[] = {{m_suite, "suite"}, {m_suiteError, "suiteError"},
        {m_warmup, "warmup"}, {m_runs, "runs"}, {m_prompts, "prompts"}, {m_maxTokens, "maxTokens"},
        {m_order, "order"}, {m_concurrency, "concurrency"}, {m_inForce, "inForce"},
        {m_progressLine, "progressLine"}, {m_status, "status"}};
    for (const auto& [widget, name] : names)
        widget->setObjectName(QString::fromLatin1(name));

    auto* top = new QHBoxLayout;
    auto* suiteLabel = new QLabel(QStringLiteral("S&uite:"));
    suiteLabel->setBuddy(m_suite);
    top->addWidget(suiteLabel);
    top->addWidget(m_suite, 1);
    top->addSpacing(12);
    top->addWidget(m_run);
    top->addWidget(m_stop);

    auto* grid = new QGridLayout;
    auto pair = [grid](int r, int c, const QString& text, QWidget* field) {
        auto* l = new QLabel(text);
        l->setBuddy(field);
        grid->addWidget(l, r, c * 2);
        grid->addWidget(field, r, c * 2 + 1);
    };
    // Two columns, so the panel fits a side dock next to the charts.
    pair(0, 0, QStringLiteral("&Warm-up:"), m_warmup);
    pair(0, 1, QStringLiteral("Ru&ns:"), m_runs);
    pair(1, 0, QStringLiteral("&Prompts:"), m_prompts);
    pair(1, 1, QStringLiteral("&Order:"), m_order);
    pair(2, 0, QStringLiteral("&Concurrency:"), m_concurrency);
    pair(2, 1, QStringLiteral("&Max tokens:"), m_maxTokens);
    m_judgeAfter = new QCheckBox(QStringLiteral("when the run ends"));
    m_judgeAfter->setToolTip(QStringLiteral(
        "Grade the answers with an LLM judge once the last request has finished (Run asks which judge). "
        "The judge never runs beside a measured request."));
    pair(3, 0, QStringLiteral("&Judge:"), m_judgeAfter);
    m_untilDecided = new QCheckBox(QStringLiteral("until decided"));
    m_untilDecided->setToolTip(QStringLiteral(
        "Ask prompts in rounds (12, then about 1.5× more each round) and judge them with the Decision tab's "
        "profile after each; stop once every verdict is made. Each look reads its intervals at a stricter "
        "level, so looking never spends the stated error (docs/methodology.md §9.8)."));
    pair(3, 1, QStringLiteral("&Decide:"), m_untilDecided);
    m_maxPrompts = spin(0, 100000,
        QStringLiteral("Until decided: start no round that would pass this many "
                       "distinct prompts in all (0: the whole suite)"));
    m_maxPrompts->setSpecialValueText(QStringLiteral("whole suite"));
    m_maxPrompts->setSuffix(QStringLiteral(" prompts"));
    m_budget = spin(0, 100000,
        QStringLiteral("Until decided: start no round that would end past this many "
                       "minutes, at the pace so far (0: no limit)"));
    m_budget->setSpecialValueText(QStringLiteral("no limit"));
    m_budget->setSuffix(QStringLiteral(" min"));
    pair(4, 0, QStringLiteral("L&imit:"), m_maxPrompts);
    pair(4, 1, QStringLiteral("&Budget:"), m_budget);
    m_note = new QLineEdit;
    m_note->setObjectName(QStringLiteral("runNote"));
    m_note->setPlaceholderText(QStringLiteral("what this run tries, e.g. v3: MLP-only calibration"));
    m_note->setToolTip(
        QStringLiteral("Saved in the results file (`run --note`): a campaign shows it beside the attempt"));
    auto* noteLabel = new QLabel(QStringLiteral("No&te:"));
    noteLabel->setBuddy(m_note);
    grid->addWidget(noteLabel, 5, 0);
    grid->addWidget(m_note, 5, 1, 1, 4);
    grid->setColumnStretch(4, 1);
    grid->setHorizontalSpacing(10);
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_warmup, m_runs, m_prompts, m_maxTokens, m_order, m_concurrency, m_maxPrompts, m_budget})
        w->setFixedWidth(fontMetrics().horizontalAdvance(QStringLiteral("suite default (10)")) + 48);

    m_liveArea = new QWidget;
    auto* liveLayout = new QHBoxLayout(m_liveArea);
    liveLayout->setContentsMargins(0, 0, 0, 0);
    auto* placeholder = new QLabel(QStringLiteral("During a run, the text of each endpoint's request in "
                                                  "flight streams here."));
    placeholder->setAlignment(Qt::AlignCenter);
    placeholder->setObjectName(QStringLiteral("livePlaceholder"));
    liveLayout->addWidget(placeholder);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_suiteError);
    layout->addLayout(grid);
    layout->addWidget(m_inForce);
    layout->addSpacing(4);
    layout->addWidget(m_progress);
    layout->addWidget(m_progressLine);
    layout->addWidget(m_status);
    layout->addWidget(m_liveArea, 1);

    m_builtins = QStringList {RunPanelSettings().suite};
    rebuildSuites(m_builtins.front());

    connect(m_suite, &QComboBox::activated, this, &RunPanel::onSuiteActivated);
    connect(m_suite, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && m_suite->itemData(index, KindRole).toInt() != OpenFile) {
            m_lastSuiteIndex = index;
            emitChanged();
        }
    });
    // The user's own numbers end the demo's: the window never swaps a choice away. Connected
    // first, so the in-force line that emitChanged() writes already knows.
    for (QSpinBox* s : {m_warmup, m_runs, m_prompts})
        connect(s, &QSpinBox::valueChanged, this, [this] {
            if (!m_quiet)
                m_demoDefaults = false;
        });
    for (QSpinBox* s : {m_warmup, m_runs, m_prompts, m_maxTokens, m_concurrency, m_maxPrompts, m_budget})
        connect(s, &QSpinBox::valueChanged, this, &RunPanel::emitChanged);
    connect(m_untilDecided, &QCheckBox::toggled, this, [this] {
        setRunning(m_running); // the rounds draw the prompts: the prompts field gives way to the caps
        emitChanged();
    });
    connect(m_order, &QComboBox::currentIndexChanged, this, &RunPanel::emitChanged);
    connect(m_judgeAfter, &QCheckBox::toggled, this, &RunPanel::emitChanged);
    connect(m_run, &QPushButton::clicked, this, &RunPanel::runRequested);
    connect(m_stop, &QPushButton::clicked, this, &RunPanel::stopRequested);

    setSettings(RunPanelSettings());
    setRunning(false);
    applyColors();
}

void RunPanel::emitChanged()
{
    if (m_quiet)
        return;
    updateInForce();
    Q_EMIT settingsChanged();
}

void RunPanel::setBuiltinSuites(const QStringList& names)
{
    m_builtins = names;
    rebuildSuites(settings().suite);
}

void RunPanel::rebuildSuites(const QString& select)
{
    const QSignalBlocker block(m_suite);
    m_suite->clear();
    auto add = [this](const QString& text, const QString& value, SuiteKind kind, const QString& tip) {
        m_suite->addItem(text, value);
        m_suite->setItemData(m_suite->count() - 1, int(kind), KindRole);
        m_suite->setItemData(m_suite->count() - 1, tip, Qt::ToolTipRole);
    };
    for (const QString& name : m_builtins)
        add(name, name, Builtin, QStringLiteral("Built-in suite \"%1\"").arg(name));
    if (!m_builtins.isEmpty())
        m_suite->insertSeparator(m_suite->count());
    for (const QString& path : m_files)
        add(QFileInfo(path).fileName(), path, File, path);
    if (!m_files.isEmpty())
        m_suite->insertSeparator(m_suite->count());
    add(QStringLiteral("Open suite file…"), QString(), OpenFile,
        QStringLiteral("Choose a suite file (JSON); it stays in this list"));

    int index = -1;
    for (int i = 0; i < m_suite->count() && index < 0; ++i)
        if (m_suite->itemData(i, KindRole).toInt() != OpenFile && !select.isEmpty()
            && m_suite->itemData(i).toString() == select)
            index = i;
    if (index < 0)
        index = m_builtins.isEmpty() && m_files.isEmpty() ? -1 : 0;
    m_suite->setCurrentIndex(index);
    m_lastSuiteIndex = qMax(0, index);
}

void RunPanel::selectSuite(const QString& suite)
{
    // A path not seen before joins the list of files.
    QString select = suite;
    if (!suite.isEmpty() && !m_builtins.contains(suite)) {
        select = QFileInfo(suite).absoluteFilePath();
        if (!m_files.contains(select))
            m_files.prepend(select);
    }
    rebuildSuites(select);
}

void RunPanel::onSuiteActivated(int index)
{
    if (m_suite->itemData(index, KindRole).toInt() != OpenFile)
        return;
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Open suite file"), QString(), QStringLiteral("Suites (*.json);;All files (*)"));
    if (path.isEmpty()) {
        m_suite->setCurrentIndex(m_lastSuiteIndex);
        return;
    }
    selectSuite(path);
    emitChanged();
}

void RunPanel::setSuiteDefaults(int warmup, int runs)
{
    m_suiteWarmup = warmup;
    m_suiteRuns = runs;
    updateSpinTexts();
}

void RunPanel::setSuite(std::shared_ptr<const Suite> suite)
{
    m_suiteGiven = true;
    m_suiteParsed = std::move(suite);
    setSuiteDefaults(m_suiteParsed ? m_suiteParsed->defaults.warmup : -1,
        m_suiteParsed ? m_suiteParsed->defaults.runs : -1);
    updateInForce();
}

QString RunPanel::inForceText() const
{
    if (!m_suiteGiven)
        return {};
    if (!m_suiteParsed)
        return QStringLiteral("Unknown: the suite could not be read (the message above says why). Fix it, "
                              "or choose another suite.");
    const RunPanelSettings s = settings();
    return runInForceText(*m_suiteParsed, s);
}

void RunPanel::updateInForce()
{
    const QString text = inForceText();
    m_inForce->setVisible(!text.isEmpty());
    m_inForce->setText(QStringLiteral("<b>Settings in force:</b> ")
        + text.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>")));
}

void RunPanel::updateSpinTexts()
{
    auto text = [](int value) {
        return value >= 0 ? QStringLiteral("suite default (%1)").arg(value) : QStringLiteral("suite default");
    };
    m_warmup->setSpecialValueText(text(m_suiteWarmup));
    m_runs->setSpecialValueText(text(m_suiteRuns));
    m_maxTokens->setSpecialValueText(QStringLiteral("suite default"));
}

RunPanelSettings RunPanel::settings() const
{
    RunPanelSettings s;
    const int index = m_suite->currentIndex();
    if (index >= 0 && m_suite->itemData(index, KindRole).toInt() != OpenFile)
        s.suite = m_suite->itemData(index).toString();
    s.settings = m_base;
    s.settings.warmup = m_warmup->value();
    s.settings.runs = m_runs->value() == 0 ? -1 : m_runs->value();
    s.settings.maxTokens
        = m_maxTokens->value() == 0 ? std::nullopt : std::optional<int>(m_maxTokens->value());
    s.settings.order = RunOrder(m_order->currentData().toInt());
    s.settings.concurrency = m_concurrency->value();
    s.settings.promptsPerCategory = m_prompts->value();
    s.judgeAfterRun = m_judgeAfter->isChecked();
    s.demoDefaults = m_demoDefaults;
    s.untilDecided = m_untilDecided->isChecked();
    s.maxPrompts = m_maxPrompts->value();
    s.budgetMinutes = m_budget->value();
    s.note = m_note->text().trimmed();
    if (s.untilDecided)
        s.settings.promptsPerCategory = 0; // the rounds draw them
    return s;
}

void RunPanel::setSettings(const RunPanelSettings& s)
{
    m_quiet = true;
    m_base = s.settings;
    selectSuite(s.suite);
    m_warmup->setValue(qBound(-1, s.settings.warmup, m_warmup->maximum()));
    m_runs->setValue(s.settings.runs <= 0 ? 0 : qMin(s.settings.runs, m_runs->maximum()));
    m_maxTokens->setValue(
        s.settings.maxTokens ? qBound(1, *s.settings.maxTokens, m_maxTokens->maximum()) : 0);
    m_order->setCurrentIndex(qMax(0, m_order->findData(int(s.settings.order))));
    m_concurrency->setValue(qBound(1, s.settings.concurrency, 64));
    m_prompts->setValue(qBound(0, s.settings.promptsPerCategory, m_prompts->maximum()));
    m_judgeAfter->setChecked(s.judgeAfterRun);
    m_untilDecided->setChecked(s.untilDecided);
    m_maxPrompts->setValue(qBound(0, s.maxPrompts, m_maxPrompts->maximum()));
    m_budget->setValue(qBound(0, s.budgetMinutes, m_budget->maximum()));
    m_note->setText(s.note);
    m_demoDefaults = s.demoDefaults;
    updateSpinTexts();
    m_quiet = false;
    updateInForce();
    Q_EMIT settingsChanged();
}

void RunPanel::setSuiteError(const QString& message)
{
    m_suiteError->setText(message);
    m_suiteError->setVisible(!message.isEmpty());
}

void RunPanel::setRunning(bool running)
{
    m_running = running;
    m_run->setEnabled(!running);
    m_stop->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*> {m_suite, m_warmup, m_runs, m_prompts, m_maxTokens,
             m_order, m_concurrency, m_judgeAfter, m_untilDecided, m_maxPrompts, m_budget, m_note})
        w->setEnabled(!running);
    const bool rounds = m_untilDecided->isChecked();
    m_prompts->setEnabled(!running && !rounds);
    m_maxPrompts->setEnabled(!running && rounds);
    m_budget->setEnabled(!running && rounds);
}

bool RunPanel::running() const
{
    return m_running;
}

void RunPanel::setStatusText(const QString& text)
{
    m_status->setText(text);
}

void RunPanel::beginLive(const QStringList& endpointLabels)
{
    for (LiveColumn& c : m_columns)
        delete c.box;
    m_columns.clear();
    if (auto* placeholder = m_liveArea->findChild<QLabel*>(QStringLiteral("livePlaceholder")))
        placeholder->setVisible(endpointLabels.isEmpty());
    for (const QString& label : endpointLabels)
        addColumn(label);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(QStringLiteral("Starting…"));
}

void RunPanel::addColumn(const QString& label)
{
    if (auto* placeholder = m_liveArea->findChild<QLabel*>(QStringLiteral("livePlaceholder")))
        placeholder->hide();
    const Theme theme = isDark(this) ? Theme::Dark : Theme::Light;
    LiveColumn c;
    c.box = new QWidget(m_liveArea);
    auto* v = new QVBoxLayout(c.box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(3);
    c.header = new QLabel;
    c.header->setTextFormat(Qt::RichText);
    // The endpoint's colour, as in every chart.
    c.title = QStringLiteral("<span style='color:%1'>■</span>&nbsp;<b>%2</b>")
                  .arg(endpointColor(int(m_columns.size()), theme).name(), label.toHtmlEscaped());
    c.header->setText(QStringLiteral("%1<br><span style='color:%2'>waiting…</span>")
                          .arg(c.title, themeColors(theme).mutedText.name()));
    c.text = new QPlainTextEdit;
    c.text->setReadOnly(true);
    c.text->setUndoRedoEnabled(false); // appended text must not pile up in an undo stack
    v->addWidget(c.header);
    v->addWidget(c.text, 1);
    m_liveArea->layout()->addWidget(c.box);
    static_cast<QHBoxLayout*>(m_liveArea->layout())->setStretchFactor(c.box, 1);
    m_columns.push_back(c);
}

void RunPanel::setProgress(const RunProgress& p)
{
    m_progress->setRange(0, qMax(1, p.total));
    m_progress->setValue(qBound(0, p.done, qMax(1, p.total)));
    m_progress->setFormat(p.total > 0 ? QStringLiteral("%v / %m requests") : QStringLiteral("%v requests"));
    QStringList parts;
    if (!p.endpointLabel.isEmpty())
        parts << p.endpointLabel;
    else if (p.endpoint >= 0)
        parts << QStringLiteral("endpoint %1").arg(p.endpoint + 1);
    const int runs = m_runs->value() > 0 ? m_runs->value() : m_suiteRuns;
    const QString place = placeText(p.test, p.turn, p.iteration, p.warmup, runs);
    if (!place.isEmpty())
        parts << place;
    if (p.failed > 0)
        parts << QStringLiteral("%1 failed").arg(p.failed);
    if (p.stopped > 0)
        parts << QStringLiteral("%1 stopped").arg(p.stopped);
    if (p.etaMs)
        parts << QStringLiteral("ETA ") + formatEta(*p.etaMs);
    m_progressText = parts.join(QStringLiteral(" · "));
    m_progressLine->setText(m_progressText);
}

QString RunPanel::progressText() const
{
    return m_progressText;
}

void RunPanel::addDeltas(const QList<LiveDelta>& deltas)
{
    // Live text without beginLive() (or for more endpoints): make the missing columns.
    int needed = int(m_columns.size());
    for (const LiveDelta& d : deltas)
        needed = std::max(needed, d.endpoint + 1);
    while (int(m_columns.size()) < needed)
        addColumn(QStringLiteral("endpoint %1").arg(m_columns.size() + 1));
    // One pass; scrolling and the cap are settled once per column per batch.
    std::vector<signed char> touched(m_columns.size(), -1); // -1 untouched, else "was at the bottom"
    for (const LiveDelta& d : deltas) {
        if (d.endpoint < 0)
            continue;
        LiveColumn& c = m_columns[std::size_t(d.endpoint)];
        signed char& atBottom = touched[std::size_t(d.endpoint)];
        if (atBottom < 0) {
            const QScrollBar* bar = c.text->verticalScrollBar();
            atBottom = bar->value() >= bar->maximum() - 4 ? 1 : 0;
        }
        if (d.started || c.slot < 0) {
            // Several slots of one endpoint may stream at once: the column follows the newest.
            if (d.started)
                c.text->clear();
            c.slot = d.slot;
            c.toolCallShown = false;
            const QString muted = themeColors(isDark(this) ? Theme::Dark : Theme::Light).mutedText.name();
            c.header->setText(QStringLiteral("%1<br><span style='color:%2'>%3</span>")
                                  .arg(c.title, muted,
                                      placeText(d.test, d.turn, d.iteration, d.warmup,
                                          m_runs->value() > 0 ? m_runs->value() : m_suiteRuns)
                                          .toHtmlEscaped()));
        } else if (d.slot != c.slot) {
            continue;
        }
        append(c, d);
    }
    for (std::size_t i = 0; i < m_columns.size(); ++i) {
        if (touched[i] < 0)
            continue;
        QPlainTextEdit* text = m_columns[i].text;
        QTextDocument* doc = text->document();
        // Trim with some slack, so a long answer is not cut on every batch.
        const int excess = doc->characterCount() - liveCharacterCap;
        if (excess > liveCharacterCap / 5) {
            QTextCursor cut(doc);
            cut.setPosition(0);
            cut.setPosition(excess, QTextCursor::KeepAnchor);
            cut.removeSelectedText();
        }
        if (touched[i] == 1)
            text->verticalScrollBar()->setValue(text->verticalScrollBar()->maximum());
    }
}

void RunPanel::append(LiveColumn& c, const LiveDelta& d)
{
    QTextCursor cursor(c.text->document());
    cursor.movePosition(QTextCursor::End);
    if (!d.reasoning.isEmpty())
        cursor.insertText(d.reasoning, m_reasoningFormat);
    if (!d.content.isEmpty())
        cursor.insertText(d.content, m_contentFormat);
    if (d.toolCall && !c.toolCallShown) {
        // Tool-call arguments are not in the live deltas: say that one is being written.
        cursor.insertText(QStringLiteral(" [tool call] "), m_toolFormat);
        c.toolCallShown = true;
    }
}

QString RunPanel::liveText(int index) const
{
    if (index < 0 || std::size_t(index) >= m_columns.size())
        return {};
    return m_columns[std::size_t(index)].text->toPlainText();
}

void RunPanel::applyColors()
{
    const ThemeColors& c = themeColors(isDark(this) ? Theme::Dark : Theme::Light);
    m_suiteError->setStyleSheet(QStringLiteral("color: %1;").arg(c.criticalAccent.name()));
    m_progressLine->setStyleSheet(QStringLiteral("font-weight: 600;"));
    m_status->setStyleSheet(QStringLiteral("color: %1;").arg(c.mutedText.name()));
    if (auto* placeholder = m_liveArea->findChild<QLabel*>(QStringLiteral("livePlaceholder")))
        placeholder->setStyleSheet(QStringLiteral("color: %1;").arg(c.mutedText.name()));
    m_contentFormat = QTextCharFormat();
    m_reasoningFormat = QTextCharFormat();
    m_reasoningFormat.setForeground(c.mutedText);
    m_reasoningFormat.setFontItalic(true);
    m_toolFormat = QTextCharFormat();
    m_toolFormat.setForeground(c.infoAccent);
    m_toolFormat.setFontWeight(QFont::DemiBold);
}

void RunPanel::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyColors();
}

} // namespace qs

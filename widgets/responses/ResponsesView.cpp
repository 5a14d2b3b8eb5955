// SPDX-License-Identifier: MIT
#include "widgets/responses/ResponsesView.h"

#include "model/core/TestNumbering.h"
#include "model/evaluate/Fidelity.h"
#include "model/gates/QualityGates.h"
#include "widgets/responses/PairwiseVerdictPanel.h"
#include "widgets/responses/ResponseColumn.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace qs {

namespace {

QString stringAt(const nlohmann::json& object, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

/// In how many gates some endpoints failed and others did not. Pass against not applicable is no
/// difference in quality (a proper tool call leaves no text to judge for markdown), so only a
/// failure counts.
int verdictDifferences(const RunResult& result, const std::vector<int>& records)
{
    int present = 0;
    for (int index : records)
        present += index >= 0 ? 1 : 0;
    if (present < 2)
        return 0;
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k;
        for (const QString& gate : gateNames())
            k.push_back(gate.toStdString());
        return k;
    }();
    int differences = 0;
    for (const std::string& key : keys) {
        int failed = 0;
        for (int index : records) {
            if (index < 0)
                continue;
            const nlohmann::json& gates = result.records[std::size_t(index)].gates;
            const auto verdict = gates.is_object() ? gates.find(key) : gates.end();
            failed += verdict != gates.end() && verdict->is_boolean() && !verdict->get<bool>() ? 1 : 0;
        }
        differences += failed > 0 && failed < present ? 1 : 0;
    }
    return differences;
}

QToolButton* segmentButton(const QString& text, const QString& tip)
{
    auto* button = new QToolButton;
    button->setText(text);
    button->setToolTip(tip);
    button->setCheckable(true);
    button->setAutoExclusive(true);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return button;
}

} // namespace

ResponsesView::ResponsesView(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 10, 10, 10);
    layout->setSpacing(8);

    m_controlsBox = new QWidget;
    auto* controls = new QHBoxLayout(m_controlsBox);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->setSpacing(6);
    controls->addWidget(new QLabel(QStringLiteral("Test")));
    m_testCombo = new QComboBox;
    m_testCombo->setObjectName(QStringLiteral("test"));
    m_testCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_testCombo->setToolTip(QStringLiteral("The suite's tests, in run order"));
    controls->addWidget(m_testCombo);
    controls->addSpacing(8);
    m_turnLabel = new QLabel(QStringLiteral("Turn"));
    controls->addWidget(m_turnLabel);
    m_turnSpin = new QSpinBox;
    m_turnSpin->setObjectName(QStringLiteral("turn"));
    m_turnSpin->setToolTip(QStringLiteral("Turn of the conversation (multi-turn tests)"));
    controls->addWidget(m_turnSpin);
    controls->addSpacing(8);
    controls->addWidget(new QLabel(QStringLiteral("Run")));
    m_iterationSpin = new QSpinBox;
    m_iterationSpin->setObjectName(QStringLiteral("iteration"));
    m_iterationSpin->setToolTip(QStringLiteral("Measured run (warm-ups are not shown)"));
    controls->addWidget(m_iterationSpin);
    controls->addSpacing(8);
    m_mostDifferent = new QToolButton;
    m_mostDifferent->setText(QStringLiteral("Most different"));
    m_mostDifferent->setToolTip(
        QStringLiteral("Go to the first response where the endpoints' gate verdicts differ most"));
    controls->addWidget(m_mostDifferent);
    controls->addStretch(1);
    m_rawButton = segmentButton(QStringLiteral("Raw"),
        QStringLiteral(
            "The answer exactly as sent, markdown symbols included, with the gates' spans highlighted"));
    m_rawButton->setObjectName(QStringLiteral("raw"));
    m_renderedButton = segmentButton(QStringLiteral("Rendered"),
        QStringLiteral("The answer rendered as markdown, as a chat UI would show it (no HTML, no images)"));
    m_renderedButton->setObjectName(QStringLiteral("rendered"));
    m_rawButton->setChecked(true);
    auto* segments = new QHBoxLayout;
    segments->setSpacing(0);
    segments->addWidget(m_rawButton);
    segments->addWidget(m_renderedButton);
    controls->addLayout(segments);
    layout->addWidget(m_controlsBox);

    m_prompt = new QLabel;
    m_prompt->setObjectName(QStringLiteral("prompt"));
    m_prompt->setTextFormat(Qt::PlainText);
    m_prompt->setWordWrap(true);
    m_prompt->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_prompt);

    m_legend = new QWidget;
    m_legend->setObjectName(QStringLiteral("legend"));
    auto* legend = new QHBoxLayout(m_legend);
    legend->setContentsMargins(0, 0, 0, 0);
    legend->setSpacing(4);
    m_legendTitle = new QLabel;
    m_legendTitle->setToolTip(QStringLiteral("Spans of the answers the quality gates point at"));
    legend->addWidget(m_legendTitle);
    for (SpanKind kind : spanKinds()) {
        auto* swatch = new QLabel;
        swatch->setFixedSize(14, 14);
        swatch->setToolTip(plainToolTip(spanDescription(kind)));
        m_swatches.push_back(swatch);
        legend->addSpacing(6);
        legend->addWidget(swatch);
        auto* text = new QLabel(spanLabel(kind));
        text->setObjectName(QStringLiteral("legend:") + spanGate(kind));
        text->setToolTip(plainToolTip(spanDescription(kind)));
        legend->addWidget(text);
    }
    legend->addStretch(1);
    layout->addWidget(m_legend);

    m_pairwise = new PairwiseVerdictPanel;
    layout->addWidget(m_pairwise);

    m_empty = new QLabel;
    m_empty->setObjectName(QStringLiteral("empty"));
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    layout->addWidget(m_empty, 1);

    m_columnsBox = new QWidget;
    m_columnsLayout = new QHBoxLayout(m_columnsBox);
    m_columnsLayout->setContentsMargins(0, 0, 0, 0);
    m_columnsLayout->setSpacing(10);
    layout->addWidget(m_columnsBox, 1);

    connect(m_testCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (!m_syncing && index >= 0)
            applySelection(index, m_turn, m_iteration);
    });
    connect(m_turnSpin, &QSpinBox::valueChanged, this, [this](int turn) {
        if (!m_syncing)
            applySelection(testIndex(m_test), turn, m_iteration);
    });
    connect(m_iterationSpin, &QSpinBox::valueChanged, this, [this](int iteration) {
        if (!m_syncing)
            applySelection(testIndex(m_test), m_turn, iteration);
    });
    connect(m_mostDifferent, &QToolButton::clicked, this, &ResponsesView::selectMostDifferent);
    connect(m_renderedButton, &QToolButton::toggled, this, &ResponsesView::setRendered);

    setTheme(m_theme);
    setRendered(false);
    setData(DashboardData {});
}

void ResponsesView::setData(const DashboardData& dashboard)
{
    m_data = dashboard;
    buildIndex();
    buildFidelityIndex();
    syncColumns();
    syncTestCombo();

    const bool empty = m_cells.empty();
    m_empty->setText(m_data.live
            ? QStringLiteral("Waiting for the first measured response (warm-ups are not shown)…")
            : QStringLiteral("No responses to show yet: run a benchmark or open a results file."));
    m_empty->setVisible(empty);
    m_columnsBox->setVisible(!empty);
    // Nothing to pick from: only the message.
    m_controlsBox->setVisible(!empty);
    m_legend->setVisible(!empty);
    m_prompt->setVisible(!empty);
    if (empty) {
        m_pairwise->setPairs({});
        m_test.clear();
        m_promptText.clear();
        m_prompt->clear();
        return;
    }
    // The user's selection survives refreshes; a new run (its test gone) opens on the most
    // telling comparison.
    const int test = testIndex(m_test);
    if (test < 0)
        selectMostDifferent();
    else
        applySelection(test, m_turn, m_iteration);
}

void ResponsesView::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    QPalette muted = palette();
    muted.setColor(QPalette::WindowText, themeColors(theme).mutedText);
    m_prompt->setPalette(muted);
    m_empty->setPalette(muted);
    styleLegend();
    m_pairwise->setTheme(theme);
    for (ResponseColumn* column : m_columns)
        column->setTheme(theme);
}

bool ResponsesView::select(const QString& test, int turn, int iteration)
{
    const int index = testIndex(test);
    if (index < 0 || m_cells.find(CellKey {index, turn, iteration}) == m_cells.end())
        return false;
    applySelection(index, turn, iteration);
    return true;
}

void ResponsesView::selectMostDifferent()
{
    if (m_cells.empty() || !m_data.result)
        return;
    // Cells are ordered by test (run order), turn and iteration: ties go to the first.
    auto best = m_cells.begin();
    int bestScore = -1;
    // The first runs of every test and turn are plenty to find a telling example, and keep this
    // cheap on the GUI thread when a file holds 100,000 records.
    constexpr int MaxIterationScanned = 50;
    for (auto it = m_cells.begin(); it != m_cells.end(); ++it) {
        if (std::get<2>(it->first) > MaxIterationScanned)
            continue;
        const int score = verdictDifferences(*m_data.result, it->second);
        if (score > bestScore) {
            best = it;
            bestScore = score;
            if (score == int(gateNames().size()))
                break; // cannot do better
        }
    }
    const auto [test, turn, iteration] = best->first;
    applySelection(test, turn, iteration);
}

QString ResponsesView::currentTest() const
{
    return m_test;
}

int ResponsesView::currentTurn() const
{
    return m_test.isEmpty() ? 0 : m_turn;
}

int ResponsesView::currentIteration() const
{
    return m_test.isEmpty() ? 0 : m_iteration;
}

void ResponsesView::setRendered(bool rendered)
{
    m_rendered = rendered;
    const QSignalBlocker blocker(m_renderedButton);
    m_renderedButton->setChecked(rendered);
    m_rawButton->setChecked(!rendered);
    for (ResponseColumn* column : m_columns)
        column->setRendered(rendered);
    // Rendered text has no character positions to mark: the legend says where to look.
    m_legendTitle->setText(
        rendered ? QStringLiteral("Highlights (in Raw mode):") : QStringLiteral("Highlights:"));
    m_legend->setEnabled(!rendered);
}

bool ResponsesView::rendered() const
{
    return m_rendered;
}

int ResponsesView::columnCount() const
{
    return int(m_columns.size());
}

ResponseColumn* ResponsesView::column(int index) const
{
    return index >= 0 && index < columnCount() ? m_columns[std::size_t(index)] : nullptr;
}

QString ResponsesView::currentPrompt() const
{
    return m_promptText;
}

void ResponsesView::buildFidelityIndex()
{
    m_fidelity.clear();
    m_fidelityReferences.clear();
    if (m_data.isEmpty() || !m_data.evaluation)
        return;
    for (const FidelityArm& arm : m_data.evaluation->fidelity.arms)
        for (const FidelityPrompt& p : arm.prompts) {
            if (p.candidateRecord < 0 || p.referenceRecord < 0)
                continue;
            m_fidelity[p.candidateRecord] = &p;
            m_fidelityReferences.insert(p.referenceRecord);
        }
}

void ResponsesView::buildIndex()
{
    m_tests.clear();
    m_cells.clear();
    if (m_data.isEmpty())
        return;
    const RunResult& result = *m_data.result;
    const int endpoints = int(result.endpoints.size());

    // The suite's names and turn counts (a handful of tests, not records).
    QHash<QString, std::pair<QString, int>> suiteTests;
    if (result.suite.is_object() && result.suite.contains("tests") && result.suite.at("tests").is_array())
        for (const nlohmann::json& t : result.suite.at("tests")) {
            const auto turns = t.is_object() ? t.find("turns") : t.end();
            suiteTests.insert(stringAt(t, "id"),
                {stringAt(t, "name"), turns != t.end() && turns->is_array() ? int(turns->size()) : 1});
        }

    // The one pass over the records.
    TestNumbering indexOf;
    for (std::size_t i = 0; i < result.records.size(); ++i) {
        const RunRecord& r = result.records[i];
        if (r.warmup || r.endpoint < 0 || r.endpoint >= endpoints)
            continue;
        const int found = indexOf.number(r.test);
        if (found == int(m_tests.size())) {
            TestEntry entry;
            entry.id = r.test;
            const auto suite = suiteTests.constFind(r.test);
            entry.name = suite != suiteTests.constEnd() && !suite->first.isEmpty() ? suite->first : r.test;
            entry.turns = suite != suiteTests.constEnd() ? std::max(1, suite->second) : 1;
            m_tests.push_back(entry);
        }
        TestEntry& entry = m_tests[std::size_t(found)];
        entry.turns = std::max(entry.turns, r.turn);
        entry.iterations = std::max(entry.iterations, r.iteration);
        std::vector<int>& cell = m_cells[CellKey {found, r.turn, r.iteration}];
        if (cell.empty())
            cell.assign(std::size_t(endpoints), -1);
        cell[std::size_t(r.endpoint)] = int(i);
    }

    // The judge's verdicts, by the cell they are about (verdicts on answers not shown are skipped).
    m_judged.clear();
    const Judging& judging = result.judging;
    for (std::size_t i = 0; i < judging.rubricVerdicts.size(); ++i) {
        const JudgedAnswer& a = judging.rubricVerdicts[i].answer;
        const int test = indexOf.find(a.test);
        if (test < 0 || a.endpoint < 0 || a.endpoint >= endpoints)
            continue;
        std::vector<int>& rubric = m_judged[CellKey {test, a.turn, a.iteration}].rubric;
        if (rubric.empty())
            rubric.assign(std::size_t(endpoints), -1);
        rubric[std::size_t(a.endpoint)] = int(i); // a resumed judging's later verdict wins
    }
    for (std::size_t i = 0; i < judging.pairVerdicts.size(); ++i) {
        const PairVerdict& v = judging.pairVerdicts[i];
        if (const int test = indexOf.find(v.test); test >= 0)
            m_judged[CellKey {test, v.turn, v.iteration}].pairs.push_back(int(i));
    }
}

void ResponsesView::syncColumns()
{
    const int wanted = m_data.isEmpty() ? 0 : int(m_data.result->endpoints.size());
    while (columnCount() > wanted) {
        delete m_columns.back();
        m_columns.pop_back();
    }
    while (columnCount() < wanted) {
        auto* column = new ResponseColumn;
        column->setObjectName(QStringLiteral("column%1").arg(columnCount()));
        column->setTheme(m_theme);
        column->setRendered(m_rendered);
        connect(column, &ResponseColumn::linkActivated, this, &ResponsesView::offerLink);
        m_columnsLayout->addWidget(column, 1);
        m_columns.push_back(column);
    }
}

void ResponsesView::syncTestCombo()
{
    bool same = m_testCombo->count() == int(m_tests.size());
    for (int i = 0; same && i < m_testCombo->count(); ++i)
        same = m_testCombo->itemData(i).toString() == m_tests[std::size_t(i)].id;
    if (same)
        return;
    const QSignalBlocker blocker(m_testCombo);
    m_testCombo->clear();
    for (const TestEntry& t : m_tests) {
        m_testCombo->addItem(t.name, t.id);
        m_testCombo->setItemData(m_testCombo->count() - 1, t.id, Qt::ToolTipRole);
    }
    m_testCombo->setCurrentIndex(testIndex(m_test));
}

int ResponsesView::testIndex(const QString& test) const
{
    for (std::size_t i = 0; i < m_tests.size(); ++i)
        if (m_tests[i].id == test)
            return int(i);
    return -1;
}

void ResponsesView::applySelection(int testIdx, int turn, int iteration)
{
    if (testIdx < 0 || testIdx >= int(m_tests.size()))
        return;
    const TestEntry& t = m_tests[std::size_t(testIdx)];
    turn = std::clamp(turn, 1, t.turns);
    iteration = std::clamp(iteration, 1, std::max(1, t.iterations));
    // Another test may not have this cell (yet): fall back to its first one.
    if (m_cells.find(CellKey {testIdx, turn, iteration}) == m_cells.end()) {
        const auto first = m_cells.lower_bound(CellKey {testIdx, 0, 0});
        if (first != m_cells.end() && std::get<0>(first->first) == testIdx) {
            turn = std::get<1>(first->first);
            iteration = std::get<2>(first->first);
        }
    }
    m_test = t.id;
    m_turn = turn;
    m_iteration = iteration;

    m_syncing = true;
    m_testCombo->setCurrentIndex(testIdx);
    const bool multiTurn = t.turns > 1;
    m_turnLabel->setVisible(multiTurn);
    m_turnSpin->setVisible(multiTurn);
    m_turnSpin->setRange(1, t.turns);
    m_turnSpin->setSuffix(QStringLiteral(" of %1").arg(t.turns));
    m_turnSpin->setValue(turn);
    m_iterationSpin->setRange(1, std::max(1, t.iterations));
    m_iterationSpin->setSuffix(QStringLiteral(" of %1").arg(std::max(1, t.iterations)));
    m_iterationSpin->setValue(iteration);
    m_syncing = false;
    showCell();
}

void ResponsesView::showCell()
{
    const int test = testIndex(m_test);
    const auto cell = m_cells.find(CellKey {test, m_turn, m_iteration});
    const RunResult* result = m_data.result.get();
    QString prompt;
    for (int e = 0; e < columnCount(); ++e) {
        ResponseColumn* column = m_columns[std::size_t(e)];
        const int index = cell != m_cells.end() ? cell->second[std::size_t(e)] : -1;
        const RunRecord* record = result && index >= 0 ? &result->records[std::size_t(index)] : nullptr;
        if (record && prompt.isEmpty())
            prompt = lastUserMessage(record->request.requestBody);
        column->setRecord(result ? endpointTitle(*result, e) : QString(), e, record);
        const auto compared = m_fidelity.find(index);
        column->setFidelity(record && compared != m_fidelity.end() ? compared->second : nullptr,
            record && m_fidelityReferences.count(index) > 0);
    }
    showJudging(m_judged.find(CellKey {test, m_turn, m_iteration}));
    m_promptText = prompt;
    const TestEntry* t = test >= 0 ? &m_tests[std::size_t(test)] : nullptr;
    QString label = t && t->turns > 1 ? QStringLiteral("Prompt, turn %1 of %2: ").arg(m_turn).arg(t->turns)
                                      : QStringLiteral("Prompt: ");
    m_prompt->setText(
        prompt.isEmpty() ? QString() : label + QStringLiteral("“") + prompt + QStringLiteral("”"));
}

void ResponsesView::showJudging(const std::map<CellKey, CellJudging>::const_iterator& judged)
{
    const RunResult* result = m_data.result.get();
    const Judging* judging = result ? &result->judging : nullptr;
    const Rubric* rubric = judging && judging->rubric ? &*judging->rubric : nullptr;
    const bool found = judged != m_judged.end();
    for (int e = 0; e < columnCount(); ++e) {
        const int index
            = found && !judged->second.rubric.empty() ? judged->second.rubric[std::size_t(e)] : -1;
        const RubricVerdict* verdict = index >= 0 ? &judging->rubricVerdicts[std::size_t(index)] : nullptr;
        // "Not graded" only under an answer the judge could have graded.
        m_columns[std::size_t(e)]->setRubricVerdict(
            verdict, rubric, rubric && m_columns[std::size_t(e)]->hasRecord());
    }

    // One block per candidate judged against a baseline on this cell, in endpoint order.
    std::map<std::pair<int, int>, PairwiseVerdictPanel::Pair> pairs;
    if (found)
        for (int index : judged->second.pairs) {
            const PairVerdict& v = judging->pairVerdicts[std::size_t(index)];
            PairwiseVerdictPanel::Pair& p = pairs[{v.candidate, v.baseline}];
            p.verdicts.push_back(&v);
            p.candidateLabel = endpointTitle(*result, v.candidate);
            p.baselineLabel = endpointTitle(*result, v.baseline);
        }
    std::vector<PairwiseVerdictPanel::Pair> shown;
    for (auto& [key, pair] : pairs)
        shown.push_back(std::move(pair));
    m_pairwise->setPairs(shown);
}

void ResponsesView::offerLink(const QUrl& url)
{
    // Model output chose this address: nothing is opened without the user's say, and only the web.
    auto* box = new QMessageBox(this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::PlainText);
    QString shown = url.toDisplayString();
    if (shown.size() > 300)
        shown = shown.left(300) + QStringLiteral("…");
    const QString scheme = url.scheme().toLower();
    if (scheme != u"http" && scheme != u"https") {
        box->setIcon(QMessageBox::Information);
        box->setWindowTitle(QStringLiteral("Link not opened"));
        box->setText(
            QStringLiteral("The answer links to:\n\n%1\n\nOnly http and https links from model output "
                           "are opened.")
                .arg(shown));
        box->setStandardButtons(QMessageBox::Ok);
        box->open();
        return;
    }
    box->setIcon(QMessageBox::Question);
    box->setWindowTitle(QStringLiteral("Open a link from model output?"));
    box->setText(QStringLiteral("The model wrote this link:\n\n%1\n\nOpen it in your browser?").arg(shown));
    QPushButton* open = box->addButton(QStringLiteral("Open"), QMessageBox::AcceptRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [box, open, url] {
        if (box->clickedButton() == open)
            QDesktopServices::openUrl(url);
    });
    box->open();
}

void ResponsesView::styleLegend()
{
    const ThemeColors& c = themeColors(m_theme);
    // Raw | Rendered as one segmented control, the chosen half in the accent colour.
    const QString segment = QStringLiteral(
        "QToolButton { background: %1; color: %2; border: 1px solid %3; padding: 3px 12px; %4 }"
        "QToolButton:checked { background: %5; color: white; border-color: %5; }"
        "QToolButton:disabled { color: %6; }");
    const QColor accent = endpointColor(0, Theme::Light);
    m_rawButton->setStyleSheet(segment.arg(c.base.name(), c.text.name(), c.grid.darker(130).name(),
        QStringLiteral("border-top-left-radius: 4px; border-bottom-left-radius: 4px;"), accent.name(),
        c.mutedText.name()));
    m_renderedButton->setStyleSheet(segment.arg(c.base.name(), c.text.name(), c.grid.darker(130).name(),
        QStringLiteral("border-top-right-radius: 4px; border-bottom-right-radius: 4px; border-left: none;"),
        accent.name(), c.mutedText.name()));
    for (std::size_t i = 0; i < m_swatches.size() && i < spanKinds().size(); ++i)
        m_swatches[i]->setStyleSheet(
            QStringLiteral("QLabel { background: %1; border: 1px solid %2; border-radius: 3px; }")
                .arg(spanColor(spanKinds()[i], m_theme).name(), c.grid.darker(115).name()));
}

} // namespace qs

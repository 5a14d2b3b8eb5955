// SPDX-License-Identifier: MIT
#include "widgets/responses/AnswerGrid.h"

#include "model/gates/GateWords.h"
#include "widgets/ViewParts.h"
#include "widgets/responses/ResponseFormatting.h"
#include "widgets/responses/SafeTextView.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextCursor>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

namespace qs {

namespace {

constexpr int ExcerptLength = 160;

QString gateTitleOf(const QString& gate)
{
    const GateWords* w = gateWords(gate);
    return w ? w->title : gate;
}

/// The test names the suite gives, by id.
std::map<QString, std::pair<QString, int>> suiteTests(const nlohmann::json& suite)
{
    std::map<QString, std::pair<QString, int>> out;
    if (!suite.is_object() || !suite.contains("tests") || !suite.at("tests").is_array())
        return out;
    for (const nlohmann::json& t : suite.at("tests")) {
        if (!t.is_object() || !t.contains("id") || !t.at("id").is_string())
            continue;
        const QString name = t.contains("name") && t.at("name").is_string()
            ? QString::fromStdString(t.at("name").get<std::string>())
            : QString();
        const auto turns = t.find("turns");
        out[QString::fromStdString(t.at("id").get<std::string>())]
            = {name, turns != t.end() && turns->is_array() ? int(turns->size()) : 1};
    }
    return out;
}

QString oneLine(const QString& text)
{
    QString line = text.simplified();
    if (line.size() > ExcerptLength)
        line = line.left(ExcerptLength - 1) + QStringLiteral("…");
    return line;
}

} // namespace

QString AnswerCell::verdictText() const
{
    if (runs == 0)
        return QStringLiteral("no answer yet");
    if (passed())
        return QStringLiteral("✓ passed every check · %1 %2")
            .arg(runs)
            .arg(runs == 1 ? QStringLiteral("run") : QStringLiteral("runs"));
    QStringList why;
    std::vector<std::pair<QString, int>> gates(gateFailures.begin(), gateFailures.end());
    std::stable_sort(
        gates.begin(), gates.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [gate, n] : gates)
        why << QStringLiteral("%1 %2/%3").arg(gateTitleOf(gate)).arg(n).arg(runs);
    if (requestFailures > 0)
        why << QStringLiteral("request failed %1/%2").arg(requestFailures).arg(runs);
    return QStringLiteral("✗ failed: ") + why.join(QStringLiteral(", "));
}

bool AnswerRow::differs() const
{
    bool anyPassed = false;
    bool anyFailed = false;
    for (const AnswerCell& c : cells) {
        if (c.runs == 0)
            continue;
        anyPassed = anyPassed || c.passed();
        anyFailed = anyFailed || !c.passed();
    }
    return anyPassed && anyFailed;
}

std::vector<AnswerRow> answerRows(const DashboardData& data)
{
    std::vector<AnswerRow> rows;
    if (data.isEmpty())
        return rows;
    const RunResult& run = *data.result;
    const std::size_t endpoints = run.endpoints.size();
    const auto names = suiteTests(run.suite);
    std::map<QString, std::size_t> rowOf;
    // Per (row, endpoint, iteration): failed gates and whether the request failed; and the first
    // run's last turn for the excerpt.
    struct RunState {
        std::set<QString> gates;
        bool requestFailed = false;
    };
    std::map<std::tuple<std::size_t, int, int>, RunState> runs;
    std::map<std::pair<std::size_t, int>, std::pair<std::pair<int, int>, const RunRecord*>> shown;
    for (const RunRecord& r : run.records) {
        if (r.warmup || r.endpoint < 0 || std::size_t(r.endpoint) >= endpoints)
            continue;
        auto [it, added] = rowOf.try_emplace(r.test, rows.size());
        if (added) {
            AnswerRow row;
            row.test = r.test;
            const auto n = names.find(r.test);
            row.name = n != names.end() && !n->second.first.isEmpty() ? n->second.first : r.test;
            row.turns = n != names.end() ? n->second.second : 1;
            row.cells.resize(endpoints);
            rows.push_back(std::move(row));
        }
        const std::size_t index = it->second;
        rows[index].turns = std::max(rows[index].turns, r.turn);
        RunState& state = runs[{index, r.endpoint, r.iteration}];
        state.requestFailed = state.requestFailed || r.request.failure.isFailure();
        if (r.gates->is_object())
            for (const auto& [gate, verdict] : r.gates->items())
                if (verdict.is_boolean() && !verdict.get<bool>())
                    state.gates.insert(QString::fromStdString(gate));
        // The excerpt: the earliest run, its last turn.
        auto& best = shown[{index, r.endpoint}];
        const std::pair<int, int> key {-r.iteration, r.turn};
        if (!best.second || key > best.first)
            best = {key, &r};
    }
    for (const auto& [key, state] : runs) {
        const auto [index, endpoint, iteration] = key;
        AnswerCell& cell = rows[index].cells[std::size_t(endpoint)];
        ++cell.runs;
        if (state.requestFailed)
            ++cell.requestFailures;
        if (state.requestFailed || !state.gates.empty())
            ++cell.failedRuns;
        for (const QString& gate : state.gates)
            ++cell.gateFailures[gate];
    }
    for (const auto& [key, value] : shown) {
        AnswerCell& cell = rows[key.first].cells[std::size_t(key.second)];
        const RunRecord& r = *value.second;
        cell.firstIteration = r.iteration;
        const AssembledResponse& response = r.request.response;
        const QString answer = response.content.mid(answerStart(r.request));
        if (!answer.trimmed().isEmpty())
            cell.excerpt = oneLine(answer);
        else if (!response.toolCalls.empty())
            cell.excerpt
                = QStringLiteral("[tool call] %1(%2)")
                      .arg(response.toolCalls.front().name, oneLine(response.toolCalls.front().arguments));
        else if (r.request.failure.isFailure())
            cell.excerpt = QStringLiteral("[request failed: %1]").arg(failureKindId(r.request.failure.kind));
        if (rows[key.first].turns > 1 && !cell.excerpt.isEmpty())
            cell.excerpt = QStringLiteral("turn %1: ").arg(r.turn) + cell.excerpt;
    }
    return rows;
}

AnswerGrid::AnswerGrid(QWidget* parent)
    : QWidget(parent)
{
    m_differingBox = new QCheckBox(QStringLiteral("Only where the endpoints differ"), this);
    m_differingBox->setObjectName(QStringLiteral("onlyDiffering"));
    m_differingBox->setToolTip(
        QStringLiteral("Keep the tests where some endpoint passed every run and another did not"));
    m_summary = plainLabel(this, QStringLiteral("answerSummary"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_differingBox);
    bar->addSpacing(16);
    bar->addWidget(m_summary, 1);

    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("answerGrid"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideNone);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);

    auto* conversation = new QWidget(this);
    m_conversationTitle = new QLabel(conversation);
    QFont bold = m_conversationTitle->font();
    bold.setBold(true);
    m_conversationTitle->setFont(bold);
    m_runSpin = new QSpinBox(conversation);
    m_runSpin->setObjectName(QStringLiteral("conversationRun"));
    m_runSpin->setPrefix(QStringLiteral("run "));
    m_runSpin->setMinimum(1);
    auto* open = new QLabel(
        QStringLiteral("Double-click a row to open it side by side with its metrics."), conversation);
    open->setForegroundRole(QPalette::PlaceholderText);
    auto* titleBar = new QHBoxLayout;
    titleBar->addWidget(m_conversationTitle, 1);
    titleBar->addWidget(open);
    titleBar->addWidget(m_runSpin);
    m_conversationBox = new QWidget(conversation);
    m_conversationLayout = new QHBoxLayout(m_conversationBox);
    m_conversationLayout->setContentsMargins(0, 0, 0, 0);
    auto* conversationLayout = new QVBoxLayout(conversation);
    conversationLayout->setContentsMargins(0, 4, 0, 0);
    conversationLayout->addLayout(titleBar);
    conversationLayout->addWidget(m_conversationBox, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(conversation);
    splitter->setChildrenCollapsible(false);
    // The conversation is read, not glanced at: it gets room of its own.
    conversation->setMinimumHeight(220);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);

    connect(m_differingBox, &QCheckBox::toggled, this, &AnswerGrid::setOnlyDiffering);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const QList<QTableWidgetItem*> items = m_table->selectedItems();
        if (items.isEmpty())
            return;
        m_selected = items.front()->data(Qt::UserRole).toString();
        showConversation();
    });
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) {
        const QString test = m_table->item(row, 0)->data(Qt::UserRole).toString();
        Q_EMIT openRequested(test, 1, m_runSpin->value());
    });
    connect(m_runSpin, &QSpinBox::valueChanged, this, [this] { showConversation(); });
    setTheme(m_theme);
    setData(DashboardData {});
}

void AnswerGrid::setData(const DashboardData& dashboard)
{
    m_data = dashboard;
    m_rows = answerRows(dashboard);
    syncConversationColumns();
    fillTable();
}

void AnswerGrid::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    fillTable();
}

void AnswerGrid::setOnlyDiffering(bool only)
{
    m_onlyDiffering = only;
    if (m_differingBox->isChecked() != only)
        m_differingBox->setChecked(only);
    fillTable();
}

bool AnswerGrid::selectTest(const QString& test)
{
    for (int row = 0; row < m_table->rowCount(); ++row)
        if (m_table->item(row, 0)->data(Qt::UserRole).toString() == test) {
            m_table->selectRow(row);
            m_selected = test;
            showConversation();
            return true;
        }
    return false;
}

QString AnswerGrid::currentTest() const
{
    return m_selected;
}

void AnswerGrid::setRun(int iteration)
{
    m_runSpin->setValue(iteration);
}

QString AnswerGrid::conversationText(int endpoint) const
{
    return endpoint >= 0 && endpoint < int(m_conversations.size())
        ? m_conversations[std::size_t(endpoint)]->toPlainText()
        : QString();
}

void AnswerGrid::fillTable()
{
    const int endpoints = m_data.isEmpty() ? 0 : int(m_data.result->endpoints.size());
    QStringList headers {QStringLiteral("Test")};
    for (int e = 0; e < endpoints; ++e)
        headers << endpointTitle(*m_data.result, e);
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_table->setColumnWidth(0, 170);

    const ThemeColors& c = themeColors(m_theme);
    int shown = 0;
    int differing = 0;
    QSignalBlocker block(m_table);
    const int scrolled = m_table->verticalScrollBar()->value(); // a live refresh keeps the reader's place
    m_table->setRowCount(0);
    for (const AnswerRow& row : m_rows) {
        differing += row.differs() ? 1 : 0;
        if (m_onlyDiffering && !row.differs())
            continue;
        const int r = m_table->rowCount();
        m_table->insertRow(r);
        auto* name = new QTableWidgetItem(
            row.turns > 1 ? QStringLiteral("%1\n(%2 turns)").arg(row.name).arg(row.turns) : row.name);
        name->setData(Qt::UserRole, row.test);
        name->setToolTip(row.test);
        m_table->setItem(r, 0, name);
        for (int e = 0; e < endpoints; ++e) {
            const AnswerCell& cell = row.cells[std::size_t(e)];
            auto* item = new QTableWidgetItem(cell.verdictText()
                + (cell.excerpt.isEmpty() ? QString() : QStringLiteral("\n") + cell.excerpt));
            item->setData(Qt::UserRole, row.test);
            item->setToolTip(plainToolTip(cell.verdictText()));
            if (cell.runs > 0) {
                item->setBackground(cell.passed()     ? c.passBackground
                        : cell.failedRuns < cell.runs ? c.partialBackground
                                                      : c.failBackground);
                item->setForeground(c.text);
            }
            m_table->setItem(r, e + 1, item);
        }
        if (row.test == m_selected)
            m_table->selectRow(r);
        ++shown;
    }
    m_summary->setText(m_rows.empty()
            ? QStringLiteral("No answers yet: run a benchmark or open a results file.")
            : QStringLiteral("%1 tests; the endpoints differ on %2%3")
                  .arg(m_rows.size())
                  .arg(differing)
                  .arg(m_onlyDiffering ? QStringLiteral(" (showing those)") : QString()));
    if (m_table->selectedItems().isEmpty() && shown > 0) {
        m_table->selectRow(0);
        m_selected = m_table->item(0, 0)->data(Qt::UserRole).toString();
    }
    m_table->verticalScrollBar()->setValue(scrolled);
    block.unblock();
    showConversation();
}

void AnswerGrid::syncConversationColumns()
{
    const std::size_t endpoints = m_data.isEmpty() ? 0 : m_data.result->endpoints.size();
    if (m_conversations.size() != endpoints)
        m_conversationKey.clear(); // new columns need their text
    while (m_conversations.size() > endpoints) {
        delete m_conversations.back();
        m_conversations.pop_back();
    }
    while (m_conversations.size() < endpoints) {
        auto* view = new SafeTextView(m_conversationBox);
        view->setObjectName(QStringLiteral("conversation%1").arg(m_conversations.size()));
        m_conversationLayout->addWidget(view, 1);
        m_conversations.push_back(view);
    }
}

void AnswerGrid::showConversation()
{
    const auto row = std::find_if(
        m_rows.begin(), m_rows.end(), [this](const AnswerRow& r) { return r.test == m_selected; });
    if (row == m_rows.end()) {
        m_conversationKey.clear();
        m_conversationTitle->setText(QString());
        for (SafeTextView* view : m_conversations)
            view->setUntrustedPlainText(QString());
        return;
    }
    int maxRun = 1;
    for (const RunRecord& r : m_data.result->records)
        if (!r.warmup && r.test == row->test)
            maxRun = std::max(maxRun, r.iteration);
    {
        QSignalBlocker block(m_runSpin);
        m_runSpin->setMaximum(maxRun);
    }
    const int iteration = m_runSpin->value();
    m_conversationTitle->setText(row->turns > 1
            ? QStringLiteral("%1: the whole conversation (%2 turns), run %3")
                  .arg(row->name)
                  .arg(row->turns)
                  .arg(iteration)
            : QStringLiteral("%1: prompt and answer, run %2").arg(row->name).arg(iteration));
    // The turns of one run, in order, per endpoint.
    std::vector<std::vector<const RunRecord*>> turns(m_conversations.size());
    QString key = row->test + u'/' + QString::number(iteration) + u'/' + themeId(m_theme);
    for (const RunRecord& r : m_data.result->records)
        if (!r.warmup && r.test == row->test && r.iteration == iteration && r.endpoint >= 0
            && std::size_t(r.endpoint) < turns.size()) {
            turns[std::size_t(r.endpoint)].push_back(&r);
            key += QStringLiteral("/%1.%2.%3.%4")
                       .arg(r.endpoint)
                       .arg(r.turn)
                       .arg(r.request.response.content.size())
                       .arg(r.request.response.toolCalls.size());
        }
    if (key == m_conversationKey)
        return;
    m_conversationKey = key;
    const ThemeColors& c = themeColors(m_theme);
    QTextCharFormat heading;
    heading.setFontWeight(QFont::Bold);
    QTextCharFormat muted;
    muted.setForeground(c.mutedText);
    QTextCharFormat failed;
    failed.setForeground(c.criticalAccent);
    for (std::size_t e = 0; e < m_conversations.size(); ++e) {
        auto& list = turns[e];
        std::sort(list.begin(), list.end(),
            [](const RunRecord* a, const RunRecord* b) { return a->turn < b->turn; });
        SafeTextView* view = m_conversations[e];
        view->setUntrustedPlainText(QString());
        QTextCursor cursor(view->document());
        if (list.empty())
            cursor.insertText(QStringLiteral("No answer for this run yet."), muted);
        for (const RunRecord* r : list) {
            if (r != list.front())
                cursor.insertBlock();
            cursor.insertText(
                row->turns > 1 ? QStringLiteral("Turn %1 · user").arg(r->turn) : QStringLiteral("User"),
                heading);
            cursor.insertBlock();
            cursor.insertText(lastUserMessage(*r->request.requestBody), muted);
            cursor.insertBlock();
            cursor.insertText(endpointTitle(*m_data.result, int(e)), heading);
            cursor.insertBlock();
            insertAnswer(cursor, *r, m_theme);
            cursor.movePosition(QTextCursor::End);
            QStringList why;
            if (r->gateDetails->is_object())
                for (const auto& [gate, details] : r->gateDetails->items())
                    if (details.is_object() && details.value("verdict", std::string()) == "fail")
                        why << QStringLiteral("✗ %1: %2")
                                   .arg(gateTitleOf(QString::fromStdString(gate)),
                                       QString::fromStdString(details.value("reason", std::string())));
            if (r->request.failure.isFailure())
                why << QStringLiteral("✗ request failed: %1").arg(r->request.failure.summary);
            if (!why.isEmpty()) {
                cursor.insertBlock();
                cursor.insertText(why.join(u'\n'), failed);
            }
            cursor.insertBlock();
        }
        view->moveCursor(QTextCursor::Start);
    }
}

} // namespace qs

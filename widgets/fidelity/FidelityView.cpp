// SPDX-License-Identifier: MIT
#include "widgets/fidelity/FidelityView.h"

#include "widgets/ViewParts.h"
#include "widgets/fidelity/FidelityCharts.h"
#include "widgets/fidelity/FidelityText.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QFontDatabase>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

const QString kHowToMeasure = QStringLiteral(
    "Run the `fidelity` suite (or tests with \"fidelity\": true) with a reference endpoint: quantscope run "
    "--suite fidelity --reference NAME … — or, here, mark an endpoint \"Fidelity reference\" in the "
    "Endpoints "
    "panel and run the fidelity suite. Without a reference every arm is compared with the baseline.");

QTableWidget* makeTable(QWidget* parent, const QString& objectName, const QStringList& headers)
{
    auto* table = new QTableWidget(0, int(headers.size()), parent);
    table->setObjectName(objectName);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setWordWrap(false);
    table->setShowGrid(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

void setCell(QTableWidget* table, int row, int column, const QString& text, const QString& tip = {})
{
    QTableWidgetItem* item = tableCell(table, row, column);
    item->setText(text);
    item->setToolTip(plainToolTip(tip.isEmpty() ? text : tip));
}

QString klValue(const std::optional<double>& kl)
{
    return kl ? klNumber(*kl) : QStringLiteral("—");
}

QString meanDeltaText(const std::optional<double>& delta)
{
    return delta && std::isfinite(*delta) ? klNumber(*delta) + QStringLiteral(" nats") : QStringLiteral("—");
}

QString gradeText(const FidelityPrompt& p)
{
    if (!p.gradeChanged)
        return QStringLiteral("—");
    return *p.gradeChanged ? QStringLiteral("changed") : QStringLiteral("same");
}

} // namespace

FidelityView::FidelityView(QWidget* parent)
    : QWidget(parent)
{
    // The empty state is a card with the way to measure: most runs have no fidelity tests.
    m_emptyCard = new QFrame(this);
    m_emptyCard->setObjectName(QStringLiteral("fidelityEmpty"));
    m_emptyCard->setMaximumWidth(820);
    m_emptyCard->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    auto* emptyTitle
        = new QLabel(QStringLiteral("Fidelity: how far each arm's next-token choices drift from a reference"),
            m_emptyCard);
    QFont titleFont = emptyTitle->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    emptyTitle->setFont(titleFont);
    emptyTitle->setWordWrap(true);
    m_statusLabel = plainLabel(m_emptyCard, QStringLiteral("fidelityStatus"));
    m_command = plainLabel(m_emptyCard, QStringLiteral("fidelityCommand"));
    m_command->setText(
        QStringLiteral("quantscope run --suite fidelity --reference NAME --endpoint … --endpoint …"));
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setWordWrap(false);
    auto* cardLayout = new QVBoxLayout(m_emptyCard);
    cardLayout->setContentsMargins(16, 14, 16, 14);
    cardLayout->setSpacing(8);
    cardLayout->addWidget(emptyTitle);
    cardLayout->addWidget(m_statusLabel);
    cardLayout->addWidget(m_command);
    m_reference = plainLabel(this, QStringLiteral("fidelityReference"));
    QFont bold = m_reference->font();
    bold.setBold(true);
    m_reference->setFont(bold);
    m_notes = plainLabel(this, QStringLiteral("fidelityNotes"));

    m_content = new QWidget(this);
    m_arms = makeTable(m_content, QStringLiteral("fidelityArms"),
        {QStringLiteral("Arm"), QStringLiteral("Prompts"), QStringLiteral("Identical"),
            QStringLiteral("Flip rate [95 % CI]"), QStringLiteral("Mean KL [95 % CI]"),
            QStringLiteral("p99 KL"), QStringLiteral("Median shared prefix"),
            QStringLiteral("Mean |Δ logprob|"), QStringLiteral("Grade flips"), QStringLiteral("Divergences"),
            QStringLiteral("Support")});
    m_arms->horizontalHeaderItem(ArmFlipRate)
        ->setToolTip(QStringLiteral("Prompts whose greedy answer differs from the reference's in any token; "
                                    "exact Clopper–Pearson interval."));
    m_arms->horizontalHeaderItem(ArmKlMean)->setToolTip(
        QStringLiteral("KL(reference ‖ arm) over the union of both top-k lists with the tail mass "
                       "as one bucket, token-pooled over the shared prefixes; bootstrap interval "
                       "over prompts. \"Not comparable\" when the arms' tokens do not line up "
                       "(different tokenizers) or a server sent no logprobs."));
    m_arms->horizontalHeaderItem(ArmDivergenceKinds)
        ->setToolTip(
            QStringLiteral("Near-tie: the arm gave the reference's token at least half the probability "
                           "of its own choice. Confident: the reference's token was unlisted or under "
                           "a tenth of it."));

    m_klChart = new FidelityArmChart(FidelityArmChart::Measure::KlMean, m_content);
    m_flipChart = new FidelityArmChart(FidelityArmChart::Measure::FlipRate, m_content);
    m_divergenceChart = new DivergenceChart(m_content);
    auto* charts = new QWidget(m_content);
    auto* chartsLayout = new QHBoxLayout(charts);
    chartsLayout->setContentsMargins(0, 0, 0, 0);
    chartsLayout->addWidget(m_klChart, 1);
    chartsLayout->addWidget(m_flipChart, 1);
    chartsLayout->addWidget(m_divergenceChart, 2);
    charts->setMinimumHeight(260);

    auto* promptsBox = new QWidget(m_content);
    m_promptsTitle = new QLabel(promptsBox);
    m_promptsTitle->setTextFormat(Qt::PlainText);
    m_promptsTitle->setFont(bold);
    m_prompts = makeTable(promptsBox, QStringLiteral("fidelityPrompts"),
        {QStringLiteral("Test"), QStringLiteral("Run"), QStringLiteral("First divergence"),
            QStringLiteral("Shared prefix"), QStringLiteral("Rank of ref. token"),
            QStringLiteral("p of ref. token"), QStringLiteral("KL"), QStringLiteral("Grade"),
            QStringLiteral("Note")});
    m_prompts->setToolTip(QStringLiteral("Double-click a prompt to see both answers side by side."));
    auto* promptsLayout = new QVBoxLayout(promptsBox);
    promptsLayout->setContentsMargins(0, 4, 0, 0);
    promptsLayout->addWidget(m_promptsTitle);
    promptsLayout->addWidget(m_prompts, 1);

    auto* splitter = new QSplitter(Qt::Vertical, m_content);
    splitter->addWidget(m_arms);
    splitter->addWidget(charts);
    splitter->addWidget(promptsBox);
    splitter->setChildrenCollapsible(false);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setStretchFactor(2, 2);
    auto* contentLayout = new QVBoxLayout(m_content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(splitter);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    // Centred, as wide as it may be: wrapped text needs its width from the layout, not a hint.
    auto* emptyRow = new QHBoxLayout;
    emptyRow->addStretch(1);
    emptyRow->addWidget(m_emptyCard, 4);
    emptyRow->addStretch(1);
    layout->addLayout(emptyRow);
    layout->addWidget(m_reference);
    layout->addWidget(m_notes);
    layout->addWidget(m_content, 1);
    layout->addStretch(0);

    connect(m_arms, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (m_syncing || row < 0 || !m_data.evaluation)
            return;
        const Fidelity& f = m_data.evaluation->fidelity;
        if (row < int(f.arms.size())) {
            m_arm = f.arms[std::size_t(row)].endpoint;
            fillPrompts();
        }
    });
    connect(m_prompts, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        const FidelityArm* a = arm();
        if (a && row >= 0 && row < int(a->prompts.size())) {
            const FidelityPrompt& p = a->prompts[std::size_t(row)];
            Q_EMIT promptActivated(p.test, p.turn, p.iteration);
        }
    });

    setTheme(m_theme);
    setData(DashboardData {});
}

void FidelityView::setData(const DashboardData& next)
{
    // The same run not evaluated yet (a live refresh ahead of its evaluation): keep what is shown.
    const bool sameRun = m_data.result == next.result || (m_data.live && next.live);
    if (!next.isEmpty() && !next.evaluation && m_data.evaluation && sameRun)
        return;
    m_data = next;
    for (ChartPanel* chart : {static_cast<ChartPanel*>(m_klChart), static_cast<ChartPanel*>(m_flipChart),
             static_cast<ChartPanel*>(m_divergenceChart)})
        chart->setData(next);
    refresh();
}

void FidelityView::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    QPalette muted = palette();
    muted.setColor(QPalette::WindowText, themeColors(theme).mutedText);
    const ThemeColors& c = themeColors(theme);
    m_emptyCard->setStyleSheet(
        QStringLiteral(
            "QFrame#fidelityEmpty { background: %1; border-left: 4px solid %2; border-radius: 4px; }"
            "QLabel { color: %3; background: transparent; }"
            "QLabel#fidelityCommand { background: %4; padding: 6px; }")
            .arg(c.infoBackground.name(), c.infoAccent.name(), c.text.name(), c.base.name()));
    m_notes->setPalette(muted);
    m_klChart->setTheme(theme);
    m_flipChart->setTheme(theme);
    m_divergenceChart->setTheme(theme);
    fillArms();
}

bool FidelityView::selectArm(int endpoint)
{
    if (!m_data.evaluation)
        return false;
    const std::vector<FidelityArm>& arms = m_data.evaluation->fidelity.arms;
    for (std::size_t i = 0; i < arms.size(); ++i)
        if (arms[i].endpoint == endpoint) {
            m_arm = endpoint;
            m_arms->selectRow(int(i));
            fillPrompts();
            return true;
        }
    return false;
}

int FidelityView::currentArm() const
{
    return arm() ? m_arm : -1;
}

QString FidelityView::statusText() const
{
    return m_status;
}

QString FidelityView::referenceText() const
{
    return m_reference->text();
}

const FidelityArm* FidelityView::arm() const
{
    if (m_data.isEmpty() || !m_data.evaluation)
        return nullptr;
    for (const FidelityArm& a : m_data.evaluation->fidelity.arms)
        if (a.endpoint == m_arm)
            return &a;
    return nullptr;
}

void FidelityView::refresh()
{
    m_status.clear();
    const Fidelity* f = m_data.evaluation ? &m_data.evaluation->fidelity : nullptr;
    if (m_data.isEmpty())
        m_status = (m_data.live ? QStringLiteral("Waiting for the first measured responses…\n")
                                : QStringLiteral("No run loaded: run a benchmark or open a results file.\n"))
            + kHowToMeasure;
    else if (!f)
        m_status = QStringLiteral("Evaluating…");
    else if (!f->measured())
        m_status = QStringLiteral("No fidelity measured in this run. ") + kHowToMeasure
            + (f->notes.isEmpty() ? QString() : u'\n' + f->notes.join(u'\n'));
    const bool shown = m_status.isEmpty();
    m_statusLabel->setText(m_status);
    m_emptyCard->setVisible(!shown);
    // The command only where it is the answer: not while waiting or evaluating.
    m_command->setVisible(m_status.contains(kHowToMeasure));
    m_content->setVisible(shown);
    m_reference->setVisible(shown);
    m_reference->setText(shown ? QStringLiteral("Reference: ") + qs::referenceText(*f) : QString());
    const QString notes = shown ? f->notes.join(u'\n') : QString();
    m_notes->setText(notes);
    m_notes->setVisible(!notes.isEmpty());
    if (shown) {
        // Keep the chosen arm across live refreshes; otherwise the first.
        bool known = false;
        for (const FidelityArm& a : f->arms)
            known = known || a.endpoint == m_arm;
        if (!known)
            m_arm = f->arms.front().endpoint;
    }
    fillArms();
}

void FidelityView::fillArms()
{
    const Fidelity* f = m_status.isEmpty() && m_data.evaluation ? &m_data.evaluation->fidelity : nullptr;
    const int rows = f ? int(f->arms.size()) : 0;
    m_syncing = true;
    m_arms->setRowCount(rows);
    int selected = -1;
    for (int row = 0; row < rows; ++row) {
        const FidelityArm& a = f->arms[std::size_t(row)];
        setCell(m_arms, row, ArmName, fidelityArmTitle(m_data, a));
        tableCell(m_arms, row, ArmName)->setIcon(colorDot(endpointColor(a.endpoint, m_theme)));
        setCell(m_arms, row, ArmPrompts, QString::number(a.prompts.size()));
        setCell(m_arms, row, ArmIdentical, QString::number(a.identical));
        setCell(m_arms, row, ArmFlipRate, flipRateText(a));
        setCell(m_arms, row, ArmKlMean, klMeanText(a));
        setCell(m_arms, row, ArmKlP99, klValue(a.klP99));
        setCell(m_arms, row, ArmSharedPrefix, sharedPrefixText(a),
            QStringLiteral("Median tokens before the first divergence; in brackets the mean share of the "
                           "reference's answer they make up."));
        setCell(m_arms, row, ArmLogprobDelta, meanDeltaText(a.meanAbsLogprobDelta));
        setCell(m_arms, row, ArmGradeFlips, gradeFlipsText(a));
        setCell(m_arms, row, ArmDivergenceKinds, divergenceKindsText(a));
        setCell(m_arms, row, ArmSupport,
            a.support.isEmpty() ? QStringLiteral("logprobs and top lists") : a.support);
        tableCell(m_arms, row, ArmSupport)
            ->setForeground(a.support.isEmpty() ? QBrush(themeColors(m_theme).mutedText)
                                                : QBrush(themeColors(m_theme).warningAccent));
        if (a.endpoint == m_arm)
            selected = row;
    }
    if (selected >= 0)
        m_arms->selectRow(selected);
    m_syncing = false;
    // As tall as its rows (a handful of arms): the charts and the prompts get the room.
    const int shownRows = std::max(rows, 2);
    m_arms->setMaximumHeight(m_arms->horizontalHeader()->height()
        + shownRows * m_arms->verticalHeader()->defaultSectionSize()
        + m_arms->horizontalScrollBar()->sizeHint().height() + 2 * m_arms->frameWidth() + 2);
    fillPrompts();
}

void FidelityView::fillPrompts()
{
    const FidelityArm* a = m_status.isEmpty() ? arm() : nullptr;
    const int rows = a ? int(a->prompts.size()) : 0;
    m_promptsTitle->setText(a
            ? QStringLiteral("Prompts of %1 against %2 — double-click one to see both answers")
                  .arg(fidelityArmTitle(m_data, *a), a->referenceLabel)
            : QString());
    m_prompts->setRowCount(rows);
    for (int row = 0; row < rows; ++row) {
        const FidelityPrompt& p = a->prompts[std::size_t(row)];
        setCell(m_prompts, row, PromptTest, p.test);
        setCell(m_prompts, row, PromptRun,
            p.turn > 1 ? QStringLiteral("%1 (turn %2)").arg(p.iteration).arg(p.turn)
                       : QString::number(p.iteration));
        setCell(m_prompts, row, PromptFirstDivergence, firstDivergenceText(p), divergenceMarkText(p));
        setCell(m_prompts, row, PromptSharedPrefix,
            QStringLiteral("%1 of %2 tokens").arg(p.sharedPrefixTokens).arg(p.referenceTokens));
        setCell(m_prompts, row, PromptRank, referenceRankText(p));
        setCell(m_prompts, row, PromptProb, probabilityText(p.referenceTokenProb));
        setCell(m_prompts, row, PromptKl,
            p.kl ? klNumber(*p.kl)
                 : (p.tokensComparable ? QStringLiteral("—") : QStringLiteral("not comparable")));
        setCell(m_prompts, row, PromptGrade, gradeText(p));
        setCell(m_prompts, row, PromptNote, p.note);
    }
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/campaign/CampaignView.h"

#include "model/decide/CampaignDocument.h"
#include "widgets/ViewParts.h"
#include "widgets/decision/DecisionText.h"
#include "widgets/decision/LooksChart.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

namespace qs {

namespace {

enum Column { Number, Started, Candidate, Decision, FirstCriterion };

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

QString colorName(const QColor& c)
{
    return c.name(QColor::HexRgb);
}

} // namespace

CampaignView::CampaignView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("campaignView"));
    auto* layout = new QVBoxLayout(this);
    m_headline = plainLabel(this, QStringLiteral("campaignHeadline"));
    m_headline->setTextFormat(Qt::RichText); // built here from escaped parts only
    layout->addWidget(m_headline);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(split);
    m_table->setObjectName(QStringLiteral("campaignTable"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &CampaignView::showDetails);
    // Activated: a double-click (or a single one, where the style says so) and Enter.
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) { activate(row); });

    auto* bottom = new QWidget(split);
    auto* bottomLayout = new QHBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    auto* trendBox = new QVBoxLayout;
    auto* trendTitle
        = new QLabel(tr("Each criterion across attempts (estimate, 95 % interval, limit)"), bottom);
    trendTitle->setObjectName(QStringLiteral("campaignTrendTitle"));
    trendBox->addWidget(trendTitle);
    auto* scroll = new QScrollArea(bottom);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_trend = new LooksChart(scroll);
    m_trend->setObjectName(QStringLiteral("campaignTrend"));
    scroll->setWidget(m_trend);
    trendBox->addWidget(scroll, 1);
    bottomLayout->addLayout(trendBox, 3);

    auto* side = new QVBoxLayout;
    m_details = new QTextBrowser(bottom);
    m_details->setObjectName(QStringLiteral("campaignDetails"));
    m_details->setOpenLinks(false);
    side->addWidget(m_details, 3);
    m_open = new QPushButton(tr("Open this attempt"), bottom);
    m_open->setObjectName(QStringLiteral("campaignOpen"));
    m_open->setEnabled(false);
    connect(m_open, &QPushButton::clicked, this, [this] { activate(selectedAttempt()); });
    side->addWidget(m_open, 0, Qt::AlignLeft);
    m_drift = new QTextBrowser(bottom);
    m_drift->setObjectName(QStringLiteral("campaignDrift"));
    side->addWidget(m_drift, 2);
    bottomLayout->addLayout(side, 2);

    split->addWidget(m_table);
    split->addWidget(bottom);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    fill();
}

void CampaignView::setCampaign(std::shared_ptr<const Campaign> campaign)
{
    m_campaign = std::move(campaign);
    fill();
}

void CampaignView::setTheme(Theme theme)
{
    m_theme = theme;
    m_trend->setTheme(theme);
    fill();
}

int CampaignView::selectedAttempt() const
{
    const auto rows
        = m_table->selectionModel() ? m_table->selectionModel()->selectedRows() : QModelIndexList();
    return rows.isEmpty() ? -1 : rows.front().row();
}

void CampaignView::selectAttempt(int index)
{
    if (index >= 0 && index < m_table->rowCount())
        m_table->selectRow(index);
}

QString CampaignView::headlineText() const
{
    QTextDocument doc;
    doc.setHtml(m_headline->text());
    return doc.toPlainText();
}

QString CampaignView::detailsText() const
{
    return m_details->toPlainText();
}

QString CampaignView::driftText() const
{
    return m_drift->toPlainText();
}

void CampaignView::activate(int row)
{
    if (!m_campaign || row < 0 || std::size_t(row) >= m_campaign->attempts.size())
        return;
    const CampaignAttempt& a = m_campaign->attempts[std::size_t(row)];
    emit attemptActivated(row, a.file, a.candidate);
}

void CampaignView::fill()
{
    const int selected = selectedAttempt();
    m_table->clear();
    const ThemeColors& colors = themeColors(m_theme);
    if (!m_campaign || m_campaign->attempts.empty()) {
        m_headline->setText(tr("No campaign open. File → Open Campaign… reads a folder of results files (or "
                               "several files) that share a baseline."));
        m_table->setRowCount(0);
        m_table->setColumnCount(0);
        m_trend->setSeries({}, {}, QString());
        m_details->clear();
        m_drift->clear();
        m_open->setEnabled(false);
        return;
    }
    const Campaign& c = *m_campaign;

    QString head = QStringLiteral("<b>%1</b> — profile %2. ").arg(esc(campaignTitle(c)), esc(c.profileId));
    if (c.best >= 0)
        head += QStringLiteral("<b>Best so far: %1.</b> %2")
                    .arg(esc(attemptName(c, c.best)), esc(c.bestSentence));
    else
        head += esc(c.bestSentence);
    int moved = 0;
    for (const CampaignDrift& d : c.drift)
        moved += d.significant ? 1 : 0;
    if (moved > 0)
        head += QStringLiteral("<br><span style=\"color:%1\"><b>The baseline moved</b> between files (%2 "
                               "measure%3, below): a candidate's gain against it may be its loss.</span>")
                    .arg(colorName(colors.criticalAccent))
                    .arg(moved)
                    .arg(moved == 1 ? QString() : QStringLiteral("s"));
    m_headline->setText(head);

    // The table: one row per attempt, one column per criterion.
    const std::size_t criteria = c.standings.size();
    QStringList headers {tr("#"), tr("Started (UTC)"), tr("Candidate"), tr("Decision")};
    for (const CampaignStanding& s : c.standings)
        headers << s.criterion; // short; the title is the tooltip
    headers << tr("Changed");
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    for (std::size_t k = 0; k < criteria; ++k)
        if (QTableWidgetItem* h = m_table->horizontalHeaderItem(FirstCriterion + int(k)))
            h->setToolTip(plainToolTip(c.standings[k].title + u'\n' + c.standings[k].sentence));
    if (QTableWidgetItem* h = m_table->horizontalHeaderItem(FirstCriterion + int(criteria)))
        h->setToolTip(
            tr("What changed since the attempt before, from the files (the list in each cell's tooltip)"));
    m_table->setRowCount(int(c.attempts.size()));
    for (std::size_t i = 0; i < c.attempts.size(); ++i) {
        const CampaignAttempt& a = c.attempts[i];
        const int row = int(i);
        tableCell(m_table, row, Number)
            ->setText(QString::number(i + 1) + (int(i) == c.best ? QStringLiteral(" ★") : QString()));
        // Short, the year in the tooltip: the criteria need the width.
        QTableWidgetItem* started = tableCell(m_table, row, Started);
        started->setText(QLocale::c().toString(a.startedAt.toUTC(), QStringLiteral("MMM d HH:mm")));
        started->setToolTip(a.startedAt.toUTC().toString(Qt::ISODate));
        QTableWidgetItem* cand = tableCell(m_table, row, Candidate);
        cand->setText(attemptName(c, row));
        cand->setToolTip(
            plainToolTip(a.file + (a.notes.isEmpty() ? QString() : u'\n' + a.notes.join(u'\n'))));
        QTableWidgetItem* decision = tableCell(m_table, row, Decision);
        decision->setText(decisionTitle(a.recommendation.decision));
        const OutcomeColors dc = decisionColors(a.recommendation.decision, m_theme);
        decision->setBackground(dc.background);
        decision->setForeground(dc.text);
        decision->setToolTip(plainToolTip(a.recommendation.headline));
        for (std::size_t k = 0; k < criteria; ++k) {
            QTableWidgetItem* cell = tableCell(m_table, row, FirstCriterion + int(k));
            if (k >= a.recommendation.criteria.size()) {
                cell->setText(QStringLiteral("—"));
                continue;
            }
            const CriterionResult& r = a.recommendation.criteria[k];
            const ShownOutcome o = shownOutcome(r.outcome);
            const QString mark = o == ShownOutcome::Pass ? QStringLiteral("✓ ")
                : o == ShownOutcome::Fail                ? QStringLiteral("✗ ")
                : o == ShownOutcome::NotMeasured         ? QString()
                                                         : QStringLiteral("? ");
            cell->setText(mark + criterionFigure(r));
            const OutcomeColors oc = outcomeColors(o, m_theme);
            cell->setBackground(oc.background);
            cell->setForeground(oc.text);
            cell->setToolTip(
                plainToolTip(QStringLiteral("%1\nmeasured: %2\nrequired: %3\n%4")
                                 .arg(r.criterion.title, r.measured, r.required, r.explanation)));
        }
        QStringList fields;
        for (const CampaignChange& ch : a.changes)
            fields << ch.field;
        QTableWidgetItem* changed = tableCell(m_table, row, FirstCriterion + int(criteria));
        changed->setText(i == 0    ? tr("(first)")
                : fields.isEmpty() ? tr("nothing recorded")
                                   : fields.join(QStringLiteral(", ")));
        QStringList texts;
        for (const CampaignChange& ch : a.changes)
            texts << ch.text();
        changed->setToolTip(plainToolTip(texts.join(u'\n')));
    }
    // Every column in view at the default size: long figures wrap within a capped width, and the
    // last column takes what is left.
    m_table->resizeColumnsToContents();
    for (int col = 0; col < m_table->columnCount(); ++col)
        m_table->setColumnWidth(col, std::min(m_table->columnWidth(col), col < FirstCriterion ? 170 : 140));
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->resizeRowsToContents();

    // The trend: every criterion with an interval, attempts in time order.
    std::vector<LooksChart::Column> columns;
    std::vector<LooksChart::Series> series(criteria);
    for (std::size_t k = 0; k < criteria; ++k) {
        series[k].id = c.standings[k].criterion;
        series[k].title = c.standings[k].title;
    }
    for (std::size_t i = 0; i < c.attempts.size(); ++i) {
        const CampaignAttempt& a = c.attempts[i];
        columns.push_back({QStringLiteral("#%1").arg(i + 1),
            QStringLiteral("#%1 %2").arg(i + 1).arg(attemptName(c, int(i))), double(i), 0});
        for (std::size_t k = 0; k < criteria && k < a.recommendation.criteria.size(); ++k) {
            const CriterionResult& r = a.recommendation.criteria[k];
            LooksChart::Mark m;
            m.present = r.outcome != CriterionResult::Outcome::NotMeasured;
            m.outcome = r.outcome;
            m.estimate = r.estimate;
            m.interval = r.interval;
            m.limit = r.limit;
            m.worseAbove = r.worseAbove;
            series[k].at.resize(i + 1);
            series[k].at[i] = m;
        }
    }
    m_trend->setSeries(std::move(columns), std::move(series), tr("x: attempts in time order"),
        tr("ratios are against each attempt's own baseline"));

    // The drift: what moved first, then how many measures did not.
    QString drift
        = QStringLiteral("<b>Baseline drift</b> (%1 re-measured in every file; moved = the 95 % interval "
                         "clears ±%2 %, or a fact changed)<ul>")
              .arg(esc(c.baselineLabel))
              .arg(DriftTolerance * 100);
    int still = 0;
    for (const CampaignDrift& d : c.drift) {
        if (d.significant)
            drift += QStringLiteral("<li><span style=\"color:%1\">%2</span></li>")
                         .arg(colorName(colors.criticalAccent), esc(d.sentence));
        else
            ++still;
    }
    if (c.files.size() < 2)
        drift += QStringLiteral("<li>One file: nothing to compare the baseline with yet.</li>");
    else
        drift += QStringLiteral("<li>%1 other measure%2 did not move.</li>")
                     .arg(still)
                     .arg(still == 1 ? QString() : QStringLiteral("s"));
    for (const QString& n : c.notes)
        drift += QStringLiteral("<li><i>%1</i></li>").arg(esc(n));
    drift += QStringLiteral("</ul>");
    m_drift->setHtml(drift);

    selectAttempt(selected >= 0 && selected < m_table->rowCount() ? selected : (c.best >= 0 ? c.best : 0));
    showDetails();
}

void CampaignView::showDetails()
{
    const int i = selectedAttempt();
    m_open->setEnabled(i >= 0);
    if (!m_campaign || i < 0 || std::size_t(i) >= m_campaign->attempts.size()) {
        m_details->clear();
        return;
    }
    const Campaign& c = *m_campaign;
    const CampaignAttempt& a = c.attempts[std::size_t(i)];
    const OutcomeColors dc = decisionColors(a.recommendation.decision, m_theme);
    QString html = QStringLiteral(
        "<b>#%1 %2</b> — %3<br><span style=\"background:%4;color:%5\">&nbsp;%6&nbsp;</span> %7")
                       .arg(i + 1)
                       .arg(esc(attemptName(c, i)),
                           esc(a.startedAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"))),
                           colorName(dc.background), colorName(dc.text),
                           esc(decisionTitle(a.recommendation.decision)), esc(a.recommendation.headline));
    html += QStringLiteral("<ul>");
    for (const QString& n : a.notes)
        html += QStringLiteral("<li>Note: %1</li>").arg(esc(n));
    if (i == 0)
        html += QStringLiteral("<li>First attempt.</li>");
    else if (a.changes.empty())
        html += QStringLiteral("<li>Nothing the files record changed since #%1.</li>").arg(i);
    for (const CampaignChange& ch : a.changes)
        html += QStringLiteral("<li>Changed: %1</li>").arg(esc(ch.text()));
    for (const CriterionResult& r : a.recommendation.criteria)
        if (r.outcome == CriterionResult::Outcome::Fail
            || r.outcome == CriterionResult::Outcome::Inconclusive)
            html += QStringLiteral("<li>%1 %2: %3</li>")
                        .arg(esc(shownOutcomeText(shownOutcome(r.outcome))), esc(r.criterion.title),
                            esc(r.measured));
    html += QStringLiteral("</ul><i>Double-click the row, or Open this attempt, for its own views.</i>");
    m_details->setHtml(html);
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/responses/RubricVerdictBox.h"

#include "widgets/responses/ResponseFormatting.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace qs {

namespace {

/// Background and text colour of one 1–5 score.
std::pair<QColor, QColor> scoreColors(int score, const ThemeColors& c)
{
    if (score >= 4)
        return {c.passBackground, c.pass};
    if (score == 3)
        return {c.partialBackground, c.text};
    return {c.failBackground, c.criticalAccent};
}

// A failed reply can be a whole page of text: the tooltip shows its start.
constexpr int kMaxRawReplyShown = 1500;

} // namespace

RubricVerdictBox::RubricVerdictBox(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("rubricVerdict"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_caption = new QLabel(QStringLiteral("Judge's rubric scores (1–5):"), this);
    m_caption->setObjectName(QStringLiteral("rubricCaption"));
    m_scores = new QLabel(this);
    m_scores->setObjectName(QStringLiteral("rubricScores"));
    m_scores->setTextFormat(Qt::RichText); // built from escaped criterion ids and numbers only
    m_scores->setWordWrap(true);
    m_reason = new QLabel(this);
    m_reason->setObjectName(QStringLiteral("judgeReason"));
    m_reason->setTextFormat(Qt::PlainText); // the judge's words are model output
    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_caption);
    layout->addWidget(m_scores);
    layout->addWidget(m_reason);
    setVisible(false);
}

void RubricVerdictBox::setVerdict(const RubricVerdict* verdict, const Rubric* rubric, bool graded)
{
    std::vector<std::pair<QString, QString>> criteria;
    if (rubric)
        for (const RubricCriterion& c : rubric->criteria)
            criteria.emplace_back(c.id, c.title);
    const bool same = m_graded == graded && criteria == m_criteria
        && (verdict
                ? m_verdict && m_verdict->scores == verdict->scores && m_verdict->reason == verdict->reason
                    && m_verdict->exchange.error == verdict->exchange.error
                    && m_verdict->exchange.reply == verdict->exchange.reply
                : !m_verdict);
    if (same)
        return; // a live refresh: leave the text (and any selection in it) alone
    m_graded = graded;
    m_criteria = std::move(criteria);
    if (verdict)
        m_verdict = *verdict;
    else
        m_verdict.reset();
    rebuild();
}

void RubricVerdictBox::setTheme(Theme theme)
{
    m_theme = theme;
    m_caption->setStyleSheet(
        QStringLiteral("QLabel { color: %1; }").arg(themeColors(theme).mutedText.name()));
    rebuild();
}

QString RubricVerdictBox::scoresText() const
{
    return m_scoresText;
}

QString RubricVerdictBox::reasonText() const
{
    return m_reason->text();
}

void RubricVerdictBox::rebuild()
{
    const ThemeColors& c = themeColors(m_theme);
    setVisible(m_verdict || m_graded);
    m_reason->setStyleSheet(QString());
    m_reason->setToolTip(QString());
    m_scoresText.clear();
    if (!m_verdict) {
        m_scores->hide();
        m_reason->setText(QStringLiteral("Not graded by the judge."));
        m_reason->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(c.mutedText.name()));
        return;
    }

    // Rubric order first, then anything the judge scored that the rubric does not name.
    std::vector<std::pair<QString, int>> scores;
    for (const auto& [id, title] : m_criteria)
        if (const auto it = m_verdict->scores.find(id); it != m_verdict->scores.end())
            scores.emplace_back(id, it->second);
    for (const auto& [id, score] : m_verdict->scores)
        if (std::none_of(
                m_criteria.begin(), m_criteria.end(), [&](const auto& known) { return known.first == id; }))
            scores.emplace_back(id, score);
    QStringList html, plain, tips;
    for (const auto& [id, score] : scores) {
        const auto [background, text] = scoreColors(score, c);
        html << QStringLiteral("<span style=\"background:%1; color:%2\">&nbsp;%3&nbsp;<b>%4</b>&nbsp;</span>")
                    .arg(background.name(), text.name(), id.toHtmlEscaped())
                    .arg(score);
        plain << QStringLiteral("%1 %2").arg(id).arg(score);
        QString title = id;
        for (const auto& [cid, ctitle] : m_criteria)
            if (cid == id && !ctitle.isEmpty())
                title = ctitle;
        tips << QStringLiteral("%1: %2 of 5").arg(title).arg(score);
    }
    m_scores->setText(html.join(QStringLiteral(" · ")));
    m_scoresText = plain.join(QStringLiteral(" · "));
    m_scores->setToolTip(plainToolTip(tips.join(u'\n')));
    m_scores->setVisible(!scores.empty());

    if (m_verdict->failed()) {
        m_reason->setText(QStringLiteral("judge failed: ") + m_verdict->exchange.error);
        const QString raw = m_verdict->exchange.reply;
        m_reason->setToolTip(plainToolTip(raw.isEmpty() ? QStringLiteral("The judge sent no reply.")
                                                        : QStringLiteral("The judge's raw reply:\n")
                    + (raw.size() > kMaxRawReplyShown ? raw.left(kMaxRawReplyShown) + QStringLiteral("…")
                                                      : raw)));
        m_reason->setStyleSheet(
            QStringLiteral("QLabel { background: %1; color: %2; border-left: 3px solid %3; padding: 4px; }")
                .arg(c.criticalBackground.name(), c.text.name(), c.criticalAccent.name()));
    } else {
        m_reason->setText(
            m_verdict->reason.isEmpty() ? QStringLiteral("(the judge gave no reason)") : m_verdict->reason);
    }
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/decision/VerdictBanner.h"

#include "model/decide/VerdictSummary.h"
#include "widgets/ViewParts.h"
#include "widgets/decision/DecisionText.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace qs {

VerdictBanner::VerdictBanner(QWidget* parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("decisionBanner"));
    m_decision = new QLabel(this);
    m_decision->setObjectName(QStringLiteral("decision"));
    m_decision->setTextFormat(Qt::PlainText);
    QFont big = m_decision->font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.5);
    m_decision->setFont(big);
    m_provisional = plainLabel(this, QStringLiteral("provisional"));
    QFont bold = m_provisional->font();
    bold.setBold(true);
    m_provisional->setFont(bold);
    m_sentence = plainLabel(this, QStringLiteral("verdictSentence"));
    QFont sentenceFont = m_sentence->font();
    sentenceFont.setPointSizeF(sentenceFont.pointSizeF() * 1.15);
    m_sentence->setFont(sentenceFont);
    m_counts = plainLabel(this, QStringLiteral("verdictCounts"));
    m_deciding = plainLabel(this, QStringLiteral("decidingCriteria"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_decision);
    top->addSpacing(12);
    top->addWidget(m_sentence, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 10);
    layout->setSpacing(4);
    layout->addLayout(top);
    layout->addWidget(m_provisional);
    layout->addWidget(m_counts);
    layout->addWidget(m_deciding);
}

void VerdictBanner::setRecommendation(const Recommendation* rec, const QString& provisional, Theme theme)
{
    setVisible(rec);
    m_provisional->setText(provisional);
    m_provisional->setVisible(!provisional.isEmpty());
    if (!rec) {
        m_decision->clear();
        m_sentence->clear();
        m_counts->clear();
        m_deciding->clear();
        return;
    }
    const VerdictSummary s = summarizeVerdict(*rec);
    m_decision->setText(decisionTitle(rec->decision));
    m_sentence->setText(s.sentence);
    setToolTip(plainToolTip(rec->headline));
    m_counts->setText(QStringLiteral("Criteria: ") + s.counts());
    QStringList lines;
    for (int i : s.deciding) {
        const CriterionResult& c = rec->criteria[std::size_t(i)];
        lines << QStringLiteral("• %1 — %2 (required: %3)").arg(c.criterion.title, c.measured, c.required);
    }
    if (s.moreDeciding > 0)
        lines << QStringLiteral("• … and %1 more in the table below").arg(s.moreDeciding);
    m_deciding->setText(
        lines.isEmpty() ? QString() : s.decidingTitle + QStringLiteral(":\n") + lines.join(u'\n'));
    m_deciding->setVisible(!lines.isEmpty());

    const ThemeColors& c = themeColors(theme);
    const OutcomeColors colors = decisionColors(rec->decision, theme);
    // Provisional: a dashed edge says "not final" before the words do.
    setStyleSheet(
        QStringLiteral("QFrame#decisionBanner { background: %1; border: 2px %2 %3; border-radius: 6px; }"
                       "QLabel { color: %4; background: transparent; border: none; }"
                       "QLabel#decision { color: %5; }")
            .arg(colors.background.name(),
                provisional.isEmpty() ? QStringLiteral("solid") : QStringLiteral("dashed"),
                colors.text.name(), c.text.name(), colors.text.name()));
}

QString VerdictBanner::decisionText() const
{
    return m_decision->text();
}

QString VerdictBanner::sentence() const
{
    return m_sentence->text();
}

QString VerdictBanner::counts() const
{
    return m_counts->text();
}

QString VerdictBanner::deciding() const
{
    return m_deciding->text();
}

QString VerdictBanner::provisionalText() const
{
    return m_provisional->text();
}

} // namespace qs

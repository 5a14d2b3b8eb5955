// SPDX-License-Identifier: MIT
#include "widgets/responses/PairwiseVerdictPanel.h"

#include <QFrame>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace qs {

namespace {

QString pickText(const PairVerdict& v, const QString& first, const QString& second)
{
    switch (v.pick) {
    case PairPick::First:
        return QStringLiteral("picked %1 (answer 1)").arg(first);
    case PairPick::Second:
        return QStringLiteral("picked %1 (answer 2)").arg(second);
    case PairPick::Tie:
        return QStringLiteral("said tie");
    case PairPick::Failed:
        break;
    }
    return QStringLiteral("judge failed: ") + v.exchange.error;
}

QLabel* plainLabel(const QString& text, QWidget* parent)
{
    // Labels are user-given, reasons the judge's own words: plain text only.
    auto* label = new QLabel(text, parent);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

PairOutcome pairOutcome(const std::vector<const PairVerdict*>& verdicts, const QString& candidateLabel,
    const QString& baselineLabel)
{
    // The last judgement of each order counts (a resumed judging may have repeated one).
    const PairVerdict* byOrder[2] = {nullptr, nullptr}; // candidate first, baseline first
    for (const PairVerdict* v : verdicts)
        if (v)
            byOrder[v->candidateFirst ? 0 : 1] = v;

    PairOutcome out;
    int judged = 0;
    bool failed = false;
    for (const PairVerdict* v : byOrder) {
        if (!v)
            continue;
        ++judged;
        failed = failed || !v->preferred();
        const QString& first = v->candidateFirst ? candidateLabel : baselineLabel;
        const QString& second = v->candidateFirst ? baselineLabel : candidateLabel;
        out.orders << QStringLiteral("%1 shown first, %2 second: %3")
                          .arg(first, second, pickText(*v, first, second));
        out.reasons << v->reason;
    }
    if (failed) {
        out.kind = PairOutcome::Kind::Failed;
        out.summary = QStringLiteral("judge failed on this pair: not counted");
    } else if (judged < 2) {
        out.kind = PairOutcome::Kind::OneOrder;
        out.summary = judged == 0 ? QStringLiteral("not judged yet")
                                  : QStringLiteral("judged in one order so far (both are needed)");
    } else if (*byOrder[0]->preferred() != *byOrder[1]->preferred()) {
        out.kind = PairOutcome::Kind::Inconsistent;
        out.summary = QStringLiteral("inconsistent: the two orders disagree, counted as a tie");
    } else if (*byOrder[0]->preferred() > 0) {
        out.kind = PairOutcome::Kind::CandidateBetter;
        out.summary = QStringLiteral("%1 better: both orders agree (consistent)").arg(candidateLabel);
    } else if (*byOrder[0]->preferred() < 0) {
        out.kind = PairOutcome::Kind::BaselineBetter;
        out.summary = QStringLiteral("%1 better: both orders agree (consistent)").arg(baselineLabel);
    } else {
        out.kind = PairOutcome::Kind::Tie;
        out.summary = QStringLiteral("tie: both orders agree (consistent)");
    }
    return out;
}

PairwiseVerdictPanel::PairwiseVerdictPanel(QWidget* parent)
    : QWidget(parent)
    , m_rows(new QVBoxLayout(this))
{
    setObjectName(QStringLiteral("pairwiseVerdicts"));
    m_rows->setContentsMargins(0, 0, 0, 0);
    m_rows->setSpacing(4);
    setVisible(false);
}

void PairwiseVerdictPanel::setPairs(const std::vector<Pair>& pairs)
{
    std::vector<PairOutcome> outcomes;
    for (const Pair& p : pairs) {
        outcomes.push_back(pairOutcome(p.verdicts, p.candidateLabel, p.baselineLabel));
        outcomes.back().summary = QStringLiteral("Blind pairwise judge, %1 vs %2 (baseline): %3")
                                      .arg(p.candidateLabel, p.baselineLabel, outcomes.back().summary);
    }
    const bool same = outcomes.size() == m_outcomes.size()
        && std::equal(outcomes.begin(), outcomes.end(), m_outcomes.begin(), [](const auto& a, const auto& b) {
               return a.kind == b.kind && a.summary == b.summary && a.orders == b.orders
                   && a.reasons == b.reasons;
           });
    if (same)
        return; // a live refresh: keep the widgets (and any text selected in them)
    m_outcomes = std::move(outcomes);
    rebuild();
}

void PairwiseVerdictPanel::setTheme(Theme theme)
{
    m_theme = theme;
    rebuild();
}

QString PairwiseVerdictPanel::text() const
{
    QStringList lines;
    for (const PairOutcome& o : m_outcomes) {
        lines << o.summary;
        for (int i = 0; i < o.orders.size(); ++i)
            lines << QStringLiteral("  ") + o.orders[i]
                    + (o.reasons[i].isEmpty() ? QString() : QStringLiteral(" — ") + o.reasons[i]);
    }
    return lines.join(u'\n');
}

void PairwiseVerdictPanel::rebuild()
{
    while (QLayoutItem* item = m_rows->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const ThemeColors& c = themeColors(m_theme);
    for (const PairOutcome& o : m_outcomes) {
        QColor background = c.warningBackground;
        QColor accent = c.warningAccent;
        if (o.kind == PairOutcome::Kind::CandidateBetter) {
            background = c.passBackground;
            accent = c.pass;
        } else if (o.kind == PairOutcome::Kind::BaselineBetter || o.kind == PairOutcome::Kind::Failed) {
            background = c.failBackground;
            accent = c.criticalAccent;
        } else if (o.kind == PairOutcome::Kind::OneOrder) {
            background = c.infoBackground;
            accent = c.infoAccent;
        }
        auto* row = new QFrame(this);
        row->setObjectName(QStringLiteral("pairRow"));
        row->setProperty("outcome", int(o.kind));
        // A style sheet stops the palette from reaching the labels: they get the text colour here.
        row->setStyleSheet(
            QStringLiteral("QFrame#pairRow { background-color: %1; border-left: 4px solid %2; }"
                           "QLabel { color: %3; }")
                .arg(background.name(), accent.name(), c.text.name()));
        auto* layout = new QVBoxLayout(row);
        layout->setContentsMargins(10, 4, 8, 4);
        layout->setSpacing(2);
        QLabel* title = plainLabel(o.summary, row);
        title->setObjectName(QStringLiteral("pairSummary"));
        QFont bold = title->font();
        bold.setBold(true);
        title->setFont(bold);
        layout->addWidget(title);
        for (int i = 0; i < o.orders.size(); ++i) {
            QLabel* order = plainLabel(o.orders[i]
                    + (o.reasons[i].isEmpty() ? QString() : QStringLiteral("\nReason: ") + o.reasons[i]),
                row);
            order->setObjectName(QStringLiteral("pairOrder"));
            layout->addWidget(order);
        }
        m_rows->addWidget(row);
    }
    setVisible(!m_outcomes.empty());
}

} // namespace qs

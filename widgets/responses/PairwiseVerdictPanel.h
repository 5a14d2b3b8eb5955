// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Judging.h"
#include "widgets/Theme.h"

#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QVBoxLayout;

namespace qs {

/// What both orders of one blind pairwise judgement (one test, turn and iteration, one candidate
/// against the baseline) add up to, read the way JudgedQuality counts it.
struct PairOutcome {
    enum class Kind {
        CandidateBetter, ///< both orders preferred the candidate
        BaselineBetter, ///< both orders preferred the baseline
        Tie, ///< both orders said tie
        Inconsistent, ///< the orders disagree: counted as a tie
        Failed, ///< the judge failed on at least one order
        OneOrder, ///< only one order judged so far
    } kind
        = Kind::OneOrder;
    QString summary; ///< e.g. "NVFP4 better: both orders agree"
    /// One line per order: "NVFP4 shown first, Q4_K_M second: picked NVFP4 (answer 1)".
    QStringList orders;
    QStringList reasons; ///< the judge's reason per order (raw model output), same order as `orders`
};

/// Reads `verdicts` (the judgements of one pair, in the order they were made) with the arms' labels.
PairOutcome pairOutcome(const std::vector<const PairVerdict*>& verdicts, const QString& candidateLabel,
    const QString& baselineLabel);

/// The blind pairwise verdicts for the responses shown: one block per candidate judged against the
/// baseline on this test, turn and iteration — the outcome (coloured), then each order's pick
/// translated to the arm it means, and the judge's reason as plain text. Hidden without verdicts.
class PairwiseVerdictPanel : public QWidget {
    Q_OBJECT
public:
    explicit PairwiseVerdictPanel(QWidget* parent = nullptr);

    /// One entry per pair shown: its judgements and the arms' labels.
    struct Pair {
        std::vector<const PairVerdict*> verdicts;
        QString candidateLabel;
        QString baselineLabel;
    };
    void setPairs(const std::vector<Pair>& pairs);
    void setTheme(Theme theme);

    const std::vector<PairOutcome>& outcomes() const { return m_outcomes; }
    /// Everything shown, as plain text (for tests and for copying).
    QString text() const;

private:
    void rebuild();
    Theme m_theme = Theme::Light;
    std::vector<PairOutcome> m_outcomes;
    QVBoxLayout* m_rows;
};

} // namespace qs

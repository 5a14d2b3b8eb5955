// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>

class QFrame;
class QLabel;
class QTableWidget;

namespace qs {

class DivergenceChart;
class FidelityArmChart;
struct FidelityArm;

/// Quantization fidelity on screen (Evaluation::fidelity, docs/methodology.md "Fidelity"): which
/// endpoint is the reference and whether it was marked or is the baseline; a row per compared arm
/// (prompts, identical answers, flip rate with its interval, mean KL with its interval or "not
/// comparable — why", p99 KL, median shared prefix, mean |Δ logprob|, grade flips, near-ties and
/// confident flips, what the server did not support); the mean KL and the flip rate per arm as
/// bars; where answers first diverge as a histogram; and, for the arm selected in the table, every
/// prompt (test, run, first divergence, the candidate's rank and probability of the reference's
/// token, KL). Double-clicking a prompt asks to see its answers (promptActivated). With nothing
/// measured it says how to measure.
class FidelityView : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit FidelityView(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    /// Selects the arm (an endpoint index) whose prompts are listed; false if it is not compared.
    bool selectArm(int endpoint);
    int currentArm() const; ///< -1 when nothing is shown

    /// Why nothing is shown (the empty state, with how to measure); empty when fidelity is shown.
    QString statusText() const;
    QString referenceText() const; ///< e.g. "BF16 — marked as the fidelity reference"; empty when none
    QTableWidget* armsTable() const { return m_arms; }
    QTableWidget* promptsTable() const { return m_prompts; }
    FidelityArmChart* klChart() const { return m_klChart; }
    FidelityArmChart* flipChart() const { return m_flipChart; }
    DivergenceChart* divergenceChart() const { return m_divergenceChart; }

    enum ArmColumn {
        ArmName,
        ArmPrompts,
        ArmIdentical,
        ArmFlipRate,
        ArmKlMean,
        ArmKlP99,
        ArmSharedPrefix,
        ArmLogprobDelta,
        ArmGradeFlips,
        ArmDivergenceKinds,
        ArmSupport,
        ArmColumnCount
    };
    enum PromptColumn {
        PromptTest,
        PromptRun,
        PromptFirstDivergence,
        PromptSharedPrefix,
        PromptRank,
        PromptProb,
        PromptKl,
        PromptGrade,
        PromptNote,
        PromptColumnCount
    };

Q_SIGNALS:
    /// The user asked to see the answers of a prompt (a double-click in the prompt list).
    void promptActivated(const QString& test, int turn, int iteration);

private:
    void refresh();
    void fillArms();
    void fillPrompts();
    const FidelityArm* arm() const;

    DashboardData m_data;
    Theme m_theme = Theme::Light;
    int m_arm = -1; ///< endpoint index of the arm whose prompts are listed
    QString m_status;
    bool m_syncing = false;

    QFrame* m_emptyCard;
    QLabel* m_statusLabel;
    QLabel* m_command;
    QLabel* m_reference;
    QLabel* m_notes;
    QWidget* m_content;
    QTableWidget* m_arms;
    FidelityArmChart* m_klChart;
    FidelityArmChart* m_flipChart;
    DivergenceChart* m_divergenceChart;
    QLabel* m_promptsTitle;
    QTableWidget* m_prompts;
};

} // namespace qs

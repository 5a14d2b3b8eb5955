// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Recommendation.h"
#include "model/decide/Sequential.h"
#include "widgets/DashboardView.h"
#include "widgets/decision/CriteriaTable.h"
#include "widgets/decision/DecisionText.h"

#include <QWidget>
#include <optional>
#include <vector>

class QComboBox;
class QFrame;
class QLabel;
class QPushButton;
class QScrollArea;

namespace qs {

class LooksChart;
class SafeTextView;
class VerdictBanner;

/// The decision, on screen: pick a decision profile (the built-ins and any the app added) and,
/// with several candidates, the candidate; the view shows recommend()'s verdict against the
/// baseline first (VerdictBanner: Switch, Keep baseline or Inconclusive, coloured, in one sentence
/// with the criteria that decided it), then every criterion with its outcome (pass / fail /
/// inconclusive / not measured / open), what was measured and what it requires (CriteriaTable),
/// the caveats, and what would change the verdict. It is the same verdict as `quantscope report`
/// for the same file and profile: both call recommend() on the evaluation with its paired
/// comparison. Until that comparison exists, criteria that need it read "open"; during a run the
/// whole verdict is marked provisional, and while the same file is re-evaluated without it (a
/// judge's verdicts arriving) the verdict shown stays, marked as updating.
///
/// A run made with `quantscope run --until-decided` (RunResult::untilDecided) also shows, under
/// the banner, when it stopped and why ("Decided after 36 distinct prompts (look 3 …)") and, under
/// the table, its looks: each criterion's interval at each look, narrowing until it was decided
/// (LooksChart). Both follow a live run look by look; an ordinary run shows neither.
///
/// The view opens no files: "Open profile…" emits openProfileRequested(), and the app answers
/// with addProfile() (loadDecisionProfileFile() on the path the user chose).
class DecisionView : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit DecisionView(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    /// Adds a profile (or replaces the one from the same source) and selects it.
    void addProfile(const DecisionProfile& profile);
    /// The profiles besides the built-ins (replacing any added before); keeps the selection when
    /// its profile is still there.
    void setProfiles(const std::vector<DecisionProfile>& profiles);
    /// Selects a profile by id or source ("builtin:voice-assistant", a path); false if unknown.
    /// Until a profile is selected, the view follows `quantscope report`'s default: "throughput"
    /// for the throughput suite, else "voice-assistant".
    bool selectProfile(const QString& idOrSource);
    const DecisionProfile* currentProfile() const;
    int profileCount() const { return int(m_profiles.size()); }

    /// Selects the candidate judged against the baseline (an endpoint index); false if it is none.
    bool selectCandidate(int endpoint);
    int currentCandidate() const; ///< -1 when nothing is shown

    /// The verdict shown, as recommend() returned it; nullptr when there is none.
    const Recommendation* recommendation() const;
    /// Per criterion of the shown verdict, in profile order, what its row shows.
    std::vector<ShownOutcome> shownOutcomes() const;
    QString decisionLabel() const; ///< "Switch", "Keep baseline", "Inconclusive"; empty when none
    QString headline() const; ///< recommend()'s full headline (the banner's tooltip)
    QString verdictSentence() const; ///< the banner's one line (VerdictSummary::sentence)
    QString decidingText() const; ///< the banner's criteria that decided it, one per line
    VerdictBanner* banner() const { return m_banner; }
    /// A run is in progress, or the paired comparison is still being computed: the verdict may change.
    bool isProvisional() const;
    QString provisionalText() const; ///< e.g. "Provisional — run in progress"
    QString statusText() const; ///< why nothing is shown, or an error; empty when a verdict is
    CriteriaTable* criteriaTable() const { return m_table; }
    QComboBox* profileBox() const { return m_profileBox; }
    QComboBox* candidateBox() const { return m_candidateBox; }
    /// An until-decided run's line under the banner (untilDecidedLine()); empty for an ordinary run.
    QString looksText() const;
    /// The looks of an until-decided run for the candidate shown; hidden for an ordinary run.
    LooksChart* looksChart() const { return m_looksChart; }

    /// The table's columns, CriteriaTable's own.
    enum Column {
        CriterionColumn = CriteriaTable::CriterionColumn,
        OutcomeColumn = CriteriaTable::OutcomeColumn,
        MeasuredColumn = CriteriaTable::MeasuredColumn,
        RequiredColumn = CriteriaTable::RequiredColumn,
        WhyColumn = CriteriaTable::WhyColumn,
        ColumnCount = CriteriaTable::ColumnCount
    };

Q_SIGNALS:
    /// The user wants to load a profile file; the app shows a file dialog and calls addProfile().
    void openProfileRequested();
    /// The profile shown changed (by the user or by code), by its source.
    void profileChanged(const QString& source);

private:
    void syncProfileBox();
    void syncCandidateBox();
    void recompute();
    /// The recommendations for `ticket` arrive (from a worker thread, for a large run).
    void recommended(quint64 ticket, std::vector<Recommendation> recommendations, QString error);
    void showRecommendation(const Recommendation* rec);
    void fillTable(const Recommendation* rec);
    /// The until-decided line and chart for m_untilDecided, the candidate and profile shown.
    void showLooks();
    int profileIndex(const QString& idOrSource) const;
    QString defaultProfileName() const;

    DashboardData m_data;
    Theme m_theme = Theme::Light;
    std::vector<DecisionProfile> m_profiles; ///< built-ins first, then the app's
    int m_builtinCount = 0;
    int m_profile = -1; ///< index into m_profiles
    bool m_profileChosen = false; ///< chosen by the user or the app: no more following the suite
    int m_candidate = -1;
    std::vector<Recommendation> m_recommendations;
    std::vector<ShownOutcome> m_shown;
    QString m_status;
    bool m_syncing = false;
    /// recompute()'s latest request: a worker's answer to an older one is dropped.
    quint64 m_ticket = 0;
    /// The shown run's record of an until-decided run; read again on every setData (a few looks).
    std::optional<UntilDecided> m_untilDecided;

    QComboBox* m_profileBox;
    QPushButton* m_openButton;
    QLabel* m_candidateLabel;
    QComboBox* m_candidateBox;
    QLabel* m_description;
    QLabel* m_statusLabel;
    VerdictBanner* m_banner;
    QString m_provisional; ///< the banner's "may change" line; empty when final
    QLabel* m_caveats;
    QLabel* m_looksLine;
    QLabel* m_errorRates;
    CriteriaTable* m_table;
    QScrollArea* m_looksArea;
    LooksChart* m_looksChart;
    QLabel* m_changeTitle;
    SafeTextView* m_change;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

namespace qs {

// A campaign (issue #25): every attempt at replacing one baseline, over weeks, as one story. Its
// input is a set of results files that share a baseline identity; each candidate endpoint of each
// file is an attempt, judged with the profile exactly as its own report judges it (evaluate(),
// then recommend()). Around the verdicts the campaign says what changed from one attempt to the
// next (from what the files hold: endpoint fields, meta, probe facts, settings, suite, note),
// whether the baseline itself moved between files (its arms paired by prompt across files, with
// intervals), which attempt is best where the evidence separates them, and each criterion's
// figure across attempts. docs/methodology.md §13 states the rules.

/// One results file of a campaign, loaded, its gates judged (ensureGates).
struct CampaignFile {
    QString path; ///< as given; shown by its file name
    RunResult result;
};

/// One thing that differs between an attempt and the one before it.
struct CampaignChange {
    QString field; ///< "quantization", "model", "runtime", "server_version", "meta.method", "settings.runs",
                   ///< "suite"…
    QString from; ///< "" when it was not set
    QString to;
    /// One line for a reader: "quantization: Q4_K_M → NVFP4", "meta.method: set to awq_lite".
    QString text() const;
};

/// One candidate of one file, judged against that file's baseline.
struct CampaignAttempt {
    QString file; ///< the results file's path
    QDateTime startedAt; ///< UTC
    int fileIndex = 0; ///< into Campaign::files
    int baseline = 0; ///< endpoint index in its file
    int candidate = 1;
    QString candidateLabel;
    QString quantization; ///< the candidate's quantization label, as its endpoint says
    Recommendation recommendation; ///< recommend(result, evaluate(result, baseline), profile)
    /// Against the previous attempt in time (empty for the first): the candidate's own fields and
    /// facts, the run's settings, suite and note. Never the baseline's: that is drift.
    std::vector<CampaignChange> changes;
    /// What the user said: the run's note (`run --note`), the candidate's meta as "key=value", and
    /// the file's own note (recovered, combined…).
    QStringList notes;
};

/// How the baseline moved from one file to the next, on one measure.
struct CampaignDrift {
    /// A metric id ("ttft_visible_ms", "decode_tps", "e2e_ms"), "answers_differ" (share of prompts
    /// whose first measured answer changed), "gate:NAME" (pass-rate difference) or a probe fact
    /// ("server_version", "runtime", "model", "quantization", "context_size").
    QString metric;
    int fromFile = 0; ///< into Campaign::files
    int toFile = 1;
    /// Ratio to/from (metrics), share (answers_differ), difference (gates); unset for facts.
    std::optional<double> estimate;
    std::optional<Interval> interval; ///< 95 %, over distinct prompts
    int prompts = 0;
    QString fromText; ///< a fact's values, or the metric's medians ("118 ms")
    QString toText;
    /// The baseline moved: the interval lies wholly outside the no-change band (DriftTolerance), or
    /// a fact differs. Never "moved" on too little evidence.
    bool significant = false;
    QString
        sentence; ///< "Q4_K_M's TTFT (visible) was 1.41× [1.33–1.50] in b.json vs a.json, over 16 prompts"
};

/// How much a baseline's figure may move between files and still count as the same: ratios within
/// [1/1.05, 1.05], a pass rate within 5 points, answers differing on at most 5 % of prompts.
inline constexpr double DriftTolerance = 0.05;

/// Who leads on one criterion, among attempts that measured it.
struct CampaignStanding {
    QString criterion; ///< Criterion::id
    QString title;
    int best = -1; ///< the attempt separated from every other on this criterion, else -1
    std::vector<int> leaders; ///< attempts no other is separated from on the better side
    QString sentence;
};

/// Every attempt's verdicts in time order, the baseline's drift, and who leads.
struct Campaign {
    QString profileId;
    QString profileSource;
    QString baselineLabel; ///< the baseline's label in the earliest file
    std::vector<CampaignFile> files; ///< in time order (started_at, then as given)
    std::vector<int> baselineOf; ///< per file: the baseline's endpoint index
    std::vector<CampaignAttempt> attempts; ///< in time order, a file's candidates in endpoint order
    /// Every measure compared (moved or not) between consecutive files and, with three or more
    /// files, between the first and the last.
    std::vector<CampaignDrift> drift;
    std::vector<CampaignStanding> standings; ///< one per profile criterion
    /// The best attempt overall, only where the evidence separates it from every other: the best
    /// decision (switch, then inconclusive, then keep) and, among attempts with that decision, the
    /// one that no other beats on a criterion and that beats each of them on one. -1: none is.
    int best = -1;
    QString bestSentence;
    std::vector<int> bestSoFar; ///< per attempt: the best among it and those before it, or -1
    QStringList notes; ///< files left out and why, profile notes
};

/// A campaign that cannot be built: no file, no baseline common to the files.
class CampaignError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Builds the campaign. The baseline is the endpoint labelled `baselineLabel` in each file or,
/// when empty, the earliest file's endpoint 0, found in later files by its label, else by model,
/// quantization and runtime together. A file with no such endpoint, or with nothing to compare
/// with it, is left out with a note. Throws CampaignError when no attempt remains, and whatever
/// recommend() throws. Pure; seconds for big files (every file is evaluated once, and every
/// pair of baseline arms compared once).
Campaign buildCampaign(std::vector<CampaignFile> files, const DecisionProfile& profile,
    const QString& baselineLabel = QString());

/// What a results file knows of an endpoint: a fact the probe saved (`key` of RunEndpoint::probe,
/// as text; empty when missing, null or "unknown"), and its model and runtime as the user gave
/// them, else as the probe found them.
QString probeFact(const RunEndpoint& endpoint, const char* key);
QString modelOf(const RunEndpoint& endpoint);
QString runtimeOf(const RunEndpoint& endpoint);

/// What changed from `before` to `after` (their candidates and their runs).
std::vector<CampaignChange> attemptChanges(
    const RunResult& before, int beforeCandidate, const RunResult& after, int afterCandidate);

/// The baseline's drift from file `from` to file `to` (indices into `campaign.files`, baseline
/// endpoints `campaign.baselineOf`): facts, the latency and speed metrics and the gates paired by
/// prompt across the two files, and how many answers changed.
std::vector<CampaignDrift> baselineDrift(const Campaign& campaign, int from, int to);

/// Attempt `a` beats attempt `b` on criterion `index` (profile order) on evidence alone: their
/// intervals do not overlap and `a`'s is on the better side, or a count-decided criterion that
/// `a` passed and `b` failed.
bool separatedBetter(const CampaignAttempt& a, const CampaignAttempt& b, int index);

/// A short name for an attempt in tables and sentences: "NVFP4 vLLM (b.json)", with the
/// quantization when the label does not say it: "NVFP4 vLLM · NVFP4-MLP (c.json)".
QString attemptName(const Campaign& campaign, int attempt);

/// {"campaign": {"profile", "baseline", "attempts": [...], "best", "best_so_far",
/// "baseline_drift": [...], "standings": [...], "notes"}} — docs/results-format.md, "campaign".
nlohmann::json toJson(const Campaign& campaign);

} // namespace qs

namespace qs {

/// The files of a campaign as the user names them: results files, and folders whose `*.json`
/// files are read (in name order; a `.json` in a folder that is not a results file — a suite, a
/// profile — is skipped with a note in `notes`). Gates are judged where a file carries none
/// (ensureGates, noted). Throws ResultFileError for a named file that cannot be used, and
/// CampaignError for a path that does not exist or a folder without results files.
std::vector<CampaignFile> loadCampaignFiles(const QStringList& paths, QStringList* notes = nullptr);

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/evaluate/AnswerLengths.h"
#include "model/evaluate/Fidelity.h"
#include "model/evaluate/GateFailures.h"
#include "model/evaluate/Guardrails.h"
#include "model/evaluate/JudgedQuality.h"
#include "model/evaluate/PairedComparison.h"
#include "model/evaluate/PrefillScaling.h"
#include "model/evaluate/Resources.h"
#include "model/evaluate/ResultSummary.h"
#include "model/evaluate/Statistics.h"
#include "model/evaluate/TurnScaling.h"

#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

namespace qs {

/// Everything the evaluation derives from one run, computed in one go so that the CLI summary, the
/// dashboard and the report all read the same numbers. Pure and thread-safe: the GUI computes it
/// on a worker thread (a 100,000-record file takes seconds) and hands the value to its views.
struct Evaluation {
    int baseline = 0; ///< endpoint index every other endpoint is compared with
    ResultSummary summary; ///< medians per endpoint × test (× turn), errors, throughput
    std::vector<CellStatistics> cells; ///< full distributions per endpoint × test (× turn)
    PairedComparison comparison; ///< baseline against each other endpoint (see hasComparison)
    bool hasComparison = false; ///< false when evaluate() was asked to skip the bootstrap
    TurnScaling scaling; ///< multi-turn tests: TTFT per turn, growth, crossovers
    std::vector<Guardrail> guardrails; ///< methodology warnings, critical first
    GateFailures gateFailures; ///< why gates failed, per endpoint × test × gate
    ResourceReport resources; ///< what each server spent (memory, power, energy, its own counters)
    JudgedQuality judged; ///< what an LLM judge said (RunResult::judging), when one judged
    Fidelity fidelity; ///< each arm's next-token drift from the reference (fidelity tests), when run
    /// TTFT per 1,000 uncached prompt tokens per endpoint (context sweep, else multi-turn growth),
    /// correctness and memory per context size; its interval only with the comparison's bootstrap
    PrefillScaling prefill;
    /// Each candidate's answer lengths paired with the baseline's (the verbosity criterion)
    std::vector<ArmLengths> lengths;
    QStringList notes; ///< e.g. "quality gates judged now from the suite stored in the file"
};

/// Judges, from the suite stored in the file, the measured records that carry no gate verdicts
/// (files written before the gates existed, or by hand). Returns a note for the user, or an
/// empty string when nothing needed judging; a suite that cannot be parsed gives a note that says
/// so and leaves the records as they were.
QString ensureGates(RunResult& result);

/// Computes every part of an Evaluation. `baseline` is clamped to a valid endpoint index.
/// `withComparison` = false skips the paired comparison (its bootstrap takes seconds on a big
/// file), for a first, fast pass.
Evaluation evaluate(const RunResult& result, int baseline = 0, const ComparisonOptions& options = {},
    bool withComparison = true);

/// One results file of a multi-file review.
struct LabelledResult {
    QString label; ///< how the file is named in the views, e.g. its base name "before"
    RunResult result;
};

/// Puts several runs into one so they can be reviewed and compared side by side (e.g. before and
/// after a re-quantization): endpoints are relabelled "FILE · ENDPOINT" and renumbered in file
/// order, records follow, the suite and settings are the first file's (pairing is by test id,
/// turn and iteration, so the files should have run the same suite). One file is returned as it
/// is. The note says which files were combined and whether their suites differ. Judging follows
/// its endpoints (indexes renumbered); verdicts of a judge other than the first judged file's
/// (spec, URL or model differ) are left out, with a note in `note` and `judging.notes` saying so.
RunResult combineResults(std::vector<LabelledResult> files);

/// What the dashboard, `screenshot` and `report` do with the files a user names: load each
/// (labelled by its base name), judge records that carry no gate verdicts (ensureGates; one note
/// per file that needed it, "FILE: NOTE", appended to `notes`), and combine them. Throws
/// ResultFileError for the first file that cannot be used.
RunResult loadForReview(const QStringList& paths, QStringList* notes = nullptr);

} // namespace qs

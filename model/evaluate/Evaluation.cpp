// SPDX-License-Identifier: MIT
#include "model/evaluate/Evaluation.h"

#include "model/core/Suite.h"
#include "model/gates/QualityGates.h"
#include "model/store/ResultFile.h"

#include <QFileInfo>
#include <algorithm>
#include <iterator>

namespace qs {

QString ensureGates(RunResult& result)
{
    int missing = 0;
    for (const RunRecord& r : result.records)
        missing += (!r.warmup && (!r.gates->is_object() || r.gates->empty())) ? 1 : 0;
    if (missing == 0)
        return {};
    if (!result.suite.is_object())
        return QStringLiteral("%1 records carry no quality-gate verdicts and the file stores no suite to "
                              "judge them by")
            .arg(missing);
    try {
        const Suite suite = parseSuite(result.suite, QStringLiteral("the suite stored in the file"));
        const GatePatterns patterns = gatePatternsFor(suite);
        for (RunRecord& r : result.records)
            if (!r.gates->is_object() || r.gates->empty())
                applyGates(r, suite, patterns);
        return QStringLiteral("quality gates of %1 records judged now, from the suite stored in the file")
            .arg(missing);
    } catch (const std::exception& e) {
        return QStringLiteral("quality gates could not be evaluated: %1").arg(QString::fromUtf8(e.what()));
    }
}

Evaluation evaluate(
    const RunResult& result, int baseline, const ComparisonOptions& options, bool withComparison)
{
    Evaluation e;
    const int endpoints = int(result.endpoints.size());
    e.baseline = endpoints == 0 ? 0 : std::clamp(baseline, 0, endpoints - 1);
    e.summary = summarize(result);
    e.cells = cellStatistics(result);
    std::vector<int> candidates;
    for (int i = 0; i < endpoints; ++i)
        if (i != e.baseline)
            candidates.push_back(i);
    if (endpoints > 0 && withComparison) {
        e.comparison = comparePaired(result, e.baseline, candidates, options);
        e.hasComparison = true;
    }
    e.scaling = turnScaling(result);
    e.guardrails = checkGuardrails(result);
    e.gateFailures = tallyGateFailures(result);
    e.resources = computeResources(result);
    if (!result.judging.empty())
        e.judged = judgeQuality(result);
    // Against the file's reference, else the baseline; the bootstrap only with the comparison's.
    e.fidelity = computeFidelity(result, e.baseline, -1, withComparison);
    PrefillOptions prefill;
    prefill.intervals = withComparison;
    e.prefill = prefillScaling(result, e.resources, prefill);
    e.lengths = answerLengths(result, e.baseline);
    return e;
}

namespace {

QString judgeName(const JudgeIdentity& j)
{
    const QString model = j.model.isEmpty() ? QStringLiteral("an unnamed model") : j.model;
    return j.url.isEmpty() ? model : model + QStringLiteral(" at ") + j.url;
}

/// Adds the judging of file `label` (its endpoints now start at `offset`) to the combined one.
/// Verdicts of a different judge, or rubric verdicts by a different rubric, cannot be pooled:
/// they are left out and the returned notes say so. `judgedBy` names the file whose judge is kept.
QStringList combineJudging(Judging& out, Judging from, int offset, const QString& label, QString& judgedBy)
{
    if (from.empty())
        return {};
    for (RubricVerdict& v : from.rubricVerdicts)
        v.answer.endpoint += offset;
    for (PairVerdict& v : from.pairVerdicts) {
        v.candidate += offset;
        v.baseline += offset;
    }
    for (QString& n : from.notes)
        n = label + QStringLiteral(": ") + n;
    if (out.empty()) {
        out = std::move(from);
        judgedBy = label;
        return {};
    }
    if (!sameJudge(out.judge, from.judge))
        return {QStringLiteral("%1's judge verdicts were left out: it was judged by %2, %3 by %4, and "
                               "verdicts of different judges cannot be pooled (judge both files with the "
                               "same judge to compare them)")
                    .arg(label, judgeName(from.judge), judgedBy, judgeName(out.judge))};
    QStringList notes;
    if (from.rubric && out.rubric && from.rubric->raw != out.rubric->raw) {
        notes << QStringLiteral("%1's rubric verdicts were left out: they were graded by another rubric "
                                "(%2) than %3's (%4)")
                     .arg(label, from.rubric->source, judgedBy, out.rubric->source);
        from.rubricVerdicts.clear();
    } else if (!out.rubric) {
        out.rubric = std::move(from.rubric);
    }
    std::move(from.rubricVerdicts.begin(), from.rubricVerdicts.end(), std::back_inserter(out.rubricVerdicts));
    std::move(from.pairVerdicts.begin(), from.pairVerdicts.end(), std::back_inserter(out.pairVerdicts));
    out.notes += from.notes;
    out.complete = out.complete && from.complete;
    if (from.startedAt.isValid() && (!out.startedAt.isValid() || from.startedAt < out.startedAt))
        out.startedAt = from.startedAt;
    if (from.endedAt.isValid() && (!out.endedAt.isValid() || from.endedAt > out.endedAt))
        out.endedAt = from.endedAt;
    return notes;
}

} // namespace

RunResult combineResults(std::vector<LabelledResult> files)
{
    if (files.empty())
        return {};
    if (files.size() == 1)
        return std::move(files.front().result);
    RunResult out = std::move(files.front().result);
    const QString firstLabel = files.front().label;
    for (RunEndpoint& e : out.endpoints)
        e.endpoint.label = firstLabel + QStringLiteral(" · ") + e.endpoint.displayName();
    QStringList names {firstLabel};
    QStringList differentSuites;
    QString judgedBy = out.judging.empty() ? QString() : firstLabel;
    QStringList judgingNotes;
    QStringList referenceNotes;
    // One reference for the combined run: the first file's that marks one.
    int reference = referenceEndpoint(out);
    const auto suiteId = [](const nlohmann::json& suite) {
        return suite.is_object() ? QString::fromStdString(suite.value("id", std::string())) : QString();
    };
    for (std::size_t f = 1; f < files.size(); ++f) {
        RunResult& r = files[f].result;
        names << files[f].label;
        if (suiteId(r.suite) != suiteId(out.suite))
            differentSuites << files[f].label;
        const int offset = int(out.endpoints.size());
        for (RunEndpoint& e : r.endpoints) {
            e.endpoint.label = files[f].label + QStringLiteral(" · ") + e.endpoint.displayName();
            if (e.reference && reference >= 0) {
                e.reference = false;
                referenceNotes << QStringLiteral("%1 is no longer the fidelity reference: \"%2\" is")
                                      .arg(e.endpoint.label,
                                          out.endpoints[std::size_t(reference)].endpoint.label);
            } else if (e.reference) {
                reference = int(out.endpoints.size());
            }
            out.endpoints.push_back(std::move(e));
        }
        out.records.reserve(out.records.size() + r.records.size());
        for (RunRecord& rec : r.records) {
            rec.endpoint += offset;
            rec.request.endpointLabel = out.endpoints[std::size_t(rec.endpoint)].endpoint.label;
            out.records.push_back(std::move(rec));
        }
        // Telemetry follows its endpoints: sources renumbered, samples pointed at them.
        const int sourceOffset = int(out.telemetry.sources.size());
        for (TelemetrySource& s : r.telemetry.sources) {
            s.endpoint += offset;
            out.telemetry.sources.push_back(std::move(s));
        }
        for (TelemetrySample& s : r.telemetry.samples) {
            s.source += sourceOffset;
            out.telemetry.samples.push_back(std::move(s));
        }
        for (const QString& n : r.telemetry.notes)
            out.telemetry.notes << files[f].label + QStringLiteral(": ") + n;
        if (out.telemetry.periodMs == 0)
            out.telemetry.periodMs = r.telemetry.periodMs;
        judgingNotes += combineJudging(out.judging, std::move(r.judging), offset, files[f].label, judgedBy);
        out.complete = out.complete && r.complete;
        if (r.startedAt.isValid() && (!out.startedAt.isValid() || r.startedAt < out.startedAt))
            out.startedAt = r.startedAt;
        if (r.endedAt.isValid() && (!out.endedAt.isValid() || r.endedAt > out.endedAt))
            out.endedAt = r.endedAt;
    }
    // Each file's clock starts at its own run; samples stay in time order as the type promises.
    std::stable_sort(out.telemetry.samples.begin(), out.telemetry.samples.end(),
        [](const TelemetrySample& a, const TelemetrySample& b) { return a.atMs < b.atMs; });
    QString note = QStringLiteral("combined from %1 files: %2")
                       .arg(files.size())
                       .arg(names.join(QStringLiteral(", ")));
    if (!differentSuites.isEmpty())
        note += QStringLiteral("; %1 ran a different suite than %2, so only tests with the same id pair up")
                    .arg(differentSuites.join(QStringLiteral(", ")), firstLabel);
    for (const QString& n : judgingNotes + referenceNotes)
        note += QStringLiteral("; ") + n;
    out.judging.notes += judgingNotes;
    if (!out.note.isEmpty())
        note += QStringLiteral("; ") + out.note;
    out.note = note;
    return out;
}

RunResult loadForReview(const QStringList& paths, QStringList* notes)
{
    std::vector<LabelledResult> files;
    for (const QString& path : paths) {
        RunResult r = loadResults(path);
        if (const QString note = ensureGates(r); !note.isEmpty() && notes)
            *notes << QFileInfo(path).fileName() + QStringLiteral(": ") + note;
        files.push_back({QFileInfo(path).completeBaseName(), std::move(r)});
    }
    return combineResults(std::move(files));
}

} // namespace qs

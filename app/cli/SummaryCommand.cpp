// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/cli/SummaryText.h"
#include "model/core/Suite.h"
#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"
#include "model/decide/Sequential.h"
#include "model/evaluate/Evaluation.h"
#include "model/evaluate/Guardrails.h"
#include "model/evaluate/PairedComparison.h"
#include "model/evaluate/ResultSummary.h"
#include "model/evaluate/Statistics.h"
#include "model/evaluate/TurnScaling.h"
#include "model/gates/QualityGates.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"

#include <QCommandLineParser>
#include <QTextStream>

namespace qs::app {

namespace {

/// The suite an until-decided run of this file's suite would draw from: the built-in one it came
/// from when the file asked only some of its prompts, else the file's own.
Suite planningPool(const RunResult& result)
{
    const Suite own = parseSuite(result.suite, QStringLiteral("the file's suite"));
    if (builtinSuiteNames().contains(own.id))
        try {
            return loadSuite(own.id);
        } catch (const SuiteError&) {
        }
    return own;
}

/// `summary --plan`: for each candidate's criteria, the distinct prompts an until-decided run
/// would roughly need (the planner of model/decide/Sequential.h, this file as its pilot).
nlohmann::json planJson(const RunResult& result, const std::vector<Recommendation>& recommendations)
{
    Suite pool;
    try {
        pool = planningPool(result);
    } catch (const SuiteError& e) {
        return {{"error", std::string("the file's suite cannot be read: ") + e.what()},
            {"criteria", nlohmann::json::array()}, {"schedule_text", "no schedule"}};
    }
    std::vector<int> promptsAt;
    for (int n : roundSchedule(pool, 0))
        promptsAt.push_back(promptsDrawn(pool, n, result.settings.seed));
    QStringList steps;
    for (int n : promptsAt)
        steps << QString::number(n);
    nlohmann::json rows = nlohmann::json::array();
    for (const Recommendation& rec : recommendations)
        for (const CriterionResult& c : rec.criteria) {
            const bool open = c.outcome == CriterionResult::Outcome::Inconclusive;
            const int n = promptsToDecide(c, rec.looks, promptsAt).value_or(0); // 0: none would
            QString text = QStringLiteral("%1%2: %3")
                               .arg(recommendations.size() > 1 ? rec.candidateLabel + QStringLiteral(" · ")
                                                               : QString(),
                                   c.criterion.id, outcomeId(c.outcome));
            if (!open && n > 0)
                text += QStringLiteral(
                    "; an until-decided run would decide it after roughly %1 distinct prompts")
                            .arg(n);
            else if (open)
                text += n > 0 ? QStringLiteral(", roughly %1 distinct prompts (%2 now)").arg(n).arg(c.prompts)
                    : c.estimate && c.prompts > 0
                    ? QStringLiteral(", not within the suite's %1 prompts at this estimate")
                          .arg(promptsAt.empty() ? 0 : promptsAt.back())
                    : QStringLiteral(", not an interval more prompts narrow (see its explanation)");
            nlohmann::json needed; // null: no scheduled look would decide it
            if (n > 0)
                needed = n;
            rows.push_back({{"candidate", rec.candidate}, {"id", c.criterion.id.toStdString()},
                {"outcome", outcomeId(c.outcome).toStdString()}, {"prompts_now", c.prompts},
                {"prompts_needed", needed}, {"text", text.toStdString()}});
        }
    return {{"suite", pool.id.toStdString()}, {"looks_at_prompts", promptsAt}, {"criteria", std::move(rows)},
        {"schedule_text",
            QStringLiteral("rounds end at %1 distinct prompts of suite \"%2\"")
                .arg(steps.join(QStringLiteral(", ")), pool.id)
                .toStdString()}};
}

} // namespace

int runSummary(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Summarise a results file: per endpoint × test (and turn), median TTFT (any and visible), first "
        "sentence, e2e and decode tok/s over measured runs (warm-ups and failures excluded), gate passes, "
        "errors; aggregate throughput per concurrency level; and, where the servers' metrics were scraped, "
        "memory, power, energy per token and the servers' own token counts per endpoint."));
    p.addHelpOption();
    p.addPositionalArgument(
        QStringLiteral("FILE"), QStringLiteral("A results file written by quantscope run."));
    p.addOption({QStringLiteral("json"), QStringLiteral("Print JSON.")});
    p.addOption(baselineOption());
    p.addOption({QStringLiteral("profile"),
        QStringLiteral(
            "Decide with a decision profile (%1, or a profile file): --json gains \"recommendations\", "
            "one per candidate; the text ends with each verdict.")
            .arg(builtinDecisionProfileNames().join(QStringLiteral(", "))),
        QStringLiteral("NAME|FILE")});
    p.addOption({QStringLiteral("plan"),
        QStringLiteral(
            "With --profile, read the file as a pilot: roughly how many distinct prompts each open "
            "criterion would need before run --until-decided decides it (--json: \"plan\").")});
    p.addOption(referenceOption(QStringLiteral(
        "The fidelity reference the other endpoints' answers are compared with: an index or a label "
        "(default: the one the file marks, from run --reference; else the baseline).")));
    if (const int rc = parseSubcommand(p, "summary", args); rc >= 0)
        return rc;
    if (p.positionalArguments().size() != 1) {
        err << "quantscope summary: give exactly one results file\n";
        return 2;
    }
    RunResult result;
    try {
        result = loadResults(p.positionalArguments().front());
    } catch (const ResultFileError& e) {
        err << "quantscope summary: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    }
    QString baselineError;
    const std::optional<int> baseline = baselineFrom(p, result, baselineError);
    if (!baseline) {
        err << "quantscope summary: " << baselineError << '\n';
        return 2;
    }
    QString referenceError;
    const std::optional<int> reference = endpointFrom(p, "reference", result, referenceError);
    if (!reference) {
        err << "quantscope summary: " << referenceError << '\n';
        return 2;
    }
    if (*reference >= 0) // instead of the file's: everything below reads the same reference
        for (std::size_t i = 0; i < result.endpoints.size(); ++i)
            result.endpoints[i].reference = int(i) == *reference;
    std::optional<DecisionProfile> profile;
    if (p.isSet(QStringLiteral("profile"))) {
        try {
            profile = loadDecisionProfile(p.value(QStringLiteral("profile")));
        } catch (const ProfileError& e) {
            err << "quantscope summary: " << QString::fromUtf8(e.what())
                << " (the built-in profiles are: " << builtinDecisionProfileNames().join(QStringLiteral(", "))
                << "; or give a profile file)\n";
            return 2;
        }
    }
    if (const QString note = ensureGates(result); !note.isEmpty())
        err << "note: " << note << '\n';
    const Evaluation ev = evaluate(result, *baseline);
    std::vector<Recommendation> recommendations;
    if (profile) {
        try {
            recommendations = recommend(result, ev, *profile);
        } catch (const std::exception& e) {
            err << "quantscope summary: cannot judge the profile's criteria: " << QString::fromUtf8(e.what())
                << '\n';
            return 1;
        }
    }
    if (p.isSet(QStringLiteral("plan")) && !profile) {
        err << "quantscope summary: --plan estimates what --profile's criteria need: give --profile too\n";
        return 2;
    }
    const nlohmann::json plan
        = p.isSet(QStringLiteral("plan")) ? planJson(result, recommendations) : nlohmann::json();
    const ResultSummary& s = ev.summary;
    const PairedComparison& comparison = ev.comparison;
    const TurnScaling& scaling = ev.scaling;
    const std::vector<Guardrail>& warnings = ev.guardrails;
    if (p.isSet(QStringLiteral("json"))) {
        nlohmann::json j = toJson(s);
        j["statistics"] = toJson(ev.cells);
        j["comparison"] = toJson(comparison);
        j["scaling"] = toJson(scaling);
        j["warnings"] = toJson(warnings);
        j["resources"] = toJson(ev.resources);
        // What an LLM judge said (docs/judging.md); null when the file was never judged.
        j["judge"] = ev.judged.judged ? toJson(ev.judged, result) : nlohmann::json();
        // Each arm's next-token drift from the reference (docs/methodology.md, "Fidelity"): always
        // a list, empty when the run had no fidelity tests.
        j["fidelity"] = toJson(ev.fidelity);
        // TTFT per 1,000 uncached prompt tokens per endpoint, with its cluster-bootstrap interval
        // (docs/methodology.md, "Prefill scaling and the context sweep"): empty when the run has
        // neither context-sweep nor multi-turn tests; and the sweep's rows per context size.
        j["prefill_scaling"] = prefillScalingJson(ev.prefill);
        j["context"] = prefillContextJson(ev.prefill);
        // Run-wide notes on the scraping itself, e.g. "scraping off (--no-server-metrics)".
        j["telemetry_notes"] = nlohmann::json::array();
        for (const QString& note : result.telemetry.notes)
            j["telemetry_notes"].push_back(note.toStdString());
        // With --profile: each candidate's verdict against the baseline (docs/decision-profiles.md).
        if (profile) {
            j["profile"] = profile->id.toStdString();
            j["recommendations"] = nlohmann::json::array();
            for (const Recommendation& r : recommendations)
                j["recommendations"].push_back(toJson(r));
            if (!plan.is_null())
                j["plan"] = plan;
        }
        out << QString::fromStdString(j.dump(2)) << '\n';
        return 0;
    }
    writeSummaryText(out, result, ev);
    for (const Recommendation& r : recommendations) {
        out << '\n' << r.headline << '\n';
        for (const CriterionResult& c : r.criteria)
            out << "  " << outcomeId(c.outcome).leftJustified(13) << c.criterion.title << ": " << c.measured
                << '\n';
        out << "  " << errorRateStatement(r) << '\n';
    }
    // The answer last, one line per candidate, where a reader's eye (and `tail -1`) lands.
    if (!recommendations.empty())
        out << '\n';
    for (const Recommendation& r : recommendations)
        out << "Verdict (" << profile->id << "): " << r.headline << '\n';
    if (!plan.is_null()) {
        out << "\nPlan for run --until-decided (this file as a pilot; "
            << plan["schedule_text"].get<std::string>().c_str() << "):\n";
        for (const nlohmann::json& row : plan["criteria"])
            out << "  " << QString::fromStdString(row["text"].get<std::string>()) << '\n';
    }
    return 0;
}

int runRecover(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Turn the journal of an interrupted run (<out>.journal) into a normal results file. Every request "
        "that finished before the interruption is kept; the run is marked incomplete."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("JOURNAL"), QStringLiteral("The .journal file."));
    p.addOption({QStringLiteral("out"), QStringLiteral("Results file to write."), QStringLiteral("FILE")});
    if (const int rc = parseSubcommand(p, "recover", args); rc >= 0)
        return rc;
    if (p.positionalArguments().size() != 1 || !p.isSet(QStringLiteral("out"))) {
        err << "quantscope recover: usage: quantscope recover RUN.json.journal --out FILE\n";
        return 2;
    }
    RunResult result;
    try {
        result = recoverJournal(p.positionalArguments().front());
    } catch (const ResultFileError& e) {
        err << "quantscope recover: " << QString::fromUtf8(e.what()) << '\n';
        return 1;
    }
    const QString outPath = p.value(QStringLiteral("out"));
    const QString saveError = saveResults(result, outPath);
    if (!saveError.isEmpty()) {
        err << "quantscope recover: could not write " << outPath << ": " << saveError << '\n';
        return 1;
    }
    out << "Recovered " << result.records.size() << " requests into " << outPath << '\n';
    if (!result.note.isEmpty())
        out << "note: " << result.note << '\n';
    return 0;
}

} // namespace qs::app

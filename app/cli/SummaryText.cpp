// SPDX-License-Identifier: MIT
#include "app/cli/SummaryText.h"

#include "model/gates/QualityGates.h"

#include <algorithm>
#include <functional>
#include <map>

namespace qs::app {

namespace {
QString ms(const std::optional<double>& v)
{
    return v ? QString::number(*v, 'f', *v < 100 ? 1 : 0) : QStringLiteral("-");
}

QString gatesText(const SummaryRow& r)
{
    // Short names, judged gates only: "md 0/2" reads faster than "no_markdown 0/2, tool_call 0/0".
    static const std::map<QString, QString> shortName
        = {{QStringLiteral("non_empty"), QStringLiteral("empty")},
            {QStringLiteral("expected_answer"), QStringLiteral("answer")},
            {QStringLiteral("tool_call"), QStringLiteral("tool")},
            {QStringLiteral("no_markdown"), QStringLiteral("md")},
            {QStringLiteral("no_thinking_leak"), QStringLiteral("think")},
            {QStringLiteral("thinking_follows_request"), QStringLiteral("think-ctl")},
            {QStringLiteral("coherent"), QStringLiteral("coherent")},
            {QStringLiteral("within_length"), QStringLiteral("length")}};
    QStringList parts;
    for (const auto& [name, pa] : r.gates) {
        if (pa.second == 0)
            continue;
        const auto it = shortName.find(name);
        parts << QStringLiteral("%1 %2/%3")
                     .arg(it == shortName.end() ? name : it->second)
                     .arg(pa.first)
                     .arg(pa.second);
    }
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(u' ');
}

QString errorsText(const SummaryRow& r)
{
    QStringList parts;
    for (const auto& [kind, n] : r.errors)
        parts << QStringLiteral("%1×%2").arg(n).arg(kind);
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(QStringLiteral(", "));
}
void printWarnings(QTextStream& out, const std::vector<Guardrail>& warnings)
{
    if (warnings.empty()) {
        out << "No methodology warnings.\n\n";
        return;
    }
    for (const Guardrail& g : warnings) {
        out << severityId(g.severity).toUpper() << " [" << g.id << "] " << g.title << '\n';
        if (!g.evidence.isEmpty())
            out << "    evidence: " << g.evidence << '\n';
        if (!g.advice.isEmpty())
            out << "    advice:   " << g.advice << '\n';
    }
    out << '\n';
}

void printComparison(QTextStream& out, const PairedComparison& comparison)
{
    for (const ArmComparison& arm : comparison.arms) {
        out << "\nPaired comparison: " << arm.candidateLabel << " vs baseline " << arm.baselineLabel << " ("
            << arm.pairedOk
            << " pairs; 95% bootstrap intervals, Wilcoxon signed-rank; a winner only where the "
            << "interval excludes no difference)\n";
        // Pooled rows for every metric, then per test for what a listener waits for.
        for (const MetricComparison& m : arm.metrics)
            if (m.test.isEmpty())
                out << "  " << m.sentence << '\n';
        for (const MetricComparison& m : arm.metrics)
            if (!m.test.isEmpty() && m.turn == 0 && m.metric == Metric::TtftVisible)
                out << "    " << m.sentence << '\n';
        bool header = false;
        for (const GateComparison& g : arm.gates) {
            if (!g.test.isEmpty() || g.pairs == 0)
                continue;
            if (!header) {
                out << "  Quality gates, all tests (McNemar exact):\n";
                header = true;
            }
            out << "    " << g.sentence << '\n';
        }
    }
}

QString figureText(const std::optional<double>& v, const std::function<QString(double)>& format)
{
    return v ? format(*v) : QStringLiteral("-");
}

QString countText(double v)
{
    return QString::number(v, 'f', 0);
}

/// The idle / peak / per-concurrency table the seeds kept by hand, power, energy per token and the
/// servers' own token counts beside the client's; then the servers' latency and the notes.
void printResources(QTextStream& out, const ResourceReport& report, int width)
{
    if (!report.collected)
        return;
    out << "\nServer resources (memory while serving, power median while serving; - = not measured; "
           "docs/methodology.md \"Server resources\"):\n";
    out << QStringLiteral("  %1 %2 %3 %4 %5 %6 %7  %8\n")
               .arg(QStringLiteral("endpoint"), -width)
               .arg(QStringLiteral("memory"), -6)
               .arg(QStringLiteral("idle"), 10)
               .arg(QStringLiteral("peak"), 10)
               .arg(QStringLiteral("power"), 7)
               .arg(QStringLiteral("J/token"), 8)
               .arg(QStringLiteral("generated server/client"), 23)
               .arg(QStringLiteral("by concurrency: median (peak)"));
    for (const EndpointResources& e : report.endpoints) {
        QStringList levels;
        for (const ConcurrencyResources& c : e.byConcurrency)
            levels << QStringLiteral("%1: %2 (%3)")
                          .arg(c.concurrency)
                          .arg(figureText(c.memoryMedian.value, bytesText),
                              figureText(c.memoryPeak.value, bytesText));
        out << QStringLiteral("  %1 %2 %3 %4 %5 %6 %7  %8\n")
                   .arg(e.label, -width)
                   .arg(e.memoryKind.isEmpty() ? QStringLiteral("-") : e.memoryKind, -6)
                   .arg(figureText(e.memoryIdle.value, bytesText), 10)
                   .arg(figureText(e.memoryPeak.value, bytesText), 10)
                   .arg(figureText(e.powerMedian.value,
                            [](double w) -> QString {
                                return QString::number(w, 'f', 0) + QStringLiteral(" W");
                            }),
                       7)
                   .arg(figureText(
                            e.energyPerToken.value, [](double j) { return QString::number(j, 'f', 2); }),
                       8)
                   .arg(figureText(e.serverGeneratedTokens, countText) + QStringLiteral(" / ")
                           + figureText(e.clientGeneratedTokens, countText),
                       23)
                   .arg(levels.isEmpty() ? QStringLiteral("-") : levels.join(QStringLiteral(", ")));
    }
    for (const EndpointResources& e : report.endpoints) {
        QStringList latency;
        for (const ServerLatency& l : e.serverLatency)
            latency << QStringLiteral("%1 mean %2 ms (client %3)")
                           .arg(metricRoleTitle(l.role), ms(l.meanMs), ms(l.clientMeanMs));
        if (!latency.isEmpty())
            out << "  " << e.label << ": " << latency.join(QStringLiteral("; ")) << '\n';
        constexpr int maxNotes = 3;
        for (int i = 0; i < std::min(maxNotes, int(e.notes.size())); ++i)
            out << "  " << e.label << ": note: " << e.notes[i] << '\n';
        if (e.notes.size() > maxNotes)
            out << "  " << e.label << ": … " << (e.notes.size() - maxNotes)
                << " more notes (summary --json)\n";
    }
}

/// What an LLM judge said: rubric medians per endpoint and criterion, then the pairwise lines.
void printJudged(QTextStream& out, const RunResult& result, const JudgedQuality& q, int width)
{
    if (!q.judged)
        return;
    out << "\nJudged quality (an LLM judge's verdicts: evidence, not ground truth; docs/judging.md) by "
        << q.judge.model << " at " << q.judge.url << ":\n";
    const auto label = [&](int endpoint) {
        return endpoint >= 0 && endpoint < int(result.endpoints.size())
            ? result.endpoints[std::size_t(endpoint)].endpoint.displayName()
            : QStringLiteral("#%1").arg(endpoint);
    };
    if (q.rubric) {
        for (const RubricArm& arm : q.rubricArms) {
            QStringList scores;
            for (const RubricCriterion& c : q.rubric->criteria)
                if (const RubricScore* s = q.score(arm.endpoint, c.id); s && s->n > 0)
                    scores << QStringLiteral("%1 %2").arg(c.id).arg(s->median, 0, 'g', 3);
            out << QStringLiteral("  %1 rubric \"%2\": %3 (median of 1-5; %4 graded, %5 judge failures)\n")
                       .arg(label(arm.endpoint), -width)
                       .arg(q.rubric->id,
                           scores.isEmpty() ? QStringLiteral("-") : scores.join(QStringLiteral(", ")))
                       .arg(arm.graded)
                       .arg(arm.failed);
        }
    }
    for (const PairwiseResult& p : q.pairwise) {
        out << QStringLiteral(
            "  %1 vs %2, blind pairwise: %3 wins, %4 losses, %5 ties (%6 inconsistent) of %7 "
            "pairs")
                   .arg(label(p.candidate), label(p.baseline))
                   .arg(p.wins)
                   .arg(p.losses)
                   .arg(p.ties)
                   .arg(p.inconsistent)
                   .arg(p.pairs);
        if (p.winRate && p.winRateCi)
            out << QStringLiteral("; win rate %1 % [%2, %3]")
                       .arg(*p.winRate * 100, 0, 'f', 0)
                       .arg(p.winRateCi->lo * 100, 0, 'f', 0)
                       .arg(p.winRateCi->hi * 100, 0, 'f', 0);
        if (p.consistency)
            out << QStringLiteral("; consistency %1 %").arg(*p.consistency * 100, 0, 'f', 0);
        out << "; " << (p.winner >= 0 ? QStringLiteral("winner: ") + label(p.winner) : p.verdict) << '\n';
    }
}

QString percent(double v)
{
    return QString::number(v * 100, 'f', 1) + QStringLiteral(" %");
}

/// Each arm's drift from the fidelity reference: one line of figures per arm, then its notes.
void printFidelity(QTextStream& out, const Fidelity& f)
{
    if (!f.measured())
        return;
    out << "\nFidelity against " << f.referenceLabel
        << (f.referenceMarked ? QStringLiteral(" (the reference, run --reference)")
                              : QStringLiteral(" (the baseline)"))
        << ": greedy answers to the fidelity tests, token by token; KL in nats on the shared prefix "
           "(docs/methodology.md \"Fidelity\"):\n";
    for (const FidelityArm& arm : f.arms) {
        QStringList parts;
        parts << QStringLiteral("%1 prompts, %2 identical").arg(arm.prompts.size()).arg(arm.identical);
        QString flips = QStringLiteral("flip rate ") + percent(arm.flipRate);
        if (arm.flipRateCi)
            flips
                += QStringLiteral(" [%1, %2]").arg(percent(arm.flipRateCi->lo), percent(arm.flipRateCi->hi));
        parts << flips;
        if (arm.klMean) {
            QString kl = QStringLiteral("KL mean ") + klText(*arm.klMean);
            if (arm.klCi)
                kl += QStringLiteral(" [%1, %2]").arg(klText(arm.klCi->lo), klText(arm.klCi->hi));
            if (!arm.klComparable)
                kl += QStringLiteral(" over %1 of %2 prompts (the others not comparable)")
                          .arg(arm.comparablePrompts)
                          .arg(arm.prompts.size());
            parts << kl;
        } else {
            parts << QStringLiteral("KL not comparable: ") + klMissingWhy(arm);
        }
        parts
            << QStringLiteral("median shared prefix %1 tokens").arg(arm.medianSharedPrefixTokens, 0, 'g', 4);
        if (arm.gradedPrompts > 0)
            parts << QStringLiteral("grade changed in %1 of %2 graded")
                         .arg(arm.gradeFlips)
                         .arg(arm.gradedPrompts);
        if (arm.nearTies + arm.confidentFlips > 0)
            parts << QStringLiteral("%1 near-ties, %2 confident flips")
                         .arg(arm.nearTies)
                         .arg(arm.confidentFlips);
        out << "  " << arm.endpointLabel << ": " << parts.join(QStringLiteral("; ")) << '\n';
        if (!arm.support.isEmpty() && arm.klMean)
            out << "    note: " << arm.support << '\n';
    }
    for (const QString& note : f.notes)
        out << "  note: " << note << '\n';
}

/// TTFT per 1,000 uncached prompt tokens per endpoint, the cache mode, and the sweep's
/// correctness, TTFT and memory per context size.
void printPrefill(QTextStream& out, const PrefillScaling& p, int width)
{
    if (p.empty())
        return;
    out << "\nPrefill (TTFT per 1,000 uncached prompt tokens, from the "
        << (p.source == PrefillSource::ContextSweep ? QStringLiteral("context sweep")
                                                    : QStringLiteral("multi-turn conversations' growth"))
        << (p.withIntervals ? QStringLiteral("; 95% bootstrap over distinct prompts") : QString())
        << "; docs/methodology.md \"Prefill scaling and the context sweep\"):\n";
    for (const EndpointPrefill& e : p.endpoints) {
        out << "  " << QStringLiteral("%1 ").arg(e.label, -width) << prefillFigureText(e);
        if (e.msPer1kTokens && e.minTokens && e.maxTokens)
            out << QStringLiteral("; %1 prompts, %2 requests, %3–%4 tokens")
                       .arg(e.prompts)
                       .arg(e.requests)
                       .arg(*e.minTokens, 0, 'f', 0)
                       .arg(*e.maxTokens, 0, 'f', 0);
        if (const auto share = e.cachedShare())
            out << QStringLiteral("; %1 % of prompt tokens from cache").arg(*share * 100, 0, 'f', 0);
        out << '\n';
        for (const QString& note : e.notes)
            out << "    note: " << note << '\n';
    }
    for (const SuiteCacheMode& m : p.cacheModes)
        out << "  prefix cache (" << (m.suite.isEmpty() ? QStringLiteral("suite") : m.suite)
            << "): " << cacheModeText(m.mode) << '\n';
    for (const EndpointPrefill& e : p.endpoints) {
        if (e.contexts.empty())
            continue;
        QStringList sizes;
        for (const ContextRow& c : e.contexts) {
            QString cell = QStringLiteral("%1 %2/%3 right, TTFT %4 ms")
                               .arg(contextSizeText(c.contextTokens))
                               .arg(c.right)
                               .arg(c.graded)
                               .arg(ms(c.medianTtftMs));
            if (c.memoryPeak.value)
                cell += QStringLiteral(", ") + bytesText(*c.memoryPeak.value);
            sizes << cell;
        }
        out << "  " << QStringLiteral("%1 ").arg(e.label, -width) << sizes.join(QStringLiteral("; ")) << '\n';
    }
}

void printScaling(QTextStream& out, const TurnScaling& scaling)
{
    if (scaling.endpoints.empty())
        return;
    out << "\nMulti-turn scaling:\n";
    for (const EndpointScaling& e : scaling.endpoints)
        out << "  " << e.sentence << '\n';
    for (const PairCrossover& pc : scaling.pairs) {
        out << "  " << pc.sentence << '\n';
        for (const LengthOutlook& l : pc.lengths)
            out << "    " << l.sentence << '\n';
    }
}
} // namespace

void writeSummaryText(QTextStream& out, const RunResult& result, const Evaluation& ev)
{
    const ResultSummary& s = ev.summary;
    const PairedComparison& comparison = ev.comparison;
    const TurnScaling& scaling = ev.scaling;
    const std::vector<Guardrail>& warnings = ev.guardrails;
    const QString suite
        = QString::fromStdString(result.suite.value("name", result.suite.value("id", std::string())));
    out << "Suite " << (suite.isEmpty() ? QStringLiteral("?") : suite) << ", run "
        << result.startedAt.toString(Qt::ISODate) << " on " << result.host
        << (result.complete ? QString() : QStringLiteral("  [INCOMPLETE]")) << '\n';
    if (!result.userNote.isEmpty())
        out << "about this run: " << result.userNote << '\n';
    if (!result.note.isEmpty())
        out << "note: " << result.note << '\n';
    for (std::size_t i = 0; i < result.endpoints.size(); ++i) {
        const RunEndpoint& e = result.endpoints[i];
        out << "  [" << i << "] " << e.endpoint.displayName() << "  " << e.spec << "  runtime "
            << runtimeName(e.endpoint.runtime) << ", model "
            << (e.endpoint.model.isEmpty() ? QStringLiteral("?") : e.endpoint.model)
            << (e.endpoint.quantization.isEmpty() ? QString()
                                                  : QStringLiteral(", ") + e.endpoint.quantization)
            << (e.simulated ? QStringLiteral("  — SIMULATED, not a real server") : QString())
            << (e.reference ? QStringLiteral("  — fidelity reference") : QString()) << '\n';
        if (!e.endpoint.meta.empty()) {
            QStringList facts;
            for (const auto& [key, value] : e.endpoint.meta)
                facts << key + u'=' + value;
            out << "      " << facts.join(QStringLiteral(", ")) << '\n';
        }
    }
    out << s.records << " records (" << s.warmups << " warm-ups excluded, " << s.failures << " failed)\n\n";
    printWarnings(out, warnings);
    // The endpoint column fits the longest label: "(simulated)" must never be cut off.
    int width = 8;
    for (const SummaryRow& r : s.rows)
        width = qMax(width, int(r.endpointLabel.size()));
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
               .arg(QStringLiteral("endpoint"), -width)
               .arg(QStringLiteral("test"), -16)
               .arg(QStringLiteral("turn"), 4)
               .arg(QStringLiteral("ok/n"), 7)
               .arg(QStringLiteral("ttft_any"), 9)
               .arg(QStringLiteral("ttft_vis"), 9)
               .arg(QStringLiteral("1st_sent"), 9)
               .arg(QStringLiteral("tok/s"), 7)
               .arg(QStringLiteral("gates (passed/judged)  errors"));
    for (const SummaryRow& r : s.rows) {
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9  %10%11\n")
                   .arg(r.endpointLabel, -width)
                   .arg(r.test.left(16), -16)
                   .arg(r.turn ? QString::number(r.turn) : QStringLiteral("all"), 4)
                   .arg(QStringLiteral("%1/%2").arg(r.ok).arg(r.measured), 7)
                   .arg(ms(r.ttftAnyMs), 9)
                   .arg(ms(r.ttftVisibleMs), 9)
                   .arg(ms(r.firstSentenceMs), 9)
                   .arg(ms(r.decodeTps), 7)
                   .arg(gatesText(r))
                   .arg(errorsText(r))
                   .arg(r.estimatedCounts
                           ? QStringLiteral("  (%1 token counts estimated)").arg(r.estimatedCounts)
                           : QString());
    }
    out << "\nMedians over measured runs; times in ms from the request's t0; gates passed/judged. "
           "Definitions: "
           "docs/methodology.md, docs/quality-gates.md.\n";
    printComparison(out, comparison);
    printScaling(out, scaling);
    printPrefill(out, ev.prefill, width);
    if (!s.throughput.empty()) {
        out << "\nAggregate output throughput per concurrency level:\n";
        for (const ThroughputRow& t : s.throughput)
            out << QStringLiteral("  %1 %2  concurrency %3: %4 tok/s (%5 requests, %6 tokens in %7 s)\n")
                       .arg(t.endpointLabel, -width)
                       .arg(t.test.left(16), -16)
                       .arg(t.concurrency, 3)
                       .arg(t.outputTokensPerSecond, 8, 'f', 1)
                       .arg(t.requests)
                       .arg(t.outputTokens)
                       .arg(t.windowMs / 1000.0, 0, 'f', 2);
    }
    printResources(out, ev.resources, width);
    printJudged(out, result, ev.judged, width);
    printFidelity(out, ev.fidelity);
}

} // namespace qs::app

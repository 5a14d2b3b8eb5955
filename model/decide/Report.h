// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/DecisionProfile.h"
#include "model/decide/Recommendation.h"
#include "model/evaluate/Evaluation.h"

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <vector>

namespace qs {

// The recommendation document (issue #6): what `quantscope report` and the dashboard's Export
// Report write. Pure text generation — no widgets, no files, no clock: the caller renders the
// chart images and decides where they live (a folder beside the Markdown, data: URIs in a
// self-contained HTML file, resources of a QTextDocument for the PDF and the preview).
//
// The document, in order: title and date; the summary (page 1 of the PDF: per candidate the
// verdict in one sentence, the criteria that decided it with their figures, what would change it
// first, the error rates, the warnings by title — VerdictSummary.h); the endpoints
// compared (model, quantization, runtime, server version, context); every methodology warning,
// critical ones in bold as "NOT an apples-to-apples comparison"; the methodology (suite, warm-up
// and measured runs, thinking, token-count sources, order, metric formulas); results tables with
// ratio, 95 % interval and winner columns (TTFT visible — and any where it differs —, decode
// tok/s, total latency, TTFT per turn, quality gates, throughput by concurrency); the resources
// each server spent (memory at idle / 1 / N requests, power, energy per token, the server's own
// token counts and latency histograms beside the client's, the TTFT breakdown, every figure's
// source — "not measured" and how to collect it without telemetry); judged quality, when an LLM
// judge judged the run (the judge's identity, rubric scores per test and endpoint, the blind
// pairwise comparison with its interval, consistency and position bias, the judge's reasons
// quoted like model output); fidelity, when the fidelity tests ran (each arm's flips and KL
// against the reference, the method stated, where the answers diverge, the prompts that drifted
// most); the charts; sample responses
// side by side with the failing spans marked «…»; the drop-in replacement checklist (✓ / ✗ / not
// measured per item, with the numbers); the verdict per criterion, the recommendation and what
// would change it; an appendix with server properties and the exact request settings. Model output is always
// escaped, never interpreted: in Markdown it sits in fenced code blocks, in HTML it is entity-escaped.

/// A chart embedded in the document.
struct ReportChart {
    QString name; ///< the dashboard view it shows, e.g. "ttft-turn" (app/common/DashboardViews.h)
    QString title; ///< e.g. "TTFT vs turn"
    QString caption; ///< one or two sentences on how to read it
    /// The image reference exactly as written into the document: a relative path for Markdown
    /// ("report-assets/ttft-turn.png"), a data: URI for a self-contained HTML file, or a resource
    /// name a QTextDocument resolves. Empty: the chart is left out.
    QString source;
    int width = 960; ///< logical size of the image (the HTML scales it to the page width)
    int height = 600;
};

/// The charts a document for `evaluation` should show, without sources: TTFT vs turn and latency
/// vs length when there is a multi-turn test, TTFT against prompt tokens ("ttft-prompt-tokens")
/// for a context sweep (or multi-turn growth with a slope), decode tok/s and TTFT per test always,
/// the server gauges ("server") when the run has telemetry.
std::vector<ReportChart> reportCharts(const RunResult& result, const Evaluation& evaluation);

/// Everything a document is made from. The pointers must outlive the call.
struct ReportInput {
    const RunResult* result = nullptr;
    const Evaluation* evaluation = nullptr; ///< with its paired comparison computed
    std::vector<Recommendation> recommendations; ///< recommend(result, evaluation, profile)
    DecisionProfile profile;
    QStringList sources; ///< the results files, as given
    std::vector<ReportChart> charts; ///< in document order
    QDateTime generatedAt; ///< shown as the document's date
    QString generator = QStringLiteral("quantscope"); ///< e.g. "quantscope 0.6.0"
    int maxSamples = 3; ///< sample response pairs per candidate
};

/// "q4km-like vs nvfp4-like: Keep q4km-like" — the title the document carries.
QString reportTitle(const ReportInput& input);

/// The document as CommonMark with GitHub tables.
QString reportMarkdown(const ReportInput& input);

/// Who will read the HTML.
enum class HtmlFlavor {
    Browser, ///< a standalone page: full CSS
    RichText, ///< QTextDocument (the PDF and the preview): Qt's HTML subset, fixed image widths
};
/// The document as one HTML page (UTF-8, its style sheet inline; images as the charts' sources).
QString reportHtml(const ReportInput& input, HtmlFlavor flavor = HtmlFlavor::Browser);

/// Escapes text for Markdown prose and table cells: every character CommonMark could read as
/// syntax (\ ` * _ [ ] < > | & ~ # and a leading + - = .) is backslash-escaped, line breaks
/// become spaces.
QString markdownEscape(const QString& text);

/// Wraps the given UTF-16 ranges of `text` in «…» (overlapping or touching ranges merged) — how a
/// sample response shows which span failed a gate, in any output format.
QString markRanges(const QString& text, std::vector<std::pair<int, int>> ranges);

} // namespace qs

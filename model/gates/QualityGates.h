// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/GatePatterns.h"
#include "model/core/RequestRecord.h"
#include "model/core/Suite.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <vector>

namespace qs {

struct RunRecord;

/// Quality gates: is the answer behind a measurement usable by a voice assistant? Each gate
/// passes, fails or does not apply, says why in a few words and points at the text that decided
/// it. Rules: docs/quality-gates.md. Patterns and thresholds are data (resources/gates/default.json,
/// overridable per suite), not code.
enum class GateVerdict { Pass, Fail, NotApplicable };

QString gateVerdictId(GateVerdict verdict); ///< "pass", "fail", "not_applicable"

/// Characters [begin, end) of `content` or `reasoning` (UTF-16 units of the whole field, as in
/// AssembledResponse), e.g. what a GUI highlights.
struct TextRange {
    int begin = 0;
    int end = 0;
    QString field; ///< "content" or "reasoning"
    QString what; ///< the pattern or rule that matched, e.g. "bold", "think_tag", "mixed_script"
    bool operator==(const TextRange&) const = default;
};

struct GateResult {
    QString gate;
    GateVerdict verdict = GateVerdict::NotApplicable;
    QString reason; ///< short and specific: "bold "**Tokyo**" at 0–9", "expected Tokyo, not found"
    std::vector<TextRange> ranges;
    /// tool_call failures only: wrong_tool, missing_arguments, invalid_arguments,
    /// should_have_called, should_not_have_called, unparsed, leaked_into_text.
    QString failureClass;

    bool passed() const { return verdict == GateVerdict::Pass; }
    bool failed() const { return verdict == GateVerdict::Fail; }
};

/// Judges one response against the test. `finalTurn` is false for the earlier turns of a
/// multi-turn test: the test's expectations describe the reply to its last turn, so
/// expected_answer, tool_call (expectations) and the length target do not apply to the others.
/// The result has one entry per gate, in gateNames() order.
std::vector<GateResult> evaluateGates(const RequestRecord& record, const Suite& suite, const SuiteTest& test,
    const GatePatterns& patterns, bool finalTurn = true);

/// Fills record.gates (every gate name → true, false or null) and record.gateDetails
/// ({gate: {verdict, reason, failure_class, ranges: [{field, begin, end, what}]}}). Warm-ups,
/// failed requests and records whose test is not in the suite get null for every gate, with the
/// reason.
void applyGates(RunRecord& record, const Suite& suite, const GatePatterns& patterns);

/// What a request asked of thinking, read from its body as sent: chat_template_kwargs.enable_thinking
/// (where a suite's or test's "thinking" puts it). nullopt when the body sets none. The gates read
/// the test's and suite's setting first; for a recorded request the two agree.
std::optional<bool> requestedThinking(const nlohmann::json& requestBody);

nlohmann::json toJson(const GateResult& result); ///< one gate_details entry
nlohmann::json toJson(const TextRange& range);

} // namespace qs

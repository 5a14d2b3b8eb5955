// SPDX-License-Identifier: MIT
// One candidate answer against the reference's answer to the same prompt: the tokens lined up by
// their bytes, the first divergence, the shared prefix with its logprob deltas and KL, and what
// the candidate thought of the reference's token where they parted (docs/methodology.md,
// "Fidelity"). When the tokens do not line up (other tokenizers, partial characters, no
// logprobs) the answers are compared character by character and KL is "not comparable".
#include "model/evaluate/FidelityAlignment.h"

#include "model/core/GatePatterns.h"
#include "model/core/Suite.h"
#include "model/evaluate/Fidelity.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace qs {

namespace fidelity {

bool askedForLogprobs(const nlohmann::json& body)
{
    if (!body.is_object())
        return false;
    const auto lp = body.find("logprobs");
    if (lp != body.end() && lp->is_boolean() && lp->get<bool>())
        return true;
    const auto n = body.find("n_probs");
    return n != body.end() && n->is_number() && n->get<double>() > 0;
}

AlignedAnswer alignedAnswer(const RunRecord& record)
{
    static const QByteArray replacement = QStringLiteral("\uFFFD").toUtf8();
    AlignedAnswer a;
    const LogprobStream& lp = record.request.response.logprobs;
    a.asked = askedForLogprobs(record.request.requestBody);
    a.logprobs = lp.present();
    a.tokens.reserve(lp.tokens.size());
    a.offsets.reserve(lp.tokens.size());
    for (const TokenLogprob& t : lp.tokens) {
        if (t.bytes.isEmpty())
            continue;
        a.offsets.push_back(a.bytes.size());
        a.bytes += t.bytes;
        a.tokens.push_back(&t);
    }
    a.replacementChars = a.bytes.contains(replacement);
    return a;
}

QString responseText(const AssembledResponse& response)
{
    QString text = response.reasoning + response.content;
    for (const ToolCall& call : response.toolCalls)
        text += call.name + u'(' + call.arguments + u')';
    return text;
}

std::vector<int> fidelityRecords(const RunResult& result)
{
    std::set<QString> tests;
    if (result.suite.is_object()) {
        try {
            const Suite suite = parseSuite(result.suite, QStringLiteral("the suite stored in the file"));
            for (const SuiteTest& t : suite.tests)
                if (t.fidelity)
                    tests.insert(t.id);
        } catch (const std::exception&) {
            // A suite that does not parse marks nothing; the requests still say what they asked.
        }
    }
    std::vector<int> out;
    for (std::size_t i = 0; i < result.records.size(); ++i) {
        const RunRecord& r = result.records[i];
        if (!r.warmup && (askedForLogprobs(r.request.requestBody) || tests.count(r.test) > 0))
            out.push_back(int(i));
    }
    return out;
}

} // namespace fidelity

namespace {

using namespace fidelity;

/// The reference token (0-based) holding byte `byte` of its token stream; the token count past
/// the end.
int tokenAtByte(const AlignedAnswer& a, qsizetype byte)
{
    if (byte >= a.bytes.size())
        return int(a.tokens.size());
    const auto it = std::upper_bound(a.offsets.begin(), a.offsets.end(), byte);
    return int(it - a.offsets.begin()) - 1;
}

/// Whether the expected-answer or tool-call verdict differs between the two records; nothing
/// when neither gate judged both.
std::optional<bool> gradeChanged(const RunRecord& reference, const RunRecord& candidate)
{
    std::optional<bool> changed;
    for (const QString& gate : {gate_names::expectedAnswer, gate_names::toolCall}) {
        const std::string key = gate.toStdString();
        const auto verdict = [&key](const RunRecord& r) -> std::optional<bool> {
            if (!r.gates->is_object() || !r.gates->contains(key) || !(*r.gates)[key].is_boolean())
                return std::nullopt;
            return (*r.gates)[key].get<bool>();
        };
        const std::optional<bool> a = verdict(reference);
        const std::optional<bool> b = verdict(candidate);
        if (a && b)
            changed = changed.value_or(false) || *a != *b;
    }
    return changed;
}

/// Why the two answers' tokens cannot be walked side by side; empty when they can. `at` is
/// where the walk stopped: the first divergence, or the shorter answer's length.
QString walk(const AlignedAnswer& a, const AlignedAnswer& b, int& at)
{
    const int n = int(std::min(a.tokens.size(), b.tokens.size()));
    for (at = 0; at < n; ++at) {
        const TokenLogprob& x = *a.tokens[std::size_t(at)];
        const TokenLogprob& y = *b.tokens[std::size_t(at)];
        if (x.bytes == y.bytes) {
            // The same text under another id: another vocabulary.
            if (x.id && y.id && *x.id != *y.id)
                return QStringLiteral("tokenizers differ");
            continue;
        }
        static const QByteArray replacement = QStringLiteral("\uFFFD").toUtf8();
        if (x.bytes.contains(replacement) || y.bytes.contains(replacement))
            return QStringLiteral("partial characters (U+FFFD) make the tokens incomparable");
        // Same text cut differently (both streams agree over the longer token): another tokenizer,
        // not another choice.
        const qsizetype offset = a.offsets[std::size_t(at)];
        const qsizetype span = std::max(x.bytes.size(), y.bytes.size());
        if (offset + span <= a.bytes.size() && offset + span <= b.bytes.size()
            && a.bytes.mid(offset, span) == b.bytes.mid(offset, span))
            return QStringLiteral("tokenizers differ");
        return {};
    }
    return {};
}

/// KL and the chosen tokens' logprob deltas over positions [0, klEnd) and [0, shared).
void compareDistributions(
    const AlignedAnswer& a, const AlignedAnswer& b, int shared, int klEnd, FidelityPrompt& p)
{
    double deltaSum = 0;
    for (int i = 0; i < shared; ++i) {
        const auto& x = a.tokens[std::size_t(i)]->logprob;
        const auto& y = b.tokens[std::size_t(i)]->logprob;
        if (x && y && std::isfinite(*x) && std::isfinite(*y)) {
            deltaSum += std::abs(*x - *y);
            ++p.logprobDeltaPositions;
        }
    }
    if (p.logprobDeltaPositions > 0)
        p.meanAbsLogprobDelta = deltaSum / p.logprobDeltaPositions;
    double klSum = 0;
    for (int i = 0; i < klEnd; ++i) {
        const TokenLogprob& x = *a.tokens[std::size_t(i)];
        const TokenLogprob& y = *b.tokens[std::size_t(i)];
        // A position without a top list has no distribution to compare (llama-server's
        // drafted tokens, a server that sent the chosen token only): skipped.
        if (!x.hasTop || !y.hasTop)
            continue;
        if (const std::optional<double> kl = topListKl(x.top, y.top)) {
            p.positionKl.push_back(*kl);
            klSum += *kl;
        }
    }
    p.klPositions = int(p.positionKl.size());
    if (p.klPositions > 0)
        p.kl = klSum / p.klPositions;
    else
        p.note = QStringLiteral("no top lists to compare (top_logprobs)");
}

/// At the divergence `d` (a position both answers have): the candidate's view of the
/// reference's token.
void atDivergence(const TokenLogprob& ref, const TokenLogprob& cand, FidelityPrompt& p)
{
    if (ref.logprob)
        p.referenceOwnProb = probability(*ref.logprob);
    if (cand.logprob)
        p.candidateTokenProb = probability(*cand.logprob);
    if (!cand.hasTop)
        return;
    const std::vector<TokenCandidate> top = normalizedTopList(cand.top);
    p.listedCandidates = int(top.size());
    for (std::size_t r = 0; r < top.size(); ++r) {
        if (sameToken(top[r].bytes, top[r].id, ref.bytes, ref.id)) {
            p.referenceTokenRank = int(r) + 1;
            p.referenceTokenProb = probability(top[r].logprob);
            return;
        }
    }
}

/// Character by character, when the tokens cannot be walked side by side.
void compareTexts(const AlignedAnswer& a, const AlignedAnswer& b, const RunRecord& reference,
    const RunRecord& candidate, FidelityPrompt& p)
{
    // Both sides' text from the same source, so markup the tokens carry (and the message does
    // not) cannot make a difference of its own.
    const bool fromTokens = a.logprobs && b.logprobs && !a.replacementChars && !b.replacementChars;
    const QString x = fromTokens ? QString::fromUtf8(a.bytes) : responseText(reference.request.response);
    const QString y = fromTokens ? QString::fromUtf8(b.bytes) : responseText(candidate.request.response);
    p.identical = x == y;
    const qsizetype n = std::min(x.size(), y.size());
    qsizetype c = 0;
    while (c < n && x[c] == y[c])
        ++c;
    p.sharedPrefixChars = int(p.identical ? x.size() : c);
    if (!p.identical)
        p.firstDivergenceChar = int(c);
    if (fromTokens) {
        const int token = tokenAtByte(a, x.left(c).toUtf8().size());
        p.sharedPrefixTokens = p.identical ? p.referenceTokens : token;
        if (!p.identical)
            p.firstDivergence = token;
        p.sharedPrefixFraction = p.referenceTokens > 0 ? double(p.sharedPrefixTokens) / p.referenceTokens : 1;
    } else {
        // No tokens to count in: the fraction is of the reference's characters.
        p.sharedPrefixTokens = p.identical ? p.referenceTokens : 0;
        p.sharedPrefixFraction = x.isEmpty() ? 1 : double(p.sharedPrefixChars) / double(x.size());
    }
}

/// A call's arguments as data: parsed JSON when they parse (whitespace and key spelling as each
/// server's parser wrote them do not matter), the raw text otherwise.
nlohmann::json argumentsValue(const QString& arguments)
{
    nlohmann::json parsed = nlohmann::json::parse(arguments.toStdString(), nullptr, false);
    return parsed.is_discarded() ? nlohmann::json(arguments.toStdString()) : parsed;
}

/// Both answers are the same tool calls (names and arguments as data) and the same text. The
/// tokens of a streamed tool call are what each server's parser emitted, not the model's
/// tokens: llama-server re-serialises the arguments (`{"query":"x"}`), vLLM passes the model's
/// text (`{"query": "x"}`), so their token streams differ although the calls are the same.
bool sameCalls(const AssembledResponse& a, const AssembledResponse& b)
{
    if (a.toolCalls.empty() || a.toolCalls.size() != b.toolCalls.size())
        return false;
    for (std::size_t i = 0; i < a.toolCalls.size(); ++i)
        if (a.toolCalls[i].name != b.toolCalls[i].name
            || argumentsValue(a.toolCalls[i].arguments) != argumentsValue(b.toolCalls[i].arguments))
            return false;
    return a.content.trimmed() == b.content.trimmed();
}

} // namespace

FidelityPrompt compareAnswers(const RunRecord& reference, const RunRecord& candidate)
{
    FidelityPrompt p;
    p.test = reference.test;
    p.turn = reference.turn;
    p.iteration = reference.iteration;
    p.gradeChanged = gradeChanged(reference, candidate);
    const AlignedAnswer a = alignedAnswer(reference);
    const AlignedAnswer b = alignedAnswer(candidate);
    p.referenceTokens = int(a.tokens.size());
    p.candidateTokens = int(b.tokens.size());
    p.referenceIgnoredLogprobs = a.asked && !a.logprobs;
    p.candidateIgnoredLogprobs = b.asked && !b.logprobs;

    int d = 0;
    QString why;
    if (!a.logprobs)
        why = QStringLiteral("no logprobs from the reference's server");
    else if (!b.logprobs)
        why = QStringLiteral("no logprobs from this server");
    else
        why = walk(a, b, d);
    if (!why.isEmpty()) {
        compareTexts(a, b, reference, candidate, p);
        p.note = why;
        return p;
    }
    // Token streams that part where both answers make the same tool calls: the servers wrote the
    // calls differently, the model did not choose differently. Identical, KL not comparable.
    const int shorter = std::min(int(a.tokens.size()), int(b.tokens.size()));
    const bool parted = d < shorter || a.tokens.size() != b.tokens.size();
    if (parted && sameCalls(reference.request.response, candidate.request.response)) {
        p.identical = true;
        p.sharedPrefixTokens = p.referenceTokens;
        p.sharedPrefixChars = int(responseText(reference.request.response).size());
        p.note = QStringLiteral("the same tool calls, written differently by each server's parser: "
                                "compared as calls, KL not comparable");
        return p;
    }

    p.tokensComparable = true;
    const int na = p.referenceTokens;
    const int nb = p.candidateTokens;
    const QString& endA = reference.request.response.finishReason;
    const QString& endB = candidate.request.response.finishReason;
    p.identical = d == na && na == nb && (endA.isEmpty() || endB.isEmpty() || endA == endB);
    p.sharedPrefixTokens = d;
    p.sharedPrefixFraction = na > 0 ? double(d) / na : 1;
    p.sharedPrefixChars
        = int(QString::fromUtf8(a.bytes.left(d < na ? a.offsets[std::size_t(d)] : a.bytes.size())).size());
    const bool bothHaveD = d < na && d < nb;
    if (!p.identical) {
        p.firstDivergence = d;
        p.firstDivergenceChar = p.sharedPrefixChars;
    }
    // The divergence position itself is compared too: both arms saw the same context there.
    compareDistributions(a, b, d, bothHaveD ? d + 1 : d, p);
    if (bothHaveD)
        atDivergence(*a.tokens[std::size_t(d)], *b.tokens[std::size_t(d)], p);
    return p;
}

} // namespace qs

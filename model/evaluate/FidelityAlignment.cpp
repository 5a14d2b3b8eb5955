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

namespace {

const QByteArray& replacementBytes()
{
    static const QByteArray replacement = QStringLiteral("\uFFFD").toUtf8();
    return replacement;
}

/// Well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF).
/// Runs at every entry of every answer, so it reads the bytes in place.
bool validUtf8(const QByteArray& bytes)
{
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.constData());
    const auto* end = p + bytes.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        int n = 0;
        unsigned char lo = 0x80, hi = 0xBF; // the range of the second byte
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (end - p <= n || p[1] < lo || p[1] > hi)
            return false;
        for (int k = 2; k <= n; ++k)
            if (p[k] < 0x80 || p[k] > 0xBF)
                return false;
        p += n + 1;
    }
    return true;
}

/// llama-server's merge: the entry's own token, found by id in its own top list, holds only the
/// tail of the entry's bytes; the bytes before it were held back (a partial character). Their
/// count, or nothing when the entry is no merge (or cannot be seen to be one: no id, no list).
std::optional<qsizetype> heldBackBytes(const TokenLogprob& t)
{
    if (!t.id || !t.hasTop)
        return std::nullopt;
    for (const TokenCandidate& c : t.top) {
        if (!c.id || *c.id != *t.id)
            continue;
        if (!c.bytes.isEmpty() && c.bytes.size() < t.bytes.size() && t.bytes.endsWith(c.bytes))
            return t.bytes.size() - c.bytes.size();
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

AlignedAnswer alignedAnswer(const RunRecord& record)
{
    AlignedAnswer a;
    const LogprobStream& lp = record.request.response.logprobs;
    a.asked = askedForLogprobs(record.request.requestBody);
    a.logprobs = lp.present();
    a.tokens.reserve(lp.tokens.size());
    a.offsets.reserve(lp.tokens.size());
    int held = 0; // "" entries since the last entry with text
    for (const TokenLogprob& t : lp.tokens) {
        if (t.bytes.isEmpty()) {
            ++held;
            continue;
        }
        EntryKind kind = EntryKind::Clean;
        int positions = 1;
        if (t.bytes.contains(replacementBytes())) {
            kind = EntryKind::Replacement;
        } else if (held > 0) {
            kind = EntryKind::AfterHeldBack;
            positions = 1 + held;
        } else if (const std::optional<qsizetype> hidden = heldBackBytes(t)) {
            // One held-back byte is one token; several could be one token or more.
            kind = EntryKind::Merged;
            positions = *hidden == 1 ? 2 : 0;
        } else if (!validUtf8(t.bytes)) {
            kind = EntryKind::InvalidUtf8;
            positions = 0;
        }
        held = 0;
        a.faithful = a.faithful && (kind == EntryKind::Clean || kind == EntryKind::Merged);
        a.offsets.push_back(a.bytes.size());
        a.bytes += t.bytes;
        a.tokens.push_back(&t);
        a.kinds.push_back(kind);
        a.positions.push_back(positions);
    }
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

/// The chosen tokens' logprob deltas over the shared tokens, and KL over them and the clean pair
/// at the divergence (both arms saw the same context there).
void compareDistributions(const AlignedAnswer& a, const AlignedAnswer& b, const Walk& w, FidelityPrompt& p)
{
    double deltaSum = 0;
    for (const auto& [i, j] : w.shared) {
        const auto& x = a.tokens[std::size_t(i)]->logprob;
        const auto& y = b.tokens[std::size_t(j)]->logprob;
        if (x && y && std::isfinite(*x) && std::isfinite(*y)) {
            deltaSum += std::abs(*x - *y);
            ++p.logprobDeltaPositions;
        }
    }
    if (p.logprobDeltaPositions > 0)
        p.meanAbsLogprobDelta = deltaSum / p.logprobDeltaPositions;
    std::vector<std::pair<int, int>> compared = w.shared;
    if (w.parted)
        compared.push_back(*w.parted);
    double klSum = 0, massSum = 0;
    for (const auto& [i, j] : compared) {
        const TokenLogprob& x = *a.tokens[std::size_t(i)];
        const TokenLogprob& y = *b.tokens[std::size_t(j)];
        // A position without a top list has no distribution to compare (llama-server's
        // drafted tokens, a server that sent the chosen token only): skipped.
        if (!x.hasTop || !y.hasTop)
            continue;
        if (const std::optional<TopListKlEstimate> e = topListKlEstimate(x.top, y.top)) {
            p.positionKl.push_back(e->kl);
            p.positionToken.push_back(i);
            p.positionMass.push_back(e->referenceMass);
            klSum += e->kl;
            massSum += e->referenceMass;
        }
    }
    p.klPositions = int(p.positionKl.size());
    if (p.klPositions > 0) {
        p.kl = klSum / p.klPositions;
        p.klListedMass = massSum / p.klPositions;
    }
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

/// The token of `a` holding character `c` of the text its tokens [from, end) decode to, counted
/// from token `from` (the token count past the end). Decoded prefixes grow with the token index,
/// so a binary search finds it.
int tokenAtChar(const AlignedAnswer& a, std::size_t from, qsizetype c)
{
    const qsizetype base = a.offsets[from];
    const auto charsBefore
        = [&](std::size_t k) { return QString::fromUtf8(a.bytes.mid(base, a.offsets[k] - base)).size(); };
    if (c >= QString::fromUtf8(a.bytes.mid(base)).size())
        return int(a.tokens.size());
    std::size_t lo = from, hi = a.tokens.size();
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (charsBefore(mid) <= c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return int(lo) - 1;
}

/// The reference token holding character `c` of its text `x`, where its tokens spell that text:
/// all of them, the clean ones before the first that does not (partial characters), or the clean
/// ones after the last that does not. Nothing when the text there is not the tokens'.
std::optional<int> divergenceToken(const AlignedAnswer& a, const QString& x, qsizetype c)
{
    if (a.tokens.empty())
        return std::nullopt;
    if (QString::fromUtf8(a.bytes) == x)
        return tokenAtChar(a, 0, c);
    std::size_t first = 0;
    while (first < a.tokens.size() && !a.opaque(first))
        ++first;
    const QString head
        = QString::fromUtf8(first < a.tokens.size() ? a.bytes.left(a.offsets[first]) : a.bytes);
    if (c < head.size() && x.startsWith(head))
        return tokenAtChar(a, 0, c);
    std::size_t last = a.tokens.size();
    while (last > 0 && !a.opaque(last - 1))
        --last;
    if (last == a.tokens.size())
        return std::nullopt;
    const QString tail = QString::fromUtf8(a.bytes.mid(a.offsets[last]));
    const qsizetype tailStart = x.size() - tail.size();
    if (c >= tailStart && x.endsWith(tail))
        return tokenAtChar(a, last, c - tailStart);
    return std::nullopt;
}

/// Character by character, when the tokens cannot be walked side by side (or not to the end).
void compareTexts(const AlignedAnswer& a, const AlignedAnswer& b, const RunRecord& reference,
    const RunRecord& candidate, FidelityPrompt& p)
{
    // Both sides' text from the same source, so markup the tokens carry (and the message does
    // not) cannot make a difference of its own.
    const bool fromTokens = a.logprobs && b.logprobs && a.faithful && b.faithful;
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
    // The divergence counts the reference's tokens wherever they spell the text compared.
    const std::optional<int> token = a.logprobs ? divergenceToken(a, x, c) : std::nullopt;
    if (token) {
        p.sharedPrefixTokens = p.identical ? p.referenceTokens : *token;
        if (!p.identical)
            p.firstDivergence = *token;
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

    Walk w;
    if (!a.logprobs)
        w.why = QStringLiteral("no logprobs from the reference's server");
    else if (!b.logprobs)
        w.why = QStringLiteral("no logprobs from this server");
    else
        w = walkAnswers(a, b, reference, candidate);
    if (!w.why.isEmpty()) {
        compareTexts(a, b, reference, candidate, p);
        p.note = w.why;
        return p;
    }
    // Token streams that part where both answers make the same tool calls: the servers wrote the
    // calls differently, the model did not choose differently. Identical, KL not comparable.
    if (w.end != WalkEnd::Identical && sameCalls(reference.request.response, candidate.request.response)) {
        p.identical = true;
        p.sharedPrefixTokens = p.referenceTokens;
        p.sharedPrefixChars = int(responseText(reference.request.response).size());
        p.note = QStringLiteral("the same tool calls, written differently by each server's parser: "
                                "compared as calls, KL not comparable");
        return p;
    }
    p.partialTokens = w.partial;
    compareDistributions(a, b, w, p);
    if (w.end == WalkEnd::Stopped) {
        // The positions before the gap were compared; what lies beyond it, the texts decide.
        compareTexts(a, b, reference, candidate, p);
        p.klStoppedAt = w.at;
        p.note = w.stop + QStringLiteral(": tokens compared up to token %1 only").arg(w.at);
        return p;
    }

    p.tokensComparable = true;
    const int na = p.referenceTokens;
    const int d = w.at;
    const QString& endA = reference.request.response.finishReason;
    const QString& endB = candidate.request.response.finishReason;
    p.identical = w.end == WalkEnd::Identical && (endA.isEmpty() || endB.isEmpty() || endA == endB);
    p.sharedPrefixTokens = d;
    p.sharedPrefixFraction = na > 0 ? double(d) / na : 1;
    p.sharedPrefixChars
        = int(QString::fromUtf8(a.bytes.left(d < na ? a.offsets[std::size_t(d)] : a.bytes.size())).size());
    if (!p.identical) {
        p.firstDivergence = d;
        p.firstDivergenceChar = p.sharedPrefixChars;
    }
    if (w.parted)
        atDivergence(*a.tokens[std::size_t(w.parted->first)], *b.tokens[std::size_t(w.parted->second)], p);
    if (w.inGap)
        p.note = QStringLiteral("the answers part on a character written in pieces (byte tokens the server "
                                "merged or replaced): no distribution there to compare, KL stops before it");
    else if (p.klPositions == 0 && (!w.shared.empty() || w.parted))
        p.note = QStringLiteral("no top lists to compare (top_logprobs)");
    return p;
}

} // namespace qs

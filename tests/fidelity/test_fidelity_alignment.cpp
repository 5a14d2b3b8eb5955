// SPDX-License-Identifier: MIT
// Fidelity's alignment around characters written in pieces, hand-built in each server's spelling
// (../shared/reference/server-metrics-and-logprobs.md §2.2–2.5): llama-server merges a held-back
// piece into the next entry, vLLM sends "" for the first piece and the whole character on the
// last, SGLang spells every piece U+FFFD. Then the paired KL ratio of two arms against one
// reference, and how low a KL over truncated top lists reads (the simulation behind
// `kl_lower_bound`). Pure: no sockets, no files.
#include "model/evaluate/Fidelity.h"
#include "tests/stats/FidelityTestSupport.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>
#include <iostream>
#include <numbers>
#include <random>

using namespace qs;
using namespace qs::test;

namespace {

constexpr double kEps = 1e-12;

enum class Server { Llama, Vllm, Sglang };

const char* nameOf(Server s)
{
    return s == Server::Llama ? "llama" : s == Server::Vllm ? "vllm" : "sglang";
}

/// A top list of `p` for `text` and 1 − p for `other`, with ids when the server sends them.
std::vector<TokenCandidate> pair(
    Server s, const char* text, qint64 id, double p, const char* other, qint64 otherId)
{
    const bool ids = s == Server::Llama;
    return {candidate(text, p, ids ? std::optional<qint64>(id) : std::nullopt),
        candidate(other, 1 - p, ids ? std::optional<qint64>(otherId) : std::nullopt)};
}

TokenLogprob chosen(Server s, const char* text, qint64 id, double p, const char* other, qint64 otherId)
{
    return token(text, pair(s, text, id, p, other, otherId), -1,
        s == Server::Llama ? std::optional<qint64>(id) : std::nullopt);
}

/// Bytes as a server sends them for an entry: `token` text and `bytes` set apart.
TokenLogprob withBytes(TokenLogprob t, const QString& text, const QByteArray& bytes)
{
    t.token = text;
    t.bytes = bytes;
    return t;
}

/// The character `character` (two UTF-8 bytes) written in two byte tokens, as `s` reports it.
std::vector<TokenLogprob> pieces(Server s, const QByteArray& character, double p)
{
    const QByteArray lead = character.left(1), tail = character.mid(1);
    static const QByteArray fffd = QStringLiteral("\uFFFD").toUtf8();
    TokenCandidate own = candidate("", p, s == Server::Llama ? std::optional<qint64>(100) : std::nullopt);
    own.bytes = tail;
    TokenCandidate alt = candidate("", 1 - p, s == Server::Llama ? std::optional<qint64>(101) : std::nullopt);
    alt.bytes = QByteArray(1, char(quint8(tail[0]) ^ 1));
    TokenLogprob last = token("", {own, alt}, p, own.id);
    switch (s) {
    case Server::Llama: // one entry: both pieces' text, the last piece's id, logprob and list
        return {withBytes(last, QString::fromUtf8(character), character)};
    case Server::Vllm: { // "" for the first piece (its own list), the whole character on the last
        TokenLogprob first = token("", {candidate("", 0.9)}, 0.9);
        first.bytes.clear();
        for (TokenCandidate& c : last.top)
            c.bytes.clear();
        last.top.front() = candidate(character.constData(), p);
        return {first, withBytes(last, QString::fromUtf8(character), character)};
    }
    case Server::Sglang: { // every piece decoded alone: U+FFFD
        TokenLogprob first = token("\xEF\xBF\xBD", {candidate("\xEF\xBF\xBD", 0.9)});
        for (TokenCandidate& c : last.top)
            c = candidate("\xEF\xBF\xBD", c.logprob > std::log(0.5) ? p : 1 - p);
        return {first, withBytes(last, QStringLiteral("\uFFFD"), fffd)};
    }
    }
    return {};
}

/// "caf" + `character` in pieces + " au" + `last`, as `s` sends it; the response's content is the
/// real text (SGLang's entries do not spell it).
RunRecord cafe(Server s, int endpoint, const QByteArray& character, const char* last, double p)
{
    std::vector<TokenLogprob> tokens {chosen(s, "caf", 1, p, "the", 2)};
    for (TokenLogprob& t : pieces(s, character, p))
        tokens.push_back(std::move(t));
    tokens.push_back(chosen(s, " au", 3, p, " et", 4));
    const bool lait = QByteArray(last) == " lait";
    tokens.push_back(chosen(s, last, lait ? 5 : 6, lait ? p : 0.55, lait ? " noir" : " lait", lait ? 6 : 5));
    RunRecord r = fidelityAnswer(endpoint, QStringLiteral("t"), 1, std::move(tokens));
    r.request.response.content = QStringLiteral("caf") + QString::fromUtf8(character) + QStringLiteral(" au")
        + QString::fromUtf8(last);
    return r;
}

const QByteArray kE = QByteArray("\xC3\xA9"); // é

} // namespace

// Every pairing of the three spellings: the walk crosses the character where both sides show the
// same text in as many tokens (and, for U+FFFD, the texts confirm it), and stops at it otherwise.
// Either way no distribution of one position is ever compared with another's.
TEST(FidelityAlignment, EachServersSplitCharacterIsCrossedOrStoppedAtNeverMisaligned)
{
    struct Case {
        Server ref, cand;
        bool crossed;
    };
    const Case cases[] = {{Server::Llama, Server::Llama, true}, {Server::Vllm, Server::Vllm, true},
        {Server::Sglang, Server::Sglang, true}, {Server::Vllm, Server::Llama, true},
        {Server::Llama, Server::Vllm, true}, {Server::Vllm, Server::Sglang, false},
        {Server::Sglang, Server::Llama, false}, {Server::Llama, Server::Sglang, false}};
    const double shared = 0.9 * std::log(0.9 / 0.8) + 0.1 * std::log(0.1 / 0.2);
    const double atD = 0.9 * std::log(0.9 / 0.45) + 0.1 * std::log(0.1 / 0.55);
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(nameOf(c.ref)) + " vs " + nameOf(c.cand));
        const FidelityPrompt p
            = compareAnswers(cafe(c.ref, 0, kE, " lait", 0.9), cafe(c.cand, 1, kE, " noir", 0.8));
        EXPECT_FALSE(p.identical);
        // SGLang's reference has one aligned token more: both pieces carry text (U+FFFD).
        const int au = c.ref == Server::Sglang ? 3 : 2;
        if (c.crossed) {
            EXPECT_TRUE(p.tokensComparable) << p.note.toStdString();
            EXPECT_EQ(p.positionToken, (std::vector<int> {0, au, au + 1}));
            EXPECT_EQ(p.firstDivergence, au + 1);
            EXPECT_NEAR(*p.kl, (2 * shared + atD) / 3, kEps);
            EXPECT_EQ(p.referenceTokenRank, 2);
            EXPECT_FALSE(p.klStoppedAt.has_value());
        } else {
            EXPECT_FALSE(p.tokensComparable);
            EXPECT_EQ(p.klStoppedAt, 1);
            EXPECT_EQ(p.positionToken, std::vector<int> {0});
            EXPECT_NEAR(*p.kl, shared, kEps);
            EXPECT_EQ(*p.firstDivergenceChar, 8); // "café au " then l vs n
            if (c.ref != Server::Sglang) {
                EXPECT_EQ(p.firstDivergence, au + 1); // the reference's tokens spell its text
            }
            EXPECT_TRUE(p.note.contains(QStringLiteral("partial characters"))) << p.note.toStdString();
        }
    }
}

// SGLang spells "ń" and "Ņ" alike (U+FFFD U+FFFD): the entries agree, the texts do not, so the
// walk stops there and the texts find the divergence.
TEST(FidelityAlignment, AReplacementRunHidingAnotherCharacterStops)
{
    const FidelityPrompt p = compareAnswers(cafe(Server::Sglang, 0, QByteArray("\xC5\x84"), " lait", 0.9),
        cafe(Server::Sglang, 1, QByteArray("\xC5\x85"), " lait", 0.9));
    EXPECT_FALSE(p.identical);
    EXPECT_FALSE(p.tokensComparable);
    EXPECT_EQ(p.klStoppedAt, 1);
    EXPECT_EQ(*p.firstDivergenceChar, 3);
    EXPECT_EQ(p.positionToken, std::vector<int> {0});
}

// One arm wrote "é" as one token, the other in two byte pieces: the same text in another number
// of tokens, so the positions after it cannot be matched. Identical by text.
TEST(FidelityAlignment, ACharacterInPiecesOnOneSideOnlyStopsTheWalk)
{
    RunRecord whole = cafe(Server::Llama, 0, kE, " lait", 0.9);
    std::vector<TokenLogprob>& tokens = whole.request.response.logprobs.tokens;
    tokens[1] = chosen(Server::Llama, "\xC3\xA9", 50, 0.9, "e", 51);
    const FidelityPrompt p = compareAnswers(whole, cafe(Server::Llama, 1, kE, " lait", 0.9));
    EXPECT_TRUE(p.identical);
    EXPECT_EQ(p.klStoppedAt, 1);
    EXPECT_EQ(p.klPositions, 1);
    EXPECT_TRUE(p.note.contains(QStringLiteral("another number of tokens"))) << p.note.toStdString();
}

// vLLM loses a character of three pieces ("" for each, nothing on the next entry): the bytes after
// the gap line up with nothing the text shows, so the walk stops rather than guess.
TEST(FidelityAlignment, TextLostInHeldBackEntriesStopsTheWalk)
{
    const QByteArray dash("\xE2\x80\x94");
    TokenLogprob empty = certain("");
    empty.bytes.clear();
    RunRecord ref
        = fidelityAnswer(0, QStringLiteral("t"), 1, {certain("a"), empty, empty, empty, certain(" next")});
    ref.request.response.content = QStringLiteral("a\u2014 next");
    TokenCandidate own = candidate("", 0.9, 7);
    own.bytes = dash.right(1);
    TokenLogprob merged = withBytes(token("", {own}, 0.9, 7), QString::fromUtf8(dash), dash);
    RunRecord cand = fidelityAnswer(1, QStringLiteral("t"), 1, {certain("a"), merged, certain(" next")});
    const FidelityPrompt p = compareAnswers(ref, cand);
    EXPECT_EQ(p.klStoppedAt, 1);
    EXPECT_TRUE(p.identical); // by the texts
    EXPECT_EQ(p.klPositions, 1);
}

namespace {

/// Three arms, each answering `tokens` tokens; `divergeAt` = the first token it writes
/// differently from the reference (−1: none). Position i: reference {x .9, y .1}; an arm with
/// drift d lists {x .9 − d, y .1 + d} on the shared prefix; at its divergence {y .6, x .4}.
RunRecord armAnswer(int endpoint, const QString& test, int iteration, int tokens, double drift, int divergeAt)
{
    std::vector<TokenLogprob> out;
    for (int i = 0; i < tokens; ++i) {
        if (i == divergeAt)
            out.push_back(token("y", {candidate("y", 0.6), candidate("x", 0.4)}));
        else if (divergeAt >= 0 && i > divergeAt)
            out.push_back(certain("z"));
        else
            out.push_back(token("x", {candidate("x", 0.9 - drift), candidate("y", 0.1 + drift)}));
    }
    return fidelityAnswer(endpoint, test, iteration, std::move(out));
}

double klAt(double drift)
{
    return 0.9 * std::log(0.9 / (0.9 - drift)) + 0.1 * std::log(0.1 / (0.1 + drift));
}

const double kDivergenceKl = 0.9 * std::log(0.9 / 0.4) + 0.1 * std::log(0.1 / 0.6);

} // namespace

// Prompt "one": the baseline diverges at 3, the candidate at 1: both compared on positions 0 and
// 1 only. Prompt "two": the candidate's server sent no logprobs: left out. Prompt "three", run
// twice: positions 0–2 on both. The ratio is of sums over exactly those positions, and the
// interval resamples the two prompts, not the three answers.
TEST(FidelityAlignment, PairedKlComparesOnlyPositionsBothArmsCompared)
{
    RunResult run = makeRun({QStringLiteral("BF16"), QStringLiteral("Q8"), QStringLiteral("Q4")});
    run.endpoints[0].reference = true;
    const double db = 0.02, dc = 0.05;
    run.records = {armAnswer(0, QStringLiteral("one"), 1, 5, 0, -1),
        armAnswer(1, QStringLiteral("one"), 1, 5, db, 3), armAnswer(2, QStringLiteral("one"), 1, 5, dc, 1),
        armAnswer(0, QStringLiteral("two"), 1, 3, 0, -1), armAnswer(1, QStringLiteral("two"), 1, 3, db, -1),
        textOnlyAnswer(2, QStringLiteral("two"), 1, QStringLiteral("xxx"))};
    for (int i = 1; i <= 2; ++i)
        for (int e = 0; e < 3; ++e)
            run.records.push_back(armAnswer(e, QStringLiteral("three"), i, 3,
                e == 0       ? 0
                    : e == 1 ? db
                             : dc,
                -1));
    const Fidelity f = computeFidelity(run, 1);
    ASSERT_EQ(f.arms.size(), 2u);
    EXPECT_EQ(f.baseline, 1);
    const FidelityKlRatio r = pairedKlRatio(f, 1, 2);
    EXPECT_EQ(r.baselineLabel, QStringLiteral("Q8"));
    EXPECT_EQ(r.candidateLabel, QStringLiteral("Q4"));
    EXPECT_EQ(r.prompts, 2);
    EXPECT_EQ(r.answers, 3);
    EXPECT_EQ(r.positions, 2 + 3 + 3);
    // "one": baseline 2 shared positions; candidate 1 shared + its divergence at 1.
    const double base = 2 * klAt(db) + 6 * klAt(db);
    const double cand = klAt(dc) + kDivergenceKl + 6 * klAt(dc);
    EXPECT_NEAR(*r.baselineKl, base / 8, kEps);
    EXPECT_NEAR(*r.candidateKl, cand / 8, kEps);
    EXPECT_NEAR(*r.ratio, cand / base, 1e-9);
    ASSERT_TRUE(r.ratioCi);
    // Two prompts: the resampled ratios are prompt one's, prompt three's, or the pooled one.
    const double one = (klAt(dc) + kDivergenceKl) / (2 * klAt(db));
    const double three = klAt(dc) / klAt(db);
    EXPECT_NEAR(r.ratioCi->lo, std::min(one, three), 1e-9);
    EXPECT_NEAR(r.ratioCi->hi, std::max(one, three), 1e-9);
    EXPECT_NEAR(*r.listedMass, 1.0, kEps);
    EXPECT_FALSE(r.lowerBound);
    EXPECT_TRUE(r.note.isEmpty()) << r.note.toStdString();

    // The evaluation carries it on the candidate's arm, and `summary --json` writes it.
    const FidelityArm& q4 = f.arms[1];
    ASSERT_TRUE(q4.klVsBaseline);
    EXPECT_NEAR(*q4.klVsBaseline->ratio, *r.ratio, kEps);
    EXPECT_FALSE(f.arms[0].klVsBaseline.has_value()); // the baseline itself
    const nlohmann::json j = toJson(f)[1]["kl_vs_baseline"];
    for (const char* key : {"baseline", "prompts", "answers", "positions", "baseline_kl", "candidate_kl",
             "ratio", "ratio_ci", "listed_mass", "kl_lower_bound", "note"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["baseline"], "Q8");
    EXPECT_EQ(j["positions"], 8);
    EXPECT_TRUE(toJson(f)[0]["kl_vs_baseline"].is_null());
    EXPECT_FALSE(computeFidelity(run, 1, -1, false).arms[1].klVsBaseline->ratioCi.has_value());
}

// The baseline is the reference: its KL is 0 by definition; no ratio, a note, the candidate's
// own positions.
TEST(FidelityAlignment, PairedKlAgainstTheReferenceAsBaselineHasNoRatio)
{
    RunResult run = makeRun({QStringLiteral("BF16"), QStringLiteral("Q4")});
    run.records = {
        armAnswer(0, QStringLiteral("one"), 1, 4, 0, -1), armAnswer(1, QStringLiteral("one"), 1, 4, 0.05, 2)};
    const Fidelity f = computeFidelity(run, 0);
    EXPECT_EQ(f.reference, 0);
    ASSERT_EQ(f.arms.size(), 1u);
    ASSERT_TRUE(f.arms[0].klVsBaseline);
    const FidelityKlRatio& r = *f.arms[0].klVsBaseline;
    EXPECT_EQ(r.positions, 3);
    EXPECT_EQ(*r.baselineKl, 0.0);
    EXPECT_NEAR(*r.candidateKl, (2 * klAt(0.05) + kDivergenceKl) / 3, kEps);
    EXPECT_FALSE(r.ratio.has_value());
    EXPECT_TRUE(r.note.contains(QStringLiteral("the baseline is the reference"))) << r.note.toStdString();
    // Nothing in common: zero positions and a note, never a number.
    const FidelityKlRatio none = pairedKlRatio(f, 0, 5);
    EXPECT_EQ(none.positions, 0);
    EXPECT_FALSE(none.ratio.has_value());
    EXPECT_FALSE(none.note.isEmpty());
}

namespace {

/// A Box–Muller normal from the engine (std::normal_distribution is not specified exactly).
double normal(std::mt19937_64& g)
{
    const double u1 = (double(g() >> 11) + 1) * 0x1.0p-53;
    const double u2 = double(g() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

std::vector<double> logSoftmax(const std::vector<double>& z)
{
    const double max = *std::max_element(z.begin(), z.end());
    double sum = 0;
    for (const double v : z)
        sum += std::exp(v - max);
    std::vector<double> out(z.size());
    for (std::size_t i = 0; i < z.size(); ++i)
        out[i] = z[i] - max - std::log(sum);
    return out;
}

std::vector<TokenCandidate> topList(const std::vector<double>& logp, std::size_t k)
{
    std::vector<std::size_t> order(logp.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(k), order.end(),
        [&](std::size_t a, std::size_t b) { return logp[a] > logp[b]; });
    std::vector<TokenCandidate> out;
    for (std::size_t r = 0; r < k; ++r) {
        TokenCandidate c;
        c.token = QString::number(order[r]);
        c.bytes = c.token.toUtf8();
        c.logprob = logp[order[r]];
        out.push_back(c);
    }
    return out;
}

struct Reading {
    double mass = 0; ///< mean listed mass of the reference's top 20
    double ratio = 0; ///< Σ estimated KL / Σ true KL
};

/// `positions` positions of a 32,000-token vocabulary: reference logits N(0, σ²), candidate logits
/// the same plus N(0, 0.3²) noise; top-20 lists; the estimate against the exact KL.
Reading simulate(double sigma, int positions, std::uint64_t seed)
{
    std::mt19937_64 g(seed);
    std::vector<double> z(32000), w(32000);
    double mass = 0, estimate = 0, truth = 0;
    for (int n = 0; n < positions; ++n) {
        for (std::size_t i = 0; i < z.size(); ++i) {
            z[i] = sigma * normal(g);
            w[i] = z[i] + 0.3 * normal(g);
        }
        const std::vector<double> p = logSoftmax(z), q = logSoftmax(w);
        for (std::size_t i = 0; i < p.size(); ++i)
            truth += std::exp(p[i]) * (p[i] - q[i]);
        const std::optional<TopListKlEstimate> e = topListKlEstimate(topList(p, 20), topList(q, 20));
        estimate += e->kl;
        mass += e->referenceMass;
    }
    return {mass / positions, estimate / truth};
}

} // namespace

// How far a KL over top-20 lists falls short of the truth as the lists hold less of the
// distribution: the basis of `kl_lower_bound` (docs/methodology.md, "How much the lists hold").
TEST(FidelityAlignment, AKlOverTruncatedListsReadsLowWhenTheListsHoldLittle)
{
    std::vector<Reading> readings;
    for (const double sigma : {12.0, 8.0, 6.0, 5.0, 4.0, 3.5, 3.0, 2.5})
        readings.push_back(simulate(sigma, 40, 0x5153'0000ULL + std::uint64_t(sigma * 10)));
    for (const Reading& r : readings)
        std::cout << "top-20 mass " << r.mass << ": estimate / truth " << r.ratio << '\n';
    // Nearly all the mass listed: close to the truth.
    EXPECT_GT(readings.front().mass, 0.99);
    EXPECT_NEAR(readings.front().ratio, 1.0, 0.02);
    // The less the lists hold, the lower the reading, and well below the truth under 90 %.
    for (std::size_t i = 1; i < readings.size(); ++i) {
        EXPECT_LT(readings[i].mass, readings[i - 1].mass);
        EXPECT_LT(readings[i].ratio, readings[i - 1].ratio);
        if (readings[i].mass < FidelityLowerBoundMass) {
            EXPECT_LT(readings[i].ratio, 0.9) << "mass " << readings[i].mass;
        }
    }
    EXPECT_LT(readings.back().mass, 0.7);
}

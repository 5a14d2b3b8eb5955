// SPDX-License-Identifier: MIT
// Campaigns (model/decide/Campaign.h): the baseline's drift between files measured by simulation
// (an unchanged baseline is almost never called moved, one 40 % slower always is), and attempts
// put in time order, judged, ranked only where their intervals separate, with what changed.
#include "model/core/Clock.h"
#include "model/decide/Campaign.h"
#include "tests/stats/StatsTestSupport.h"

#include <gtest/gtest.h>
#include <iostream>
#include <random>

using namespace qs;
using namespace qs::test;
using json = nlohmann::json;

namespace {

struct Day {
    double baselineFactor = 1; ///< the baseline's true speed this day (1.4: 40 % slower)
    double candidateFactor = 1;
    QString quant = QStringLiteral("NVFP4");
    QDateTime at = utcDateTime(QDate(2026, 11, 2), QTime(10, 0));
};

/// One file: 16 prompts (their base TTFT log-sd 0.5, fixed by `promptSeed`), 3 repeats each, on a
/// baseline and a candidate. Each day a prompt's speed moves a little (log-sd 0.05) on each arm,
/// and every request carries the clock's noise (log-sd 0.03).
RunResult simulateDay(const Day& day, std::uint64_t promptSeed, std::uint64_t daySeed)
{
    // One distribution per engine: a normal_distribution keeps the second value of each pair it
    // draws, which would carry one engine's draw into the other's sequence.
    std::mt19937_64 prompts(promptSeed);
    std::mt19937_64 rng(daySeed);
    std::normal_distribution<double> zp(0, 1), z(0, 1);
    RunResult r = makeRun({QStringLiteral("Q4_K_M"), QStringLiteral("candidate")});
    r.endpoints[0].endpoint.quantization = QStringLiteral("Q4_K_M");
    r.endpoints[0].endpoint.model = QStringLiteral("annie-3b");
    r.endpoints[1].endpoint.quantization = day.quant;
    r.endpoints[1].endpoint.model = QStringLiteral("annie-3b");
    r.startedAt = day.at;
    r.complete = true;
    r.suite = {{"id", "sim"}};
    for (int p = 0; p < 16; ++p) {
        const double base = 300 * std::exp(0.5 * zp(prompts));
        const double f[2]
            = {day.baselineFactor * std::exp(0.05 * z(rng)), day.candidateFactor * std::exp(0.05 * z(rng))};
        for (int e = 0; e < 2; ++e)
            for (int it = 1; it <= 3; ++it) {
                Req q;
                q.endpoint = e;
                q.test = QStringLiteral("prompt-%1").arg(p);
                q.iteration = it;
                q.ttftMs = base * f[e] * std::exp(0.03 * z(rng));
                q.decodeTps = 30 / f[e];
                r.records.push_back(record(q));
            }
    }
    return r;
}

/// The baseline's drift from day `a` to day `b`, as the campaign computes it.
std::vector<CampaignDrift> drift(const Day& a, const Day& b, std::uint64_t seed)
{
    Campaign c;
    c.baselineLabel = QStringLiteral("Q4_K_M");
    c.files.push_back({QStringLiteral("a.json"), simulateDay(a, seed, seed * 2 + 1)});
    c.files.push_back({QStringLiteral("b.json"), simulateDay(b, seed, seed * 2 + 2)});
    c.baselineOf = {0, 0};
    return baselineDrift(c, 0, 1);
}

const CampaignDrift* row(const std::vector<CampaignDrift>& rows, const char* metric)
{
    for (const CampaignDrift& d : rows)
        if (d.metric == QLatin1String(metric))
            return &d;
    return nullptr;
}

DecisionProfile ttftProfile()
{
    return parseDecisionProfile({{"id", "t"},
                                    {"criteria",
                                        json::array({{{"id", "ttft"}, {"metric", "ttft_visible_ms"},
                                            {"not_worse_than_baseline", true}}})}},
        QStringLiteral("t"));
}

} // namespace

// An unchanged baseline measured on two days (each prompt moving ±5 % from day to day, plus the
// clock's noise) is called "moved" only when its interval clears the ±5 % band: almost never.
TEST(CampaignDrift, AnUnchangedBaselineIsAlmostNeverCalledMoved)
{
    int moved = 0;
    const int seeds = 120;
    for (int s = 0; s < seeds; ++s) {
        const auto rows = drift(Day {}, Day {}, 0xd1f70000 + std::uint64_t(s));
        for (const char* m : {"ttft_visible_ms", "decode_tps", "e2e_ms"}) {
            const CampaignDrift* d = row(rows, m);
            ASSERT_NE(d, nullptr) << m;
            ASSERT_TRUE(d->interval) << m;
            moved += d->significant ? 1 : 0;
        }
    }
    std::cout << "[ seeds    ] " << seeds << " seeds × 3 metrics, unchanged baseline: " << moved
              << " called moved\n";
    EXPECT_LE(moved, 3 * seeds / 40); // at most 2.5 % of the rows
}

TEST(CampaignDrift, ABaseline40PercentSlowerIsAlwaysCalledMoved)
{
    int moved = 0;
    const int seeds = 40;
    Day slow;
    slow.baselineFactor = 1.4;
    for (int s = 0; s < seeds; ++s) {
        const auto rows = drift(Day {}, slow, 0x510e0000 + std::uint64_t(s));
        const CampaignDrift* d = row(rows, "ttft_visible_ms");
        ASSERT_NE(d, nullptr);
        moved += d->significant ? 1 : 0;
        if (s == 0) {
            EXPECT_NEAR(*d->estimate, 1.4, 0.1);
            EXPECT_TRUE(d->sentence.contains(QStringLiteral("the baseline got worse")))
                << d->sentence.toStdString();
        }
    }
    EXPECT_EQ(moved, seeds);
}

TEST(CampaignDrift, FactsThatDifferAreMoves)
{
    Campaign c;
    c.baselineLabel = QStringLiteral("Q4_K_M");
    c.files.push_back({QStringLiteral("a.json"), simulateDay(Day {}, 1, 2)});
    c.files.push_back({QStringLiteral("b.json"), simulateDay(Day {}, 1, 3)});
    c.files[0].result.endpoints[0].probe = {{"server_version", "b6100"}, {"runtime", "llama-server"}};
    c.files[1].result.endpoints[0].probe = {{"server_version", "b6342"}, {"runtime", "llama-server"}};
    c.baselineOf = {0, 0};
    const auto rows = baselineDrift(c, 0, 1);
    const CampaignDrift* version = row(rows, "server_version");
    ASSERT_NE(version, nullptr);
    EXPECT_TRUE(version->significant);
    EXPECT_EQ(version->fromText, QStringLiteral("b6100"));
    EXPECT_FALSE(row(rows, "runtime")->significant);
    EXPECT_FALSE(row(rows, "answers_differ")->significant); // the same (empty) answers
}

// Given out of order: time order; a 35 % slower candidate is kept out, a 30 % faster one and an
// equal one both switch, and the faster is best because its interval clears the equal one's.
TEST(Campaign, OrdersJudgesAndRanksOnlyWhereIntervalsSeparate)
{
    Day slow, fast, equal;
    slow.candidateFactor = 1.35;
    slow.at = utcDateTime(QDate(2026, 11, 2), QTime(9, 0));
    fast.candidateFactor = 0.7;
    fast.quant = QStringLiteral("NVFP4-MLP");
    fast.at = utcDateTime(QDate(2026, 11, 3), QTime(9, 0));
    equal.at = utcDateTime(QDate(2026, 11, 4), QTime(9, 0));
    std::vector<CampaignFile> files;
    files.push_back({QStringLiteral("equal.json"), simulateDay(equal, 7, 30)});
    files.push_back({QStringLiteral("slow.json"), simulateDay(slow, 7, 10)});
    files.push_back({QStringLiteral("fast.json"), simulateDay(fast, 7, 20)});
    files[2].result.endpoints[1].endpoint.meta = {{QStringLiteral("method"), QStringLiteral("mlp_only")}};
    files[2].result.userNote = QStringLiteral("strategy B");
    const Campaign c = buildCampaign(std::move(files), ttftProfile());

    ASSERT_EQ(c.attempts.size(), 3u);
    EXPECT_TRUE(c.attempts[0].file.endsWith(QStringLiteral("slow.json")));
    EXPECT_TRUE(c.attempts[1].file.endsWith(QStringLiteral("fast.json")));
    EXPECT_TRUE(c.attempts[2].file.endsWith(QStringLiteral("equal.json")));
    EXPECT_EQ(c.attempts[0].recommendation.decision, Recommendation::Decision::KeepBaseline);
    EXPECT_EQ(c.attempts[1].recommendation.decision, Recommendation::Decision::Switch);
    EXPECT_EQ(c.best, 1) << c.bestSentence.toStdString();
    EXPECT_EQ(c.bestSoFar, (std::vector<int> {0, 1, 1}));
    ASSERT_EQ(c.standings.size(), 1u);
    EXPECT_EQ(c.standings[0].best, 1) << c.standings[0].sentence.toStdString();
    EXPECT_TRUE(separatedBetter(c.attempts[1], c.attempts[0], 0));
    EXPECT_FALSE(separatedBetter(c.attempts[0], c.attempts[1], 0));

    // What changed, from the files: the quantization label and the meta, then back again.
    QStringList changed;
    for (const CampaignChange& ch : c.attempts[1].changes)
        changed << ch.text();
    EXPECT_TRUE(changed.contains(QStringLiteral("quantization: NVFP4 → NVFP4-MLP")))
        << changed.join(u'|').toStdString();
    EXPECT_TRUE(changed.contains(QStringLiteral("meta.method: set to mlp_only")))
        << changed.join(u'|').toStdString();
    EXPECT_TRUE(c.attempts[1].notes.contains(QStringLiteral("strategy B")));
    EXPECT_TRUE(c.attempts[1].notes.contains(QStringLiteral("method=mlp_only")));
    EXPECT_TRUE(c.attempts[0].changes.empty());

    const json j = toJson(c)["campaign"];
    EXPECT_EQ(j["baseline"], "Q4_K_M");
    EXPECT_EQ(j["attempts"][0]["decision"], "keep_baseline");
    EXPECT_EQ(j["attempts"][1]["criteria"][0]["id"], "ttft");
    EXPECT_EQ(j["best"]["attempt"], 1);
    EXPECT_EQ(j["baseline_drift"].size(), c.drift.size());
    EXPECT_TRUE(j["baseline_drift"][0].contains("significant"));
}

TEST(Campaign, FilesWithoutTheBaselineAreLeftOutWithANote)
{
    std::vector<CampaignFile> files;
    files.push_back({QStringLiteral("a.json"), simulateDay(Day {}, 3, 4)});
    RunResult other = simulateDay(Day {}, 3, 5);
    other.endpoints[0].endpoint.label = QStringLiteral("BF16");
    other.endpoints[0].endpoint.quantization = QStringLiteral("BF16");
    other.startedAt = other.startedAt.addDays(1);
    files.push_back({QStringLiteral("b.json"), other});
    const Campaign c = buildCampaign(files, ttftProfile());
    EXPECT_EQ(c.files.size(), 1u);
    ASSERT_EQ(c.notes.size(), 1);
    EXPECT_TRUE(c.notes[0].startsWith(QStringLiteral("b.json left out"))) << c.notes[0].toStdString();
    EXPECT_THROW(buildCampaign(files, ttftProfile(), QStringLiteral("nobody")), CampaignError);
    EXPECT_THROW(buildCampaign({}, ttftProfile()), CampaignError);
}

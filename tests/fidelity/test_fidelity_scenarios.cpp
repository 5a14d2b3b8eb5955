// SPDX-License-Identifier: MIT
// The "How it is judged", end to end: emulated llama-server, vLLM and SGLang stream
// scripted logprobs over real sockets; the real runner asks greedily for them; the file is
// written and read back; evaluate() measures fidelity and `summary --json`'s "fidelity" list is
// checked against the numbers the scripts were built to give.

#include "model/core/Suite.h"
#include "model/evaluate/Evaluation.h"
#include "model/store/ResultFile.h"
#include "tests/model/ClientTestSupport.h"
#include "tests/model/RunTestSupport.h"
#include "tests/support/FidelityScript.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>

using namespace qs;

namespace {

constexpr double Tolerance = 1e-6; ///< the emulator rounds every value through float32, as servers do

/// A suite of `prompts` fidelity tests ("p0", "p1", …), greedy, with `top_logprobs`.
Suite fidelitySuite(int prompts, int topLogprobs = 20)
{
    nlohmann::json tests = nlohmann::json::array();
    // append, not "p" + std::to_string(i): GCC 12 -O3 (aarch64) warns a bogus -Wrestrict on it
    for (int i = 0; i < prompts; ++i)
        tests.push_back({{"id", std::string("p").append(std::to_string(i))},
            {"prompt", std::string("Fidelity prompt ").append(std::to_string(i))}});
    const nlohmann::json doc = {{"id", "fidelity-scenario"}, {"name", "Fidelity scenario"},
        {"defaults",
            {{"max_tokens", 32}, {"warmup", 0}, {"runs", 1}, {"fidelity", true},
                {"top_logprobs", topLogprobs}, {"seed", 7}}},
        {"tests", tests}};
    return parseSuite(doc, QStringLiteral("fidelity-scenario.json"));
}

/// Which prompt a request carries ("Fidelity prompt N" as its last message).
int promptIndex(const emu::RequestInfo& info)
{
    const QJsonArray messages = info.body.value(QStringLiteral("messages")).toArray();
    const QString text = messages.last().toObject().value(QStringLiteral("content")).toString();
    return text.section(u' ', -1).toInt();
}

RunEndpoint endpointAt(const test::Served& served, const QString& label, bool reference = false)
{
    RunEndpoint e;
    e.endpoint = served.endpoint;
    e.endpoint.label = label;
    e.spec = served.endpoint.baseUrl.toString();
    e.reference = reference;
    return e;
}

struct Measured {
    RunResult result;
    Evaluation evaluation;
    nlohmann::json fidelity; ///< what `summary --json` prints under "fidelity"
};

/// Runs, saves, reads back and evaluates: what a later `summary` sees.
Measured runAndReload(const Suite& suite, std::vector<RunEndpoint> endpoints)
{
    RunRequest request;
    request.suite = suite;
    request.endpoints = std::move(endpoints);
    request.settings.serverMetrics = false;
    const test::Outcome o = test::run(std::move(request));
    EXPECT_TRUE(o.failed.isEmpty()) << o.failed.toStdString();
    if (!o.result)
        return {};
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("fidelity.json"));
    EXPECT_EQ(saveResults(*o.result, path), QString());
    Measured m;
    m.result = loadResults(path);
    m.evaluation = evaluate(m.result, 0);
    m.fidelity = toJson(m.evaluation.fidelity);
    // Never NaN or inf: the JSON library would write them as null, so look at the numbers.
    const std::string text = m.fidelity.dump();
    EXPECT_EQ(text.find("inf"), std::string::npos) << text;
    EXPECT_EQ(text.find("nan"), std::string::npos) << text;
    return m;
}

const nlohmann::json* armFor(const nlohmann::json& fidelity, const char* endpoint)
{
    for (const nlohmann::json& arm : fidelity)
        if (arm.value("endpoint", std::string()) == endpoint)
            return &arm;
    return nullptr;
}

/// Eight short content tokens per prompt, the same on every request for that prompt.
emu::Script deterministicAnswer(const emu::RequestInfo& info)
{
    emu::Script s;
    const int p = promptIndex(info);
    for (int i = 0; i < 8; ++i)
        s.content << QStringLiteral(" w%1_%2").arg(p).arg(i);
    s.ttftMs = 2;
    s.tokensPerSecond = 2000;
    return s;
}

class SameServer : public testing::TestWithParam<emu::Dialect> { };
class SplitCharacters : public testing::TestWithParam<emu::Dialect> { };

std::string dialectName(const testing::TestParamInfo<emu::Dialect>& param)
{
    return param.param == emu::Dialect::LlamaServer ? std::string("llama")
        : param.param == emu::Dialect::Vllm         ? "vllm"
                                                    : "sglang";
}

/// Three prompts whose answers hold characters written in byte pieces: p0 parts from the
/// reference ON a split character ("é" where the reference says " Paris"), p1 shares a split "é"
/// and parts later, p2 does both.
std::vector<emu::ScriptedDivergence> splitScripts()
{
    const auto tokens = [](std::initializer_list<const char*> list) {
        QStringList out;
        for (const char* t : list)
            out << QString::fromUtf8(t);
        return out;
    };
    emu::DivergenceSpec p0;
    p0.reference = tokens({"The", " capital", " of", " France", " is", " Paris", "."});
    p0.divergeAt = 3;
    p0.candidateTail = tokens({"\xC3\xA9", " maybe"});
    p0.candidateSplitsAtK = true;
    p0.drift = 0.1;
    emu::DivergenceSpec p1;
    p1.reference = tokens({"Caf", "\xC3\xA9", " au", " lait", " is", " nice", "."});
    p1.sharedSplits = {1};
    p1.divergeAt = 4;
    p1.candidateTail = tokens({" was", " fine"});
    p1.margin = 0.7;
    p1.drift = 0.2;
    emu::DivergenceSpec p2;
    p2.reference = tokens({"Caf", "\xC3\xA9", " au", " lait", "."});
    p2.sharedSplits = {1};
    p2.divergeAt = 3;
    p2.candidateTail = tokens({"\xC3\xB1", " ok"});
    p2.candidateSplitsAtK = true;
    p2.drift = 0.3;
    return {emu::scriptedDivergence(p0), emu::scriptedDivergence(p1), emu::scriptedDivergence(p2)};
}

emu::ServerConfig serving(
    emu::Dialect dialect, const std::vector<emu::ScriptedDivergence>& scripts, bool candidate)
{
    emu::ServerConfig c;
    c.dialect = dialect;
    c.scriptFor = [scripts, candidate](const emu::RequestInfo& info) {
        const auto& s = scripts.at(std::size_t(promptIndex(info)));
        return candidate ? s.candidate : s.reference;
    };
    return c;
}

double pooledKl(const std::vector<emu::ScriptedDivergence>& scripts)
{
    double sum = 0;
    int n = 0;
    for (const auto& s : scripts)
        for (const double kl : s.expected.kl) {
            sum += kl;
            ++n;
        }
    return sum / n;
}

} // namespace

// Two arms served by the same deterministic server: 0 % flips, KL 0, full shared prefix — exactly.
TEST_P(SameServer, TwoArmsGiveNoFlipsKlZeroAndTheWholePrefix)
{
    emu::ServerConfig config;
    config.dialect = GetParam();
    config.scriptFor = deterministicAnswer;
    test::Served server(config);
    const int prompts = 6;
    const Measured m = runAndReload(fidelitySuite(prompts),
        {endpointAt(server, QStringLiteral("A"), true), endpointAt(server, QStringLiteral("B"))});

    ASSERT_EQ(m.result.records.size(), 2u * prompts);
    for (const RunRecord& r : m.result.records) {
        ASSERT_TRUE(r.request.ok()) << r.request.failure.text().toStdString();
        EXPECT_EQ(r.request.requestBody->value("temperature", -1.0), 0.0);
        EXPECT_TRUE(r.request.response.logprobs.present());
    }
    EXPECT_EQ(m.evaluation.fidelity.reference, 0);
    EXPECT_TRUE(m.evaluation.fidelity.referenceMarked);
    ASSERT_EQ(m.fidelity.size(), 1u) << m.fidelity.dump(1);
    const nlohmann::json& arm = m.fidelity[0];
    EXPECT_EQ(arm["endpoint"], "B");
    EXPECT_EQ(arm["reference"], "A");
    EXPECT_EQ(arm["prompts"], prompts);
    EXPECT_EQ(arm["identical"], prompts);
    EXPECT_EQ(arm["flip_rate"].get<double>(), 0.0);
    ASSERT_TRUE(arm["kl_mean"].is_number()) << arm.dump(1);
    EXPECT_EQ(arm["kl_mean"].get<double>(), 0.0);
    EXPECT_EQ(arm["kl_comparable"], true);
    EXPECT_EQ(arm["median_shared_prefix_tokens"].get<double>(), 8.0);
    ASSERT_EQ(arm["per_prompt"].size(), std::size_t(prompts));
    for (const nlohmann::json& p : arm["per_prompt"]) {
        EXPECT_TRUE(p["first_divergence"].is_null()) << p.dump();
        EXPECT_EQ(p["kl"].get<double>(), 0.0) << p.dump();
        EXPECT_EQ(p["run"], 1);
    }
}

INSTANTIATE_TEST_SUITE_P(EachDialect, SameServer,
    testing::Values(emu::Dialect::LlamaServer, emu::Dialect::Vllm, emu::Dialect::Sglang), dialectName);

// Both arms on one dialect, answers with characters written in byte pieces (issue #23): each
// server reports the pieces its own way (llama-server one merged entry with the next position's
// list, vLLM "" then the whole character, SGLang U+FFFD per piece), and the fidelity KL is the
// scripted truth over the positions both arms show as their own, never a list of one position
// against another's.
TEST_P(SplitCharacters, KlIsTheScriptedTruthNotInflatedByMergedPieces)
{
    const emu::Dialect dialect = GetParam();
    const std::vector<emu::ScriptedDivergence> scripts = splitScripts();
    test::Served reference(serving(dialect, scripts, false));
    test::Served candidate(serving(dialect, scripts, true));
    const Measured m = runAndReload(fidelitySuite(int(scripts.size())),
        {endpointAt(reference, QStringLiteral("ref"), true), endpointAt(candidate, QStringLiteral("cand"))});

    // The wire carries each server's own spelling of p0's "é" at k = 3.
    for (const RunRecord& r : m.result.records) {
        if (r.endpoint != 1 || r.test != u"p0")
            continue;
        const std::vector<TokenLogprob>& t = r.request.response.logprobs.tokens;
        EXPECT_EQ(r.request.response.content, QStringLiteral("The capital of\u00E9 maybe"));
        switch (dialect) {
        case emu::Dialect::LlamaServer: // one entry: the whole character, the last piece's id and list
            ASSERT_EQ(t.size(), 5u);
            EXPECT_EQ(t[3].bytes, QByteArray("\xC3\xA9"));
            EXPECT_EQ(t[3].top.front().bytes, QByteArray("\xA9"));
            EXPECT_EQ(t[3].top.front().id, t[3].id);
            break;
        case emu::Dialect::Vllm: // "" for the first piece, the whole character on the last
            ASSERT_EQ(t.size(), 6u);
            EXPECT_TRUE(t[3].bytes.isEmpty());
            EXPECT_EQ(t[4].bytes, QByteArray("\xC3\xA9"));
            break;
        case emu::Dialect::Sglang: // U+FFFD for each piece
            ASSERT_EQ(t.size(), 6u);
            EXPECT_EQ(t[3].bytes, QByteArray("\xEF\xBF\xBD"));
            EXPECT_EQ(t[4].bytes, QByteArray("\xEF\xBF\xBD"));
            break;
        }
    }

    const nlohmann::json* arm = armFor(m.fidelity, "cand");
    ASSERT_NE(arm, nullptr) << m.fidelity.dump(1);
    EXPECT_EQ((*arm)["identical"], 0);
    EXPECT_NEAR((*arm)["kl_mean"].get<double>(), pooledKl(scripts), Tolerance);
    EXPECT_NEAR((*arm)["kl_listed_mass"].get<double>(), 1.0, Tolerance);
    EXPECT_EQ((*arm)["kl_lower_bound"], false);
    ASSERT_EQ(m.evaluation.fidelity.arms.size(), 1u);
    for (const FidelityPrompt& p : m.evaluation.fidelity.arms[0].prompts) {
        const auto& expected = scripts.at(std::size_t(p.test.mid(1).toInt())).expected;
        SCOPED_TRACE(p.test.toStdString() + ": " + p.note.toStdString());
        ASSERT_TRUE(p.kl);
        EXPECT_NEAR(*p.kl, expected.klMean, Tolerance);
        EXPECT_EQ(p.klPositions, int(expected.kl.size()));
        // SGLang's reference spells a shared split character as two aligned tokens.
        const int extra = dialect == emu::Dialect::Sglang && p.test != u"p0" ? 1 : 0;
        EXPECT_EQ(p.firstDivergence, expected.firstDivergence + extra);
        if (expected.divergenceHidden) {
            EXPECT_FALSE(p.referenceTokenRank.has_value());
        } else {
            EXPECT_EQ(p.referenceTokenRank, expected.referenceTokenRank);
            EXPECT_NEAR(p.referenceTokenProb.value_or(-1), expected.referenceTokenProb, Tolerance);
        }
        if (expected.meanAbsLogprobDelta) {
            EXPECT_NEAR(p.meanAbsLogprobDelta.value_or(-1), *expected.meanAbsLogprobDelta, Tolerance);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EachDialect, SplitCharacters,
    testing::Values(emu::Dialect::LlamaServer, emu::Dialect::Vllm, emu::Dialect::Sglang), dialectName);

// Across engines: the reference on vLLM, candidates on llama-server and SGLang, sharing p1's split
// "é". vLLM's "" + "é" and llama-server's merged "é" are the same text in as many tokens, so the
// walk crosses it; SGLang's U+FFFD pieces hide their text, so the walk stops there and KL covers
// the token before it only — never a list of one position against another's.
TEST(FidelityScenario, SplitCharactersAcrossEnginesAreCrossedOrStoppedAt)
{
    const std::vector<emu::ScriptedDivergence> scripts = splitScripts();
    test::Served vllm(serving(emu::Dialect::Vllm, scripts, false));
    test::Served llama(serving(emu::Dialect::LlamaServer, scripts, true));
    test::Served sglang(serving(emu::Dialect::Sglang, scripts, true));
    const Measured m = runAndReload(fidelitySuite(int(scripts.size())),
        {endpointAt(vllm, QStringLiteral("BF16 vLLM"), true), endpointAt(llama, QStringLiteral("llama")),
            endpointAt(sglang, QStringLiteral("sglang"))});
    const nlohmann::json* l = armFor(m.fidelity, "llama");
    ASSERT_NE(l, nullptr);
    EXPECT_NEAR((*l)["kl_mean"].get<double>(), pooledKl(scripts), Tolerance);
    const nlohmann::json* g = armFor(m.fidelity, "sglang");
    ASSERT_NE(g, nullptr);
    const auto& p1 = scripts[1].expected;
    for (const nlohmann::json& p : (*g)["per_prompt"]) {
        if (p["test"] != "p1")
            continue;
        EXPECT_EQ(p["kl_stopped_at"], 1) << p.dump();
        EXPECT_EQ(p["kl_positions"], 1);
        EXPECT_NEAR(p["kl"].get<double>(), p1.kl.front(), Tolerance);
        EXPECT_EQ(p["first_divergence"], p1.firstDivergence); // by the texts, in vLLM's tokens
    }
    // The paired ratio compares llama and SGLang (baseline endpoint 1 = llama) on the positions both show.
    const Evaluation e = evaluate(m.result, 1);
    for (const FidelityArm& a : e.fidelity.arms) {
        if (a.endpointLabel != u"sglang")
            continue;
        ASSERT_TRUE(a.klVsBaseline);
        EXPECT_EQ(a.klVsBaseline->baselineLabel, QStringLiteral("llama"));
        EXPECT_EQ(a.klVsBaseline->prompts, 3);
        EXPECT_LT(a.klVsBaseline->positions,
            int(scripts[0].expected.kl.size() + p1.kl.size() + scripts[2].expected.kl.size()));
    }
}

// Scripted arms that diverge at token k with known probabilities, across engines: reference on
// vLLM (no ids, chosen token first), one candidate on llama-server (ids, its own order), one on
// SGLang with two tokens' entries per chunk. Every number matches the script.
TEST(FidelityScenario, ScriptedDivergenceGivesTheScriptedNumbersOnEveryEngine)
{
    const QStringList reference = {QStringLiteral("The"), QStringLiteral(" capital"), QStringLiteral(" of"),
        QStringLiteral(" France"), QStringLiteral(" is"), QStringLiteral(" Paris"), QStringLiteral("."),
        QStringLiteral(" Enjoy")};
    // Prompt i diverges at k = divergeAt[i] with margin margins[i].
    const std::vector<int> divergeAt = {0, 3, 6};
    const std::vector<double> margins = {0.05, 0.7, 2.5};
    std::vector<emu::ScriptedDivergence> scripts;
    for (std::size_t i = 0; i < divergeAt.size(); ++i) {
        emu::DivergenceSpec spec;
        spec.reference = reference;
        spec.divergeAt = divergeAt[i];
        spec.candidateTail = {QStringLiteral(" Lyon"), QStringLiteral(" maybe")};
        spec.margin = margins[i];
        spec.drift = 0.05 * double(i + 1);
        scripts.push_back(emu::scriptedDivergence(spec));
    }
    test::Served vllm(serving(emu::Dialect::Vllm, scripts, false));
    test::Served llama(serving(emu::Dialect::LlamaServer, scripts, true));
    emu::ServerConfig sglangConfig = serving(emu::Dialect::Sglang, scripts, true);
    sglangConfig.tokensPerChunk = 2;
    test::Served sglang(sglangConfig);

    const Measured m = runAndReload(fidelitySuite(int(scripts.size())),
        {endpointAt(llama, QStringLiteral("Q4_K_M llama-server")),
            endpointAt(vllm, QStringLiteral("BF16 vLLM"), true),
            endpointAt(sglang, QStringLiteral("NVFP4 SGLang"))});
    ASSERT_EQ(m.fidelity.size(), 2u) << m.fidelity.dump(1);

    for (const char* label : {"Q4_K_M llama-server", "NVFP4 SGLang"}) {
        SCOPED_TRACE(label);
        const nlohmann::json* arm = armFor(m.fidelity, label);
        ASSERT_NE(arm, nullptr);
        EXPECT_EQ((*arm)["reference"], "BF16 vLLM");
        EXPECT_EQ((*arm)["prompts"], 3);
        EXPECT_EQ((*arm)["identical"], 0);
        EXPECT_EQ((*arm)["flip_rate"].get<double>(), 1.0);
        EXPECT_EQ((*arm)["kl_comparable"], true);
        // Token-pooled, as llama-perplexity's mean KLD.
        EXPECT_NEAR((*arm)["kl_mean"].get<double>(), pooledKl(scripts), Tolerance);
        EXPECT_EQ((*arm)["median_shared_prefix_tokens"].get<double>(), 3.0);
        ASSERT_EQ((*arm)["per_prompt"].size(), scripts.size());
        for (const nlohmann::json& p : (*arm)["per_prompt"]) {
            const std::string test = p["test"];
            const auto& expected = scripts.at(std::size_t(std::stoi(test.substr(1)))).expected;
            SCOPED_TRACE(test);
            EXPECT_EQ(p["first_divergence"], expected.firstDivergence);
            EXPECT_EQ(p["reference_token_rank"], expected.referenceTokenRank);
            EXPECT_NEAR(p["reference_token_prob"].get<double>(), expected.referenceTokenProb, Tolerance);
            EXPECT_NEAR(p["kl"].get<double>(), expected.klMean, Tolerance);
        }
    }
    // The structs behind the JSON carry the rest of the scripted numbers.
    for (const FidelityArm& arm : m.evaluation.fidelity.arms)
        for (const FidelityPrompt& p : arm.prompts) {
            const auto& expected = scripts.at(std::size_t(p.test.mid(1).toInt())).expected;
            EXPECT_EQ(p.sharedPrefixTokens, expected.sharedPrefixTokens);
            EXPECT_NEAR(p.candidateTokenProb.value_or(-1), expected.candidateTokenProb, Tolerance);
            EXPECT_NEAR(p.referenceOwnProb.value_or(-1), expected.referenceOwnProb, Tolerance);
            if (expected.meanAbsLogprobDelta)
                EXPECT_NEAR(p.meanAbsLogprobDelta.value_or(-1), *expected.meanAbsLogprobDelta, Tolerance);
            else
                EXPECT_FALSE(p.meanAbsLogprobDelta);
            ASSERT_EQ(p.klPositions, int(expected.kl.size()));
        }
}

// llama-server's float-lowest entries (p = 0 for the rest of a vocabulary that underflowed):
// finite numbers, and the file keeps them as null (−∞), never as a number or inf.
TEST(FidelityScenario, LlamaServersImpossibleEntriesGiveFiniteNumbers)
{
    emu::ServerConfig padded;
    padded.dialect = emu::Dialect::LlamaServer;
    padded.scriptFor = deterministicAnswer;
    padded.fillTopWithImpossible = true;
    test::Served llama(padded);
    emu::ServerConfig plain = padded;
    plain.dialect = emu::Dialect::Vllm;
    plain.fillTopWithImpossible = false;
    test::Served vllm(plain);

    const Measured m = runAndReload(fidelitySuite(4),
        {endpointAt(vllm, QStringLiteral("ref"), true), endpointAt(llama, QStringLiteral("llama"))});
    int impossible = 0;
    for (const RunRecord& r : m.result.records)
        if (r.endpoint == 1)
            impossible += r.request.response.logprobs.impossible;
    EXPECT_GT(impossible, 0) << "the llama-server arm should have sent -3.4028234663852886e+38 entries";
    const nlohmann::json* arm = armFor(m.fidelity, "llama");
    ASSERT_NE(arm, nullptr);
    EXPECT_EQ((*arm)["identical"], 4);
    ASSERT_TRUE((*arm)["kl_mean"].is_number());
    EXPECT_TRUE(std::isfinite((*arm)["kl_mean"].get<double>()));
    EXPECT_LT((*arm)["kl_mean"].get<double>(), 1e-5);
    for (const nlohmann::json& p : (*arm)["per_prompt"])
        EXPECT_TRUE(p["kl"].is_number()) << p.dump();
}

// A server that ignores `logprobs`: flips are still measured from the text, the KL is "not
// supported by this server", never a number.
TEST(FidelityScenario, AServerThatIgnoresLogprobsIsNamedAndItsKlIsNotANumber)
{
    emu::ServerConfig ignoring;
    ignoring.dialect = emu::Dialect::Sglang;
    ignoring.scriptFor = deterministicAnswer;
    ignoring.ignoresLogprobs = true;
    test::Served old(ignoring);
    emu::ServerConfig fine = ignoring;
    fine.ignoresLogprobs = false;
    test::Served ref(fine);

    const Measured m = runAndReload(fidelitySuite(3),
        {endpointAt(ref, QStringLiteral("ref"), true), endpointAt(old, QStringLiteral("old"))});
    const nlohmann::json* arm = armFor(m.fidelity, "old");
    ASSERT_NE(arm, nullptr) << m.fidelity.dump(1);
    EXPECT_EQ((*arm)["identical"], 3);
    EXPECT_TRUE((*arm)["kl_mean"].is_null());
    EXPECT_EQ((*arm)["kl_comparable"], false);
    ASSERT_EQ(m.evaluation.fidelity.arms.size(), 1u);
    EXPECT_TRUE(m.evaluation.fidelity.arms[0].support.contains(QStringLiteral("not supported")))
        << m.evaluation.fidelity.arms[0].support.toStdString();
}

// vLLM's --max-logprobs below what the suite asks: every request fails with advice naming the
// flag, and nothing is counted as a flip.
TEST(FidelityScenario, AVllmCapBelowTheAskNamesTheFlagAndCountsNoFlip)
{
    emu::ServerConfig capped;
    capped.dialect = emu::Dialect::Vllm;
    capped.scriptFor = deterministicAnswer;
    capped.maxLogprobs = 5;
    test::Served vllm(capped);
    emu::ServerConfig fine = capped;
    fine.dialect = emu::Dialect::LlamaServer;
    test::Served llama(fine);

    const Measured m = runAndReload(fidelitySuite(2),
        {endpointAt(llama, QStringLiteral("ref"), true), endpointAt(vllm, QStringLiteral("capped"))});
    for (const RunRecord& r : m.result.records)
        if (r.endpoint == 1) {
            EXPECT_FALSE(r.request.ok());
            EXPECT_EQ(r.request.httpStatus, 400);
            EXPECT_TRUE(r.request.failure.advice.contains(QStringLiteral("--max-logprobs")))
                << r.request.failure.text().toStdString();
        }
    ASSERT_EQ(m.evaluation.fidelity.arms.size(), 1u);
    const FidelityArm& arm = m.evaluation.fidelity.arms[0];
    EXPECT_EQ(arm.prompts.size(), 0u);
    EXPECT_EQ(arm.failedPrompts, 2);
    EXPECT_EQ(arm.flipRate, 0.0);
}

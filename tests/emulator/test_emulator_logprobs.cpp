// SPDX-License-Identifier: MIT
// Logprobs as each emulated server writes them (shared/reference/server-metrics-and-logprobs.md,
// Part 2): the exact chunk bytes per dialect, the servers' 400s and cap, the ways of saying −∞,
// a server that ignores logprobs, grouped and split chunks, non-streamed bodies, the simulated
// endpoints' logprobs, and the scripted divergence helper's numbers.

#include "tests/emulator/EmulatorTestClient.h"
#include "tests/support/FidelityScript.h"
#include "tests/support/SimulatedLogprobs.h"
#include "tests/support/SimulatedModel.h"
#include "tests/support/SimulatedProfiles.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>
#include <gtest/gtest.h>

using namespace qs::emu;
using namespace qs::emu::test;

namespace {

QJsonObject logprobBody(bool stream, std::optional<int> top, bool logprobs = true)
{
    QJsonObject body = chatBody(stream);
    if (logprobs)
        body.insert(QStringLiteral("logprobs"), true);
    if (top)
        body.insert(QStringLiteral("top_logprobs"), *top);
    return body;
}

// " Paris" chosen at -0.25, " the" and " Lyon" below it; ids as llama-server would send them.
Script parisScript()
{
    Script script = simpleScript(0, 5, 500);
    script.content = QStringList {QStringLiteral(" Paris")};
    PositionScript position;
    position.logprob = -0.25;
    position.id = 12095;
    position.top = {{QStringLiteral(" Lyon"), -3.0, 44288}, {QStringLiteral(" the"), -2.5, 279}};
    script.logprobs.positions.push_back(position);
    return script;
}

ServerConfig config(Dialect dialect, const Script& script)
{
    ServerConfig c = baseConfig(dialect);
    c.script = script;
    if (dialect == Dialect::LlamaServer) {
        c.modelId = QStringLiteral("Qwen3-8B-Q4_K_M.gguf");
        c.version = QStringLiteral("b9465-23e6dab86");
    } else if (dialect == Dialect::Vllm) {
        c.modelId = QStringLiteral("Qwen/Qwen3-8B");
    }
    return c;
}

/// The `data:` payloads that carry a token's delta (not [DONE]).
QList<QByteArray> payloads(const RawResponse& response)
{
    QList<QByteArray> out;
    for (const QByteArray& payload : response.dataPayloads()) {
        if (payload != "[DONE]")
            out << payload;
    }
    return out;
}

QJsonObject firstChoice(const QByteArray& payload)
{
    return QJsonDocument::fromJson(payload)
        .object()
        .value(QLatin1String("choices"))
        .toArray()
        .at(0)
        .toObject();
}

QJsonArray entriesOf(const QByteArray& payload)
{
    return firstChoice(payload)
        .value(QLatin1String("logprobs"))
        .toObject()
        .value(QLatin1String("content"))
        .toArray();
}

QStringList topTokens(const QJsonObject& entry)
{
    QStringList out;
    for (const QJsonValue c : entry.value(QLatin1String("top_logprobs")).toArray())
        out << c.toObject().value(QLatin1String("token")).toString();
    return out;
}

/// The first payload whose delta carries `text`.
QByteArray payloadWith(const RawResponse& response, const QByteArray& text)
{
    for (const QByteArray& payload : payloads(response)) {
        const QByteArray delta = QByteArray("\"delta\":{\"content\":\"") + text + "\"}";
        if (payload.contains(delta))
            return payload;
    }
    return {};
}

QByteArray errorBody(Dialect dialect, const QJsonObject& body, int maxLogprobs = 20)
{
    ServerConfig c = config(dialect, parisScript());
    c.maxLogprobs = maxLogprobs;
    EmulatorThread emu;
    if (!emu.start(c))
        return {};
    const RawResponse response = postChat(emu, body);
    return QByteArray::number(response.status) + ' ' + response.body;
}

} // namespace

// ---- exact bytes per dialect -------------------------------------------------------------------

TEST(EmulatorLogprobs, LlamaChunkCarriesIdsAfterTheDelta)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::LlamaServer, parisScript())));
    const RawResponse response = postChat(emu, logprobBody(true, 2));
    ASSERT_EQ(response.status, 200);
    EXPECT_EQ(normalized(payloadWith(response, " Paris")),
        QByteArray(
            R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":" Paris"},"logprobs":{"content":[{"id":12095,"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.25,"top_logprobs":[{"id":12095,"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.25},{"id":279,"token":" the","bytes":[32,116,104,101],"logprob":-2.5}]}]}}],"created":T,"id":"ID","model":"Qwen3-8B-Q4_K_M.gguf","system_fingerprint":"b9465-23e6dab86","object":"chat.completion.chunk"})"));
}

TEST(EmulatorLogprobs, VllmChunkHasNoIds)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::Vllm, parisScript())));
    const RawResponse response = postChat(emu, logprobBody(true, 2));
    ASSERT_EQ(response.status, 200);
    EXPECT_EQ(normalized(payloadWith(response, " Paris")),
        QByteArray(
            R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":{"content":" Paris"},"logprobs":{"content":[{"token":" Paris","logprob":-0.25,"bytes":[32,80,97,114,105,115],"top_logprobs":[{"token":" Paris","logprob":-0.25,"bytes":[32,80,97,114,105,115]},{"token":" the","logprob":-2.5,"bytes":[32,116,104,101]}]}]},"finish_reason":null,"token_ids":null}]})"));
}

TEST(EmulatorLogprobs, SglangChunkPutsBytesBeforeLogprob)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::Sglang, parisScript())));
    QJsonObject body = logprobBody(true, 2);
    body.insert(QStringLiteral("model"), QStringLiteral("Qwen3-8B"));
    const RawResponse response = postChat(emu, body);
    ASSERT_EQ(response.status, 200);
    EXPECT_EQ(normalized(payloadWith(response, " Paris")),
        QByteArray(
            R"({"id":"ID","object":"chat.completion.chunk","created":T,"model":"Qwen3-8B","choices":[{"index":0,"delta":{"content":" Paris"},"logprobs":{"content":[{"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.25,"top_logprobs":[{"token":" Paris","bytes":[32,80,97,114,105,115],"logprob":-0.25},{"token":" the","bytes":[32,116,104,101],"logprob":-2.5}]}]},"finish_reason":null,"matched_stop":null}]})"));
}

// The servers compute in float32 and print the shortest double of it.
TEST(EmulatorLogprobs, ValuesHaveFloatPrecision)
{
    Script script = parisScript();
    script.logprobs.positions[0].logprob = -0.0124;
    script.logprobs.positions[0].top.clear();
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::Vllm, script)));
    const QByteArray payload = payloadWith(postChat(emu, logprobBody(true, 1)), " Paris");
    EXPECT_TRUE(payload.contains(R"("logprob":-0.012400000356137753,)")) << payload.constData();
}

// ---- llama-server's reading of the request -------------------------------------------------------

TEST(EmulatorLogprobs, LlamaDefaultsToTwentyAndSendsFloatLowestForImpossible)
{
    ServerConfig c = config(Dialect::LlamaServer, parisScript());
    c.fillTopWithImpossible = true;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(c));
    const QByteArray payload = payloadWith(postChat(emu, logprobBody(true, std::nullopt)), " Paris");
    const QJsonArray entries = entriesOf(payload);
    ASSERT_EQ(entries.size(), 1);
    const QJsonArray top = entries.at(0).toObject().value(QLatin1String("top_logprobs")).toArray();
    ASSERT_EQ(top.size(), 20);
    EXPECT_EQ(topTokens(entries.at(0).toObject()).mid(0, 3),
        (QStringList {QStringLiteral(" Paris"), QStringLiteral(" the"), QStringLiteral(" Lyon")}));
    EXPECT_EQ(payload.count(R"("logprob":-3.4028234663852886e+38})"), 17);
}

TEST(EmulatorLogprobs, LlamaTopZeroMeansNoLogprobsAndNativeNProbsWorks)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::LlamaServer, parisScript())));
    const RawResponse none = postChat(emu, logprobBody(true, 0));
    EXPECT_EQ(none.status, 200);
    EXPECT_FALSE(none.body.contains("logprobs"));

    QJsonObject native = withTools(chatBody(true)); // n_probs bypasses the tools + stream check
    native.insert(QStringLiteral("n_probs"), 1);
    const RawResponse response = postChat(emu, native);
    ASSERT_EQ(response.status, 200);
    const QJsonArray entries = entriesOf(payloadWith(response, " Paris"));
    ASSERT_EQ(entries.size(), 1);
    EXPECT_EQ(topTokens(entries.at(0).toObject()), QStringList {QStringLiteral(" Paris")});
}

TEST(EmulatorLogprobs, LlamaRejectsWhatItsParserRejects)
{
    EXPECT_EQ(errorBody(Dialect::LlamaServer, withTools(logprobBody(true, 5))),
        R"(400 {"error":{"code":400,"message":"logprobs is not supported with tools + stream","type":"invalid_request_error"}})");
    EXPECT_EQ(errorBody(Dialect::LlamaServer, logprobBody(true, 5, false)),
        R"(400 {"error":{"code":400,"message":"top_logprobs requires logprobs to be set to true","type":"invalid_request_error"}})");
    // Not streamed, tools are fine.
    EXPECT_TRUE(errorBody(Dialect::LlamaServer, withTools(logprobBody(false, 5))).startsWith("200 "));
}

// ---- vLLM ------------------------------------------------------------------------------------

TEST(EmulatorLogprobs, VllmPutsTheChosenTokenFirstAndDropsTheKth)
{
    Script script = parisScript();
    PositionScript& p = script.logprobs.positions[0];
    p.logprob = -1.5; // " Paris" is chosen but ranks third
    p.top = {{QStringLiteral(" the"), -0.5, -1}, {QStringLiteral(" Lyon"), -1.0, -1},
        {QStringLiteral(" Nice"), -2.0, -1}};
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::Vllm, script)));
    auto topFor = [&emu](int k) {
        return topTokens(
            entriesOf(payloadWith(postChat(emu, logprobBody(true, k)), " Paris")).at(0).toObject());
    };
    // Outside the top 2: [chosen, top1], the 2nd best (" Lyon") is missing.
    EXPECT_EQ(topFor(2), (QStringList {QStringLiteral(" Paris"), QStringLiteral(" the")}));
    // Inside the top 3: the same three tokens, the chosen one first, so not sorted.
    EXPECT_EQ(
        topFor(3), (QStringList {QStringLiteral(" Paris"), QStringLiteral(" the"), QStringLiteral(" Lyon")}));
    // logprobs without top_logprobs: the sampled token only, an empty list.
    const QJsonArray bare = entriesOf(payloadWith(postChat(emu, logprobBody(true, std::nullopt)), " Paris"));
    ASSERT_EQ(bare.size(), 1);
    EXPECT_TRUE(bare.at(0).toObject().value(QLatin1String("top_logprobs")).toArray().isEmpty());
    EXPECT_EQ(bare.at(0).toObject().value(QLatin1String("logprob")).toDouble(), -1.5);
}

TEST(EmulatorLogprobs, VllmCapsTopLogprobsAtMaxLogprobs)
{
    EXPECT_EQ(errorBody(Dialect::Vllm, logprobBody(true, 21)),
        R"(400 {"error":{"message":"Requested sample logprobs of 21, which is greater than max allowed: 20","type":"BadRequestError","param":"logprobs","code":400}})");
    EXPECT_EQ(errorBody(Dialect::Vllm, logprobBody(true, 8), 5),
        R"(400 {"error":{"message":"Requested sample logprobs of 8, which is greater than max allowed: 5","type":"BadRequestError","param":"logprobs","code":400}})");
    EXPECT_TRUE(errorBody(Dialect::Vllm, logprobBody(true, 21), 50).startsWith("200 "));
    EXPECT_TRUE(errorBody(Dialect::Vllm, logprobBody(true, 20)).startsWith("200 "));
    EXPECT_TRUE(
        errorBody(Dialect::Vllm, logprobBody(true, -1)).contains("Requested sample logprobs of 151936"));
    EXPECT_TRUE(errorBody(Dialect::Vllm, logprobBody(true, -1), -1).startsWith("200 "));
}

TEST(EmulatorLogprobs, VllmRejectsTopLogprobsWithoutLogprobs)
{
    EXPECT_EQ(errorBody(Dialect::Vllm, logprobBody(true, 3, false)),
        R"(400 {"error":{"message":"when using `top_logprobs`, `logprobs` must be set to true.","type":"Bad Request","param":"top_logprobs","code":400}})");
    EXPECT_EQ(errorBody(Dialect::Vllm, logprobBody(true, -2)),
        R"(400 {"error":{"message":"`top_logprobs` must be a positive value or -1.","type":"Bad Request","param":"top_logprobs","code":400}})");
}

// ---- −∞ in each dialect ---------------------------------------------------------------------------

namespace {

Script impossibleScript()
{
    Script script = parisScript();
    script.logprobs.positions[0].top.push_back({QStringLiteral(" Rome"), -INFINITY, 4}); // masked
    return script;
}

QByteArray streamedWithImpossible(Dialect dialect, LogprobSentinel sentinel)
{
    ServerConfig c = config(dialect, impossibleScript());
    c.logprobSentinel = sentinel;
    EmulatorThread emu;
    if (!emu.start(c))
        return {};
    return payloadWith(postChat(emu, logprobBody(true, 5)), " Paris");
}

} // namespace

TEST(EmulatorLogprobs, ImpossibleIsEachServersSentinel)
{
    EXPECT_TRUE(
        streamedWithImpossible(Dialect::LlamaServer, LogprobSentinel::Native)
            .contains(
                R"({"id":4,"token":" Rome","bytes":[32,82,111,109,101],"logprob":-3.4028234663852886e+38})"));
    EXPECT_TRUE(streamedWithImpossible(Dialect::Vllm, LogprobSentinel::Native)
                    .contains(R"({"token":" Rome","logprob":-9999.0,"bytes":[32,82,111,109,101]})"));
    EXPECT_TRUE(streamedWithImpossible(Dialect::Sglang, LogprobSentinel::Native)
                    .contains(R"({"token":" Rome","bytes":[32,82,111,109,101],"logprob":null})"));
    EXPECT_TRUE(streamedWithImpossible(Dialect::Sglang, LogprobSentinel::BareInfinity)
                    .contains(R"({"token":" Rome","bytes":[32,82,111,109,101],"logprob":-Infinity})"));
    EXPECT_TRUE(streamedWithImpossible(Dialect::LlamaServer, LogprobSentinel::Null)
                    .contains(R"("token":" Rome","bytes":[32,82,111,109,101],"logprob":null})"));
}

TEST(EmulatorLogprobs, SglangBodyWithImpossibleIsA500UnlessAllowNan)
{
    ServerConfig c = config(Dialect::Sglang, impossibleScript());
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(c));
    const RawResponse failed = postChat(emu, logprobBody(false, 5));
    EXPECT_EQ(failed.status, 500);
    EXPECT_EQ(failed.body, "Internal Server Error");
    EXPECT_EQ(failed.header("Content-Type"), "text/plain; charset=utf-8");
    // Within the top 2 the −∞ entry is not listed: the body encodes fine.
    EXPECT_EQ(postChat(emu, logprobBody(false, 2)).status, 200);

    c.logprobSentinel = LogprobSentinel::BareInfinity;
    EmulatorThread allowNan;
    ASSERT_TRUE(allowNan.start(c));
    const RawResponse body = postChat(allowNan, logprobBody(false, 5));
    EXPECT_EQ(body.status, 200);
    EXPECT_TRUE(body.body.contains(R"("logprob":-Infinity})"));
}

// ---- SGLang ------------------------------------------------------------------------------------

TEST(EmulatorLogprobs, SglangCollapsesDuplicateTextsHasNoCapAndIgnoresTopAlone)
{
    Script script = parisScript();
    script.logprobs.positions[0].top = {{QStringLiteral("\uFFFD"), -1.0, 100},
        {QStringLiteral("\uFFFD"), -1.5, 101}, {QStringLiteral(" the"), -2.5, 279}};
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::Sglang, script)));
    const RawResponse response = postChat(emu, logprobBody(true, 30));
    ASSERT_EQ(response.status, 200);
    const QJsonArray entries = entriesOf(payloadWith(response, " Paris"));
    ASSERT_EQ(entries.size(), 1);
    EXPECT_EQ(topTokens(entries.at(0).toObject()),
        (QStringList {QStringLiteral(" Paris"), QStringLiteral("\uFFFD"), QStringLiteral(" the")}));

    const RawResponse ignored = postChat(emu, logprobBody(true, 3, false));
    EXPECT_EQ(ignored.status, 200);
    EXPECT_TRUE(firstChoice(payloadWith(ignored, " Paris")).value(QLatin1String("logprobs")).isNull());
}

TEST(EmulatorLogprobs, SeveralTokensInOneChunk)
{
    ServerConfig c = config(Dialect::Sglang, simpleScript(5, 5, 500));
    c.tokensPerChunk = 3;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(c));
    const RawResponse response = postChat(emu, logprobBody(true, 2));
    ASSERT_EQ(response.status, 200);
    const QJsonArray first = entriesOf(payloadWith(response, "w0 w1 w2 "));
    const QJsonArray second = entriesOf(payloadWith(response, "w3 w4 "));
    ASSERT_EQ(first.size(), 3);
    ASSERT_EQ(second.size(), 2);
    EXPECT_EQ(first.at(2).toObject().value(QLatin1String("token")).toString(), QStringLiteral("w2 "));
    EXPECT_EQ(second.at(0).toObject().value(QLatin1String("token")).toString(), QStringLiteral("w3 "));
}

TEST(EmulatorLogprobs, LlamaEntriesRideOnTheLastChunkOfTheirToken)
{
    ServerConfig c = config(Dialect::LlamaServer, parisScript());
    c.splitTokenChunks = true;
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(c));
    const RawResponse response = postChat(emu, logprobBody(true, 2));
    ASSERT_EQ(response.status, 200);
    const QByteArray head = payloadWith(response, " Pa");
    const QByteArray tail = payloadWith(response, "ris");
    ASSERT_FALSE(head.isEmpty());
    EXPECT_FALSE(head.contains("logprobs"));
    ASSERT_EQ(entriesOf(tail).size(), 1);
    EXPECT_EQ(
        entriesOf(tail).at(0).toObject().value(QLatin1String("token")).toString(), QStringLiteral(" Paris"));
}

// ---- ignored, non-streamed, synthesized ---------------------------------------------------------

TEST(EmulatorLogprobs, AServerThatIgnoresLogprobsAnswersAsWithout)
{
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        ServerConfig c = config(dialect, parisScript());
        c.ignoresLogprobs = true;
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(c));
        const RawResponse streamed = postChat(emu, logprobBody(true, 50)); // not even vLLM's cap applies
        EXPECT_EQ(streamed.status, 200);
        EXPECT_FALSE(streamed.body.contains("\"logprobs\":{"));
        EXPECT_EQ(streamed.body.contains("\"logprobs\":null"), dialect != Dialect::LlamaServer);
        const RawResponse body = postChat(emu, logprobBody(false, 5));
        EXPECT_EQ(body.status, 200);
        EXPECT_FALSE(body.body.contains("\"logprobs\":{"));
    }
}

TEST(EmulatorLogprobs, NonStreamedBodyListsEveryTokenReasoningIncluded)
{
    Script script = parisScript();
    script.reasoning = QStringList {QStringLiteral("The"), QStringLiteral(" user")};
    script.content = QStringList {QStringLiteral(" Paris"), QStringLiteral(".")};
    PositionScript scripted = script.logprobs.positions[0];
    script.logprobs.positions = {scripted, scripted, scripted};
    for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang}) {
        EmulatorThread emu;
        ASSERT_TRUE(emu.start(config(dialect, script)));
        const RawResponse response = postChat(emu, logprobBody(false, 2));
        ASSERT_EQ(response.status, 200);
        const QJsonArray content = response.json()
                                       .value(QLatin1String("choices"))
                                       .toArray()
                                       .at(0)
                                       .toObject()
                                       .value(QLatin1String("logprobs"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        ASSERT_EQ(content.size(), 4);
        QStringList tokens;
        for (const QJsonValue e : content)
            tokens << e.toObject().value(QLatin1String("token")).toString();
        EXPECT_EQ(tokens,
            (QStringList {QStringLiteral("The"), QStringLiteral(" user"), QStringLiteral(" Paris"),
                QStringLiteral(".")}));
        // Positions 0…2 scripted (at -0.25), the fourth synthesized.
        EXPECT_EQ(content.at(2).toObject().value(QLatin1String("logprob")).toDouble(), -0.25);
        EXPECT_NE(content.at(3).toObject().value(QLatin1String("logprob")).toDouble(), -0.25);
    }
}

TEST(EmulatorLogprobs, SynthesizedDistributionsAreCompleteAndDeterministic)
{
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::Vllm, simpleScript(4, 5, 500))));
    auto entries = [&emu] {
        QJsonArray all;
        for (const QByteArray& payload : payloads(postChat(emu, logprobBody(true, 20)))) {
            for (const QJsonValue e : entriesOf(payload))
                all.append(e);
        }
        return all;
    };
    const QJsonArray first = entries();
    ASSERT_EQ(first.size(), 4);
    EXPECT_EQ(first, entries());
    for (const QJsonValue e : first) {
        const QJsonArray top = e.toObject().value(QLatin1String("top_logprobs")).toArray();
        ASSERT_EQ(top.size(), 5);
        double sum = 0;
        for (const QJsonValue c : top)
            sum += std::exp(c.toObject().value(QLatin1String("logprob")).toDouble());
        EXPECT_NEAR(sum, 1.0, 1e-6);
        // The chosen token is the most likely: a greedy answer.
        EXPECT_EQ(
            top.at(0).toObject().value(QLatin1String("token")), e.toObject().value(QLatin1String("token")));
        EXPECT_GE(e.toObject().value(QLatin1String("logprob")).toDouble(),
            top.at(1).toObject().value(QLatin1String("logprob")).toDouble());
    }
}

// ---- the scripted divergence helper ----------------------------------------------------------

// By hand (natural log), with referenceProb 0.5, drift ln 2, candidateProb 0.5, margin ln 2 and
// one filler:
//   position 0: ref {A 0.5, f 0.5}, cand {A 0.25, f 0.75}:
//     KL = 0.5 ln(0.5/0.25) + 0.5 ln(0.5/0.75) = 0.5 ln(4/3) = 0.14384103622589042
//   position 1 (k): ref {B 0.5, X 0.25, f 0.25}, cand {X 0.5, B 0.25, f 0.25}:
//     KL = 0.5 ln 2 + 0.25 ln(1/2) + 0 = 0.25 ln 2 = 0.17328679513998632
//   mean 0.15856391568293837; |Δlogprob| at 0: ln 2; rank of B in cand at k: 2, p 0.25.
TEST(FidelityScript, DivergenceNumbersMatchTheHandComputation)
{
    DivergenceSpec spec;
    spec.reference = QStringList {QStringLiteral("A"), QStringLiteral(" B"), QStringLiteral(" C")};
    spec.divergeAt = 1;
    spec.candidateTail = QStringList {QStringLiteral(" X"), QStringLiteral(" Y")};
    spec.referenceProb = 0.5;
    spec.drift = std::log(2.0);
    spec.candidateProb = 0.5;
    spec.margin = std::log(2.0);
    spec.fillers = 1;
    const ScriptedDivergence d = scriptedDivergence(spec);
    const DivergenceExpectation& e = d.expected;
    EXPECT_EQ(e.firstDivergence, 1);
    EXPECT_EQ(e.sharedPrefixTokens, 1);
    EXPECT_EQ(e.referenceTokenRank, 2);
    EXPECT_NEAR(e.referenceTokenProb, 0.25, 1e-7);
    EXPECT_NEAR(e.candidateTokenProb, 0.5, 1e-7);
    EXPECT_NEAR(e.referenceOwnProb, 0.5, 1e-7);
    ASSERT_EQ(e.kl.size(), 2u);
    EXPECT_NEAR(e.kl[0], 0.14384103622589042, 1e-6);
    EXPECT_NEAR(e.kl[1], 0.17328679513998632, 1e-6);
    EXPECT_NEAR(e.klMean, 0.15856391568293837, 1e-6);
    ASSERT_TRUE(e.meanAbsLogprobDelta);
    EXPECT_NEAR(*e.meanAbsLogprobDelta, std::log(2.0), 1e-6);

    EXPECT_EQ(d.reference.content, spec.reference);
    EXPECT_EQ(
        d.candidate.content, (QStringList {QStringLiteral("A"), QStringLiteral(" X"), QStringLiteral(" Y")}));
    ASSERT_EQ(d.reference.logprobs.positions.size(), 3u);
    ASSERT_EQ(d.candidate.logprobs.positions.size(), 3u);
}

TEST(FidelityScript, TheCandidateStreamsItsScriptedDivergence)
{
    DivergenceSpec spec;
    spec.reference = QStringList {QStringLiteral("The"), QStringLiteral(" capital"), QStringLiteral(" is"),
        QStringLiteral(" Paris"), QStringLiteral(".")};
    spec.divergeAt = 3;
    spec.candidateTail = QStringList {QStringLiteral(" Lyon"), QStringLiteral("!")};
    const ScriptedDivergence d = scriptedDivergence(spec);
    EXPECT_EQ(d.expected.referenceTokenRank, 2);
    EXPECT_NEAR(d.expected.referenceTokenProb, 0.6 * std::exp(-0.5), 1e-6);
    EXPECT_NEAR(*d.expected.meanAbsLogprobDelta, 0.1, 1e-6);

    EmulatorThread emu;
    ASSERT_TRUE(emu.start(config(Dialect::LlamaServer, d.candidate)));
    const RawResponse response = postChat(emu, logprobBody(true, 20));
    const QJsonArray atK = entriesOf(payloadWith(response, " Lyon"));
    ASSERT_EQ(atK.size(), 1);
    const QJsonObject entry = atK.at(0).toObject();
    EXPECT_EQ(topTokens(entry).mid(0, 2), (QStringList {QStringLiteral(" Lyon"), QStringLiteral(" Paris")}));
    EXPECT_NEAR(std::exp(entry.value(QLatin1String("top_logprobs"))
                             .toArray()
                             .at(1)
                             .toObject()
                             .value(QLatin1String("logprob"))
                             .toDouble()),
        d.expected.referenceTokenProb, 1e-12); // the wire carries the expectation's own numbers
    EXPECT_EQ(topTokens(entry).size(), 2 + spec.fillers);
}

// ---- simulated endpoints ----------------------------------------------------------------------

namespace {

QJsonObject fidelityRequest(const QString& question)
{
    QJsonObject body = chatBody(true, question);
    body.insert(QStringLiteral("temperature"), 0);
    body.insert(QStringLiteral("logprobs"), true);
    body.insert(QStringLiteral("top_logprobs"), 20);
    return body;
}

Script simulatedScript(const char* profile, quint64 seed, const QJsonObject& body)
{
    const auto c = simulatedProfile(QString::fromLatin1(profile), seed);
    RequestInfo info;
    info.body = body;
    info.stream = true;
    info.promptTokens = 20;
    return c->scriptFor(info);
}

bool sameLogprobs(const Script& a, const Script& b)
{
    if (a.logprobs.positions.size() != b.logprobs.positions.size())
        return false;
    for (std::size_t i = 0; i < a.logprobs.positions.size(); ++i) {
        const PositionScript& x = a.logprobs.positions[i];
        const PositionScript& y = b.logprobs.positions[i];
        if (x.logprob != y.logprob || x.top.size() != y.top.size())
            return false;
        for (std::size_t j = 0; j < x.top.size(); ++j) {
            if (x.top[j].token != y.top[j].token || x.top[j].logprob != y.top[j].logprob)
                return false;
        }
    }
    return true;
}

const QStringList kQuestions = {QStringLiteral("What is the capital of Japan?"),
    QStringLiteral("If I have 3 boxes with 5 balls each, how many balls do I have?"),
    QStringLiteral("Hello there!"), QStringLiteral("Tell me about the history of tea."),
    QStringLiteral("I'm feeling a bit stressed about work.")};

} // namespace

TEST(SimulatedLogprobs, AFidelityRequestDependsOnThePromptAlone)
{
    for (const char* profile : {"q4km-like", "nvfp4-like", "bf16-like"}) {
        for (const QString& question : kQuestions) {
            const Script a = simulatedScript(profile, 1, fidelityRequest(question));
            const Script b = simulatedScript(profile, 77, fidelityRequest(question));
            EXPECT_EQ(a.content, b.content) << profile;
            EXPECT_EQ(a.reasoning, b.reasoning) << profile;
            ASSERT_EQ(a.logprobs.positions.size(), std::size_t(a.reasoning.size() + a.content.size()));
            EXPECT_TRUE(sameLogprobs(a, b)) << profile;
        }
    }
}

TEST(SimulatedLogprobs, EveryTokenIsTheTopOfItsCompleteDistribution)
{
    for (const char* profile :
        {"q4km-like", "nvfp4-like", "nvfp4-base-like", "nvfp4-fixed-like", "bf16-like"}) {
        const Script s = simulatedScript(profile, 1, fidelityRequest(kQuestions.at(0)));
        const QStringList tokens = s.reasoning + s.content;
        ASSERT_EQ(s.logprobs.positions.size(), std::size_t(tokens.size())) << profile;
        for (qsizetype i = 0; i < tokens.size(); ++i) {
            const PositionScript& p = s.logprobs.positions[std::size_t(i)];
            double sum = 0;
            double best = -INFINITY;
            QString bestToken;
            for (const LogprobCandidate& c : p.top) {
                sum += std::exp(c.logprob);
                if (c.logprob > best) {
                    best = c.logprob;
                    bestToken = c.token;
                }
            }
            EXPECT_NEAR(sum, 1.0, 1e-9);
            EXPECT_EQ(bestToken, tokens.at(i)) << profile << " at " << i;
            EXPECT_EQ(p.logprob, best);
        }
    }
}

// The shared base, perturbed: no noise never flips, more noise flips more often.
TEST(SimulatedLogprobs, MoreNoiseMoreFlips)
{
    const QStringList answer = qs::emu::detail::fillerTokens(30);
    auto flippedPrompts = [&answer](double noise) {
        int flipped = 0;
        for (quint64 prompt = 0; prompt < 300; ++prompt)
            flipped += qs::emu::detail::simulatedLogprobs(answer, prompt, noise, 42).firstFlip.has_value();
        return flipped;
    };
    const int none = flippedPrompts(0);
    const int little = flippedPrompts(0.08);
    const int more = flippedPrompts(0.3);
    EXPECT_EQ(none, 0);
    EXPECT_GT(little, 0);
    EXPECT_GT(more, 2 * little);
    EXPECT_LT(more, 300);
    // The same base for every profile: zero noise reproduces the answer itself.
    EXPECT_EQ(qs::emu::detail::simulatedLogprobs(answer, 5, 0, 1).tokens, answer);
}

TEST(SimulatedLogprobs, TheEndpointStreamsItsLogprobs)
{
    const auto c = simulatedProfile(QStringLiteral("q4km-like"));
    EmulatorThread emu;
    ASSERT_TRUE(emu.start(*c));
    const RawResponse response = postChat(emu, fidelityRequest(kQuestions.at(0)));
    ASSERT_EQ(response.status, 200);
    QString text;
    QString chosen;
    int entries = 0;
    for (const QByteArray& payload : payloads(response)) {
        text += firstChoice(payload)
                    .value(QLatin1String("delta"))
                    .toObject()
                    .value(QLatin1String("content"))
                    .toString();
        for (const QJsonValue entry : entriesOf(payload)) {
            chosen += entry.toObject().value(QLatin1String("token")).toString();
            ++entries;
            EXPECT_EQ(entry.toObject().value(QLatin1String("top_logprobs")).toArray().size(), 5);
        }
    }
    EXPECT_GT(entries, 3);
    EXPECT_EQ(text, chosen); // the text is the chosen tokens'
    EXPECT_FALSE(text.isEmpty());
    // Without logprobs the same profile answers as it always did: no logprobs key at all.
    QJsonObject plain = chatBody(true, kQuestions.at(0));
    EXPECT_FALSE(postChat(emu, plain).body.contains("logprobs"));
}

// SPDX-License-Identifier: MIT
// Logprobs and the reference endpoint in results files (format version 4): every value round
// trips (−∞ as null, an unknown logprob absent, bytes apart from the text, ids, a full top list),
// records and endpoints without them do not grow, version-3 files load, a bad member names its
// path, and no NaN or infinity reaches a file even from a server that sent them.
#include "ResultsTestSupport.h"
#include "model/wire/SseParser.h"
#include "model/wire/StreamAssembler.h"

#include <QFile>
#include <functional>
#include <limits>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

LogprobStream makeLogprobs()
{
    LogprobStream s;
    s.chunks = 3;
    s.impossible = 2;
    s.unreadable = 1;
    // 1. llama-server: an id, a 20-entry top list with a −∞ candidate and a partial UTF-8 one.
    TokenLogprob paris {QStringLiteral(" Paris"), QByteArray(" Paris"), -0.0124, 12095, {}, true};
    for (int i = 0; i < 20; ++i)
        paris.top.push_back(
            {QStringLiteral(" c%1").arg(i), QStringLiteral(" c%1").arg(i).toUtf8(), -0.5 * i, 100 + i});
    paris.top[18] = {QString(), QByteArray("\xE2\x80", 2), -9.5, 2001};
    paris.top[19] = {QStringLiteral(" Berlin"), QByteArray(" Berlin"), kMinusInf, 75503};
    s.tokens.push_back(paris);
    // 2. A held-back entry: no text, no bytes; an impossible chosen logprob.
    s.tokens.push_back({QString(), QByteArray(), kMinusInf, 578,
        {{QStringLiteral(" The"), QByteArray(" The"), -0.2, 578}}, true});
    // 3. vLLM: no id, no top list, unknown logprob; bytes that are not the text's (SGLang's U+FFFD).
    s.tokens.push_back(
        {QStringLiteral("ü"), QByteArray("\xEF\xBF\xBD"), std::nullopt, std::nullopt, {}, false});
    // 4. An empty top list is a list.
    s.tokens.push_back({QStringLiteral("."), QByteArray("."), 0.0, std::nullopt, {}, true});
    return s;
}

RunResult withLogprobs()
{
    RunResult r = makeResult();
    r.records[0].request.response.logprobs = makeLogprobs();
    r.endpoints[1].reference = true;
    return r;
}

json firstRecord(const RunResult& r)
{
    return fileJson(r)["records"][0];
}

TEST(LogprobsFile, RoundTripsExactly)
{
    const RunResult r = withLogprobs();
    const RunResult back = parseResults(serializeResults(r), QStringLiteral("run.json"));
    ASSERT_EQ(back.records.size(), r.records.size());
    EXPECT_EQ(back.records[0].request.response.logprobs, makeLogprobs());
    for (std::size_t i = 1; i < back.records.size(); ++i)
        EXPECT_FALSE(back.records[i].request.response.logprobs.present()) << i;
    EXPECT_FALSE(back.endpoints[0].reference);
    EXPECT_TRUE(back.endpoints[1].reference);
    EXPECT_EQ(referenceEndpoint(back), 1);
    // And once more: what was read writes the same bytes.
    EXPECT_EQ(serializeResults(back), serializeResults(r));
}

TEST(LogprobsFile, FileForm)
{
    const json lp = firstRecord(withLogprobs())["logprobs"];
    EXPECT_EQ(lp["chunks"], 3);
    EXPECT_EQ(lp["impossible"], 2);
    EXPECT_EQ(lp["unreadable"], 1);
    const json& t = lp["tokens"];
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[0]["t"], " Paris");
    EXPECT_EQ(t[0]["lp"], -0.0124);
    EXPECT_EQ(t[0]["id"], 12095);
    EXPECT_FALSE(t[0].contains("b")) << "bytes equal to the text's are not repeated";
    EXPECT_EQ(t[0]["top"].size(), 20u);
    EXPECT_EQ(t[0]["top"][1], json::array({" c1", -0.5, 101}));
    EXPECT_EQ(t[0]["top"][18], json::array({"", -9.5, 2001, json::array({226, 128})}));
    EXPECT_EQ(t[0]["top"][19], json::array({" Berlin", nullptr, 75503}));
    EXPECT_TRUE(t[1]["lp"].is_null()) << "−∞ is null";
    EXPECT_FALSE(t[2].contains("lp")) << "unknown is absent";
    EXPECT_EQ(t[2]["b"], json::array({239, 191, 189}));
    EXPECT_FALSE(t[2].contains("top"));
    EXPECT_FALSE(t[2].contains("id"));
    EXPECT_EQ(t[3]["top"], json::array());
}

TEST(LogprobsFile, NothingWrittenWithoutLogprobsOrReference)
{
    const json j = fileJson(makeResult());
    for (const json& e : j["endpoints"])
        EXPECT_FALSE(e.contains("reference"));
    for (const json& rec : j["records"])
        EXPECT_FALSE(rec.contains("logprobs"));
    const json marked = fileJson(withLogprobs());
    EXPECT_FALSE(marked["endpoints"][0].contains("reference"));
    EXPECT_EQ(marked["endpoints"][1]["reference"], true);
    // The record JSON of `chat --json` and `probe` follows the same rule.
    EXPECT_FALSE(toJson(makeResult().records[0].request)["response"].contains("logprobs"));
    EXPECT_EQ(
        toJson(withLogprobs().records[0].request)["response"]["logprobs"], marked["records"][0]["logprobs"]);
}

TEST(LogprobsFile, VersionThreeFilesLoad)
{
    json j = fileJson(makeResult());
    j["version"] = 3;
    const RunResult back = parseResults(bytesOf(j), QStringLiteral("old.json"));
    EXPECT_EQ(referenceEndpoint(back), -1);
    EXPECT_EQ(back.records.size(), makeResult().records.size());
    EXPECT_TRUE(serializeResults(back).startsWith(R"({"format": "quantscope-results", "version": 4,)"));
}

TEST(LogprobsFile, HandWrittenMinimalLogprobsLoad)
{
    json j = fileJson(makeResult());
    j["records"][0]["logprobs"] = {{"tokens",
        json::array(
            {{{"t", "Hi"}, {"lp", -1e30}, {"top", json::array({json::array({"Hi", -9999.0, nullptr})})}}})}};
    const RunResult back = parseResults(bytesOf(j), QStringLiteral("run.json"));
    const LogprobStream& lp = back.records[0].request.response.logprobs;
    EXPECT_EQ(lp.chunks, 1);
    ASSERT_EQ(lp.tokens.size(), 1u);
    EXPECT_EQ(lp.tokens[0].logprob, kMinusInf) << "sentinels read the way the wire reads them";
    ASSERT_EQ(lp.tokens[0].top.size(), 1u);
    EXPECT_EQ(lp.tokens[0].top[0].logprob, kMinusInf);
    EXPECT_FALSE(lp.tokens[0].top[0].id);
}

void expectBad(const std::function<void(json&)>& edit, std::initializer_list<const char*> needles)
{
    json j = fileJson(withLogprobs());
    edit(j["records"][0]["logprobs"]);
    expectError([&] { parseResults(bytesOf(j), QStringLiteral("run.json")); }, Kind::BadField, needles);
}

TEST(LogprobsFile, BadMembersNameTheirPath)
{
    expectBad(
        [](json& lp) { lp = "yes"; }, {"records[0].logprobs: expected an object or null, found a string"});
    expectBad([](json& lp) { lp.erase("tokens"); }, {"records[0].logprobs.tokens: missing"});
    expectBad([](json& lp) { lp["chunks"] = 0; }, {"records[0].logprobs.chunks: 0 is out of range"});
    expectBad(
        [](json& lp) { lp["impossible"] = -1; }, {"records[0].logprobs.impossible: -1 is out of range"});
    expectBad([](json& lp) { lp["tokens"][1]["lp"] = "-inf"; },
        {"records[0].logprobs.tokens[1].lp: expected a number or null, found a string"});
    expectBad([](json& lp) { lp["tokens"][0]["lp"] = 0.5; },
        {"records[0].logprobs.tokens[0].lp: 0.5 is not a logprob"});
    expectBad([](json& lp) { lp["tokens"][0].erase("t"); }, {"records[0].logprobs.tokens[0].t: missing"});
    expectBad(
        [](json& lp) {
            lp["tokens"][2]["b"] = json::array({239, 256});
        },
        {"records[0].logprobs.tokens[2].b[1]: 256 is out of range (0 to 255)"});
    expectBad([](json& lp) { lp["tokens"][0]["id"] = -3; },
        {"records[0].logprobs.tokens[0].id: -3 is out of range"});
    expectBad([](json& lp) { lp["tokens"][0]["top"][4] = json::array({"x"}); },
        {"records[0].logprobs.tokens[0].top[4]: expected [text, logprob] or [text, logprob, id, bytes]"});
    expectBad([](json& lp) { lp["tokens"][0]["top"][4][1] = true; },
        {"records[0].logprobs.tokens[0].top[4][1]: expected a number or null"});
    expectBad(
        [](json& lp) {
            for (int i = 0; i < 300; ++i)
                lp["tokens"][0]["top"].push_back(json::array({"x", -1}));
        },
        {"records[0].logprobs.tokens[0].top: 320 candidates, more than the 256"});
    expectBad([](json& lp) { lp["tokens"][3] = 7; }, {"records[0].logprobs.tokens[3]: expected an object"});
}

TEST(LogprobsFile, BadReferenceFlag)
{
    json j = fileJson(withLogprobs());
    j["endpoints"][1]["reference"] = "yes";
    expectError([&] { parseResults(bytesOf(j), QStringLiteral("run.json")); }, Kind::BadField,
        {"endpoints[1].reference: expected true or false, found a string"});
}

/// A recorded stream assembled and written: the file carries finite numbers and nulls only.
AssembledResponse assembled(const char* fixture)
{
    QFile file(QStringLiteral(QS_TEST_DATA_DIR "/streams/") + QString::fromUtf8(fixture));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << fixture;
    SseParser parser;
    std::vector<SseEvent> events;
    parser.feed(file.readAll(), 1000, events);
    parser.finish(2000, events);
    StreamAssembler a;
    for (const SseEvent& e : events)
        a.add(e);
    return a.takeResponse();
}

TEST(LogprobsFile, ServersSentinelsNeverReachAFile)
{
    for (const char* fixture : {"llama-current-logprobs.sse", "vllm-logprobs.sse", "sglang-logprobs.sse"}) {
        SCOPED_TRACE(fixture);
        RunResult r = makeResult();
        r.records[0].request.response.logprobs = assembled(fixture).logprobs;
        ASSERT_TRUE(r.records[0].request.response.logprobs.present());
        const QByteArray bytes = serializeResults(r);
        for (const char* bad : {"Infinity", "NaN", "e+38", "-9999"})
            EXPECT_FALSE(bytes.contains(bad)) << bad;
        // Strict JSON, and what comes back equals what was assembled.
        const RunResult back = parseResults(bytes, QStringLiteral("run.json"));
        EXPECT_EQ(back.records[0].request.response.logprobs, r.records[0].request.response.logprobs);
        const std::string record = toJson(r.records[0].request).dump();
        EXPECT_EQ(record.find("Infinity"), std::string::npos);
        EXPECT_EQ(record.find("NaN"), std::string::npos);
    }
}

} // namespace

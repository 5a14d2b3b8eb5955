// SPDX-License-Identifier: MIT
// Results files: the format's field names, lossless round trips, atomic saves, and a clear
// refusal (with the right ResultFileError kind) of everything that is not a usable results file.
#include "ResultsTestSupport.h"
#include "model/core/Clock.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <csignal>
#include <random>
#include <sys/resource.h>
#include <unistd.h>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

std::string expectParseError(const QByteArray& bytes, Kind kind, std::initializer_list<const char*> needles)
{
    return expectError([&] { parseResults(bytes, QStringLiteral("run.json")); }, kind, needles);
}

/// The member order Quantscope writes (format, version, header, records last), so records are
/// converted while parsing; bytesOf() sorts keys, which puts records before the version and
/// exercises the second pass.
QByteArray writerOrder(const json& j)
{
    std::string s = "{";
    const auto add = [&](const std::string& key, const json& value) {
        if (s.size() > 1)
            s += ", ";
        s += json(key).dump() + ": " + value.dump();
    };
    for (const char* key : {"format", "version"})
        if (j.contains(key))
            add(key, j[key]);
    for (const auto& [key, value] : j.items())
        if (key != "format" && key != "version" && key != "records")
            add(key, value);
    if (j.contains("records"))
        add("records", j["records"]);
    return QByteArray::fromStdString(s + "}");
}

bool isRoot()
{
    return ::geteuid() == 0;
}

} // namespace

// --- format ------------------------------------------------------------------------------------

TEST(ResultFile, TopLevelFieldsAndMandatoryRecordFieldNames)
{
    const json j = fileJson(makeResult());
    EXPECT_EQ(j["format"], "quantscope-results");
    EXPECT_EQ(j["version"], 4);
    for (const char* key : {"tool_version", "host", "started_at", "ended_at", "complete", "note", "suite",
             "settings", "endpoints", "telemetry", "records"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["started_at"], "2026-03-01T10:20:00.000Z");
    EXPECT_EQ(j["settings"]["order"], "sequential");
    EXPECT_EQ(j["settings"]["max_tokens"], 300);
    EXPECT_EQ(j["settings"]["seed"].get<std::uint64_t>(), 18'000'000'000'000'000'000ull);
    EXPECT_EQ(j["endpoints"][1]["spec"], "sim:q4km-like");
    EXPECT_EQ(j["endpoints"][1]["simulated"], true);
    EXPECT_EQ(j["endpoints"][0]["endpoint"]["api_key_env"], "QS_TEST_SECRET_KEY");

    ASSERT_EQ(j["records"].size(), 6u);
    for (const json& r : j["records"]) {
        for (const char* key :
            {"endpoint", "test", "turn", "iteration", "warmup", "ttfb_ms", "ttft_any_ms", "ttft_visible_ms",
                "reasoning_ms", "first_sentence_ms", "e2e_ms", "decode_tps", "prompt_tokens",
                "completion_tokens", "reasoning_tokens", "tokens_source", "server_timings", "content",
                "reasoning", "tool_calls", "finish_reason", "http_status", "error", "gates", "events"})
            EXPECT_TRUE(r.contains(key)) << key << " in " << r["test"];
        EXPECT_TRUE(r["gates"].is_object());
        EXPECT_TRUE(r["tool_calls"].is_array());
        EXPECT_TRUE(
            r["error"].is_null() || (r["error"]["kind"].is_string() && r["error"]["message"].is_string()));
    }
    const json& ok = j["records"][0];
    EXPECT_EQ(ok["endpoint"], "NVFP4 vLLM");
    EXPECT_EQ(ok["tokens_source"], "usage");
    EXPECT_EQ(ok["completion_tokens"], 12);
    EXPECT_EQ(ok["cached_prompt_tokens"], 30);
    EXPECT_DOUBLE_EQ(ok["ttft_any_ms"].get<double>(), 80.123); // µs resolution
    EXPECT_DOUBLE_EQ(ok["ttft_visible_ms"].get<double>(), 120.25);
    EXPECT_EQ(ok["events"][0], json::array({80.123, 0, 12, 0}));
    EXPECT_EQ(ok["events"][2], json::array({120.25, 20, 21, 0}));
    EXPECT_EQ(ok["stamps"]["t0"], 0.0);
    EXPECT_DOUBLE_EQ(ok["stamps"]["start"].get<double>(), -2.346);
    EXPECT_EQ(ok["gates"]["answer"], true);
    EXPECT_EQ(ok["request"]["messages"][1]["content"], "Capital of Japan?");

    const json& timed = j["records"][1];
    EXPECT_EQ(timed["endpoint"], "Q4_K_M sim"); // empty label: taken from the endpoint list
    EXPECT_EQ(timed["tokens_source"], "server_timings");
    EXPECT_EQ(timed["prompt_tokens"], 120);
    EXPECT_EQ(timed["server_timings"]["predicted_n"], 2);

    const json& tool = j["records"][2];
    EXPECT_EQ(tool["warmup"], true);
    ASSERT_EQ(tool["tool_calls"].size(), 1u);
    EXPECT_EQ(tool["tool_calls"][0]["name"], "web_search");
    EXPECT_EQ(tool["tool_calls"][0]["arguments"], "{\"query\":\"weather Paris\"}");
    EXPECT_EQ(tool["events"][0][3], 1);

    const json& cut = j["records"][3];
    EXPECT_EQ(cut["tokens_source"], "estimate");
    EXPECT_EQ(cut["count_sources"]["prompt_tokens"], "none");
    EXPECT_EQ(cut["error"]["kind"], "disconnected");
    EXPECT_EQ(cut["content"], "One two thr");
    EXPECT_EQ(cut["events"].size(), 3u);

    const json& refused = j["records"][4];
    EXPECT_TRUE(refused["stamps"]["t0"].is_null());
    EXPECT_EQ(refused["stamps"]["start"], 0.0);
    EXPECT_DOUBLE_EQ(refused["stamps"]["end"].get<double>(), 412.345);
    EXPECT_TRUE(refused["ttft_any_ms"].is_null());
    EXPECT_EQ(refused["error"]["kind"], "connection_refused");

    const json& leak = j["records"][5];
    EXPECT_EQ(leak["thinking_in_content"], true);
    EXPECT_EQ(leak["stream"]["malformed_events"], 1);
    EXPECT_EQ(leak["stream_error"]["message"], "CUDA out of memory");
    EXPECT_EQ(leak["error"]["server_message"], "CUDA out of memory");
    EXPECT_EQ(leak["turn"], 3);
}

TEST(ResultFile, NeverContainsAnApiKey)
{
    qputenv("QS_TEST_SECRET_KEY", "sk-do-not-store-4711");
    const QByteArray bytes = serializeResults(makeResult());
    qunsetenv("QS_TEST_SECRET_KEY");
    EXPECT_FALSE(bytes.contains("sk-do-not-store-4711"));
    EXPECT_TRUE(bytes.contains("\"api_key_env\":\"QS_TEST_SECRET_KEY\""));
}

TEST(ResultFile, FirstLineIdentifiesTheFileAndEachRecordHasItsOwnLine)
{
    const RunResult r = makeResult();
    const QList<QByteArray> lines = serializeResults(r).split('\n');
    EXPECT_TRUE(lines[0].startsWith(R"({"format": "quantscope-results", "version": 4,)"))
        << lines[0].toStdString();
    const auto recordLines
        = std::count_if(lines.begin(), lines.end(), [](const QByteArray& l) { return l.startsWith("  {"); });
    EXPECT_EQ(recordLines, qsizetype(r.records.size()));
}

// --- round trips -------------------------------------------------------------------------------

TEST(ResultFile, RecordJsonRoundTripsExactly)
{
    const RunResult r = makeResult();
    for (std::size_t i = 0; i < r.records.size(); ++i) {
        const json x = recordToJson(r.records[i], r.endpoints);
        const RunRecord back = recordFromJson(x, r.endpoints, "records[" + std::to_string(i) + "]");
        EXPECT_EQ(recordToJson(back, r.endpoints), x) << "record " << i;
    }
}

TEST(ResultFile, FileRoundTripsByteForByte)
{
    const RunResult r = makeResult();
    const QByteArray bytes = serializeResults(r);
    const RunResult back = parseResults(bytes, QStringLiteral("run.json"));
    EXPECT_EQ(serializeResults(back), bytes);
}

TEST(ResultFile, EqualBodiesAndVerdictsAreHeldOnceWhenLoaded)
{
    // 12 records: makeResult()'s six twice. A file of 40,000 records holds a few hundred distinct
    // request bodies and verdicts; loaded, each is held once (JsonInterner).
    const RunResult r = makeResultWith(12);
    RunResult back = parseResults(serializeResults(r), QStringLiteral("run.json"));
    ASSERT_EQ(back.records.size(), 12u);
    for (std::size_t i = 0; i < 6; ++i) {
        const RunRecord& a = back.records[i];
        const RunRecord& b = back.records[i + 6];
        EXPECT_TRUE(b.request.requestBody.sharesWith(a.request.requestBody)) << "record " << i;
        EXPECT_TRUE(b.gates.sharesWith(a.gates)) << "record " << i;
        EXPECT_TRUE(b.gateDetails.sharesWith(a.gateDetails)) << "record " << i;
    }
    EXPECT_FALSE(back.records[1].request.requestBody.sharesWith(back.records[0].request.requestBody));
    // A change to one record's verdicts reaches no other, and the file still says what it said.
    back.records[0].gates.edit()["answer"] = false;
    EXPECT_EQ((*back.records[6].gates)["answer"], true);
    back.records[0].gates = *r.records[0].gates;
    EXPECT_EQ(serializeResults(back), serializeResults(r));
}

TEST(ResultFile, LoadedRecordsRebuildTheMeasurements)
{
    const RunResult r = makeResult();
    const RunResult back = parseResults(serializeResults(r), QStringLiteral("run.json"));

    EXPECT_EQ(back.toolVersion, r.toolVersion);
    EXPECT_EQ(back.host, r.host);
    EXPECT_EQ(back.startedAt, r.startedAt);
    EXPECT_EQ(back.endedAt, r.endedAt);
    EXPECT_EQ(back.note, r.note);
    EXPECT_TRUE(back.complete);
    EXPECT_EQ(back.suite, r.suite);
    EXPECT_EQ(back.settings.order, RunOrder::Sequential);
    EXPECT_EQ(back.settings.seed, r.settings.seed);
    EXPECT_EQ(back.settings.maxTokens, 300);
    EXPECT_EQ(back.settings.warmup, 2);
    ASSERT_EQ(back.endpoints.size(), 2u);
    EXPECT_EQ(back.endpoints[0].endpoint, r.endpoints[0].endpoint);
    EXPECT_EQ(back.endpoints[1].endpoint, r.endpoints[1].endpoint);
    EXPECT_EQ(back.endpoints[0].probe, r.endpoints[0].probe);
    EXPECT_TRUE(back.endpoints[1].simulated);
    ASSERT_EQ(back.records.size(), r.records.size());

    for (std::size_t i = 0; i < r.records.size(); ++i) {
        SCOPED_TRACE("record " + std::to_string(i));
        const RunRecord& o = r.records[i];
        const RunRecord& b = back.records[i];
        EXPECT_EQ(b.endpoint, o.endpoint);
        EXPECT_EQ(b.test, o.test);
        EXPECT_EQ(b.turn, o.turn);
        EXPECT_EQ(b.iteration, o.iteration);
        EXPECT_EQ(b.warmup, o.warmup);
        EXPECT_EQ(b.concurrency, o.concurrency);
        EXPECT_EQ(b.startedAt, o.startedAt);
        EXPECT_EQ(b.gates, o.gates);
        EXPECT_EQ(b.gateDetails, o.gateDetails);
        const RequestRecord& oq = o.request;
        const RequestRecord& bq = b.request;
        EXPECT_EQ(bq.requestBody, oq.requestBody);
        EXPECT_EQ(bq.url, oq.url);
        EXPECT_EQ(bq.httpStatus, oq.httpStatus);
        EXPECT_EQ(bq.keepAlivePings, oq.keepAlivePings);
        EXPECT_EQ(bq.failure.kind, oq.failure.kind);
        EXPECT_EQ(bq.failure.summary, oq.failure.summary);
        EXPECT_EQ(bq.failure.advice, oq.failure.advice);
        EXPECT_EQ(bq.failure.serverMessage, oq.failure.serverMessage);
        EXPECT_EQ(bq.response.content, oq.response.content);
        EXPECT_EQ(bq.response.reasoning, oq.response.reasoning);
        EXPECT_EQ(bq.response.toolCalls, oq.response.toolCalls);
        EXPECT_EQ(bq.response.usage, oq.response.usage);
        EXPECT_EQ(bq.response.timings, oq.response.timings);
        EXPECT_EQ(bq.response.streamError, oq.response.streamError);
        EXPECT_EQ(bq.response.finishReason, oq.response.finishReason);
        EXPECT_EQ(bq.response.sawDone, oq.response.sawDone);
        EXPECT_EQ(bq.response.malformedSamples, oq.response.malformedSamples);
        EXPECT_EQ(bq.response.reasoningField, oq.response.reasoningField);
        EXPECT_EQ(bq.metrics.notes, oq.metrics.notes);
        EXPECT_EQ(bq.metrics.completionTokens.value, oq.metrics.completionTokens.value);
        EXPECT_EQ(bq.metrics.completionTokens.source, oq.metrics.completionTokens.source);
        EXPECT_EQ(bq.metrics.promptTokens.source, oq.metrics.promptTokens.source);
        EXPECT_EQ(bq.metrics.reasoningTokens.source, oq.metrics.reasoningTokens.source);
        EXPECT_EQ(bq.metrics.cachedPromptTokens.value, oq.metrics.cachedPromptTokens.value);
        EXPECT_EQ(bq.metrics.thinkingInContent, oq.metrics.thinkingInContent);

        // Event offsets are exact and stamps keep their distance from t0 (to the µs).
        ASSERT_EQ(bq.response.tokenEvents.size(), oq.response.tokenEvents.size());
        for (std::size_t e = 0; e < oq.response.tokenEvents.size(); ++e) {
            const TokenEvent& oe = oq.response.tokenEvents[e];
            const TokenEvent& be = bq.response.tokenEvents[e];
            EXPECT_EQ(be.contentBegin, oe.contentBegin);
            EXPECT_EQ(be.contentEnd, oe.contentEnd);
            EXPECT_EQ(be.reasoningBegin, oe.reasoningBegin);
            EXPECT_EQ(be.reasoningEnd, oe.reasoningEnd);
            EXPECT_EQ(be.toolCall, oe.toolCall);
            EXPECT_NEAR(msBetween(bq.timing.t0Ns, be.stampNs), msBetween(oq.timing.t0Ns, oe.stampNs), 0.0005);
        }
        // The rebuilt stamps give the same measurements when computed again.
        const RequestMetrics again = computeMetrics(bq.timing, bq.response);
        const auto near = [](const std::optional<double>& x, const std::optional<double>& y) {
            return x.has_value() == y.has_value() && (!x || std::fabs(*x - *y) < 0.002);
        };
        EXPECT_TRUE(near(again.ttftAnyMs, oq.metrics.ttftAnyMs));
        EXPECT_TRUE(near(again.ttftVisibleMs, oq.metrics.ttftVisibleMs));
        EXPECT_TRUE(near(again.firstSentenceMs, oq.metrics.firstSentenceMs));
        EXPECT_TRUE(near(again.e2eMs, oq.metrics.e2eMs));
        EXPECT_TRUE(near(again.ttfbMs, oq.metrics.ttfbMs));
        EXPECT_TRUE(near(again.streamEndMs, oq.metrics.streamEndMs));
        EXPECT_TRUE(near(again.connectMs, oq.metrics.connectMs));
        EXPECT_EQ(again.completionTokens.value, oq.metrics.completionTokens.value);
        EXPECT_TRUE(near(b.request.metrics.ttftAnyMs, oq.metrics.ttftAnyMs));
        EXPECT_TRUE(near(b.request.metrics.decodeTps, oq.metrics.decodeTps));
    }
    // A request that was never sent has no t0 after loading either.
    EXPECT_EQ(back.records[4].request.timing.t0Ns, 0);
    EXPECT_NE(back.records[4].request.timing.startNs, 0);
    EXPECT_NEAR(msBetween(back.records[4].request.timing.startNs, back.records[4].request.timing.endNs),
        412.345, 0.001);
}

TEST(ResultFile, EmptyRunAndHandWrittenMinimalRecordLoad)
{
    RunResult empty;
    empty.endpoints = makeEndpoints();
    const RunResult back = parseResults(serializeResults(empty), QStringLiteral("empty.json"));
    EXPECT_TRUE(back.records.empty());
    EXPECT_FALSE(back.startedAt.isValid());
    EXPECT_EQ(back.settings.warmup, -1);

    json j = fileJson(empty);
    j["records"] = json::array({{{"endpoint", "Q4_K_M sim"}, {"test", "t"}, {"iteration", 1},
        {"warmup", false}, {"ttft_any_ms", 12.5}, {"content", "Hi."},
        {"events", json::array({json::array({12.5, 3, 0, 0})})},
        {"error", {{"kind", "idle_timeout"}, {"message", "stalled"}}}}});
    const RunResult minimal = parseResults(bytesOf(j), QStringLiteral("hand.json"));
    ASSERT_EQ(minimal.records.size(), 1u);
    const RunRecord& r = minimal.records[0];
    EXPECT_EQ(r.endpoint, 1);
    EXPECT_EQ(r.request.metrics.ttftAnyMs, 12.5);
    EXPECT_EQ(r.request.failure.kind, FailureKind::IdleTimeout);
    EXPECT_EQ(r.request.failure.summary, QStringLiteral("stalled"));
    ASSERT_EQ(r.request.response.tokenEvents.size(), 1u);
    EXPECT_DOUBLE_EQ(msBetween(r.request.timing.t0Ns, r.request.response.tokenEvents[0].stampNs), 12.5);
}

TEST(ResultFile, RecordsBeforeTheHeaderAreReadInASecondPass)
{
    // A hand-edited file may put records first; std::map order puts "endpoints" first, so
    // build the text by hand.
    const RunResult r = makeResult();
    const json j = fileJson(r);
    std::string text = "{\"records\": " + j["records"].dump() + ", \"endpoints\": " + j["endpoints"].dump()
        + ", \"version\": 1, \"format\": \"quantscope-results\"}";
    const RunResult back = parseResults(QByteArray::fromStdString(text), QStringLiteral("edited.json"));
    ASSERT_EQ(back.records.size(), r.records.size());
    EXPECT_EQ(recordToJson(back.records[5], back.endpoints), j["records"][5]);
}

TEST(ResultFile, UnknownMembersAreIgnored)
{
    json j = fileJson(makeResult());
    j["future_field"] = json::array({1, 2, 3});
    j["records"][0]["future_metric"] = 1.5;
    EXPECT_EQ(parseResults(bytesOf(j), QStringLiteral("run.json")).records.size(), 6u);
}

// --- saving ------------------------------------------------------------------------------------

TEST(ResultFileSave, SavesAndLoads)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    const RunResult r = makeResult();
    EXPECT_EQ(saveResults(r, path), QString());
    EXPECT_EQ(readFile(path), serializeResults(r));
    EXPECT_EQ(serializeResults(loadResults(path)), serializeResults(r));
    // Overwriting replaces the file and leaves no temporary file behind.
    RunResult smaller = r;
    smaller.records.resize(1);
    EXPECT_EQ(saveResults(smaller, path), QString());
    EXPECT_EQ(loadResults(path).records.size(), 1u);
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("run.json")});
}

TEST(ResultFileSave, PathIsADirectory)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    ASSERT_TRUE(QDir().mkpath(path));
    const QString error = saveResults(makeResult(), path);
    EXPECT_TRUE(error.contains(QStringLiteral("directory"))) << error.toStdString();
    EXPECT_TRUE(QFileInfo(path).isDir());
}

TEST(ResultFileSave, FolderMissingOrAFile)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    EXPECT_TRUE(saveResults(makeResult(), dir.filePath(QStringLiteral("no/such/run.json")))
                    .contains(QStringLiteral("does not exist")));
    // A regular file where the folder should be: fails even for root.
    writeFile(dir.filePath(QStringLiteral("plain")), "x");
    const QString error = saveResults(makeResult(), dir.filePath(QStringLiteral("plain/run.json")));
    EXPECT_FALSE(error.isEmpty());
    EXPECT_EQ(readFile(dir.filePath(QStringLiteral("plain"))), QByteArray("x"));
}

TEST(ResultFileSave, ReadOnlyFolderKeepsTheOldFile)
{
    if (isRoot())
        GTEST_SKIP() << "root writes into read-only folders; ResultFileSave.FailedWriteKeepsTheOldFile "
                        "covers atomicity";
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    writeFile(path, "old contents");
    ASSERT_TRUE(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
    const QString error = saveResults(makeResult(), path);
    QFile::setPermissions(
        dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    EXPECT_TRUE(error.contains(QStringLiteral("not writable"))) << error.toStdString();
    EXPECT_EQ(readFile(path), QByteArray("old contents"));
}

TEST(ResultFileSave, FailedWriteKeepsTheOldFile)
{
    // RLIMIT_FSIZE makes write() fail with EFBIG part-way through the file, for root too: the
    // same failure as a full disk.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    writeFile(path, "old contents");
    RunResult big = makeResult();
    for (int i = 0; i < 200; ++i)
        big.records.push_back(big.records[i % 6]);
    ASSERT_GT(serializeResults(big).size(), 64 * 1024);

    rlimit old {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = 16 * 1024;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    const QString error = saveResults(big, path);
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, oldHandler);

    EXPECT_FALSE(error.isEmpty());
    EXPECT_EQ(readFile(path), QByteArray("old contents"));
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("run.json")})
        << "temporary file left";
}

// --- loading errors ----------------------------------------------------------------------------

TEST(ResultFileLoad, Unreadable)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    expectError([&] { loadResults(dir.filePath(QStringLiteral("missing.json"))); }, Kind::Unreadable,
        {"missing.json", "no such file"});
    expectError([&] { loadResults(dir.path()); }, Kind::Unreadable, {"is a directory"});
    expectError([] { loadResults(QStringLiteral("/dev/zero")); }, Kind::Unreadable, {"not a regular file"});
    if (!isRoot()) {
        const QString path = dir.filePath(QStringLiteral("secret.json"));
        writeFile(path, serializeResults(makeResult()));
        QFile::setPermissions(path, QFileDevice::WriteOwner);
        expectError([&] { loadResults(path); }, Kind::Unreadable, {"secret.json", "cannot read"});
    }
}

TEST(ResultFileLoad, TooLargeIsRefusedBeforeReading)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("huge.json"));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    if (!f.resize(MaxResultsFileBytes + 1)) // sparse: no disk space used
        GTEST_SKIP() << "the file system has no sparse files";
    f.close();
    QElapsedTimer timer;
    timer.start();
    expectError([&] { loadResults(path); }, Kind::TooLarge, {"huge.json", "MiB"});
    EXPECT_LT(timer.elapsed(), 1000);
}

TEST(ResultFileLoad, EmptyFile)
{
    expectParseError("", Kind::Truncated, {"run.json", "empty"});
    expectParseError(" \n\t\n", Kind::Truncated, {"empty"});
}

TEST(ResultFileLoad, TruncatedAtManyOffsets)
{
    const QByteArray bytes = serializeResults(makeResult());
    ASSERT_EQ(bytes.right(2), QByteArray("}\n"));
    std::vector<qsizetype> cuts;
    for (qsizetype n = 1; n < 300; ++n)
        cuts.push_back(n);
    for (qsizetype n = 300; n < bytes.size() - 1; n += 97)
        cuts.push_back(n);
    cuts.push_back(bytes.size() - 2); // only the final "}\n" missing
    // Cut inside a multi-byte UTF-8 character.
    const qsizetype utf8 = bytes.indexOf("\xF0\x9F\x98\x80");
    ASSERT_GT(utf8, 0);
    cuts.push_back(utf8 + 2);
    for (qsizetype n : cuts) {
        SCOPED_TRACE("cut at " + std::to_string(n));
        expectParseError(bytes.left(n), Kind::Truncated, {"run.json", "cut off"});
    }
    // Whole file minus only its last newline is complete.
    EXPECT_EQ(parseResults(bytes.left(bytes.size() - 1), QStringLiteral("run.json")).records.size(), 6u);
}

TEST(ResultFileLoad, TruncatedFileSuggestsTheJournal)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json"));
    writeFile(path, serializeResults(makeResult()).left(500));
    const std::string without = expectError([&] { loadResults(path); }, Kind::Truncated, {"cut off"});
    EXPECT_EQ(without.find("recover"), std::string::npos);
    writeFile(path + QStringLiteral(".journal"), "{}\n");
    expectError(
        [&] { loadResults(path); }, Kind::Truncated, {"cut off", "quantscope recover", "run.json.journal"});
}

TEST(ResultFileLoad, NotJsonSaysWhere)
{
    expectParseError("hello world", Kind::NotJson, {"run.json", "not valid JSON", "line 1, column 1"});
    expectParseError("{\"format\": \"quantscope-results\",\n \"version\": 1,\n oops}", Kind::NotJson,
        {"line 3, column 2"});
    expectParseError(QByteArray("\x00\x01\xff\xfe garbage", 12), Kind::NotJson, {"not valid JSON"});
    expectParseError("{\"a\": \"\xff\"}", Kind::NotJson, {"UTF-8"});
    expectParseError("{\"a\": 1}}", Kind::NotJson, {"line 1, column 9"});
}

TEST(ResultFileLoad, NotAResultsFile)
{
    expectParseError("[1, 2, 3]", Kind::NotResults, {"run.json", "not a Quantscope results file", "a list"});
    expectParseError("42", Kind::NotResults, {"a number"});
    expectParseError(R"({"records": []})", Kind::NotResults, {"no \"format\""});
    expectParseError(
        R"({"format": "other-tool", "version": 1, "records": []})", Kind::NotResults, {"\"other-tool\""});
    expectParseError(R"({"format": 3})", Kind::NotResults, {"its \"format\" is 3"});
    expectParseError(R"({"id": "my-suite", "tests": [{"id": "t", "prompt": "Hi"}]})", Kind::NotResults,
        {"looks like a suite"});
}

TEST(ResultFileLoad, NewerVersion)
{
    json j = fileJson(makeResult());
    j["version"] = 5;
    j["records"][0]["ttft_any_ms"] = "a future shape"; // never reached: the version is checked first
    j["telemetry"]["samples"] = "a future shape";
    expectParseError(bytesOf(j), Kind::NewerVersion,
        {"run.json", "newer Quantscope", "version 5", "reads version 4", "upgrade"});
    expectParseError(writerOrder(j), Kind::NewerVersion, {"newer Quantscope"});
    j["version"] = 0;
    expectParseError(bytesOf(j), Kind::BadField, {"version: 0 is out of range"});
    j["version"] = "1";
    expectParseError(bytesOf(j), Kind::BadField, {"version: expected a whole number, found a string"});
    j.erase("version");
    expectParseError(bytesOf(j), Kind::BadField, {"version: missing"});
}

TEST(ResultFileLoad, WrongTypesNameThePath)
{
    const json good = fileJson(makeResult());
    struct Case {
        std::function<void(json&)> edit;
        const char* message;
    };
    const std::vector<Case> cases = {
        {[](json& j) { j["records"][1]["ttft_any_ms"] = "fast"; },
            "run.json: records[1].ttft_any_ms: expected a number or null, found a string"},
        {[](json& j) { j["records"][0]["completion_tokens"] = 1.5; },
            "run.json: records[0].completion_tokens: expected a whole number, found 1.5"},
        {[](json& j) { j["records"][2]["warmup"] = "yes"; },
            "records[2].warmup: expected true or false, found a string"},
        {[](json& j) { j["records"][3].erase("test"); }, "records[3].test: missing"},
        {[](json& j) { j["records"][0]["events"][1] = "x"; },
            "records[0].events[1]: expected [t_ms, content_end"},
        {[](json& j) { j["records"][0]["events"][1][1] = 999; },
            "records[0].events[1][1]: 999 is out of range"},
        {[](json& j) { j["records"][0]["events"][1][0] = nullptr; },
            "records[0].events[1][0]: expected a time in ms, found null"},
        {[](json& j) {
             j["records"][0]["events"][1] = json::array({1.0, 2});
         },
            "a list of 2 values"},
        {[](json& j) { j["records"][2]["tool_calls"] = json::object(); },
            "records[2].tool_calls: expected a list or null, found an object"},
        {[](json& j) { j["records"][2]["tool_calls"][0]["name"] = 7; },
            "records[2].tool_calls[0].name: expected a string"},
        {[](json& j) { j["records"][0]["usage"]["prompt_tokens"] = "42"; },
            "records[0].usage.prompt_tokens: expected a whole number"},
        {[](json& j) { j["records"][1]["server_timings"]["prompt_ms"] = true; },
            "records[1].server_timings.prompt_ms: expected a number or null, found true/false"},
        {[](json& j) { j["records"][3]["error"]["kind"] = "exploded"; },
            "records[3].error.kind: unknown failure kind \"exploded\""},
        {[](json& j) { j["records"][0]["endpoint_index"] = 7; },
            "records[0].endpoint_index: 7 is out of range: the file lists 2 endpoints"},
        {[](json& j) { j["records"][0]["started_at"] = "yesterday"; },
            "records[0].started_at: expected an ISO 8601 time"},
        {[](json& j) { j["records"][0]["count_sources"]["prompt_tokens"] = "guess"; },
            "records[0].count_sources.prompt_tokens: expected usage, server_timings, estimate or none"},
        {[](json& j) { j["records"][0]["gates"] = json::array(); },
            "records[0].gates: expected an object or null, found a list"},
        {[](json& j) { j["records"][0]["stamps"]["t0"] = 1e12; }, "records[0].stamps.t0: time"},
        {[](json& j) { j["records"][4] = 5; }, "run.json: records[4]: expected an object, found a number"},
        {[](json& j) { j["records"][4] = json::array(); },
            "run.json: records[4]: expected an object, found a list"},
        {[](json& j) { j["records"] = json::object(); },
            "run.json: records: expected a list, found an object"},
        {[](json& j) { j["records"] = "none"; }, "run.json: records: expected a list, found a string"},
        {[](json& j) { j.erase("records"); }, "run.json: records: missing"},
        {[](json& j) { j["settings"]["order"] = "random"; },
            "run.json: settings.order: expected interleaved, sequential or parallel, found \"random\""},
        {[](json& j) { j["settings"]["seed"] = -1; }, "run.json: settings.seed: -1 is out of range"},
        {[](json& j) { j["started_at"] = 5; }, "run.json: started_at: expected a string, found a number"},
        {[](json& j) { j["complete"] = "true"; }, "run.json: complete: expected true or false"},
        {[](json& j) { j["endpoints"] = json::object(); },
            "run.json: endpoints: expected a list, found an object"},
        {[](json& j) { j.erase("endpoints"); }, "run.json: endpoints: missing"},
        {[](json& j) { j["endpoints"][0]["endpoint"]["api_key"] = "sk-123"; },
            "run.json: endpoints[0].endpoint: endpoint field \"api_key\" is not allowed"},
        {[](json& j) { j["endpoints"][1]["endpoint"]["runtime"] = "tgi"; },
            "run.json: endpoints[1].endpoint: endpoint field \"runtime\""},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.message);
        json j = good;
        c.edit(j);
        expectParseError(bytesOf(j), Kind::BadField, {c.message});
        expectParseError(writerOrder(j), Kind::BadField, {c.message});
    }
}

TEST(ResultFileLoad, JournalGivenAsResultsFileSaysRecover)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json.journal"));
    const RunResult r = makeResult();
    {
        RunJournal journal;
        ASSERT_EQ(journal.open(path, r), QString());
        // Header only, then with records: both are journals, not results files.
        expectError([&] { loadResults(path); }, Kind::NotResults, {"journal", "quantscope recover"});
        ASSERT_EQ(journal.append(r.records[0]), QString());
        ASSERT_EQ(journal.append(r.records[1]), QString());
        journal.close(false);
    }
    expectError([&] { loadResults(path); }, Kind::NotResults, {"journal", "quantscope recover"});
}

// --- junk --------------------------------------------------------------------------------------

namespace {

/// Release builds refuse each junk file in well under a second; unoptimised and sanitizer builds
/// run the parser ~20x slower.
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
constexpr qint64 kJunkBudgetMs = 30000;
#else
constexpr qint64 kJunkBudgetMs = 3000;
#endif

QByteArray repeated(const QByteArray& pattern)
{
    QByteArray block;
    block.reserve((1 << 20) + pattern.size());
    while (block.size() < (1 << 20))
        block += pattern;
    return block.left(1 << 20);
}

/// Writes `head` then 200 MiB of `block` (1 MiB, repeated), loads it and expects the error.
void refuseJunk(const QString& path, const QByteArray& head, const QByteArray& block, Kind kind,
    std::initializer_list<const char*> needles)
{
    {
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(head);
        for (int i = 0; i < 200; ++i)
            ASSERT_EQ(f.write(block), block.size());
    }
    ASSERT_GT(QFileInfo(path).size(), 200 * 1000 * 1000);
    QElapsedTimer timer;
    timer.start();
    expectError([&] { loadResults(path); }, kind, needles);
    EXPECT_LT(timer.elapsed(), kJunkBudgetMs);
    QFile::remove(path);
}

} // namespace

TEST(ResultFileLoad, TwoHundredMegabytesOfJunkAreRefusedQuickly)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("junk.json"));

    QByteArray random(1 << 20, '\0');
    std::mt19937_64 rng(42);
    for (qsizetype i = 0; i + 8 <= random.size(); i += 8) {
        const std::uint64_t v = rng();
        std::memcpy(random.data() + i, &v, 8);
    }
    random[0] = '\x93'; // make sure it does not start like JSON by chance
    {
        SCOPED_TRACE("random bytes");
        refuseJunk(path, {}, random, Kind::NotJson, {"junk.json", "not valid JSON", "line 1, column 1"});
    }
    {
        SCOPED_TRACE("a text log");
        refuseJunk(path, {}, repeated("2026-03-01 10:20:30 INFO request finished in 812 ms\n"), Kind::NotJson,
            {"not valid JSON"});
    }
    {
        SCOPED_TRACE("another program's JSON Lines");
        refuseJunk(path, {}, repeated("{\"level\": \"info\", \"msg\": \"ok\"}\n"), Kind::NotJson,
            {"line 2, column 1", "expected end of input"});
    }
    {
        SCOPED_TRACE("nesting deep enough to exhaust memory as a DOM");
        refuseJunk(path, R"({"format": "quantscope-results", "suite": )", repeated("["), Kind::NotResults,
            {"nested deeper than 512"});
    }
    {
        SCOPED_TRACE("an endless list of numbers");
        refuseJunk(path, R"({"format": "quantscope-results", "version": 1, "suite": [)", repeated("1,"),
            Kind::TooLarge, {"more than 2000000 JSON values"});
    }
    {
        SCOPED_TRACE("endless records of the wrong type");
        refuseJunk(path, R"({"format": "quantscope-results", "version": 1, "endpoints": [], "records": [)",
            repeated("1,"), Kind::BadField, {"records[0]: expected an object, found a number"});
    }
}

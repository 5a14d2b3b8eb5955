// SPDX-License-Identifier: MIT
// The quick reader of big files (readWriterLayout: FastRecordReader per record line) against the
// strict whole-file reader: for any bytes, parseResults() must give what readStrictly() gives —
// the same run (saved again: the same bytes) or the same error, word for word.

#include "ResultsTestSupport.h"
#include "model/store/ResultFormat.h"

#include <QDir>
#include <random>

namespace qs::test {
namespace {

struct Outcome {
    bool ok = false;
    std::string text; ///< the run saved again, or the error's kind and message
};

Outcome outcome(const std::function<RunResult()>& read)
{
    try {
        const RunResult r = read();
        return {true, serializeResults(r).toStdString()};
    } catch (const ResultFileError& e) {
        return {false, std::to_string(int(e.kind())) + ": " + e.what()};
    }
}

/// parseResults (quick where it can) and readStrictly agree on `bytes`.
void expectSameAsStrict(const QByteArray& bytes, const std::string& what)
{
    const std::string source = "t.json";
    const Outcome strict = outcome([&] { return results::readStrictly(bytes, source); });
    const Outcome quick = outcome([&] { return parseResults(bytes, QString::fromStdString(source)); });
    EXPECT_EQ(quick.ok, strict.ok) << what << "\nquick: " << quick.text.substr(0, 300)
                                   << "\nstrict: " << strict.text.substr(0, 300);
    EXPECT_EQ(quick.text, strict.text) << what;
}

/// makeResult() with logprobs and a reference endpoint; with `sides`, telemetry and judging too
/// (the header the quick reader leaves to the strict one).
RunResult fullResult(bool sides = true)
{
    RunResult r = makeResult();
    if (sides) {
        r.telemetry = makeTelemetry();
        r.judging = makeJudging();
    }
    LogprobStream s;
    s.chunks = 2;
    s.impossible = 1;
    TokenLogprob paris {QStringLiteral(" Paris"), QByteArray(" Paris"), -0.0124, 12095, {}, true};
    paris.top.push_back({QStringLiteral(" Paris"), QByteArray(" Paris"), -0.0124, 12095});
    paris.top.push_back({QString(), QByteArray("\xE2\x80", 2), -9.5, 2001});
    paris.top.push_back(
        {QStringLiteral(" Berlin"), QByteArray(" Berlin"), -std::numeric_limits<double>::infinity(), 75503});
    s.tokens.push_back(paris);
    s.tokens.push_back(
        {QStringLiteral("ü"), QByteArray("\xEF\xBF\xBD"), std::nullopt, std::nullopt, {}, false});
    r.records[0].request.response.logprobs = s;
    r.records[0].request.timing.arrivalStampedReads = 41;
    r.records[0].request.timing.readTimeStampedReads = 2;
    r.endpoints[1].reference = true;
    r.userNote = QStringLiteral("strategy B: MLP-only, 500 conversations");
    r.endpoints[1].endpoint.meta[QStringLiteral("calibration")] = QStringLiteral("annie-500");
    return r;
}

/// The file's record lines: [begin, end) of each record's text (without the comma).
std::vector<std::pair<qsizetype, qsizetype>> recordSpans(const QByteArray& bytes)
{
    std::vector<std::pair<qsizetype, qsizetype>> spans;
    qsizetype at = bytes.indexOf("\n \"records\": [");
    while ((at = bytes.indexOf("\n  {", at)) >= 0) {
        const qsizetype begin = at + 3;
        qsizetype end = bytes.indexOf('\n', begin);
        if (bytes[end - 1] == ',')
            --end;
        spans.emplace_back(begin, end);
        at = end;
    }
    return spans;
}

TEST(FastReader, ReadsEverySavedRecordTheQuickWay)
{
    const RunResult r = fullResult();
    const QByteArray bytes = serializeResults(r);
    std::size_t declined = 99;
    const std::optional<RunResult> quick = results::readWriterLayout(bytes, "t.json", &declined);
    ASSERT_TRUE(quick.has_value());
    EXPECT_EQ(declined, 0u) << "every record our writer writes is read without nlohmann";
    EXPECT_EQ(serializeResults(*quick), bytes);
    const RunResult strict = results::readStrictly(bytes, "t.json");
    ASSERT_EQ(quick->records.size(), strict.records.size());
    for (std::size_t i = 0; i < strict.records.size(); ++i) {
        // With the per-event offsets (the file keeps only ends) and what the file does not write.
        EXPECT_EQ(toJson(quick->records[i].request), toJson(strict.records[i].request)) << i;
        EXPECT_EQ(quick->records[i].startedAt, strict.records[i].startedAt) << i;
        EXPECT_EQ(quick->records[i].startedAt.timeSpec(), strict.records[i].startedAt.timeSpec()) << i;
        EXPECT_EQ(quick->records[i].request.url, strict.records[i].request.url) << i;
    }
    EXPECT_EQ(quick->userNote, r.userNote);
    EXPECT_EQ(quick->endpoints[1].endpoint.meta, r.endpoints[1].endpoint.meta);
    // How the reads were stamped, written only where counted, read back by both readers.
    EXPECT_EQ(bytes.count("\"stamped_reads\""), 1);
    for (const RunResult* x : {&*quick, &strict}) {
        EXPECT_EQ(x->records[0].request.timing.arrivalStampedReads, 41);
        EXPECT_EQ(x->records[0].request.timing.readTimeStampedReads, 2);
        EXPECT_EQ(x->records[1].request.timing.arrivalStampedReads, 0);
    }
}

TEST(FastReader, EqualTextsAreHeldOnce)
{
    RunResult r = makeResultWith(12);
    const QByteArray bytes = serializeResults(r);
    const RunResult back = parseResults(bytes, QStringLiteral("t.json"));
    // makeResultWith repeats makeResult's six records: bodies, verdicts and answers are shared.
    EXPECT_TRUE(back.records[0].request.requestBody.sharesWith(back.records[6].request.requestBody));
    EXPECT_TRUE(back.records[0].gates.sharesWith(back.records[6].gates));
    EXPECT_EQ(back.records[0].request.response.content.constData(),
        back.records[6].request.response.content.constData());
    EXPECT_EQ(back.records[0].test.constData(), back.records[6].test.constData());
}

TEST(FastReader, SameAsStrictOnTheTestData)
{
    const QDir dir(QStringLiteral(QS_TEST_DATA_DIR "/results"));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
    ASSERT_FALSE(files.isEmpty());
    for (const QString& name : files) {
        const QByteArray bytes = readFile(dir.filePath(name));
        expectSameAsStrict(bytes, name.toStdString());
        std::size_t declined = 0;
        const auto quick = results::readWriterLayout(bytes, "t.json", &declined);
        EXPECT_TRUE(quick.has_value()) << name.toStdString() << ": saved by Quantscope, read the quick way";
    }
}

TEST(FastReader, EmptyRunsAndOtherLayouts)
{
    RunResult empty = makeResult();
    empty.records.clear();
    expectSameAsStrict(serializeResults(empty), "no records");
    EXPECT_TRUE(results::readWriterLayout(serializeResults(empty), "t.json").has_value());
    // Pretty-printed, or sorted with records first: not the writer's layout, read strictly.
    const json j = fileJson(makeResult());
    expectSameAsStrict(QByteArray::fromStdString(j.dump(2)), "pretty");
    expectSameAsStrict(bytesOf(j), "one line");
    EXPECT_FALSE(results::readWriterLayout(QByteArray::fromStdString(j.dump(2)), "t.json").has_value());
    // Something after the end, a record cut short, a missing comma.
    const QByteArray bytes = serializeResults(makeResult());
    expectSameAsStrict(bytes + "x", "trailing junk");
    expectSameAsStrict(bytes.left(bytes.size() - 8), "cut");
    QByteArray noComma = bytes;
    noComma.replace("},\n  {", "}\n  {");
    expectSameAsStrict(noComma, "no comma");
}

/// One record's member replaced by each of a set of values (or removed), nested members too.
TEST(FastReader, EveryMemberOfTheWrongKindGivesTheStrictError)
{
    const QByteArray bytes = serializeResults(fullResult(false));
    const auto spans = recordSpans(bytes);
    ASSERT_EQ(spans.size(), 6u);
    const std::vector<json> values = {nullptr, "x", 1.5, 5.0, -1, 3, true, json::array(), json::object(),
        1e300, json::array({json::array({1.0, 0, 0, 0})}), "2026-03-01T10:20:30.456Z", "usage"};
    int cases = 0;
    for (std::size_t rec = 0; rec < spans.size(); ++rec) {
        const auto [begin, end] = spans[rec];
        const json record = json::parse(bytes.mid(begin, end - begin).toStdString());
        const auto with = [&](const json& changed) {
            QByteArray b = bytes;
            b.replace(begin, end - begin, QByteArray::fromStdString(results::dumpCompact(changed)));
            return b;
        };
        for (const auto& [key, value] : record.items()) {
            json removed = record;
            removed.erase(key);
            expectSameAsStrict(with(removed), "record " + std::to_string(rec) + " without " + key);
            for (const json& v : values) {
                json changed = record;
                changed[key] = v;
                expectSameAsStrict(
                    with(changed), "record " + std::to_string(rec) + " " + key + "=" + v.dump());
                ++cases;
            }
            if (value.is_object() && (rec == 0 || rec == 5)) { // nested: two records suffice
                for (const auto& [inner, innerValue] : value.items()) {
                    (void)innerValue;
                    for (const json& v : values) {
                        json changed = record;
                        changed[key][inner] = v;
                        expectSameAsStrict(with(changed), key + "." + inner + "=" + v.dump());
                        ++cases;
                    }
                }
                json extra = record;
                extra[key]["unknown_member"] = 1;
                expectSameAsStrict(with(extra), key + " with an unknown member");
            }
            if (key == "events" && !value.empty() && rec == 0) {
                for (std::size_t part = 0; part < 4; ++part) {
                    for (const json& v : values) {
                        json changed = record;
                        changed[key][0][part] = v;
                        expectSameAsStrict(
                            with(changed), "events[0][" + std::to_string(part) + "]=" + v.dump());
                        ++cases;
                    }
                }
            }
        }
    }
    EXPECT_GT(cases, 3000);
}

TEST(FastReader, TextTheTwoParsersMightReadApart)
{
    const QByteArray bytes = serializeResults(makeResult());
    const auto [begin, end] = recordSpans(bytes)[0];
    const QByteArray line = bytes.mid(begin, end - begin);
    const auto edit = [&](const QByteArray& from, const QByteArray& to) {
        QByteArray b = line;
        b.replace(from, to);
        QByteArray file = bytes;
        file.replace(begin, end - begin, b);
        return file;
    };
    const std::pair<const char*, const char*> edits[] = {
        {"\"test\":\"factual\"", "\"test\":\"fa\\ud83d\\ude00ctual\""}, // a surrogate pair
        {"\"test\":\"factual\"", "\"test\":\"fa\\ud83dctual\""}, // a lone surrogate
        {"\"test\":\"factual\"", "\"test\":\"fa\\u0000ctual\""}, // NUL
        {"\"test\":\"factual\"", "\"test\":\"fa\tctual\""}, // a raw tab inside a string
        {"\"test\":\"factual\"", "\"test\":\"fa\\xctual\""}, // a bad escape
        {"\"test\":\"factual\"", "\"test\":\"factual\",\"test\":\"again\""}, // a repeated member
        {"\"turn\":1", "\"turn\":18446744073709551615"}, // above INT64_MAX
        {"\"turn\":1", "\"turn\":123456789012345678901234567890"}, // above UINT64_MAX
        {"\"turn\":1", "\"turn\":1e400"}, // overflows a double
        {"\"turn\":1", "\"turn\":01"}, // a leading zero
        {"\"turn\":1", "\"turn\":-0"},
        {"\"turn\":1", "\"turn\":1.0"},
        {"\"turn\":1", "\"turn\" : 1"}, // spaces between tokens
        {"\"turn\":1", "\"t\\u0075rn\":1"}, // an escaped key
        {"\"warmup\":false", "\"warmup\":fals"},
        {"\"ok\":true", "\"ok\":[1,}"},
    };
    for (const auto& [from, to] : edits) {
        ASSERT_TRUE(line.contains(from)) << from;
        expectSameAsStrict(edit(from, to), to);
    }
    // A request body nested deeper than either reader allows, and one just inside.
    for (const int depth : {200, 300, 509, 511, 600}) {
        const QByteArray nested = "\"request\":" + QByteArray(depth, '[') + QByteArray(depth, ']');
        QByteArray b = line;
        const qsizetype at = b.indexOf("\"request\":");
        const qsizetype close = b.indexOf(",\"response_id\"");
        b.replace(at, close - at, nested);
        QByteArray file = bytes;
        file.replace(begin, end - begin, b);
        expectSameAsStrict(file, "request nested " + std::to_string(depth) + " deep");
    }
}

/// Random edits of the record lines: whatever the bytes, the two readers agree.
TEST(FastReader, RandomEditsGiveTheStrictOutcome)
{
    const QByteArray bytes = serializeResults(fullResult(false));
    const auto spans = recordSpans(bytes);
    std::mt19937 rng(24);
    const QByteArray alphabet = QByteArrayLiteral("\"\\{}[],:0123456789-+.eEuntrfl \x01\x7f\xc3\xff");
    int quickAccepted = 0;
    for (int round = 0; round < 3000; ++round) {
        QByteArray b = bytes;
        const auto [begin, end] = spans[std::size_t(rng()) % spans.size()];
        const int edits = 1 + int(rng() % 3);
        for (int k = 0; k < edits; ++k) {
            const qsizetype at = begin + qsizetype(rng() % std::uint32_t(end - begin - edits));
            switch (rng() % 3) {
            case 0:
                b[at] = alphabet[qsizetype(rng() % std::uint32_t(alphabet.size()))];
                break;
            case 1:
                b.remove(at, 1 + qsizetype(rng() % 4));
                break;
            default:
                b.insert(at, alphabet[qsizetype(rng() % std::uint32_t(alphabet.size()))]);
                break;
            }
        }
        expectSameAsStrict(b, "round " + std::to_string(round));
        if (results::readWriterLayout(b, "t.json"))
            ++quickAccepted;
        if (HasFailure())
            break;
    }
    // Not all edits break a record (a digit for a digit): some files still load the quick way.
    EXPECT_GT(quickAccepted, 100);
}

} // namespace
} // namespace qs::test

// SPDX-License-Identifier: MIT
// The run journal: what a killed run leaves behind, and recovering it into a results file.
#include "ResultsTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <atomic>
#include <csignal>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace qs;
using namespace qs::test;
using Kind = ResultFileError::Kind;

namespace {

/// A journal with the header and `n` records; returns its path.
QString writeJournal(const QTemporaryDir& dir, const RunResult& r, int n)
{
    const QString path = RunJournal::journalPathFor(dir.filePath(QStringLiteral("run.json")));
    RunJournal journal;
    EXPECT_EQ(journal.open(path, r), QString());
    EXPECT_TRUE(journal.isOpen());
    for (int i = 0; i < n; ++i)
        EXPECT_EQ(journal.append(numbered(r, i)), QString());
    journal.close(false);
    return path;
}

std::string expectRecoverError(const QString& path, Kind kind, std::initializer_list<const char*> needles)
{
    return expectError([&] { recoverJournal(path); }, kind, needles);
}

} // namespace

TEST(RunJournal, PathBesideTheResultsFile)
{
    EXPECT_EQ(
        RunJournal::journalPathFor(QStringLiteral("/tmp/run.json")), QStringLiteral("/tmp/run.json.journal"));
}

TEST(RunJournal, HeaderLineThenOneLinePerRecord)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 3);
    const QList<QByteArray> lines = readFile(path).split('\n');
    ASSERT_EQ(lines.size(), 5); // header, 3 records, "" after the last newline
    EXPECT_TRUE(lines[4].isEmpty());
    const json header = json::parse(lines[0].toStdString());
    EXPECT_EQ(header["journal"], true);
    EXPECT_EQ(header["format"], "quantscope-results");
    EXPECT_FALSE(header.contains("records"));
    EXPECT_EQ(json::parse(lines[1].toStdString()), recordToJson(numbered(r, 0), r.endpoints));
}

TEST(RunJournal, RecoversEveryRecord)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 10);
    const RunResult back = recoverJournal(path);
    EXPECT_FALSE(back.complete);
    EXPECT_TRUE(back.note.contains(QStringLiteral("recovered from run.json.journal: 10 finished requests")))
        << back.note.toStdString();
    EXPECT_TRUE(back.note.startsWith(r.note)); // the run's own note is kept
    EXPECT_TRUE(back.endedAt.isValid());
    EXPECT_EQ(back.host, r.host);
    EXPECT_EQ(back.suite, r.suite);
    ASSERT_EQ(back.records.size(), 10u);
    for (int i = 0; i < 10; ++i)
        EXPECT_EQ(recordToJson(back.records[std::size_t(i)], back.endpoints),
            recordToJson(numbered(r, i), r.endpoints))
            << i;
    // Records 0–3 and 6–9 are the same requests: their bodies and verdicts are held once.
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_TRUE(back.records[i + 6].request.requestBody.sharesWith(back.records[i].request.requestBody));
        EXPECT_TRUE(back.records[i + 6].gateDetails.sharesWith(back.records[i].gateDetails));
    }

    // The recovered run saves and loads as a normal results file.
    const QString out = dir.filePath(QStringLiteral("recovered.json"));
    EXPECT_EQ(saveResults(back, out), QString());
    EXPECT_EQ(loadResults(out).records.size(), 10u);
}

// What the runner lets go of during a long run (token timelines) it reads back at the end, by
// where append() put each line — even when the journal's name was deleted meanwhile.
TEST(RunJournal, ReadsBackEachRecordWhereItWasWrittenEvenAfterTheFileIsDeleted)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = RunJournal::journalPathFor(dir.filePath(QStringLiteral("run.json")));
    RunJournal journal;
    ASSERT_EQ(journal.open(path, r), QString());
    ASSERT_TRUE(journal.canReadBack());
    std::vector<JournalSpan> spans;
    for (int i = 0; i < 5; ++i) {
        JournalSpan span;
        ASSERT_EQ(journal.append(numbered(r, i), &span), QString());
        ASSERT_TRUE(span.written());
        spans.push_back(span);
    }
    const QList<QByteArray> lines = readFile(path).split('\n');
    ASSERT_TRUE(QFile::remove(path)); // someone tidies the folder during the run
    for (int i = 0; i < 5; ++i) {
        const std::optional<QByteArray> line = journal.readBack(spans[std::size_t(i)]);
        ASSERT_TRUE(line);
        EXPECT_EQ(*line, lines[i + 1]) << i; // exactly the line, without its line end
    }
    const std::vector<std::optional<RunRecord>> back = journal.readBackRecords(spans);
    ASSERT_EQ(back.size(), 5u);
    for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(back[std::size_t(i)]) << i;
        EXPECT_EQ(
            recordToJson(*back[std::size_t(i)], r.endpoints), recordToJson(numbered(r, i), r.endpoints));
    }
    // A span that points past the end, or at the middle of a line, says so instead of inventing.
    QString error;
    EXPECT_FALSE(journal.readBack({spans.back().offset + 10'000, 40}, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("cannot read back the run journal"))) << error.toStdString();
    QStringList errors;
    const auto bad = journal.readBackRecords({{spans[1].offset + 3, spans[1].length - 3}}, &errors);
    ASSERT_EQ(bad.size(), 1u);
    EXPECT_FALSE(bad[0]);
    EXPECT_EQ(errors.size(), 1);
    journal.close(false);
    EXPECT_FALSE(journal.readBack(spans[0]));
}

TEST(RunJournal, KilledMidLineDropsOnlyThatLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const int n = 8;
    const QString path = writeJournal(dir, r, n);
    const QByteArray full = readFile(path);
    const qsizetype lastStart = full.lastIndexOf('\n', full.size() - 2) + 1;
    const qsizetype lastLength = full.size() - lastStart; // including its '\n'
    for (qsizetype keep : {qsizetype(1), qsizetype(2), lastLength / 3, lastLength / 2, lastLength - 2}) {
        SCOPED_TRACE("kept " + std::to_string(keep) + " bytes of the last line");
        writeFile(path, full.left(lastStart + keep));
        const RunResult back = recoverJournal(path);
        ASSERT_EQ(back.records.size(), std::size_t(n - 1));
        EXPECT_EQ(back.records.back().iteration, n - 1);
        EXPECT_TRUE(back.note.contains(QStringLiteral("the last line (line %1").arg(n + 1)))
            << back.note.toStdString();
        EXPECT_TRUE(back.note.contains(QStringLiteral("cut off"))) << back.note.toStdString();
        EXPECT_FALSE(back.complete);
    }
    // Only the newline missing: the record is whole and kept.
    writeFile(path, full.left(full.size() - 1));
    const RunResult whole = recoverJournal(path);
    EXPECT_EQ(whole.records.size(), std::size_t(n));
    EXPECT_TRUE(whole.note.contains(QStringLiteral("no line end"))) << whole.note.toStdString();
}

TEST(RunJournal, GarbageInTheMiddleNamesTheLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 5);
    QList<QByteArray> lines = readFile(path).split('\n');
    lines[3] = "{\"endpoint\": \"NVFP4 vLLM\", \"test\": tru"; // line 4: a record cut and then written over
    writeFile(path, lines.join('\n'));
    expectRecoverError(
        path, Kind::NotJson, {"run.json.journal: line 4", "not valid JSON", "fix or delete line 4"});

    // A parseable line with a bad field is reported with its line and field.
    lines = readFile(path).split('\n');
    json bad = recordToJson(numbered(r, 1), r.endpoints);
    bad["ttft_any_ms"] = "soon";
    lines[3] = QByteArray::fromStdString(bad.dump());
    writeFile(path, lines.join('\n'));
    expectRecoverError(path, Kind::BadField,
        {"run.json.journal: line 4: ttft_any_ms: expected a number or null, found a string"});
}

TEST(RunJournal, AGapLineNamesWhatIsMissing)
{
    // What RunJournal writes after lines it could not write (disk full): counted into the note.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 4);
    QList<QByteArray> lines = readFile(path).split('\n');
    lines.insert(3, R"({"journal_gap": {"records": 2, "samples": 5, "error": "No space left on device"}})");
    lines.insert(5, R"({"journal_gap": {"records": 1, "samples": 0, "error": "File too large"}})");
    writeFile(path, lines.join('\n'));
    RunResult back = recoverJournal(path);
    EXPECT_EQ(back.records.size(), 4u);
    EXPECT_TRUE(
        back.note.contains(QStringLiteral("; 3 finished requests and 5 server metrics samples could not "
                                          "be written to the journal during the run (File too large) "
                                          "and are missing")))
        << back.note.toStdString();
    // Junk counts are not trusted, and do not stop recovery.
    lines = readFile(path).split('\n');
    lines[3] = R"({"journal_gap": {"records": "many", "samples": -4, "error": 7}})";
    lines[5] = R"({"journal_gap": []})";
    writeFile(path, lines.join('\n'));
    back = recoverJournal(path);
    EXPECT_EQ(back.records.size(), 4u);
    EXPECT_FALSE(back.note.contains(QStringLiteral("could not be written"))) << back.note.toStdString();
}

TEST(RunJournal, HeaderOnlyEmptyAndCutHeader)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = writeJournal(dir, r, 0);
    const RunResult back = recoverJournal(path);
    EXPECT_TRUE(back.records.empty());
    EXPECT_TRUE(back.note.contains(QStringLiteral("0 finished requests")));

    const QByteArray header = readFile(path);
    writeFile(path, header.left(header.size() / 2));
    expectRecoverError(path, Kind::Truncated, {"first line", "cut off", "nothing to recover"});
    writeFile(path, "");
    expectRecoverError(path, Kind::Truncated, {"empty"});
    writeFile(path, "hello\n");
    expectRecoverError(path, Kind::NotJson, {"line 1"});
    writeFile(path, "{\"format\": \"something-else\"}\n");
    expectRecoverError(path, Kind::NotResults, {"not a Quantscope run journal"});
    expectRecoverError(dir.filePath(QStringLiteral("missing.journal")), Kind::Unreadable, {"no such file"});
}

TEST(RunJournal, UnwritableLocationGivesAnError)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    RunJournal journal;
    // A regular file where the folder should be: fails even for root.
    writeFile(dir.filePath(QStringLiteral("plain")), "x");
    QString error = journal.open(dir.filePath(QStringLiteral("plain/run.json.journal")), makeResult());
    EXPECT_TRUE(error.contains(QStringLiteral("cannot create the run journal"))) << error.toStdString();
    EXPECT_FALSE(journal.isOpen());
    EXPECT_FALSE(journal.append(makeResult().records[0]).isEmpty());

    if (::geteuid() != 0) {
        const QString ro = dir.filePath(QStringLiteral("ro"));
        ASSERT_TRUE(QDir().mkpath(ro));
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        error = journal.open(ro + QStringLiteral("/run.json.journal"), makeResult());
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        EXPECT_TRUE(error.contains(QStringLiteral("not writable"))) << error.toStdString();
    }
}

TEST(RunJournal, ASecondRunCannotTakeAJournalInUse)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run.json.journal"));
    RunJournal first;
    ASSERT_EQ(first.open(path, makeResult()), QString());
    ASSERT_EQ(first.append(makeResult().records[0]), QString());
    const qint64 size = QFileInfo(path).size();

    RunJournal second; // e.g. `quantscope run --out run.json` started twice
    const QString error = second.open(path, makeResult());
    EXPECT_TRUE(error.contains(QStringLiteral("another run is writing it"))) << error.toStdString();
    EXPECT_FALSE(second.isOpen());
    EXPECT_EQ(QFileInfo(path).size(), size); // the first run's journal is untouched
    EXPECT_EQ(recoverJournal(path).records.size(), 1u);

    first.close(false); // once the first run is done, the name is free again
    EXPECT_EQ(second.open(path, makeResult()), QString());
    EXPECT_LT(QFileInfo(path).size(), size); // and a new journal starts empty
}

TEST(RunJournal, CloseRemovesOnlyWhenAsked)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("a.journal"));
    RunJournal journal;
    ASSERT_EQ(journal.open(path, makeResult()), QString());
    EXPECT_EQ(journal.path(), path);
    journal.close(true);
    EXPECT_FALSE(QFileInfo::exists(path));
    ASSERT_EQ(journal.open(path, makeResult()), QString());
    journal.close(false);
    EXPECT_TRUE(QFileInfo::exists(path));
}

TEST(RunJournal, SigkillLosesNoFinishedRecord)
{
    // A child appends records and reports each finished append() through a pipe; the parent
    // kills it with SIGKILL at a random moment mid-run. Every acknowledged record must be there.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = dir.filePath(QStringLiteral("killed.json.journal"));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(fds[0]);
        RunJournal journal;
        if (!journal.open(path, r).isEmpty())
            ::_exit(2);
        for (int i = 0;; ++i) {
            if (!journal.append(numbered(r, i)).isEmpty())
                ::_exit(3);
            if (::write(fds[1], &i, sizeof i) != sizeof i)
                ::_exit(4);
        }
    }
    ::close(fds[1]);
    int acknowledged = -1;
    int i = 0;
    while (acknowledged < 300 && ::read(fds[0], &i, sizeof i) == sizeof i)
        acknowledged = i;
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ::waitpid(child, &status, 0);
    ::close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    ASSERT_GE(acknowledged, 300);

    const RunResult back = recoverJournal(path);
    ASSERT_GE(back.records.size(), std::size_t(acknowledged + 1));
    for (std::size_t k = 0; k < back.records.size(); ++k)
        ASSERT_EQ(back.records[k].iteration, int(k) + 1);
}

// --- telemetry ---------------------------------------------------------------------------------

namespace {

/// Journals `t`'s samples in order, each with its source as it stood then: the tables of
/// makeTelemetry() grow while the run goes (a series at a time, a family, a note).
QString journalTelemetry(const QTemporaryDir& dir, RunResult r, const Telemetry& t)
{
    const QString path = dir.filePath(QStringLiteral("t.json.journal"));
    r.telemetry = Telemetry {};
    r.telemetry.periodMs = t.periodMs;
    r.telemetry.notes = t.notes;
    RunJournal journal;
    EXPECT_EQ(journal.open(path, r), QString());
    std::vector<TelemetrySource> growing(t.sources.size());
    for (std::size_t i = 0; i < t.sources.size(); ++i) {
        growing[i] = t.sources[i];
        growing[i].series.resize(2);
        growing[i].families.resize(1);
        growing[i].notes.clear();
    }
    for (std::size_t k = 0; k < t.samples.size(); ++k) {
        const TelemetrySample& s = t.samples[k];
        TelemetrySource& src = growing[std::size_t(s.source)];
        const TelemetrySource& whole = t.sources[std::size_t(s.source)];
        const bool last = k + 3 >= t.samples.size(); // the last lines: the whole tables
        const std::size_t need = last ? whole.series.size()
            : s.values.empty()        ? 0
                                      : std::size_t(s.values.back().first) + 1;
        while (src.series.size() < need)
            src.series.push_back(whole.series[src.series.size()]);
        if (last) {
            src.families = whole.families;
            src.notes = whole.notes;
        }
        EXPECT_EQ(journal.appendTelemetry(s.source, src, s), QString());
    }
    journal.close(false);
    return path;
}

} // namespace

TEST(RunJournal, TelemetryLinesCarryTheSampleAndWhatTheTablesGained)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const Telemetry t = makeTelemetry();
    const QString path = journalTelemetry(dir, makeResult(), t);
    const QList<QByteArray> lines = readFile(path).split('\n');
    ASSERT_EQ(lines.size(), qsizetype(t.samples.size() + 2));
    const json header = json::parse(lines[0].toStdString());
    EXPECT_EQ(header["telemetry"], json::parse(R"({"notes":["scrape period 333 ms"],"period_ms":333})"));

    // Source 0's first line describes it and carries the tables so far.
    const json first = json::parse(lines[1].toStdString());
    EXPECT_EQ(first["telemetry"]["s"], 0);
    EXPECT_EQ(first["telemetry"]["phase"], "idle_before");
    EXPECT_EQ(first["source"]["url"], "http://127.0.0.1:8000/metrics");
    EXPECT_EQ(first["source"]["kind"], "runtime");
    EXPECT_EQ(first["source"]["endpoint"], 0);
    EXPECT_EQ(first["source"]["process_start_unix"], 1772360400.25);
    EXPECT_EQ(first["source"]["series"].size(), 6u); // its sample used index 5
    EXPECT_EQ(first["source"]["families"].size(), 1u);
    // Source 0's second line: nothing new, so no "source" at all.
    const json second = json::parse(lines[3].toStdString());
    EXPECT_EQ(second["telemetry"]["s"], 0);
    EXPECT_FALSE(second.contains("source")) << second.dump();
    // The gap: its error, no values.
    const json gap = json::parse(lines[4].toStdString());
    EXPECT_EQ(gap["telemetry"]["error"], "timed out after 2000 ms (exporter slow?)");
    EXPECT_FALSE(gap["telemetry"].contains("v"));
    // Source 1's last line: only the entries it gained, no description again.
    const json late = json::parse(lines[5].toStdString());
    EXPECT_FALSE(late["source"].contains("url")) << late.dump();
    EXPECT_FALSE(late["source"].contains("series")) << late.dump(); // none new
    EXPECT_EQ(late["source"]["families"].size(), 1u);
    EXPECT_EQ(late["source"]["notes"], json::array({"1.2 s: connection refused (exporter down?)"}));
}

TEST(RunJournal, RecoversTelemetryAndItsPeriod)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const Telemetry t = makeTelemetry();
    const RunResult back = recoverJournal(journalTelemetry(dir, makeResult(), t));
    expectSameTelemetry(back.telemetry, t);
    EXPECT_TRUE(back.note.contains(QStringLiteral("0 finished requests and 7 server metrics samples")))
        << back.note.toStdString();
}

TEST(RunJournal, ADescriptionChangeIsWrittenAgain)
{
    // A restarted server: new process start, new format. The journal says so; recovery keeps the last.
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("d.json.journal"));
    RunJournal journal;
    ASSERT_EQ(journal.open(path, makeResult()), QString());
    TelemetrySource s
        = makeSource(1, QStringLiteral("http://h:8080/metrics"), TelemetrySource::Kind::Runtime, 2);
    TelemetrySample sample;
    sample.values = {{0, 1}};
    ASSERT_EQ(journal.appendTelemetry(3, s, sample), QString());
    s.processStartUnix = 1772360999.0;
    s.format = QStringLiteral("openmetrics-1.0.0");
    sample.atMs = 333;
    ASSERT_EQ(journal.appendTelemetry(3, s, sample), QString());
    journal.close(false);
    const QList<QByteArray> lines = readFile(path).split('\n');
    EXPECT_EQ(json::parse(lines[2].toStdString())["source"]["format"], "openmetrics-1.0.0");
    const RunResult back = recoverJournal(path);
    ASSERT_EQ(back.telemetry.sources.size(), 1u); // numbered by first appearance
    EXPECT_TRUE(back.telemetry.sources[0] == s);
    ASSERT_EQ(back.telemetry.samples.size(), 2u);
    EXPECT_EQ(back.telemetry.samples[1].source, 0);
}

TEST(RunJournal, TelemetryFromOneThreadAndRecordsFromAnotherAllRecovered)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const RunResult r = makeResult();
    const QString path = dir.filePath(QStringLiteral("threads.json.journal"));
    RunJournal journal;
    ASSERT_EQ(journal.open(path, r), QString());
    constexpr int kRecords = 2000;
    constexpr int kSamples = 6000;
    std::atomic<int> failures = 0;
    // Two sources whose tables grow every 100 samples, values as long as the server's.
    std::thread scraper([&] {
        TelemetrySource sources[2]
            = {makeSource(0, QStringLiteral("http://a/metrics"), TelemetrySource::Kind::Runtime, 1),
                makeSource(1, QStringLiteral("http://b/metrics"), TelemetrySource::Kind::Exporter, 1)};
        for (int i = 0; i < kSamples; ++i) {
            TelemetrySource& s = sources[i % 2];
            if (i % 100 < 2) { // each source gains a series and a note every 100 samples
                TelemetrySeries more = s.series.front();
                more.labels.emplace_back(QStringLiteral("gpu"), QString::number(s.series.size()));
                s.series.push_back(more);
                s.notes << QStringLiteral("note %1").arg(i);
            }
            TelemetrySample sample;
            sample.source = i % 2;
            sample.atMs = i * 0.5;
            for (std::size_t k = 0; k < s.series.size(); ++k)
                sample.values.emplace_back(int(k), i / 3.0 + double(k));
            if (i % 97 == 0) {
                sample.values.clear();
                sample.error = QStringLiteral("connection refused");
            }
            if (!journal.appendTelemetry(i % 2, s, sample).isEmpty())
                ++failures;
        }
    });
    for (int i = 0; i < kRecords; ++i)
        if (!journal.append(numbered(r, i)).isEmpty())
            ++failures;
    scraper.join();
    journal.close(false);
    ASSERT_EQ(failures.load(), 0);

    const QList<QByteArray> lines = readFile(path).split('\n');
    ASSERT_EQ(lines.size(), qsizetype(1 + kRecords + kSamples + 1));
    const RunResult back = recoverJournal(path);
    ASSERT_EQ(back.records.size(), std::size_t(kRecords));
    for (std::size_t k = 0; k < back.records.size(); ++k)
        ASSERT_EQ(back.records[k].iteration, int(k) + 1);
    ASSERT_EQ(back.telemetry.samples.size(), std::size_t(kSamples));
    ASSERT_EQ(back.telemetry.sources.size(), 2u);
    for (int i = 0; i < kSamples; ++i) {
        const TelemetrySample& s = back.telemetry.samples[std::size_t(i)];
        ASSERT_EQ(s.atMs, i * 0.5);
        ASSERT_EQ(s.source, i % 2);
        if (i % 97 == 0) {
            ASSERT_FALSE(s.ok());
            continue;
        }
        ASSERT_EQ(s.values.size(), std::size_t(i / 100 + 2)) << "sample " << i;
        ASSERT_EQ(s.values.back().second, i / 3.0 + double(s.values.size() - 1));
    }
    EXPECT_EQ(back.telemetry.sources[0].series.size(), std::size_t(kSamples / 100 + 1));
    EXPECT_EQ(back.telemetry.sources[1].notes.size(), qsizetype(kSamples / 100 + 1));
}

TEST(RunJournal, KilledMidTelemetryLineDropsOnlyThatLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const Telemetry t = makeTelemetry();
    const QString path = journalTelemetry(dir, makeResult(), t);
    // Without its last line, the journal ends with the line that brings source 0's last family
    // and note.
    QByteArray full = readFile(path);
    full.chop(full.size() - full.lastIndexOf('\n', full.size() - 2) - 1);
    const qsizetype lastStart = full.lastIndexOf('\n', full.size() - 2) + 1;
    const qsizetype lastLength = full.size() - lastStart;
    for (qsizetype keep : {qsizetype(1), lastLength / 3, lastLength / 2, lastLength - 2}) {
        SCOPED_TRACE("kept " + std::to_string(keep) + " bytes of the last line");
        writeFile(path, full.left(lastStart + keep));
        const RunResult back = recoverJournal(path);
        ASSERT_EQ(back.telemetry.samples.size(), t.samples.size() - 2);
        // The cut line brought the last families and notes: not half of them.
        EXPECT_EQ(back.telemetry.sources[0].families.size(), 1u);
        EXPECT_TRUE(back.note.contains(QStringLiteral("cut off"))) << back.note.toStdString();
    }
}

TEST(RunJournal, BadTelemetryLineInTheMiddleNamesTheLine)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = journalTelemetry(dir, makeResult(), makeTelemetry());
    QList<QByteArray> lines = readFile(path).split('\n');
    const QByteArray good = lines[3];
    // A sample of a source no line described.
    lines[3] = R"({"telemetry":{"s":9,"t":1,"v":[]}})";
    writeFile(path, lines.join('\n'));
    expectRecoverError(path, Kind::BadField,
        {"t.json.journal: line 4: telemetry.s: source 9 is not described", "fix or delete line 4"});
    // A series index beyond what the lines so far described.
    lines[3] = R"({"telemetry":{"s":0,"t":1,"v":[[6,1.0]]}})";
    writeFile(path, lines.join('\n'));
    expectRecoverError(path, Kind::BadField,
        {"line 4: telemetry.v[0][0]: series 6 does not exist (source 0 lists 6 series)"});
    // A new source's endpoint out of range.
    lines[3] = R"({"source":{"endpoint":4,"url":"http://x/metrics"},"telemetry":{"s":7,"t":1}})";
    writeFile(path, lines.join('\n'));
    expectRecoverError(
        path, Kind::BadField, {"line 4: source.endpoint: 4 is out of range: the file lists 2 endpoints"});
    lines[3] = good;
    writeFile(path, lines.join('\n'));
    EXPECT_EQ(recoverJournal(path).telemetry.samples.size(), makeTelemetry().samples.size());
}

TEST(RunJournal, TelemetryNeedsAnOpenJournal)
{
    RunJournal journal;
    EXPECT_EQ(journal.appendTelemetry(0, TelemetrySource {}, TelemetrySample {}),
        QStringLiteral("the run journal is not open"));
}

// SPDX-License-Identifier: MIT
// Benchmark (not a test): how fast are results files and the run journal?
//
// Builds a run of N realistic records (a voice-assistant mix: system prompt, tools on the tool
// tests, conversations growing turn by turn; ~300 characters and ~60 token events per answer,
// usage, metrics from computeMetrics) and reports:
//   serialize / save   = serializeResults in memory / saveResults to disk (QSaveFile, fsync, rename)
//   parse / load       = parseResults from memory / loadResults from disk
//   file size, memory  = bytes on disk; resident memory of the loaded run
//   journal append     = RunJournal::append per record (serialize + write(2)), and for comparison
//                        the same lines with an fdatasync() after each, as a durable journal would do
//   recover            = recoverJournal of the whole journal
//
// Usage: bench_results [--records N] [--dir DIR] [--sync-samples N] [--keep]
//        bench_results --open FILE [--strict]   times one file: read, parse (quick; --strict: the strict
//                                               reader too), evaluate, and the resident memory
#include "model/core/Clock.h"
#include "model/evaluate/Evaluation.h"
#include "model/store/ResultFile.h"
#include "model/store/ResultFormat.h"
#include "model/store/RunJournal.h"
#include "model/wire/RequestMetrics.h"
#include "tests/bench/ProcessSample.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTextStream>
#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

using namespace qs;
using qs::test::peakRssMiB;
using qs::test::sampleProcess;
using json = nlohmann::json;

namespace {

const char* const kSystem
    = "You are Ava, a warm and concise voice assistant. Answer in one to three short spoken sentences. "
      "Never use markdown, lists, headings, emoji or code. Use the tools when the user asks about their "
      "own notes, memories or anything that needs fresh information from the web. If you are unsure, "
      "say so briefly and offer to look it up. Keep numbers and names easy to say aloud.";

// Each answer in parentheses: its pieces are one string, not a missing comma (clang's
// -Wstring-concatenation).
const char* const kAnswers[] = {
    ("Tokyo is the capital of Japan. It has been the seat of government since 1868, when the emperor moved "
     "there from Kyoto, and today the greater Tokyo area is home to about thirty-seven million people. "
     "Would you like to hear about places worth visiting?"),
    ("Sure. If each of the three boxes holds five balls, you have fifteen balls in total, because three "
     "times five is fifteen. If you take two balls out of one box, thirteen are left across all the boxes. "
     "Anything else you want to work out?"),
    ("Good morning, Sam! It is lovely to hear from you. The weather looks mild today with a light breeze, "
     "so it could be a nice afternoon for sailing if you get the chance. What would you like to do first?"),
};

json tools()
{
    json list = json::array();
    for (const char* name : {"search_memory", "web_search", "read_notes"}) {
        list.push_back({{"type", "function"},
            {"function",
                {{"name", name},
                    {"description", std::string("Use ") + name + " to find what the user asks for."},
                    {"parameters",
                        {{"type", "object"},
                            {"properties",
                                {{"query", {{"type", "string"}, {"description", "What to look for"}}},
                                    {"limit", {{"type", "integer"}, {"minimum", 1}}}}},
                            {"required", json::array({"query"})}}}}}});
    }
    return list;
}

json requestBody(int test, int turn, const json& toolList)
{
    json messages = json::array({{{"role", "system"}, {"content", kSystem}}});
    for (int t = 1; t < turn; ++t) { // earlier turns of a conversation, with the model's replies
        messages.push_back({{"role", "user"}, {"content", "Tell me more about that, please."}});
        messages.push_back({{"role", "assistant"}, {"content", kAnswers[t % 3]}});
    }
    messages.push_back({{"role", "user"}, {"content", "What is the capital of Japan, and how big is it?"}});
    json body = {{"model", "qwen3-30b-a3b"}, {"messages", messages}, {"stream", true},
        {"stream_options", {{"include_usage", true}}}, {"max_tokens", 256}, {"temperature", 0},
        {"seed", 1234}, {"chat_template_kwargs", {{"enable_thinking", false}}}};
    if (test == 5 || test == 6)
        body["tools"] = toolList;
    return body;
}

RunRecord makeRecord(int i, const json& toolList, qint64 t0)
{
    static const char* const tests[] = {"greeting", "factual", "conversational", "reasoning", "long",
        "tool_memory", "tool_web", "multi_turn"};
    const int test = i % 8;
    const int turn = test == 7 ? 1 + (i / 8) % 5 : 1;
    RunRecord r;
    r.endpoint = i % 2;
    r.test = QString::fromLatin1(tests[test]);
    r.turn = turn;
    r.iteration = 1 + (i / 16) % 7;
    r.warmup = r.iteration <= 2;
    r.concurrency = 1;
    r.startOffsetMs = i * 1234.567;
    r.startedAt = utcFromMSecs(1'767'000'000'000 + i * 1234);

    RequestRecord& q = r.request;
    q.endpointLabel = r.endpoint ? QStringLiteral("Q4_K_M llama-server") : QStringLiteral("NVFP4 vLLM");
    q.url = QUrl(QStringLiteral("http://10.0.0.5:8000/v1/chat/completions"));
    q.requestBody = requestBody(test, turn, toolList);
    q.httpStatus = 200;
    q.contentType = QStringLiteral("text/event-stream");
    q.serverHeader = QStringLiteral("uvicorn");
    q.timing.startNs = t0 - 150'000;
    q.timing.connectedNs = t0 - 150'000;
    q.timing.connectionReused = true;
    q.timing.t0Ns = t0;
    q.timing.firstByteNs = t0 + 2'100'000;
    q.timing.headersNs = t0 + 2'150'000;

    AssembledResponse& a = q.response;
    a.content = QString::fromLatin1(kAnswers[i % 3]);
    a.role = QStringLiteral("assistant");
    a.finishReason = QStringLiteral("stop");
    a.responseId = QStringLiteral("chatcmpl-%1").arg(i);
    a.model = QStringLiteral("qwen3-30b-a3b");
    // ~60 token events of ~5 characters at ~38 tok/s with jitter, after a ~90 ms TTFT.
    const int n = 60;
    qint64 stamp = t0 + 90'000'000 + (i % 17) * 1'000'000;
    for (int k = 0; k < n; ++k) {
        TokenEvent e;
        e.stampNs = stamp;
        e.contentBegin = int(a.content.size()) * k / n;
        e.contentEnd = int(a.content.size()) * (k + 1) / n;
        a.tokenEvents.push_back(e);
        stamp += 26'000'000 + ((i * 31 + k * 17) % 7) * 137'913;
    }
    a.dataEvents = n + 3;
    a.emptyEvents = 1;
    a.usageOnlyEvents = 1;
    a.sawDone = true;
    a.firstEventNs = t0 + 85'000'000;
    a.lastEventNs = stamp + 1'000'000;
    a.doneNs = stamp + 1'000'000;
    a.usage = TokenUsage {int((*q.requestBody)["messages"].size()) * 60, n,
        int((*q.requestBody)["messages"].size()) * 60 + n, std::nullopt, 32};
    q.timing.endNs = stamp + 1'200'000;
    q.metrics = computeMetrics(q.timing, a);
    r.gates = {{"answer", true}, {"no_markdown", true}, {"length", i % 5 != 0}};
    return r;
}

RunResult makeRun(int records)
{
    RunResult result;
    result.toolVersion = QStringLiteral(QS_VERSION);
    result.host = QStringLiteral("bench");
    result.startedAt = QDateTime::currentDateTimeUtc();
    result.endedAt = result.startedAt.addSecs(3600);
    result.complete = true;
    result.suite = {{"id", "voice-assistant"}, {"name", "Voice assistant"}, {"tools", tools()}};
    for (int e = 0; e < 2; ++e) {
        RunEndpoint ep;
        ep.endpoint.label = e ? QStringLiteral("Q4_K_M llama-server") : QStringLiteral("NVFP4 vLLM");
        ep.endpoint.baseUrl = QUrl(QStringLiteral("http://10.0.0.5:800%1").arg(e));
        ep.endpoint.runtime = e ? Runtime::LlamaServer : Runtime::Vllm;
        ep.spec = ep.endpoint.baseUrl.toString();
        ep.probe = {{"reachable", true}, {"runtime", e ? "llama-server" : "vllm"}};
        result.endpoints.push_back(ep);
    }
    const json toolList = tools();
    result.records.reserve(std::size_t(records));
    for (int i = 0; i < records; ++i)
        result.records.push_back(makeRecord(i, toolList, 5'000'000'000'000 + qint64(i) * 2'000'000'000));
    return result;
}

double seconds(const QElapsedTimer& t)
{
    return double(t.nsecsElapsed()) / 1e9;
}

} // namespace

double cpuSeconds()
{
    struct rusage u { };
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec)
        + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// --open: what opening one file costs, phase by phase.
int openOnly(const QString& path, bool strict)
{
    QTextStream out(stdout);
    QElapsedTimer t;
    const double before = sampleProcess().rssMiB;
    t.start();
    double cpu = cpuSeconds();
    const RunResult run = loadResults(path);
    out << "load:      " << QString::number(seconds(t), 'f', 2) << " s wall, "
        << QString::number(cpuSeconds() - cpu, 'f', 2) << " s CPU (loadResults), " << run.records.size()
        << " records, +" << QString::number(sampleProcess().rssMiB - before, 'f', 0) << " MiB resident, peak "
        << QString::number(peakRssMiB(), 'f', 0) << " MiB\n";
    {
        const QByteArray bytes = readResultsFile(path);
        std::size_t declined = 0;
        t.restart();
        cpu = cpuSeconds();
        const std::optional<RunResult> quick
            = results::readWriterLayout(bytes, path.toStdString(), &declined);
        out << "parse:     " << QString::number(seconds(t), 'f', 2) << " s wall, "
            << QString::number(cpuSeconds() - cpu, 'f', 2) << " s CPU (from memory), "
            << (quick ? QString::number(declined) : QStringLiteral("all"))
            << " records read the strict way\n";
        if (strict) {
            t.restart();
            cpu = cpuSeconds();
            const RunResult slow = results::readStrictly(bytes, path.toStdString());
            out << "strict:    " << QString::number(seconds(t), 'f', 2) << " s wall, "
                << QString::number(cpuSeconds() - cpu, 'f', 2) << " s CPU (the strict reader, from memory)\n";
        }
    }
    t.restart();
    cpu = cpuSeconds();
    const Evaluation ev = evaluate(run, 0);
    out << "evaluate:  " << QString::number(seconds(t), 'f', 2) << " s wall, "
        << QString::number(cpuSeconds() - cpu, 'f', 2) << " s CPU (" << ev.cells.size() << " cells)\n";
    out.flush();
    return 0;
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int records = 100'000;
    int syncSamples = 2000;
    QString dirPath;
    bool keep = false;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        const QString value = i + 1 < args.size() ? args[i + 1] : QString();
        if (args[i] == u"--records")
            records = value.toInt(), ++i;
        else if (args[i] == u"--dir")
            dirPath = value, ++i;
        else if (args[i] == u"--sync-samples")
            syncSamples = value.toInt(), ++i;
        else if (args[i] == u"--keep")
            keep = true;
        else if (args[i] == u"--open")
            return openOnly(value, args.contains(QStringLiteral("--strict")));
        else {
            std::fprintf(
                stderr, "usage: bench_results [--records N] [--dir DIR] [--sync-samples N] [--keep]\n");
            return 2;
        }
    }
    if (records <= 0) {
        std::fprintf(stderr, "bench_results: --records must be positive\n");
        return 2;
    }
    // One QString: Qt 6.8's QStringBuilder gives the two branches different types.
    QTemporaryDir temp(
        (dirPath.isEmpty() ? QDir::tempPath() : dirPath) + QStringLiteral("/bench_results-XXXXXX"));
    if (!temp.isValid()) {
        std::fprintf(stderr, "cannot create a temporary folder\n");
        return 1;
    }
    temp.setAutoRemove(!keep);
    QTextStream out(stdout);
    const QString path = temp.filePath(QStringLiteral("run.json"));
    if (keep)
        out << "files kept in " << temp.path() << "\n";

    QElapsedTimer t;
    t.start();
    const RunResult run = makeRun(records);
    const double buildS = seconds(t);
    const double builtMiB = sampleProcess().rssMiB;
    out << "records: " << records << " (built in " << QString::number(buildS, 'f', 2) << " s, resident "
        << QString::number(builtMiB, 'f', 0) << " MiB)\n";

    t.restart();
    QByteArray bytes = serializeResults(run);
    const double serializeS = seconds(t);
    const qsizetype size = bytes.size();
    bytes = QByteArray();

    t.restart();
    const QString saveError = saveResults(run, path);
    const double saveS = seconds(t);
    if (!saveError.isEmpty()) {
        out << saveError << "\n";
        return 1;
    }

    double loadS = 0, parseS = 0, loadedMiB = 0;
    std::size_t loadedRecords = 0;
    {
        const double before = sampleProcess().rssMiB;
        t.restart();
        RunResult loaded = loadResults(path);
        loadS = seconds(t);
        loadedMiB = sampleProcess().rssMiB - before;
        loadedRecords = loaded.records.size();
    }
    {
        const QByteArray file = [&] {
            QFile f(path);
            f.open(QIODevice::ReadOnly);
            return f.readAll();
        }();
        t.restart();
        const RunResult parsed = parseResults(file, path);
        parseS = seconds(t);
    }

    out << "file size:      " << QString::number(double(size) / (1024.0 * 1024.0), 'f', 1) << " MiB ("
        << QString::number(double(size) / records, 'f', 0) << " bytes/record)\n";
    out << "serialize:      " << QString::number(serializeS, 'f', 2) << " s (in memory)\n";
    out << "save:           " << QString::number(saveS, 'f', 2) << " s (saveResults: write, fsync, rename)\n";
    out << "parse:          " << QString::number(parseS, 'f', 2) << " s (parseResults from memory)\n";
    out << "load:           " << QString::number(loadS, 'f', 2) << " s (loadResults: read + parse), "
        << loadedRecords << " records, +" << QString::number(loadedMiB, 'f', 0) << " MiB resident\n";

    // The journal: what the runner pays per finished request.
    const QString journalPath = RunJournal::journalPathFor(path);
    {
        RunJournal journal;
        if (const QString e = journal.open(journalPath, run); !e.isEmpty()) {
            out << e << "\n";
            return 1;
        }
        t.restart();
        for (const RunRecord& r : run.records) {
            if (const QString e = journal.append(r); !e.isEmpty()) {
                out << e << "\n";
                return 1;
            }
        }
        const double appendS = seconds(t);
        journal.close(false);
        out << "journal append: " << QString::number(double(records) / appendS, 'f', 0) << " records/s ("
            << QString::number(appendS * 1e6 / records, 'f', 1) << " µs each, serialize + write(2))\n";
    }
    t.restart();
    const RunResult recovered = recoverJournal(journalPath);
    const double recoverS = seconds(t);
    out << "recover:        " << QString::number(recoverS, 'f', 2) << " s (" << recovered.records.size()
        << " records from "
        << QString::number(double(QFileInfo(journalPath).size()) / (1024.0 * 1024.0), 'f', 1) << " MiB)\n";

    // For comparison: the same lines with fdatasync() after each, as a power-loss-proof journal
    // would need.
    if (syncSamples > 0) {
        QFile f(temp.filePath(QStringLiteral("synced.journal")));
        f.open(QIODevice::WriteOnly | QIODevice::Unbuffered);
        std::vector<std::string> lines;
        for (int i = 0; i < syncSamples; ++i)
            lines.push_back(
                recordToJson(run.records[std::size_t(i) % run.records.size()], run.endpoints).dump() + '\n');
        std::vector<double> costs;
        for (const std::string& line : lines) {
            QElapsedTimer one;
            one.start();
            f.write(line.data(), qint64(line.size()));
            ::fdatasync(f.handle());
            costs.push_back(double(one.nsecsElapsed()) / 1e6);
        }
        std::sort(costs.begin(), costs.end());
        double sum = 0;
        for (double c : costs)
            sum += c;
        out << "with fdatasync: " << QString::number(double(costs.size()) / (sum / 1000.0), 'f', 0)
            << " records/s (write + fdatasync: median " << QString::number(costs[costs.size() / 2], 'f', 3)
            << " ms, p99 " << QString::number(costs[costs.size() * 99 / 100], 'f', 3) << " ms, max "
            << QString::number(costs.back(), 'f', 3) << " ms; not used, see docs/results-format.md)\n";
    }
    return 0;
}

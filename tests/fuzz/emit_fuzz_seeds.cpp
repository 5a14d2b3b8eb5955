// SPDX-License-Identifier: MIT
// Writes the emulator's own output as fuzz seeds (docs/fuzzing.md, "Seeds"): every dialect and
// era of the loopback llama-server, vLLM and SGLang (tests/support/) answering plain, reasoning,
// tool-call, logprob, malformed, in-stream-error and HTTP-error requests, and their /v1/models,
// /props, /version, /server_info, /health and /metrics answers, captured byte for byte off a
// real socket. One folder per fuzz target under OUTDIR, each input in the form the target reads.
//
//   emit_fuzz_seeds OUTDIR
//
// scripts/fuzz.sh runs it when the release build has it; ctest runs it before replaying every
// target over what it wrote (fuzz_replay.*), so each emulator change is checked against the
// parsers' properties too.

#include "model/wire/HttpResponseParser.h"
#include "model/wire/SseParser.h"
#include "tests/support/Emulator.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <cstdio>
#include <set>

using namespace qs;
using namespace qs::emu;

namespace {

// The header fuzz/FuzzSplit.h reads (as scripts/fuzz.sh writes it): four cuts of 8, 20, 42 and
// 98 bytes, so a seed starts out split across lines and JSON values.
const QByteArray splitHeader = QByteArray::fromHex("0407132961");

class Emitter {
public:
    explicit Emitter(const QString& out)
        : m_out(out)
    {
    }

    /// Every request below, on every dialect and era.
    void run()
    {
        for (const Dialect dialect : {Dialect::LlamaServer, Dialect::Vllm, Dialect::Sglang})
            for (const Era era : {Era::Current, Era::Transitional, Era::Legacy}) {
                if (era == Era::Transitional && dialect != Dialect::Vllm)
                    continue; // the same bytes as Current elsewhere
                for (const Case& c : cases())
                    emitChat(dialect, era, c);
                emitGets(dialect, era);
            }
    }

    int written() const { return m_written; }
    QString error() const { return m_error; }

private:
    struct Case {
        QString name;
        Script script;
        QJsonObject extra; ///< merged into the request body
        bool tools = false;
        bool toolParser = true;
        int tokensPerChunk = 1;
    };

    static Script quick(Script s)
    {
        s.ttftMs = 0;
        s.tokensPerSecond = 100000;
        return s;
    }

    static std::vector<Case> cases()
    {
        std::vector<Case> out;
        Script plain;
        plain.content = {QStringLiteral("The "), QStringLiteral("capital "), QStringLiteral("is "),
            QStringLiteral("Tokyo."), QStringLiteral(" ✓ é 日本")};
        out.push_back({QStringLiteral("plain"), quick(plain), {}, false, true, 1});

        Script reasoning = plain;
        reasoning.reasoning = {QStringLiteral("The "), QStringLiteral("user "), QStringLiteral("asks.")};
        out.push_back({QStringLiteral("reasoning"), quick(reasoning), {}, false, true, 1});
        Script leaked = reasoning;
        leaked.reasoningMode = ReasoningMode::LeakedBareClose;
        out.push_back({QStringLiteral("leaked-think"), quick(leaked), {}, false, true, 1});

        Script tools;
        tools.content = {QStringLiteral("Let me check.")};
        tools.toolCalls = {{QStringLiteral("web_search"), QStringLiteral(R"({"query": "Paris weather"})"), 3},
            {QStringLiteral("get_time"), QStringLiteral(R"({"tz": "Europe/Paris"})"), 2}};
        out.push_back({QStringLiteral("tools"), quick(tools), {}, true, true, 1});
        out.push_back({QStringLiteral("tools-unparsed"), quick(tools), {}, true, false, 1});

        const QJsonObject logprobs {{QStringLiteral("logprobs"), true}, {QStringLiteral("top_logprobs"), 5}};
        out.push_back({QStringLiteral("logprobs"), quick(reasoning), logprobs, false, true, 1});
        out.push_back({QStringLiteral("logprobs-2-per-chunk"), quick(plain), logprobs, false, true, 2});

        Script malformed = plain;
        malformed.fault = Fault::MalformedChunk;
        malformed.faultAfterTokens = 2;
        out.push_back({QStringLiteral("malformed"), quick(malformed), {}, false, true, 1});
        Script streamError = plain;
        streamError.fault = Fault::ErrorInStream;
        streamError.faultAfterTokens = 2;
        out.push_back({QStringLiteral("stream-error"), quick(streamError), {}, false, true, 1});
        Script noUsage = plain;
        noUsage.fault = Fault::NoUsageChunk;
        out.push_back({QStringLiteral("no-usage"), quick(noUsage), {}, false, true, 1});
        for (const auto& [name, kind] : std::vector<std::pair<QString, HttpErrorKind>> {
                 {QStringLiteral("context-exceeded"), HttpErrorKind::ContextExceeded},
                 {QStringLiteral("model-not-found"), HttpErrorKind::ModelNotFound},
                 {QStringLiteral("loading"), HttpErrorKind::Loading},
                 {QStringLiteral("server-error"), HttpErrorKind::ServerError}}) {
            Script e = plain;
            e.fault = Fault::HttpError;
            e.httpError = kind;
            out.push_back({QStringLiteral("http-") + name, quick(e), {}, false, true, 1});
        }
        return out;
    }

    static QString label(Dialect dialect, Era era)
    {
        const QString d = dialect == Dialect::LlamaServer ? QStringLiteral("llama")
            : dialect == Dialect::Vllm                    ? QStringLiteral("vllm")
                                                          : QStringLiteral("sglang");
        const QString e = era == Era::Current ? QStringLiteral("current")
            : era == Era::Transitional        ? QStringLiteral("transitional")
                                              : QStringLiteral("legacy");
        return d + u'-' + e;
    }

    /// One exchange on a fresh connection, read until the server closes it.
    QByteArray exchange(
        const QUrl& base, const QByteArray& method, const QByteArray& path, const QByteArray& body)
    {
        QTcpSocket socket;
        socket.connectToHost(base.host(), quint16(base.port()));
        if (!socket.waitForConnected(5000)) {
            m_error = QStringLiteral("cannot connect to the emulator: ") + socket.errorString();
            return {};
        }
        QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: " + base.authority().toLatin1()
            + "\r\nConnection: close\r\nAccept: */*\r\n";
        if (!body.isEmpty())
            request += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
                + "\r\n";
        request += "\r\n" + body;
        socket.write(request);
        QByteArray response;
        while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(5000))
            response += socket.readAll();
        response += socket.readAll();
        return response;
    }

    void write(const QString& target, const QString& name, const QByteArray& bytes)
    {
        if (!QDir(m_out).mkpath(target)) {
            m_error = QStringLiteral("cannot create %1/%2").arg(m_out, target);
            return;
        }
        QFile f(QDir(m_out).filePath(target + u'/' + name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) {
            m_error = QStringLiteral("cannot write %1: %2").arg(f.fileName(), f.errorString());
            return;
        }
        ++m_written;
    }

    /// The response as every stream target reads it: whole (HTTP), its body (SSE, assembly)
    /// and each event's data (chunk decoding).
    void writeStream(const QString& name, const QByteArray& response)
    {
        write(QStringLiteral("fuzz_http_response"), name + QStringLiteral(".http"), splitHeader + response);
        HttpResponseParser http;
        QByteArray body;
        http.feed(response, body);
        http.connectionClosed();
        if (body.isEmpty())
            return;
        write(QStringLiteral("fuzz_sse"), name + QStringLiteral(".sse"), splitHeader + body);
        write(QStringLiteral("fuzz_stream_assembly"), name + QStringLiteral(".sse"), splitHeader + body);
        SseParser sse;
        std::vector<SseEvent> events;
        sse.feed(body, 1, events);
        sse.finish(1, events);
        for (const SseEvent& e : events)
            if (m_events.insert(e.data).second)
                write(QStringLiteral("fuzz_stream_chunk"),
                    QStringLiteral("%1-event-%2.json").arg(name).arg(m_events.size()), e.data);
        if (events.empty() && http.statusCode() >= 400) // an error body: what parseServerError reads
            write(QStringLiteral("fuzz_stream_chunk"), name + QStringLiteral("-error.json"), body);
    }

    void emitChat(Dialect dialect, Era era, const Case& c)
    {
        ServerConfig config;
        config.dialect = dialect;
        config.era = era;
        config.script = c.script;
        config.toolParser = c.toolParser;
        config.tokensPerChunk = c.tokensPerChunk;
        config.pingIntervalMs = 1;
        EmulatorThread server;
        if (!server.start(config)) {
            m_error = QStringLiteral("the emulator did not start");
            return;
        }
        QJsonObject body {{QStringLiteral("model"), config.modelId}, {QStringLiteral("stream"), true},
            {QStringLiteral("stream_options"), QJsonObject {{QStringLiteral("include_usage"), true}}},
            {QStringLiteral("messages"),
                QJsonArray {QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
                    {QStringLiteral("content"), QStringLiteral("What is the capital of Japan?")}}}}};
        if (c.tools)
            body[QStringLiteral("tools")]
                = QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("function")},
                    {QStringLiteral("function"),
                        QJsonObject {{QStringLiteral("name"), QStringLiteral("web_search")},
                            {QStringLiteral("parameters"),
                                QJsonObject {{QStringLiteral("type"), QStringLiteral("object")}}}}}}};
        for (auto it = c.extra.begin(); it != c.extra.end(); ++it)
            body[it.key()] = it.value();
        const QByteArray response = exchange(server.baseUrl(), "POST", "/v1/chat/completions",
            QJsonDocument(body).toJson(QJsonDocument::Compact));
        if (!response.isEmpty())
            writeStream(label(dialect, era) + u'-' + c.name, response);
    }

    void emitGets(Dialect dialect, Era era)
    {
        ServerConfig config;
        config.dialect = dialect;
        config.era = era;
        EmulatorThread server;
        if (!server.start(config)) {
            m_error = QStringLiteral("the emulator did not start");
            return;
        }
        const QString at = label(dialect, era);
        // The reader fuzz_probe_replies picks with its first byte (0 health … 4 server_info).
        const std::vector<std::pair<QByteArray, char>> paths {{"/health", 0}, {"/v1/models", 1},
            {"/props", 2}, {"/version", 3}, {"/server_info", 4}, {"/get_server_info", 4}, {"/metrics", -1}};
        for (const auto& [path, reader] : paths) {
            const QByteArray response = exchange(server.baseUrl(), "GET", path, {});
            HttpResponseParser http;
            QByteArray body;
            http.feed(response, body);
            http.connectionClosed();
            if (http.statusCode() != 200 || body.isEmpty())
                continue;
            const QString name = at + QString::fromLatin1(QByteArray(path).replace('/', '-'));
            write(
                QStringLiteral("fuzz_http_response"), name + QStringLiteral(".http"), splitHeader + response);
            if (reader < 0)
                write(QStringLiteral("fuzz_prometheus"), name + QStringLiteral(".prom"), body);
            else
                write(QStringLiteral("fuzz_probe_replies"), name + QStringLiteral(".bin"),
                    QByteArray(1, reader) + body);
        }
    }

    QString m_out;
    std::set<QByteArray> m_events; ///< event payloads written (the same chunk from many streams once)
    int m_written = 0;
    QString m_error;
};

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: emit_fuzz_seeds OUTDIR\n");
        return 2;
    }
    Emitter emitter(QString::fromLocal8Bit(argv[1]));
    emitter.run();
    if (!emitter.error().isEmpty()) {
        std::fprintf(stderr, "emit_fuzz_seeds: %s\n", qPrintable(emitter.error()));
        return 1;
    }
    std::printf("emit_fuzz_seeds: %d seeds from the emulator in %s\n", emitter.written(), argv[1]);
    return 0;
}

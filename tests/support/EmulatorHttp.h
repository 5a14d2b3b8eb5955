// SPDX-License-Identifier: MIT
#pragma once

// Response framing of the two HTTP stacks behind the emulated servers: cpp-httplib
// (llama-server) and uvicorn (vLLM, SGLang). Internal to qs_emulator.

#include <QByteArray>
#include <utility>
#include <vector>

namespace qs::emu::detail {

enum class HttpFlavor {
    CppHttplib, ///< `Server: llama.cpp`, headers sorted by name, `Keep-Alive: timeout=5, max=100`
    Uvicorn, ///< lowercase `date`, `server: uvicorn`, then the app's headers
};

/// A complete, non-streamed response.
struct HttpReply {
    int status = 200;
    QByteArray contentType; ///< empty: no Content-Type header (e.g. Starlette's bare Response())
    QByteArray body;
};

struct ResponseHead {
    int status = 200;
    QByteArray contentType;
    qint64 contentLength = -1; ///< -1: `Transfer-Encoding: chunked`
    bool close = false; ///< announce and perform a close after this response
    QByteArray origin; ///< request's Origin (llama-server echoes it, even when empty)
    std::vector<std::pair<QByteArray, QByteArray>> extra; ///< e.g. X-Accel-Buffering
};

QByteArray reasonPhrase(int status);
QByteArray formatHead(HttpFlavor flavor, const ResponseHead& head);

/// One HTTP/1.1 chunk: lowercase hex size, CRLF, data, CRLF.
QByteArray httpChunk(const QByteArray& data);
inline QByteArray lastChunk()
{
    return QByteArrayLiteral("0\r\n\r\n");
}

} // namespace qs::emu::detail

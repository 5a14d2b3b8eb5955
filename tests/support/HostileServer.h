// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QUrl>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace qs::emu {

/// One accepted connection of a HostileServer, as its script sees it. Every call blocks the
/// connection's own thread and returns false as soon as the client has gone (closed or reset)
/// or the server is stopping, so a script written as "forever" ends when the client gives up.
class HostileConnection {
public:
    HostileConnection(int fd, std::atomic<qint64>& written, const std::atomic<bool>& stopping);
    ~HostileConnection();
    HostileConnection(const HostileConnection&) = delete;
    HostileConnection& operator=(const HostileConnection&) = delete;

    /// Reads one request (head and Content-Length body). False when the client closed first.
    bool readRequest();
    QByteArray method() const { return m_method; }
    QByteArray path() const { return m_path; }
    QByteArray requestHead() const { return m_head; }
    QByteArray requestBody() const { return m_body; } ///< the last request's body (Content-Length bytes)

    bool send(const QByteArray& bytes) { return sendView(bytes); }
    /// Sends `total` bytes made of `unit` repeated (the last copy cut), in pieces, without ever
    /// holding more than one piece: a 1 GB line costs 64 KiB of memory. total < 0: forever.
    bool sendRepeated(const QByteArray& unit, qint64 total);
    /// Sends `bytes` one byte every `intervalMs`; `repeat` starts over at the end, forever.
    bool trickle(const QByteArray& bytes, int intervalMs, bool repeat);
    /// Sends nothing until the client closes (or the server stops).
    void hang();

    bool clientGone() const { return m_gone; }

private:
    bool sendView(QByteArrayView bytes);
    bool waitFor(short events, int ms); ///< poll; false on error, hang-up or stop
    bool peerClosed(); ///< reads and discards what the client sent; true on EOF

    int m_fd;
    std::atomic<qint64>& m_written;
    const std::atomic<bool>& m_stopping;
    QByteArray m_in;
    QByteArray m_head, m_body, m_method, m_path;
    bool m_gone = false;
};

/// A raw loopback HTTP server that misbehaves on purpose, for the client's hostile-server tests:
/// endless headers, endless lines, absurd chunk sizes, trickles, lying Content-Length, unasked
/// compression, redirect loops, mutated streams. Each connection runs in a thread of its own.
///
/// GET requests get friendly answers (a model list at /v1/models, a JSON 404 elsewhere) so the
/// endpoint probe passes, unless asked otherwise; every POST is handed to the script, with the
/// connection-wide index of the POST (0, 1, …) so a script can vary its behaviour per request. After the
/// script returns the connection reads the next request, unless the script closed it (returned false).
class HostileServer {
public:
    /// Plays one POST. Return false to close the connection afterwards.
    using Script = std::function<bool(HostileConnection& connection, int postIndex)>;

    /// `friendlyGets` false: GET requests go to the script too.
    explicit HostileServer(Script script, bool friendlyGets = true);
    ~HostileServer(); ///< stops: closes every connection and joins every thread
    HostileServer(const HostileServer&) = delete;
    HostileServer& operator=(const HostileServer&) = delete;

    bool listening() const { return m_listenFd >= 0; }
    QUrl baseUrl() const;
    /// Bytes written to all clients so far, headers included.
    qint64 bytesWritten() const { return m_written.load(); }
    int connections() const { return m_connections.load(); }
    int posts() const { return m_posts.load(); }

private:
    void acceptLoop();
    void serve(int fd);

    Script m_script;
    bool m_friendlyGets = true;
    int m_listenFd = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stopping {false};
    std::atomic<qint64> m_written {0};
    std::atomic<int> m_connections {0};
    std::atomic<int> m_posts {0};
    std::mutex m_threadsMutex;
    std::vector<std::thread> m_threads;
    std::thread m_acceptThread;
};

/// "HTTP/1.1 <status>\r\n<headers>\r\n" with `headers` given as "Name: value\r\n" lines.
QByteArray httpHead(const QByteArray& status, const QByteArray& headers);
/// A complete HTTP/1.1 response carrying `body` with a correct Content-Length.
QByteArray httpResponse(const QByteArray& status, const QByteArray& contentType, const QByteArray& body);
/// `body` framed as one chunked transfer, in chunks of at most `chunkSize` bytes.
QByteArray chunked(const QByteArray& body, qsizetype chunkSize = 256);

} // namespace qs::emu

// SPDX-License-Identifier: MIT
#include "tests/support/HostileServer.h"

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qs::emu {

namespace {
constexpr int PollSliceMs = 20; // how soon a blocked call notices a stop or a gone client
constexpr qsizetype MaxRequestBytes = 1 << 20;

void setNonBlocking(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK);
}
} // namespace

HostileConnection::HostileConnection(int fd, std::atomic<qint64>& written, const std::atomic<bool>& stopping)
    : m_fd(fd)
    , m_written(written)
    , m_stopping(stopping)
{
    setNonBlocking(m_fd);
    const int one = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

HostileConnection::~HostileConnection()
{
    ::close(m_fd);
}

bool HostileConnection::waitFor(short events, int ms)
{
    pollfd p {m_fd, events, 0};
    const int n = ::poll(&p, 1, ms);
    if (m_stopping.load())
        return false;
    if (n < 0)
        return errno == EINTR;
    if (p.revents & (POLLERR | POLLNVAL)) {
        m_gone = true;
        return false;
    }
    return true;
}

bool HostileConnection::peerClosed()
{
    char buf[4096];
    for (;;) {
        const ssize_t n = ::recv(m_fd, buf, sizeof buf, 0);
        if (n > 0) {
            if (m_in.size() < MaxRequestBytes)
                m_in.append(buf, n);
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            m_gone = true;
            return true;
        }
        return false;
    }
}

bool HostileConnection::readRequest()
{
    for (;;) {
        const qsizetype end = m_in.indexOf("\r\n\r\n");
        if (end >= 0) {
            m_head = m_in.left(end + 4);
            qsizetype length = 0;
            for (const QByteArray& line : m_head.split('\n'))
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            if (m_in.size() >= end + 4 + length) {
                m_body = m_in.mid(end + 4, length);
                m_in.remove(0, end + 4 + length);
                const QList<QByteArray> words = m_head.left(m_head.indexOf('\r')).split(' ');
                m_method = words.value(0);
                m_path = words.value(1);
                return true;
            }
        }
        if (m_gone || !waitFor(POLLIN, PollSliceMs) || peerClosed())
            return false;
    }
}

bool HostileConnection::sendView(QByteArrayView bytes)
{
    while (!bytes.isEmpty()) {
        if (m_gone || m_stopping.load())
            return false;
        const ssize_t n = ::send(m_fd, bytes.data(), size_t(bytes.size()), MSG_NOSIGNAL);
        if (n > 0) {
            m_written += n;
            bytes = bytes.sliced(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            // The client is not reading: wait, but notice when it closes instead.
            if (!waitFor(POLLOUT | POLLIN, PollSliceMs))
                return false;
            pollfd p {m_fd, POLLIN, 0};
            if (::poll(&p, 1, 0) > 0 && peerClosed())
                return false;
            continue;
        }
        m_gone = true;
        return false;
    }
    return true;
}

bool HostileConnection::sendRepeated(const QByteArray& unit, qint64 total)
{
    if (unit.isEmpty())
        return false;
    QByteArray piece;
    while (piece.size() < 64 * 1024)
        piece.append(unit);
    for (qint64 sent = 0; total < 0 || sent < total;) {
        const qsizetype n = total < 0 ? piece.size() : qsizetype(qMin<qint64>(piece.size(), total - sent));
        if (!sendView(QByteArrayView(piece).first(n)))
            return false;
        sent += n;
    }
    return true;
}

bool HostileConnection::trickle(const QByteArray& bytes, int intervalMs, bool repeat)
{
    do {
        for (const char c : bytes) {
            if (!sendView(QByteArrayView(&c, 1)))
                return false;
            for (int waited = 0; waited < intervalMs; waited += PollSliceMs) {
                if (!waitFor(POLLIN, PollSliceMs))
                    return false;
                pollfd p {m_fd, POLLIN, 0};
                if (::poll(&p, 1, 0) > 0 && peerClosed())
                    return false;
            }
        }
    } while (repeat && !bytes.isEmpty());
    return true;
}

void HostileConnection::hang()
{
    while (!m_gone && waitFor(POLLIN, PollSliceMs)) {
        pollfd p {m_fd, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0 && peerClosed())
            return;
    }
}

HostileServer::HostileServer(Script script, bool friendlyGets)
    : m_script(std::move(script))
    , m_friendlyGets(friendlyGets)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        if (fd >= 0)
            ::close(fd);
        return;
    }
    setNonBlocking(fd);
    m_listenFd = fd;
    m_port = ntohs(addr.sin_port);
    m_acceptThread = std::thread([this] { acceptLoop(); });
}

HostileServer::~HostileServer()
{
    m_stopping = true;
    if (m_acceptThread.joinable())
        m_acceptThread.join();
    std::vector<std::thread> threads;
    {
        std::lock_guard lock(m_threadsMutex);
        threads.swap(m_threads);
    }
    for (std::thread& t : threads)
        t.join();
    if (m_listenFd >= 0)
        ::close(m_listenFd);
}

QUrl HostileServer::baseUrl() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port));
}

void HostileServer::acceptLoop()
{
    while (!m_stopping.load()) {
        pollfd p {m_listenFd, POLLIN, 0};
        if (::poll(&p, 1, PollSliceMs) <= 0)
            continue;
        const int fd = ::accept(m_listenFd, nullptr, nullptr);
        if (fd < 0)
            continue;
        ++m_connections;
        std::lock_guard lock(m_threadsMutex);
        m_threads.emplace_back([this, fd] { serve(fd); });
    }
}

void HostileServer::serve(int fd)
{
    HostileConnection c(fd, m_written, m_stopping);
    int postIndex = 0;
    while (c.readRequest()) {
        if (c.method() == "POST" || !m_friendlyGets) {
            ++m_posts;
            if (!m_script(c, postIndex++))
                return;
            continue;
        }
        // Friendly GETs, so the endpoint probe finds a model and the run goes ahead.
        const bool models = c.path() == "/v1/models";
        const QByteArray body = models
            ? QByteArray(R"({"object":"list","data":[{"id":"hostile","object":"model","owned_by":"x"}]})")
            : QByteArray(R"({"error":{"message":"not found","type":"not_found_error","code":404}})");
        if (!c.send(httpResponse(models ? "200 OK" : "404 Not Found", "application/json", body)))
            return;
    }
}

QByteArray httpHead(const QByteArray& status, const QByteArray& headers)
{
    return "HTTP/1.1 " + status + "\r\n" + headers + "\r\n";
}

QByteArray httpResponse(const QByteArray& status, const QByteArray& contentType, const QByteArray& body)
{
    return httpHead(status,
               "Content-Type: " + contentType + "\r\nContent-Length: " + QByteArray::number(body.size())
                   + "\r\n")
        + body;
}

QByteArray chunked(const QByteArray& body, qsizetype chunkSize)
{
    QByteArray out;
    for (qsizetype i = 0; i < body.size(); i += chunkSize) {
        const QByteArray piece = body.sliced(i, qMin(chunkSize, body.size() - i));
        out += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    }
    return out + "0\r\n\r\n";
}

} // namespace qs::emu

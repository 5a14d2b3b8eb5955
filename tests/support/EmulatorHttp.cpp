// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorHttp.h"

#include <QDateTime>
#include <QLocale>
#include <algorithm>

namespace qs::emu::detail {

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return QByteArrayLiteral("Continue");
    case 200:
        return QByteArrayLiteral("OK");
    case 400:
        return QByteArrayLiteral("Bad Request");
    case 401:
        return QByteArrayLiteral("Unauthorized");
    case 403:
        return QByteArrayLiteral("Forbidden");
    case 404:
        return QByteArrayLiteral("Not Found");
    case 405:
        return QByteArrayLiteral("Method Not Allowed");
    case 422:
        return QByteArrayLiteral("Unprocessable Entity");
    case 500:
        return QByteArrayLiteral("Internal Server Error");
    case 501:
        return QByteArrayLiteral("Not Implemented");
    case 503:
        return QByteArrayLiteral("Service Unavailable");
    default:
        return QByteArrayLiteral("Unknown");
    }
}

namespace {

QByteArray statusLine(int status)
{
    return QByteArrayLiteral("HTTP/1.1 ") + QByteArray::number(status) + ' ' + reasonPhrase(status)
        + QByteArrayLiteral("\r\n");
}

QByteArray httpDate()
{
    const QString date = QLocale::c().toString(
        QDateTime::currentDateTimeUtc(), QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    return date.toLatin1();
}

// cpp-httplib keeps headers in a case-insensitive multimap, so they leave sorted by name.
QByteArray httplibHead(const ResponseHead& head)
{
    std::vector<std::pair<QByteArray, QByteArray>> headers = head.extra;
    headers.emplace_back(QByteArrayLiteral("Access-Control-Allow-Origin"), head.origin);
    headers.emplace_back(QByteArrayLiteral("Server"), QByteArrayLiteral("llama.cpp"));
    if (head.close)
        headers.emplace_back(QByteArrayLiteral("Connection"), QByteArrayLiteral("close"));
    else
        headers.emplace_back(QByteArrayLiteral("Keep-Alive"), QByteArrayLiteral("timeout=5, max=100"));
    if (!head.contentType.isEmpty())
        headers.emplace_back(QByteArrayLiteral("Content-Type"), head.contentType);
    if (head.contentLength < 0)
        headers.emplace_back(QByteArrayLiteral("Transfer-Encoding"), QByteArrayLiteral("chunked"));
    else
        headers.emplace_back(QByteArrayLiteral("Content-Length"), QByteArray::number(head.contentLength));
    std::stable_sort(headers.begin(), headers.end(),
        [](const auto& a, const auto& b) { return a.first.compare(b.first, Qt::CaseInsensitive) < 0; });
    QByteArray out = statusLine(head.status);
    for (const auto& [name, value] : headers)
        out += name + QByteArrayLiteral(": ") + value + QByteArrayLiteral("\r\n");
    return out + QByteArrayLiteral("\r\n");
}

// uvicorn writes its default headers (date, server) first, then Starlette's, all lowercase.
QByteArray uvicornHead(const ResponseHead& head)
{
    QByteArray out = statusLine(head.status);
    out += QByteArrayLiteral("date: ") + httpDate() + QByteArrayLiteral("\r\n");
    out += QByteArrayLiteral("server: uvicorn\r\n");
    if (head.contentLength >= 0)
        out += QByteArrayLiteral("content-length: ") + QByteArray::number(head.contentLength)
            + QByteArrayLiteral("\r\n");
    if (!head.contentType.isEmpty())
        out += QByteArrayLiteral("content-type: ") + head.contentType + QByteArrayLiteral("\r\n");
    for (const auto& [name, value] : head.extra)
        out += name.toLower() + QByteArrayLiteral(": ") + value + QByteArrayLiteral("\r\n");
    if (head.close)
        out += QByteArrayLiteral("connection: close\r\n");
    if (head.contentLength < 0)
        out += QByteArrayLiteral("transfer-encoding: chunked\r\n");
    return out + QByteArrayLiteral("\r\n");
}

} // namespace

QByteArray formatHead(HttpFlavor flavor, const ResponseHead& head)
{
    return flavor == HttpFlavor::CppHttplib ? httplibHead(head) : uvicornHead(head);
}

QByteArray httpChunk(const QByteArray& data)
{
    if (data.isEmpty())
        return {}; // a zero-size chunk would end the body
    return QByteArray::number(data.size(), 16) + QByteArrayLiteral("\r\n") + data + QByteArrayLiteral("\r\n");
}

} // namespace qs::emu::detail

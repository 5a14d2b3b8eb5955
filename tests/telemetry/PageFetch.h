// SPDX-License-Identifier: MIT
#pragma once

// One GET of a loopback metrics page with Quantscope's own HTTP client, for the telemetry tests
// that check what an exporter answers (a real node exporter, the scripted DCGM one).
#include "model/wire/HttpConnection.h"

#include <QEventLoop>
#include <QString>
#include <QUrl>

namespace qs::test {

struct Fetched {
    int status = 0;
    QByteArray contentType;
    QByteArray body;
    QString failure;
};

inline Fetched fetch(const QUrl& url)
{
    HttpConnection connection;
    Fetched out;
    connection.onBody = [&](QByteArrayView piece, qint64) { out.body.append(piece); };
    QEventLoop loop;
    QObject::connect(&connection, &HttpConnection::finished, &loop, &QEventLoop::quit);
    HttpConnection::Request request;
    request.url = url;
    request.headers.append(qMakePair(QByteArray("Accept"), QByteArray("text/plain;version=0.0.4")));
    request.timeouts.totalMs = 10000;
    connection.start(request);
    loop.exec();
    out.status = connection.response().statusCode();
    out.contentType = connection.response().header("content-type");
    if (connection.failure().isFailure())
        out.failure = connection.failure().text();
    return out;
}

} // namespace qs::test

// SPDX-License-Identifier: MIT
// One Prometheus GET against loopback servers that misbehave in every way an exporter can: down,
// slow, HTML, JSON, a 50 MB body, garbage, metrics turned off. Each gives a one-line error that
// names the URL and says what to do.
#include "ClientTestSupport.h"
#include "model/core/Clock.h"
#include "model/wire/MetricsScrape.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTcpServer>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

namespace {
QByteArray httpReply(const QByteArray& status, const QByteArray& contentType, const QByteArray& body,
    const QByteArray& extraHeaders = {})
{
    return "HTTP/1.1 " + status + "\r\nContent-Type: " + contentType
        + "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n" + extraHeaders + "\r\n" + body;
}

const QByteArray GoodPage = "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n"
                            "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
                            "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-1\"} 1024\n"
                            "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
                            "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\"} 250.5\n";

ScrapeOutcome scrapeOnce(const QUrl& url, TelemetrySource::Kind kind = TelemetrySource::Kind::Exporter,
    Runtime runtime = Runtime::Unknown, int timeoutMs = 2000)
{
    MetricsScrape scrape;
    QEventLoop loop;
    QObject::connect(&scrape, &MetricsScrape::finished, &loop, &QEventLoop::quit);
    ScrapeRequest r;
    r.url = url;
    r.kind = kind;
    r.runtime = runtime;
    r.timeoutMs = timeoutMs;
    scrape.start(r);
    loop.exec();
    return scrape.outcome();
}

QUrl metricsUrl(const CannedServer& server)
{
    return QUrl(server.url().toString() + QStringLiteral("/metrics"));
}
} // namespace

TEST(MetricsScrape, ReadsAPageWithItsFormatAndTheRestartHeader)
{
    CannedServer server(httpReply(
        "200 OK", "text/plain; version=0.0.4", GoodPage, "Process-Start-Time-Unix: 1767225600\r\n"));
    const ScrapeOutcome o = scrapeOnce(metricsUrl(server));
    ASSERT_TRUE(o.ok()) << o.error.toStdString();
    EXPECT_EQ(o.httpStatus, 200);
    EXPECT_EQ(o.page->format, PromFormat::Text004);
    ASSERT_TRUE(o.page->family("DCGM_FI_DEV_FB_USED"));
    EXPECT_EQ(o.page->family("DCGM_FI_DEV_POWER_USAGE")->samples.at(0).value, 250.5);
    ASSERT_TRUE(o.processStartUnix);
    EXPECT_EQ(*o.processStartUnix, 1767225600.0);
    EXPECT_GT(o.writtenNs, 0);
    EXPECT_GE(o.durationMs, 0);
}

TEST(MetricsScrape, EveryBadAnswerNamesTheUrlAndSaysWhatToDo)
{
    struct Case {
        QByteArray reply;
        TelemetrySource::Kind kind;
        Runtime runtime;
        const char* expected;
    };
    const Case cases[] = {
        {httpReply("200 OK", "text/html", "<html><body>Grafana</body></html>"),
            TelemetrySource::Kind::Exporter, Runtime::Unknown, "answered an HTML page"},
        // HTML labelled as text is still HTML.
        {httpReply("200 OK", "text/plain", "\n<!DOCTYPE html><html></html>"), TelemetrySource::Kind::Exporter,
            Runtime::Unknown, "answered an HTML page"},
        {httpReply("200 OK", "application/json", "{\"data\":[]}"), TelemetrySource::Kind::Exporter,
            Runtime::Unknown, "answered JSON"},
        {httpReply("200 OK", "text/plain", "this is } not { metrics at all\n"),
            TelemetrySource::Kind::Exporter, Runtime::Unknown, "not Prometheus text (line 1"},
        {httpReply("501 Not Implemented", "application/json",
             R"({"error":{"code":501,"message":"This server does not support metrics endpoint. Start it with `--metrics`","type":"not_supported_error"}})"),
            TelemetrySource::Kind::Runtime, Runtime::LlamaServer, "start llama-server with --metrics"},
        {httpReply("404 Not Found", "application/json", "{\"detail\":\"Not Found\"}"),
            TelemetrySource::Kind::Runtime, Runtime::Sglang, "start SGLang with --enable-metrics"},
        {httpReply("404 Not Found", "text/plain", "404 page not found"), TelemetrySource::Kind::Exporter,
            Runtime::Unknown, ":9400/metrics"},
        {httpReply("401 Unauthorized", "application/json", "{}"), TelemetrySource::Kind::Runtime,
            Runtime::Vllm, "key-env"},
    };
    for (const Case& c : cases) {
        CannedServer server(c.reply);
        const QUrl url = metricsUrl(server);
        const ScrapeOutcome o = scrapeOnce(url, c.kind, c.runtime);
        EXPECT_FALSE(o.ok()) << c.expected;
        EXPECT_TRUE(o.error.contains(QString::fromUtf8(c.expected))) << o.error.toStdString();
        EXPECT_TRUE(o.error.startsWith(url.toString())) << o.error.toStdString();
        EXPECT_FALSE(o.error.contains(u'\n')) << "one line: " << o.error.toStdString();
    }
}

TEST(MetricsScrape, APageOver16MiBIsAbortedWhetherItsLengthIsDeclaredOrNot)
{
    // Declared: refused at the headers, before 50 MB are read.
    {
        CannedServer server(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 52428800\r\n\r\n" + GoodPage,
            false);
        const ScrapeOutcome o = scrapeOnce(metricsUrl(server));
        EXPECT_TRUE(o.error.contains(QStringLiteral("larger than 16 MiB — is this a Prometheus exporter?")))
            << o.error.toStdString();
    }
    // Close-delimited: counted as it arrives.
    {
        QByteArray body(50 * 1024 * 1024, 'x');
        CannedServer server(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n" + body);
        body.clear();
        const ScrapeOutcome o
            = scrapeOnce(metricsUrl(server), TelemetrySource::Kind::Exporter, Runtime::Unknown, 20000);
        EXPECT_TRUE(o.error.contains(QStringLiteral("larger than 16 MiB"))) << o.error.toStdString();
        EXPECT_LE(o.bodyBytes, MaxMetricsPageBytes);
    }
}

TEST(MetricsScrape, SlowAndDownExportersAreCalledThat)
{
    QTcpServer silent; // accepts, never answers
    ASSERT_TRUE(silent.listen(QHostAddress::LocalHost, 0));
    const QUrl slowUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(silent.serverPort()));
    const qint64 t0 = monotonicNs();
    const ScrapeOutcome slow = scrapeOnce(slowUrl, TelemetrySource::Kind::Exporter, Runtime::Unknown, 300);
    const double tookMs = msBetween(t0, monotonicNs());
    EXPECT_TRUE(slow.error.contains(QStringLiteral("slow: no complete page within 300 ms")))
        << slow.error.toStdString();
    EXPECT_GE(tookMs, 250);
    EXPECT_LT(tookMs, 2000);

    const QUrl downUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(closedPort()));
    const ScrapeOutcome down = scrapeOnce(downUrl);
    EXPECT_TRUE(down.error.contains(QStringLiteral("down: connection refused"))) << down.error.toStdString();
    EXPECT_TRUE(down.error.startsWith(downUrl.toString()));
}

TEST(MetricsScrape, TheAdviceNamesEachRuntimesFlag)
{
    EXPECT_TRUE(metricsEnableAdvice(Runtime::LlamaServer).contains(QStringLiteral("--metrics")));
    EXPECT_TRUE(metricsEnableAdvice(Runtime::Sglang).contains(QStringLiteral("--enable-metrics")));
    EXPECT_TRUE(metricsEnableAdvice(Runtime::Vllm).contains(QStringLiteral("always")));
    EXPECT_TRUE(metricsAcceptHeader().startsWith("text/plain;version=0.0.4"));
}

// SPDX-License-Identifier: MIT
// Debian's prometheus-node-exporter, started on a loopback port: what Quantscope reads of host
// memory (what a unified-memory machine like the DGX Spark reports instead of VRAM) must be what
// the kernel says in /proc/meminfo.
#include "model/core/Clock.h"
#include "model/core/MetricCatalog.h"
#include "model/wire/PrometheusText.h"
#include "model/wire/ScrapeReduction.h"
#include "tests/telemetry/PageFetch.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QThread>
#include <QTimer>
#include <gtest/gtest.h>

namespace qs {
namespace {

using test::fetch;
using test::Fetched;

constexpr const char* kExporter = "prometheus-node-exporter";

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

// kB values of /proc/meminfo, as bytes.
std::optional<double> meminfo(const QByteArray& key)
{
    QFile f(QStringLiteral("/proc/meminfo"));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith(QByteArray(key + ':')))
            return line.mid(key.size() + 1).trimmed().split(' ').value(0).toDouble() * 1024;
    return std::nullopt;
}

class NodeExporter : public ::testing::Test {
protected:
    void SetUp() override
    {
        const QString program = QStandardPaths::findExecutable(QString::fromLatin1(kExporter));
        if (program.isEmpty())
            GTEST_SKIP() << kExporter << " is not installed: run ./scripts/install-deps.sh";
        const quint16 port = freePort();
        m_url = QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(program, {QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(port)});
        ASSERT_TRUE(m_process.waitForStarted(5000)) << m_process.errorString().toStdString();
        // It listens a moment after it starts: poll until it answers.
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 10000) {
            const Fetched f = fetch(m_url);
            if (f.status == 200)
                return;
            QThread::msleep(100);
        }
        FAIL() << kExporter << " did not answer on " << m_url.toString().toStdString() << ": "
               << m_process.readAll().toStdString();
    }
    void TearDown() override
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(5000))
                m_process.kill();
        }
    }

    QUrl m_url;
    QProcess m_process;
};

TEST_F(NodeExporter, HostMemoryIsWhatTheKernelSays)
{
    const auto total = meminfo("MemTotal");
    const auto availableBefore = meminfo("MemAvailable");
    const Fetched f = fetch(m_url);
    const auto availableAfter = meminfo("MemAvailable");
    ASSERT_TRUE(f.failure.isEmpty()) << f.failure.toStdString();
    ASSERT_EQ(f.status, 200);
    ASSERT_TRUE(total && availableBefore && availableAfter);

    PromError error;
    const auto page = parsePrometheusText(std::string_view(f.body.constData(), std::size_t(f.body.size())),
        promFormatFromContentType(f.contentType.toStdString()), &error);
    ASSERT_TRUE(page) << error.text();
    EXPECT_GT(page->families.size(), 50U) << "a node exporter exposes hundreds of families";

    TelemetrySource source;
    source.url = m_url.toString();
    const TelemetrySample sample = reducePage(*page, source, 0, 0, 0, TelemetrySample::Phase::Run);
    EXPECT_EQ(sourceFlavour(source.families), QStringLiteral("node"));
    EXPECT_TRUE(knownFamilies(source.families).contains(QStringLiteral("node_memory_MemTotal_bytes")));

    QString found;
    const auto readTotal = readRole(source, sample, MetricRole::HostMemoryTotal, &found);
    ASSERT_TRUE(readTotal);
    EXPECT_EQ(*readTotal, *total) << "MemTotal does not move";
    EXPECT_EQ(found, QStringLiteral("node_memory_MemTotal_bytes"));

    const auto used = readRole(source, sample, MetricRole::HostMemoryUsed, &found);
    ASSERT_TRUE(used);
    EXPECT_EQ(found, QStringLiteral("node_memory_MemTotal_bytes − node_memory_MemAvailable_bytes"));
    // MemAvailable moves while we read it: the exporter's value lies within what we saw around
    // the scrape, give or take 256 MiB of other processes' churn on a busy CI machine.
    const double slack = 256.0 * 1048576;
    const double lo = *total - std::max(*availableBefore, *availableAfter) - slack;
    const double hi = *total - std::min(*availableBefore, *availableAfter) + slack;
    EXPECT_GE(*used, lo);
    EXPECT_LE(*used, hi);
    // Only the catalogue's series are kept, not the exporter's hundreds of CPU and disk series.
    EXPECT_LT(source.series.size(), 40U);
}

TEST_F(NodeExporter, AStoppedExporterIsAFailureNotAHang)
{
    m_process.kill();
    m_process.waitForFinished(5000);
    QElapsedTimer t;
    t.start();
    const Fetched f = fetch(m_url);
    EXPECT_FALSE(f.failure.isEmpty());
    EXPECT_LT(t.elapsed(), 5000);
}

} // namespace
} // namespace qs

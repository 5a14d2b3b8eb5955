// SPDX-License-Identifier: MIT
#pragma once

// A loopback Prometheus exporter: what a DCGM exporter or a node exporter next to an inference
// server answers on /metrics, with scripted values and faults. The telemetry tests scrape it, and
// the app's simulated endpoints pair one with each emulator so that GPU power and unified memory
// move with the simulated load. Series names, labels and units: ../shared/reference/
// server-metrics-and-logprobs.md §1.6–1.8; docs/emulator.md, "Exporters".

#include "tests/support/Emulator.h"
#include "tests/support/ServerThread.h"

#include <QHostAddress>
#include <QObject>
#include <QString>
#include <QUrl>
#include <functional>
#include <memory>
#include <vector>

class QThread;
class QTcpSocket;

namespace qs::emu {

namespace detail {
struct HttpRequest;
}

enum class ExporterKind {
    Dcgm, ///< dcgm-exporter ≤ 4.8: DCGM_FI_DEV_* with gpu/UUID/device/modelName/Hostname/driver labels
    Node, ///< node exporter's meminfo collector: node_memory_*_bytes
};

enum class ExporterFault {
    None,
    Down, ///< not listening: connection refused (setFault(None) listens again on the same port)
    Slow, ///< answers after ExporterConfig::slowMs
    Html, ///< 200 with an HTML page (a proxy's or a login page)
    Huge, ///< 200 with ExporterConfig::hugeBytes of valid-looking series
    Garbage, ///< 200 text/plain with random bytes
    TruncatedOpenMetrics, ///< OpenMetrics content type, the page cut mid-line, no `# EOF`
};

/// What the machine is doing at one moment, in SI units.
struct ExporterValues {
    double memoryUsedBytes = 8.0 * 1073741824.0; ///< DCGM FB_USED, or MemTotal − MemAvailable
    double powerW = 12; ///< per GPU
    double utilization = 0; ///< 0–1
    double temperatureC = 40;
};

/// A step of a timeline: from `atMs` after the exporter started, these values hold.
struct ExporterStep {
    double atMs = 0;
    ExporterValues values;
};

struct ExporterConfig {
    ExporterKind kind = ExporterKind::Dcgm;
    int gpus = 1; ///< DCGM: one series per GPU, each with the same values
    QString modelName = QStringLiteral("NVIDIA GB10");
    QString hostname = QStringLiteral("spark-emulated");
    QString driverVersion = QStringLiteral("580.142");
    double memoryTotalBytes = 128.0 * 1073741824.0; ///< FB_USED + FB_FREE, or MemTotal
    /// DCGM: whether DCGM_FI_DEV_FB_* are exported (false on unified-memory GB10, §1.7).
    bool framebuffer = true;
    /// Values by time: the last step at or before now (the first before it). Empty: defaults.
    std::vector<ExporterStep> timeline;
    /// When set, wins over `timeline`: the values at `elapsedMs` since start (e.g. from
    /// EmulatorServer::load()). Called on the exporter's thread, and on the caller's by
    /// ExporterServer::energyMillijoules(): it must be thread-safe.
    std::function<ExporterValues(double elapsedMs)> values;
    /// DCGM's energy counter at start, mJ (it counts since boot).
    double energyStartMillijoules = 1.5e9;
    /// A scripted energy counter, J since start (e.g. a step per finished request): when set, the
    /// counter shows energyStartMillijoules + 1000 × this and moves only as the script says;
    /// otherwise it is the power integrated over real time. Called on the exporter's thread and
    /// by energyMillijoules(): it must be thread-safe.
    std::function<double(double elapsedMs)> energyJoules;
    /// How often the exporter refreshes what it shows (dcgm-exporter's `-c`: 30 s by default, 1–30
    /// s in practice): every `updateMs` it reads the values and the counter once, and every scrape
    /// until the next refresh answers with those, so a counter moves in steps. 0: every scrape
    /// shows that moment's values.
    int updateMs = 0;
    /// DCGM: whether GPU `gpu`'s fields are blank at `elapsedMs` (the exporter then writes DCGM's
    /// int64 blank sentinel for each of them, as it does when reading that GPU failed). Must be
    /// thread-safe.
    std::function<bool(int gpu, double elapsedMs)> blank;
    /// Serve OpenMetrics (with `# EOF`) when the Accept header asks for it.
    bool openMetrics = false;
    ExporterFault fault = ExporterFault::None;
    int slowMs = 2000;
    qint64 hugeBytes = 50LL * 1024 * 1024;

    /// A DGX Spark (GB10, 128 GB unified memory) next to a simulated profile ("q4km-like",
    /// "nvfp4-like", …, see SimulatedProfiles.h): Node gives the memory (the model's weights and
    /// KV cache on top of the OS), Dcgm the GPU's power, utilisation and temperature, without
    /// framebuffer series as on the real GB10. With `load` (e.g. an EmulatorServer's load()),
    /// power, utilisation and memory follow the requests in flight; without, a fixed timeline
    /// (idle, 10 s busy, idle) repeats every 20 s.
    static ExporterConfig simulated(
        ExporterKind kind, const QString& profile, std::function<EmulatorLoad()> load = {});
};

/// The HTTP server. Lives in the thread that created it; the accessors are thread-safe.
class ExporterServer : public QObject {
    Q_OBJECT
public:
    explicit ExporterServer(ExporterConfig config, QObject* parent = nullptr);
    ~ExporterServer() override;

    bool listen(const QHostAddress& address = QHostAddress::LocalHost, quint16 port = 0);
    quint16 port() const;
    QUrl baseUrl() const; ///< http://127.0.0.1:PORT
    QUrl metricsUrl() const; ///< …/metrics

    /// Thread-safe. Down stops listening and drops open connections; leaving Down listens
    /// again on the same port (false when that failed).
    bool setFault(ExporterFault fault);
    ExporterFault fault() const;
    /// The energy counter now, mJ (integrated over real time, or scripted), before any refresh
    /// period holds it back from the page.
    double energyMillijoules();
    int scrapes() const; ///< GET /metrics answered so far

private:
    void answer(QTcpSocket* socket, const detail::HttpRequest& request);
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// An ExporterServer on a thread of its own. Blocks in start() until listening.
class ExporterThread {
public:
    ExporterThread();
    ~ExporterThread();
    bool start(ExporterConfig config, quint16 port = 0);
    ExporterServer* server() const; ///< use only its thread-safe accessors
    QUrl baseUrl() const;
    QUrl metricsUrl() const;
    bool setFault(ExporterFault fault); ///< see ExporterServer::setFault

private:
    ServerThread<ExporterServer> m_run;
};

} // namespace qs::emu

// SPDX-License-Identifier: MIT
#include "tests/support/ExporterServer.h"

#include "model/core/Clock.h"
#include "tests/support/HttpRequestReader.h"
#include "tests/support/MetricsPage.h"

#include <QDateTime>
#include <QEventLoop>
#include <QLocale>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <atomic>
#include <cmath>
#include <future>
#include <mutex>
#include <random>

namespace qs::emu {

namespace {

constexpr double GiB = 1073741824.0;
constexpr double MiB = 1048576.0;
constexpr qint64 IntegrationStepNs = 10'000'000; // energy: power sampled every 10 ms of elapsed time
const QByteArray kText004
    = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
const QByteArray kOpenMetrics
    = QByteArrayLiteral("application/openmetrics-text; version=1.0.0; charset=utf-8");

// Go's net/http: canonical header names, Date, then the body.
QByteArray goResponse(int status, const QByteArray& contentType, const QByteArray& body)
{
    const QByteArray reason = status == 200 ? QByteArrayLiteral("OK") : QByteArrayLiteral("Not Found");
    const QByteArray date
        = QLocale::c()
              .toString(QDateTime::currentDateTimeUtc(), QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"))
              .toLatin1();
    return QByteArrayLiteral("HTTP/1.1 ") + QByteArray::number(status) + ' ' + reason
        + QByteArrayLiteral("\r\nContent-Type: ") + contentType + QByteArrayLiteral("\r\nDate: ") + date
        + QByteArrayLiteral("\r\nContent-Length: ") + QByteArray::number(body.size())
        + QByteArrayLiteral("\r\n\r\n") + body;
}

std::string fixed6(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    return buf;
}

std::string integer(double v)
{
    return std::to_string(std::llround(v));
}

} // namespace

ExporterConfig ExporterConfig::simulated(
    ExporterKind kind, const QString& profile, std::function<EmulatorLoad()> load)
{
    ExporterConfig c;
    c.kind = kind;
    c.framebuffer = false; // GB10: no framebuffer, the memory is the host's
    c.memoryTotalBytes = 128e9;
    // llama-server allocates weights and its whole context up front; vLLM reserves its KV pool
    // (gpu-memory-utilization) at start. Both then move a little with the tokens in flight.
    const bool vllmLike = profile.startsWith(QLatin1String("nvfp4"));
    const double baseBytes = 9.0 * GiB + (vllmLike ? 62.0 * GiB : 7.6 * GiB);
    const double busyW = vllmLike ? 48.0 : 38.0;
    const auto valuesFor = [baseBytes, busyW](double running, double kvTokens, double tokensPerSecond) {
        ExporterValues v;
        v.utilization = running > 0 ? std::min(1.0, 0.7 + 0.1 * running) : (tokensPerSecond > 0 ? 0.3 : 0.0);
        v.powerW = 11.0 + (busyW - 11.0) * v.utilization;
        v.temperatureC = 41.0 + 22.0 * v.utilization;
        v.memoryUsedBytes = baseBytes + kvTokens * 96.0 * 1024.0;
        return v;
    };
    if (load) {
        c.values = [load = std::move(load), valuesFor](double) {
            const EmulatorLoad l = load();
            return valuesFor(l.running, l.kvTokens, l.tokensPerSecond);
        };
    } else {
        c.values = [valuesFor](double elapsedMs) {
            const double phase = std::fmod(elapsedMs, 20000.0);
            const bool busy = phase >= 5000.0 && phase < 15000.0;
            return valuesFor(busy ? 2 : 0, busy ? 1500 : 0, busy ? 60 : 0);
        };
    }
    return c;
}

struct ExporterServer::Impl {
    /// What one page shows: the values and the energy counter as of one reading.
    struct Shown {
        ExporterValues values;
        double energyMj = 0;
        double elapsedMs = 0; ///< when they were read
    };

    explicit Impl(ExporterConfig c)
        : config(std::move(c))
        , startNs(qs::monotonicNs())
        , lastIntegrationNs(startNs)
        , energyMj(config.energyStartMillijoules)
        , fault(config.fault)
    {
        shown = read(startNs);
    }

    ExporterValues valuesAt(double elapsedMs) const
    {
        if (config.values)
            return config.values(elapsedMs);
        ExporterValues v;
        if (config.timeline.empty())
            return v;
        v = config.timeline.front().values;
        for (const ExporterStep& step : config.timeline)
            if (step.atMs <= elapsedMs)
                v = step.values;
        return v;
    }

    // Called with `mutex` held: left Riemann sum in steps of at most 10 ms.
    void integrate(qint64 nowNs)
    {
        while (lastIntegrationNs < nowNs) {
            const qint64 step = std::min(IntegrationStepNs, nowNs - lastIntegrationNs);
            const double powerW = valuesAt(double(lastIntegrationNs - startNs) / 1e6).powerW;
            energyMj += powerW * double(step) / 1e6; // W × ms = mJ
            lastIntegrationNs += step;
        }
    }

    // The counter now: scripted, or integrated (called with `mutex` held).
    double counterNow(qint64 nowNs)
    {
        if (config.energyJoules)
            return config.energyStartMillijoules
                + 1000.0 * config.energyJoules(double(nowNs - startNs) / 1e6);
        integrate(nowNs);
        return energyMj;
    }

    // Called with `mutex` held.
    Shown read(qint64 nowNs)
    {
        const double elapsedMs = double(nowNs - startNs) / 1e6;
        return {valuesAt(elapsedMs), counterNow(nowNs), elapsedMs};
    }

    QByteArray dcgmPage(const Shown& s) const;
    QByteArray nodePage(const ExporterValues& v, bool openMetrics) const;
    QByteArray page(bool openMetrics);

    const ExporterConfig config;
    const qint64 startNs;
    mutable std::mutex mutex; // energy, fault, huge body
    qint64 lastIntegrationNs;
    double energyMj;
    Shown shown; // the last refresh, when config.updateMs > 0
    ExporterFault fault;
    QByteArray hugeBody;
    std::atomic<int> scrapes {0};
    std::atomic<quint16> port {0};
    QHostAddress address;
    QTcpServer* tcp = nullptr;
    QTimer* integrationTimer = nullptr;
    QList<QPointer<QTcpSocket>> sockets;
};

QByteArray ExporterServer::Impl::dcgmPage(const Impl::Shown& s) const
{
    const ExporterValues& v = s.values;
    std::string out;
    const auto field = [&](const char* name, const char* type, const char* help, const std::string& value) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
        for (int gpu = 0; gpu < std::max(1, config.gpus); ++gpu) {
            // DCGM's int64 blank (0x7ffffffffffffff0), as the exporter prints a failed read.
            const bool isBlank = config.blank && config.blank(gpu, s.elapsedMs);
            char uuid[64];
            std::snprintf(uuid, sizeof uuid, "GPU-5fd4e6b0-1b0c-4b5e-9c5a-%012d", gpu);
            char bus[32];
            std::snprintf(bus, sizeof bus, "0000000%d:01:00.0", gpu);
            out += std::string(name) + "{gpu=\"" + std::to_string(gpu) + "\",UUID=\"" + uuid
                + "\",pci_bus_id=\"" + bus + "\",device=\"nvidia" + std::to_string(gpu) + "\",modelName=\""
                + config.modelName.toStdString() + "\",Hostname=\"" + config.hostname.toStdString()
                + "\",DCGM_FI_DRIVER_VERSION=\"" + config.driverVersion.toStdString() + "\"} "
                + (isBlank ? std::string("9223372036854775792") : value) + "\n";
        }
    };
    field("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).",
        integer(v.utilization > 0 ? 2418 : 208));
    field("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", integer(4266));
    field("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", integer(v.temperatureC));
    field("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", fixed6(v.powerW));
    field("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).",
        integer(s.energyMj));
    field("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", integer(v.utilization * 100));
    field("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", integer(0));
    if (config.framebuffer) {
        const double used = std::round(v.memoryUsedBytes / MiB);
        field("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).",
            integer(std::max(0.0, std::round(config.memoryTotalBytes / MiB) - used)));
        field("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", integer(used));
    }
    field("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", integer(0));
    return QByteArray::fromStdString(out);
}

// collector/meminfo_linux.go: every /proc/meminfo line as a gauge, kB × 1024.
QByteArray ExporterServer::Impl::nodePage(const ExporterValues& v, bool openMetrics) const
{
    detail::PromWriter w(detail::NumberStyle::Go, openMetrics);
    const double total = std::round(config.memoryTotalBytes / 1024) * 1024;
    const double available = std::max(0.0, std::round((total - v.memoryUsedBytes) / 1024) * 1024);
    const double cached = std::min(available, 12.0 * GiB);
    const auto meminfo = [&](const char* key, double value) {
        const std::string name = std::string("node_memory_") + key;
        w.gauge(name, std::string("Memory information field ") + key + ".", {}, value);
    };
    meminfo("Active_anon_bytes", std::max(0.0, total - available - 2.0 * GiB));
    meminfo("Buffers_bytes", 256.0 * MiB);
    meminfo("Cached_bytes", cached);
    meminfo("HugePages_Total", 0);
    meminfo("MemAvailable_bytes", available);
    meminfo("MemFree_bytes", std::max(0.0, available - cached));
    meminfo("MemTotal_bytes", total);
    meminfo("SwapFree_bytes", 16.0 * GiB);
    meminfo("SwapTotal_bytes", 16.0 * GiB);
    return w.finish();
}

QByteArray ExporterServer::Impl::page(bool openMetrics)
{
    Impl::Shown s;
    {
        std::lock_guard lock(mutex);
        s = config.updateMs > 0 ? shown : read(qs::monotonicNs());
    }
    if (config.kind == ExporterKind::Node)
        return nodePage(s.values, openMetrics);
    QByteArray body = dcgmPage(s);
    if (openMetrics)
        body += "# EOF\n";
    return body;
}

namespace {

// Serves one socket's requests in order; a Slow answer holds the ones after it.
class ExporterConnection : public QObject {
public:
    ExporterConnection(
        QTcpSocket* socket, std::function<void(QTcpSocket*, const detail::HttpRequest&)> handle)
        : m_socket(socket)
        , m_handle(std::move(handle))
    {
        setParent(socket);
        QObject::connect(socket, &QTcpSocket::readyRead, this, [this] {
            m_reader.feed(m_socket->readAll(), qs::monotonicNs());
            while (m_reader.hasRequest())
                m_handle(m_socket, m_reader.takeRequest());
            if (m_reader.failed())
                m_socket->disconnectFromHost();
        });
        QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

private:
    QTcpSocket* m_socket;
    std::function<void(QTcpSocket*, const detail::HttpRequest&)> m_handle;
    detail::HttpRequestReader m_reader;
};

} // namespace

ExporterServer::ExporterServer(ExporterConfig config, QObject* parent)
    : QObject(parent)
    , d(std::make_unique<Impl>(std::move(config)))
{
    d->integrationTimer = new QTimer(this);
    d->integrationTimer->setInterval(100); // values that follow a live load are sampled in time
    QObject::connect(d->integrationTimer, &QTimer::timeout, this, [this] {
        std::lock_guard lock(d->mutex);
        d->integrate(qs::monotonicNs());
    });
    d->integrationTimer->start();
    if (d->config.updateMs > 0) {
        // The exporter's collect loop: one reading per period, shown until the next.
        auto* refresh = new QTimer(this);
        refresh->setTimerType(Qt::PreciseTimer);
        refresh->setInterval(d->config.updateMs);
        QObject::connect(refresh, &QTimer::timeout, this, [this] {
            std::lock_guard lock(d->mutex);
            d->shown = d->read(qs::monotonicNs());
        });
        refresh->start();
    }
}

ExporterServer::~ExporterServer()
{
    delete d->tcp;
    for (const QPointer<QTcpSocket>& socket : std::as_const(d->sockets))
        delete socket.data();
}

bool ExporterServer::listen(const QHostAddress& address, quint16 port)
{
    delete d->tcp;
    d->tcp = new QTcpServer(this);
    QObject::connect(d->tcp, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket* socket = d->tcp->nextPendingConnection()) {
            d->sockets.removeAll(nullptr);
            d->sockets.append(socket);
            socket->setParent(this);
            new ExporterConnection(
                socket, [this](QTcpSocket* s, const detail::HttpRequest& r) { answer(s, r); });
        }
    });
    if (!d->tcp->listen(address, port))
        return false;
    d->address = address;
    d->port = d->tcp->serverPort();
    return true;
}

void ExporterServer::answer(QTcpSocket* socket, const detail::HttpRequest& request)
{
    const ExporterFault fault = this->fault();
    const QPointer<QTcpSocket> guard(socket);
    const auto send = [guard](const QByteArray& bytes) {
        if (guard && guard->state() == QAbstractSocket::ConnectedState) {
            guard->write(bytes);
            guard->flush();
        }
    };
    if (request.path != "/metrics") {
        if (request.path == "/")
            send(goResponse(200, QByteArrayLiteral("text/html; charset=utf-8"),
                QByteArrayLiteral("<html><head><title>Exporter</title></head><body><h1>Exporter</h1>"
                                  "<p><a href=\"/metrics\">Metrics</a></p></body></html>")));
        else
            send(goResponse(404, QByteArrayLiteral("text/plain; charset=utf-8"),
                QByteArrayLiteral("404 page not found\n")));
        return;
    }
    ++d->scrapes;
    const bool openMetrics = d->config.openMetrics && detail::acceptsOpenMetrics(request.header("Accept"));
    switch (fault) {
    case ExporterFault::Html:
        send(goResponse(200, QByteArrayLiteral("text/html; charset=utf-8"),
            QByteArrayLiteral("<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n"
                              "<body><form action=\"/login\">Please sign in</form></body></html>\n")));
        return;
    case ExporterFault::Huge: {
        QByteArray body;
        {
            std::lock_guard lock(d->mutex);
            if (d->hugeBody.size() < d->config.hugeBytes) {
                // Valid lines, so only the size is wrong: a label with unbounded values.
                d->hugeBody.reserve(d->config.hugeBytes + 64);
                for (qint64 i = 0; d->hugeBody.size() < d->config.hugeBytes; ++i)
                    d->hugeBody += "exporter_padding{id=\"" + QByteArray::number(i) + "\"} 1\n";
            }
            body = d->hugeBody;
        }
        send(goResponse(200, kText004, body));
        return;
    }
    case ExporterFault::Garbage: {
        std::mt19937 rng(quint32(d->scrapes.load()));
        QByteArray body(4096, '\0');
        for (char& c : body)
            c = char(rng() % 256);
        send(goResponse(200, kText004, body));
        return;
    }
    case ExporterFault::TruncatedOpenMetrics: {
        QByteArray body = d->page(true);
        if (body.endsWith("# EOF\n"))
            body.chop(6);
        body.truncate(body.size() * 3 / 5); // mid-line, as a dropped connection leaves it
        send(goResponse(200, kOpenMetrics, body));
        return;
    }
    case ExporterFault::Slow:
        QTimer::singleShot(d->config.slowMs, this, [this, send, openMetrics] {
            send(goResponse(200, openMetrics ? kOpenMetrics : kText004, d->page(openMetrics)));
        });
        return;
    case ExporterFault::None:
    case ExporterFault::Down:
        break;
    }
    send(goResponse(200, openMetrics ? kOpenMetrics : kText004, d->page(openMetrics)));
}

quint16 ExporterServer::port() const
{
    return d->port;
}

QUrl ExporterServer::baseUrl() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(d->port);
    return url;
}

QUrl ExporterServer::metricsUrl() const
{
    QUrl url = baseUrl();
    url.setPath(QStringLiteral("/metrics"));
    return url;
}

bool ExporterServer::setFault(ExporterFault fault)
{
    bool ok = true;
    const auto apply = [this, fault, &ok] {
        ExporterFault before;
        {
            std::lock_guard lock(d->mutex);
            before = d->fault;
            d->fault = fault;
        }
        if (fault == ExporterFault::Down && before != ExporterFault::Down) {
            d->tcp->close();
            for (const QPointer<QTcpSocket>& socket : std::as_const(d->sockets))
                if (socket)
                    socket->abort();
        } else if (fault != ExporterFault::Down && before == ExporterFault::Down) {
            ok = d->tcp->listen(d->address, d->port);
        }
    };
    if (QThread::currentThread() == thread())
        apply();
    else
        QMetaObject::invokeMethod(this, apply, Qt::BlockingQueuedConnection);
    return ok;
}

ExporterFault ExporterServer::fault() const
{
    std::lock_guard lock(d->mutex);
    return d->fault;
}

double ExporterServer::energyMillijoules()
{
    std::lock_guard lock(d->mutex);
    return d->counterNow(qs::monotonicNs());
}

int ExporterServer::scrapes() const
{
    return d->scrapes;
}

ExporterThread::ExporterThread() = default;

ExporterThread::~ExporterThread() = default;

bool ExporterThread::start(ExporterConfig config, quint16 port)
{
    return m_run.start(QStringLiteral("qs-exporter"), [config = std::move(config), port]() mutable {
        const bool down = config.fault == ExporterFault::Down;
        if (down)
            config.fault = ExporterFault::None;
        auto server = std::make_unique<ExporterServer>(std::move(config));
        if (!server->listen(QHostAddress::LocalHost, port))
            return std::unique_ptr<ExporterServer>();
        if (down) // started down: the port is known, nothing answers on it
            server->setFault(ExporterFault::Down);
        return server;
    });
}

ExporterServer* ExporterThread::server() const
{
    return m_run.server();
}

QUrl ExporterThread::baseUrl() const
{
    return server() ? server()->baseUrl() : QUrl();
}

QUrl ExporterThread::metricsUrl() const
{
    return server() ? server()->metricsUrl() : QUrl();
}

bool ExporterThread::setFault(ExporterFault fault)
{
    return server() && server()->setFault(fault);
}

} // namespace qs::emu

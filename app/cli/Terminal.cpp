// SPDX-License-Identifier: MIT
#include "app/cli/Terminal.h"

#include "model/core/Platform.h"

#include <atomic>
#include <csignal>

namespace qs::app {

namespace {
std::atomic<int> g_interrupts {0};

extern "C" void onInterrupt(int)
{
    // A second Ctrl+C falls through to the default action (terminate at once).
    if (g_interrupts.fetch_add(1) >= 1)
        std::signal(SIGINT, SIG_DFL);
}
} // namespace

InterruptWatch::InterruptWatch(std::function<void()> onFirst)
    : m_onFirst(std::move(onFirst))
{
    g_interrupts = 0;
    std::signal(SIGINT, onInterrupt);
    QObject::connect(&m_poll, &QTimer::timeout, [this] {
        if (g_interrupts.load() > 0) {
            m_poll.stop();
            if (m_onFirst)
                m_onFirst();
        }
    });
    m_poll.start(100);
}

InterruptWatch::~InterruptWatch()
{
    std::signal(SIGINT, SIG_DFL);
}

QString progressBar(int done, int total)
{
    const int width = 30;
    const int filled = total > 0 ? std::clamp(int(double(done) / total * width), 0, width) : 0;
    return QStringLiteral("[%1%2] %3/%4")
        .arg(QString(filled, u'#'), QString(width - filled, u'.'))
        .arg(done)
        .arg(total);
}

QString durationText(double ms)
{
    const qint64 s = qint64(ms / 1000.0 + 0.5);
    if (s >= 3600)
        return QStringLiteral("%1h%2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    if (s >= 60)
        return QStringLiteral("%1m%2s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1s").arg(s);
}

bool stderrIsTty()
{
    return platform::stderrIsTerminal();
}

} // namespace qs::app

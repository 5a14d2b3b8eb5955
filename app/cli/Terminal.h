// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>

// What the long-running headless commands (run, judge) share at the terminal: Ctrl+C that asks
// them to stop cleanly, and a one-line progress bar.

namespace qs::app {

/// While alive, the first Ctrl+C calls `onFirst` (on the caller's thread, within 100 ms) instead of
/// killing the process; a second one terminates at once. Restores the default on destruction.
class InterruptWatch {
public:
    explicit InterruptWatch(std::function<void()> onFirst);
    ~InterruptWatch();
    InterruptWatch(const InterruptWatch&) = delete;
    InterruptWatch& operator=(const InterruptWatch&) = delete;

private:
    QTimer m_poll;
    std::function<void()> m_onFirst;
};

/// "[#########.....................] 12/40", 30 characters of bar.
QString progressBar(int done, int total);
/// "42s", "3m05s", "1h02m".
QString durationText(double ms);
/// True when stderr is a terminal (progress is redrawn in place there, printed line by line else).
bool stderrIsTty();

} // namespace qs::app

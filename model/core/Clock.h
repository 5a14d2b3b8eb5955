// SPDX-License-Identifier: MIT
#pragma once

#include <QtGlobal>
#include <chrono>

namespace qs {

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC on Linux). The same clock in every thread and
/// every process of a machine, so a loopback emulator's stamps can be compared with the client's.
inline qint64 monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Milliseconds between two monotonicNs() stamps, as a double.
inline double msBetween(qint64 fromNs, qint64 toNs)
{
    return double(toNs - fromNs) / 1e6;
}

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QTimeZone>
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

/// The UTC zone as a time spec, the same on every Qt 6: Qt::UTC as an argument is deprecated in
/// Qt 6.8, QTimeZone::UTC (its replacement) exists from 6.5, and QTimeZone::utc() would give a
/// Qt::TimeZone spec that the file readers' own times (Qt::UTC) do not compare equal to.
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
inline const QTimeZone utcZone = QTimeZone::UTC;
#else
inline constexpr Qt::TimeSpec utcZone = Qt::UTC;
#endif

/// `date` at `time`, UTC (timeSpec() Qt::UTC).
inline QDateTime utcDateTime(QDate date, QTime time)
{
    return QDateTime(date, time, utcZone);
}

/// The UTC time `ms` milliseconds after the epoch (timeSpec() Qt::UTC).
inline QDateTime utcFromMSecs(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, utcZone);
}

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

// Hashes that give the same numbers on every run, platform and Qt version (qHash is seeded per
// process), for the emulator's deterministic choices. Internal to qs_emulator.

#include <QString>
#include <QtGlobal>

namespace qs::emu::detail {

/// SplitMix64's finalizer: a well-mixed 64-bit value from any 64-bit input.
inline quint64 splitMix(quint64 x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/// FNV-1a over the UTF-8 of `text`.
inline quint64 stableHash(const QString& text)
{
    quint64 h = 0xCBF29CE484222325ULL;
    for (const char byte : text.toUtf8()) {
        h ^= quint8(byte);
        h *= 0x100000001B3ULL;
    }
    return h;
}

/// A double in [0, 1) from a hash (its top 53 bits).
inline double unitFromHash(quint64 hash)
{
    return double(hash >> 11) * 0x1.0p-53;
}

} // namespace qs::emu::detail

// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>

namespace qs::app {

/// Where a save that failed went instead.
struct SaveOutcome {
    QString savedTo; ///< the file written: the one asked for, a rescue copy, or "" when none was
    QString error; ///< why the file asked for could not be written; "" when it was
    QString rescueError; ///< why the rescue copy could not be written either
};

/// The rescue copy of `outPath`: the system's temporary folder (else the home folder), named after
/// the file asked for and the time, so it never overwrites an earlier rescue.
QString rescuePathFor(const QString& outPath);

/// Saves `result` to `outPath`; when that fails (a full disk, a folder made read-only, a file-size
/// limit), to rescuePathFor(outPath) — for a headless command, which exits after saving and would
/// otherwise leave the run only in its journal, itself likely hit by the same full disk.
SaveOutcome saveOrRescue(const RunResult& result, const QString& outPath);

} // namespace qs::app

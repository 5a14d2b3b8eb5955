// SPDX-License-Identifier: MIT
#pragma once

#include <QtGlobal>

namespace qs {

/// When the bytes waiting on a TCP socket reached this machine: the kernel's receive time
/// (Linux: SO_TIMESTAMPNS, read with a peek), not the moment a thread got round to reading them.
///
/// Why: a stamp taken as a read returns includes the wait for the reading thread — up to tens of
/// milliseconds with a thousand streams on two cores — and that wait would be measured as the
/// server's latency. The kernel stamps each packet as it arrives, whatever the threads are doing.
/// Events that arrive while an earlier read is still pending share one stamp, as they share one
/// read; that is the only error left.
///
/// Platform seam: on other systems (or if the kernel declines) enable() returns false and
/// pendingArrivalNs() returns 0; callers then keep the read's own stamp.
namespace arrival_stamps {

/// Turns the kernel's receive stamping on for this process, ahead of the first socket that needs
/// it: Linux switches it on system-wide in deferred work when the first socket asks, and packets
/// that arrive before that carry no stamp (their reads keep their own). Idempotent, cheap after
/// the first call; the stamping stays on until the process ends.
void prepare();

/// Asks the kernel to stamp what arrives on `socket` (a connected TCP socket's descriptor).
bool enable(qintptr socket);

/// The monotonicNs() time at which the last of the bytes now waiting on `socket` arrived, or 0
/// when nothing is waiting, the kernel gave no stamp, or the stamp is not plausible (in the
/// future, or earlier than `notBeforeNs`). Copies what is waiting into `scratch` (up to `size`
/// bytes) without consuming it: read them next, as one read.
qint64 pendingArrivalNs(qintptr socket, char* scratch, qint64 size, qint64 notBeforeNs);

} // namespace arrival_stamps
} // namespace qs

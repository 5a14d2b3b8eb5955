// SPDX-License-Identifier: MIT
#pragma once

// The client's records against what the emulator wrote (bench_streaming, bench_runner): every
// token event's read stamp beside the emulator's write stamp of the same token, and whether each
// event reached the request it belongs to. Records and served requests are matched by the
// response id (`chatcmpl-…`), so any order and any concurrency work, in or out of process.

#include "model/core/RequestRecord.h"
#include "tests/support/Emulator.h"

#include <QByteArray>
#include <QString>
#include <vector>

namespace qs::bench {

struct StampCheck {
    std::vector<double> stampErrorMs; ///< client read stamp − emulator write stamp, every matched event
    int records = 0; ///< client records checked
    int failedRecords = 0; ///< not ok()
    int unmatchedRecords = 0; ///< no served request carries their response id
    int unansweredServed = 0; ///< chat requests the emulator served that no record matches
    qint64 writtenEvents = 0; ///< token events the emulator wrote, all served requests
    qint64 receivedEvents = 0; ///< token events the client recorded, matched records
    /// Written but never recorded: fewer events in a record than its request's writes, and every
    /// write of a served request no record matches.
    qint64 lostEvents = 0;
    /// With numbered tokens (ServerConfig::numberTokens): events whose text is not "r<s>t<k> " of
    /// their own request s and place k, and events a record has beyond its request's writes.
    qint64 misattributedEvents = 0;

    bool clean() const
    {
        return failedRecords == 0 && unmatchedRecords == 0 && lostEvents == 0 && misattributedEvents == 0;
    }
};

/// `numbered`: the emulator numbered its tokens, so each event's text is checked too.
StampCheck checkStamps(const std::vector<const RequestRecord*>& records,
    const std::vector<emu::ServedRequest>& served, bool numbered);

/// Reads `GET /emulator/served` (ServerConfig::servedLogRoute) back into served requests (serial,
/// id, status, stamps). Empty with `error` set when the body is not such a log.
std::vector<emu::ServedRequest> parseServedLog(const QByteArray& json, QString* error);

/// GETs `baseUrl`/emulator/served with Quantscope's own client (blocking, local event loop).
QByteArray fetchServedLog(const QUrl& baseUrl, QString* error);

} // namespace qs::bench

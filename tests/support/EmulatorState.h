// SPDX-License-Identifier: MIT
#pragma once

// The part of an EmulatorServer that other threads may touch: its config and the record of
// served chat requests, both behind one mutex; the /metrics counters and the prefix cache, each
// behind its own. Internal to qs_emulator.

#include "tests/support/Emulator.h"
#include "tests/support/EmulatorMetrics.h"
#include "tests/support/PrefixCache.h"

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace qs::emu::detail {

class ServerState {
public:
    explicit ServerState(ServerConfig config);

    ServerConfig config() const;
    void setConfig(ServerConfig config);

    /// Appends a record and returns its serial, the handle for later updates.
    quint64 addServed(ServedRequest request);
    /// Edits a record in place; ignored when it was cleared meanwhile.
    void updateServed(quint64 serial, const std::function<void(ServedRequest&)>& edit);
    /// Runs `fn` under the lock with the record (nullptr when cleared). A response writes its
    /// bytes inside `fn`, so whoever has read them finds them recorded by servedRequests().
    void withServed(quint64 serial, const std::function<void(ServedRequest*)>& fn);
    std::vector<ServedRequest> served() const;
    void clearServed();

    /// The /metrics counters (locked on their own: a scrape never waits for a stream write).
    ServerMetrics& metrics() { return m_metrics; }
    const ServerMetrics& metrics() const { return m_metrics; }

    /// The prompts (and answers) this server has computed (docs/emulator.md, "Prefix cache").
    PrefixCache& prefixCache() { return m_prefixCache; }
    const PrefixCache& prefixCache() const { return m_prefixCache; }

private:
    ServedRequest* find(quint64 serial);

    // Recursive: a socket write inside withServed() may emit disconnected() synchronously,
    // whose handler records the end of the request.
    mutable std::recursive_mutex m_mutex;
    ServerConfig m_config;
    std::vector<std::pair<quint64, ServedRequest>> m_served; // ascending serials
    quint64 m_nextSerial = 1;
    ServerMetrics m_metrics;
    PrefixCache m_prefixCache;
};

} // namespace qs::emu::detail

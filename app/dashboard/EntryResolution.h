// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/EndpointSpec.h"
#include "widgets/panels/EndpointEntry.h"

#include <optional>

namespace qs::app {

/// A run endpoint for `entry` as it is described (its fidelity reference mark included), without
/// starting anything (a simulated one still needs its simulator's address). The entry's metrics
/// URLs are kept, except, for a simulated entry, pages at 127.0.0.1: those are the simulated
/// exporters of the run the entry was read back from, whose ports are gone (the resolver starts
/// new ones; a loopback exporter of your own can be named as `localhost`).
RunEndpoint resolveEntryOffline(const EndpointEntry& entry);

/// A run endpoint for `entry`; a simulated one gets its own loopback simulator and exporters
/// from `resolver`, seeded with `seed`, beside the entry's metrics URLs (as resolveEntryOffline
/// keeps them). Empty, with `error` set, when the entry cannot be used.
std::optional<RunEndpoint> resolveEntry(
    const EndpointEntry& entry, quint64 seed, EndpointResolver& resolver, QString& error);

} // namespace qs::app

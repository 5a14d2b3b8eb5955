// SPDX-License-Identifier: MIT
#pragma once

#include "app/EndpointSpec.h"
#include "widgets/panels/EndpointEntry.h"

#include <optional>

namespace qs::app {

/// A run endpoint for `entry` as it is described, without starting anything (a simulated one
/// still needs its simulator's address).
RunEndpoint resolveEntryOffline(const EndpointEntry& entry);

/// A run endpoint for `entry`; a simulated one gets its own loopback simulator from `resolver`,
/// seeded with `seed`. Empty, with `error` set, when the entry cannot be used.
std::optional<RunEndpoint> resolveEntry(
    const EndpointEntry& entry, quint64 seed, EndpointResolver& resolver, QString& error);

} // namespace qs::app

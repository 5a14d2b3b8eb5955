// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"

#include <QString>
#include <nlohmann/json.hpp>

namespace qs {

/// An endpoint as the user keeps it in the endpoints panel: a real endpoint, or a built-in
/// simulated one (the app starts the emulator on loopback when a run or probe needs it).
struct EndpointEntry {
    int id = 0; ///< stable while the window is open (assigned by EndpointsPanel); not saved
    Endpoint endpoint; ///< for a simulated entry only label, model, quantization, extra body count
    QString simulatedProfile; ///< e.g. "q4km-like"; empty for a real endpoint
    /// The fidelity reference of the runs it takes part in (`run --reference NAME`): every other
    /// arm's next-token choices are compared with its. At most one entry of the panel is.
    bool reference = false;

    bool simulated() const { return !simulatedProfile.isEmpty(); }
    /// What the CLI would call it: "sim:q4km-like" or the base URL.
    QString spec() const;
};

/// For QSettings and endpoint files: the endpoint's own JSON plus "simulated_profile" and, when
/// set, "fidelity_reference": true.
nlohmann::json toJson(const EndpointEntry& entry);
/// Throws std::invalid_argument naming the bad field.
EndpointEntry endpointEntryFromJson(const nlohmann::json& json);

} // namespace qs

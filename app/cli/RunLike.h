// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/EndpointSpec.h"
#include "model/core/RunRecord.h"
#include "model/core/Suite.h"

#include <QString>
#include <optional>
#include <vector>

namespace qs::app {

/// What `quantscope run --like FILE` repeats of an earlier run: its suite as run, its endpoints
/// (as specs, so a `sim:` endpoint gets a fresh emulator and a real one is probed again), its
/// settings and its fidelity reference. Anything given on the command line wins.
struct LikeRun {
    Suite suite;
    std::vector<EndpointSpec> specs;
    RunSettings settings;
    int reference = -1; ///< the endpoint the file marked as the fidelity reference, or -1
    /// The profile of an earlier `run --until-decided` (empty for a run of a fixed size): its
    /// saved suite holds every prompt a round could draw, so repeating it as a fixed run would
    /// ask them all.
    QString untilDecidedProfile;
};

/// Reads `path` (a results file, or its journal) into a LikeRun; nullopt and `error` (what is
/// wrong and what to do) when it cannot be read or its suite no longer parses.
std::optional<LikeRun> likeRunFrom(const QString& path, QString& error);

/// The endpoints of a `run --like` run when some are given on the command line: when every given
/// spec is named like one of the earlier run's endpoints, each replaces that one in its place (the
/// others stay: "the same run, with the candidate on its new server"); otherwise the given specs
/// are the endpoints. `inPlace` says which happened.
std::vector<EndpointSpec> likeEndpoints(
    const std::vector<EndpointSpec>& earlier, const std::vector<EndpointSpec>& given, bool& inPlace);

/// The spec that describes `endpoint` again: its label, URL (the `sim:` profile for a simulated
/// one), model, quantization, runtime, key variable, extra metrics pages, body and facts.
EndpointSpec specOf(const RunEndpoint& endpoint);

} // namespace qs::app

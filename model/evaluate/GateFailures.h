// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QString>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

namespace qs {

/// Why a gate failed, tallied over the failing measured requests of one endpoint × test × gate:
/// what a reader wants next to "3/15" (the quality matrix's tooltips, the report's samples).
struct GateFailureTally {
    int failures = 0;
    std::map<QString, std::pair<int, QString>> reasons; ///< kind → (count, an example reason)
};

/// (endpoint, test — empty for all tests —, gate)
using GateFailureKey = std::tuple<int, QString, QString>;
using GateFailures = std::map<GateFailureKey, GateFailureTally>;

/// The kind of a failure, so that reasons that differ only in their quotes and offsets add up:
/// the tool-call failure class, else the first pattern that matched ("bold", "think_tag"…),
/// else the reason itself.
QString gateFailureKind(const nlohmann::json& gateDetail);

/// One pass over the measured records' gate details (RunRecord::gateDetails).
GateFailures tallyGateFailures(const RunResult& result);

} // namespace qs

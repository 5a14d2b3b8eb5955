// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RequestRecord.h"
#include "model/wire/EndpointProbe.h"

#include <QString>

namespace qs::app {

/// Human-readable renderings for the terminal. Model output is quoted, never interpreted.
QString formatProbe(const ProbeResult& result);
QString formatRecord(const RequestRecord& record);

} // namespace qs::app

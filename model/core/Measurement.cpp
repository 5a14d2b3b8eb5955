// SPDX-License-Identifier: MIT
#include "model/core/Measurement.h"

namespace qs {

QString countSourceId(CountSource source)
{
    switch (source) {
    case CountSource::ServerUsage:
        return QStringLiteral("usage");
    case CountSource::ServerTimings:
        return QStringLiteral("server_timings");
    case CountSource::Estimate:
        return QStringLiteral("estimate");
    case CountSource::None:
        break;
    }
    return QStringLiteral("none");
}

} // namespace qs

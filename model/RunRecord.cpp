// SPDX-License-Identifier: MIT
#include "model/RunRecord.h"

namespace qs {

QString runOrderId(RunOrder order)
{
    switch (order) {
    case RunOrder::Interleaved:
        return QStringLiteral("interleaved");
    case RunOrder::Sequential:
        return QStringLiteral("sequential");
    case RunOrder::Parallel:
        return QStringLiteral("parallel");
    }
    return QStringLiteral("interleaved");
}

std::optional<RunOrder> runOrderFromId(const QString& id)
{
    const QString s = id.trimmed().toLower();
    if (s == u"interleaved")
        return RunOrder::Interleaved;
    if (s == u"sequential")
        return RunOrder::Sequential;
    if (s == u"parallel")
        return RunOrder::Parallel;
    return std::nullopt;
}

} // namespace qs

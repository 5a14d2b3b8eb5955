// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"

#include <QStringList>
#include <algorithm>
#include <map>

namespace qs {

/// The tests of a run's measured records in the order they first ran, with each test's last
/// turn: what the paired comparison and the turn scaling both walk a run by.
struct MeasuredTests {
    QStringList order;
    std::map<QString, int> maxTurn;

    /// Notes a record's test and turn; false for a warm-up or a record of no endpoint among
    /// the first `endpoints` (the caller skips it).
    bool add(const RunRecord& r, int endpoints)
    {
        if (r.warmup || r.endpoint < 0 || r.endpoint >= endpoints)
            return false;
        if (!order.contains(r.test))
            order << r.test;
        maxTurn[r.test] = std::max(maxTurn[r.test], r.turn);
        return true;
    }
};

} // namespace qs

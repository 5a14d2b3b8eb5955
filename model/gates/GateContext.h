// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/GateRules.h"
#include "model/core/RequestRecord.h"
#include "model/core/Suite.h"
#include "model/gates/GateText.h"

#include <QString>
#include <QStringList>

namespace qs::gates {

/// What every gate reads about one response, computed once by evaluateGates.
struct GateContext {
    const RequestRecord& record;
    const Suite& suite;
    const SuiteTest& test;
    const GatePatterns::Rules& rules;
    bool finalTurn = true;
    const QString& content;
    int visibleStart = 0;
    QString visible; ///< content after leaked thinking
    QString maskedVisible; ///< `visible` with URLs blanked
    QStringList toolNames; ///< the suite's tools
    std::vector<Hit> thinking; ///< thinking in `content` (ThinkingText.h), for both thinking gates

    bool expectationsApply() const { return finalTurn; }
};

} // namespace qs::gates

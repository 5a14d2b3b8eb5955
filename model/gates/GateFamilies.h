// SPDX-License-Identifier: MIT
#pragma once

#include "model/gates/GateContext.h"
#include "model/gates/QualityGates.h"

// Internal to model/gates: one function per gate, each in its own file, called by evaluateGates
// in gateNames() order.

namespace qs::gates {

GateResult nonEmpty(const GateContext& c); ///< NonEmptyGate.cpp
GateResult expectedAnswer(const GateContext& c); ///< ExpectedAnswerGate.cpp
GateResult toolCall(const GateContext& c); ///< ToolCallGate.cpp
GateResult noMarkdown(const GateContext& c); ///< MarkdownGate.cpp
GateResult noThinkingLeak(const GateContext& c); ///< ThinkingLeakGate.cpp
GateResult thinkingFollowsRequest(const GateContext& c); ///< ThinkingRequestGate.cpp
GateResult coherent(const GateContext& c); ///< CoherentGate.cpp
GateResult withinLength(const GateContext& c); ///< LengthGate.cpp

} // namespace qs::gates

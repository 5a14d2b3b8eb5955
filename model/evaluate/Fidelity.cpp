// SPDX-License-Identifier: MIT
// PLACEHOLDER until the fidelity helper lands its implementation (issue #13): every function
// returns "nothing measured" so the layers above can build against the header.
#include "model/evaluate/Fidelity.h"

namespace qs {

std::vector<TokenCandidate> normalizedTopList(const std::vector<TokenCandidate>& top)
{
    return top;
}

std::optional<double> topListKl(const std::vector<TokenCandidate>&, const std::vector<TokenCandidate>&)
{
    return std::nullopt;
}

FidelityPrompt compareAnswers(const RunRecord&, const RunRecord&)
{
    return {};
}

Fidelity computeFidelity(const RunResult&, int, int)
{
    return {};
}

nlohmann::json toJson(const Fidelity&)
{
    return nlohmann::json::array();
}

} // namespace qs

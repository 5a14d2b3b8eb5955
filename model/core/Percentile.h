// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace qs {

/// Percentile `p` (0..100) of `values` by linear interpolation between the closest ranks
/// (Hyndman & Fan type 7, numpy's default): rank = p/100 · (n − 1). Empty input gives nothing.
inline std::optional<double> percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return std::nullopt;
    std::sort(values.begin(), values.end());
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(values.size() - 1);
    const auto lo = std::size_t(rank);
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (rank - double(lo));
}

} // namespace qs

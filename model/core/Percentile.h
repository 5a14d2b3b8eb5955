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
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * double(values.size() - 1);
    const auto lo = std::size_t(rank);
    // The two order statistics around the rank, without sorting the rest (a bootstrap asks for
    // thousands of percentiles of 100,000 values): the lo-th in place, the next the smallest above.
    const auto at = values.begin() + std::ptrdiff_t(lo);
    std::nth_element(values.begin(), at, values.end());
    const double low = *at;
    const double high = lo + 1 < values.size() ? *std::min_element(at + 1, values.end()) : low;
    return low + (high - low) * (rank - double(lo));
}

} // namespace qs

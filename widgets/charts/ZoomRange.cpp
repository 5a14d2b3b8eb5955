// SPDX-License-Identifier: MIT
#include "widgets/charts/ZoomRange.h"

#include <algorithm>
#include <cmath>

namespace qs {

void ZoomRange::setHome(double lo, double hi)
{
    m_home = {lo, hi > lo ? hi : lo + 1};
    // A view that shows none of the new home is of something else (another file): follow home.
    if (m_view && (m_view->hi <= m_home.lo || m_view->lo >= limits().hi))
        m_view.reset();
}

void ZoomRange::setLimits(double lo, double hi)
{
    m_limits = Span {lo, hi > lo ? hi : lo + 1};
}

ZoomRange::Span ZoomRange::limits() const
{
    if (!m_limits)
        return m_home;
    return {std::min(m_limits->lo, m_home.lo), std::max(m_limits->hi, m_home.hi)};
}

void ZoomRange::zoom(double at, double factor)
{
    if (!(factor > 0) || !std::isfinite(at) || !std::isfinite(factor))
        return;
    const Span bound = limits();
    const double lo0 = lo();
    const double hi0 = hi();
    const double minSpan = (m_home.hi - m_home.lo) * minimumShare;
    const double span = std::clamp((hi0 - lo0) * factor, minSpan, bound.hi - bound.lo);
    // The value under the pointer keeps its place: its share of the width stays the same.
    const double share = hi0 > lo0 ? std::clamp((at - lo0) / (hi0 - lo0), 0.0, 1.0) : 0.5;
    Span next {at - share * span, at - share * span + span};
    if (next.lo < bound.lo)
        next = {bound.lo, bound.lo + span};
    if (next.hi > bound.hi)
        next = {bound.hi - span, bound.hi};
    // Zoomed back out over all of home: the user is done exploring; follow the data again.
    if (factor > 1 && next.lo <= m_home.lo && next.hi >= m_home.hi) {
        m_view.reset();
        return;
    }
    m_view = next;
}

void ZoomRange::pan(double delta)
{
    if (!std::isfinite(delta))
        return;
    const Span bound = limits();
    const double span = hi() - lo();
    const double from = std::clamp(lo() + delta, bound.lo, std::max(bound.lo, bound.hi - span));
    if (!m_view && from == m_home.lo) // nothing beside home to pan to
        return;
    m_view = Span {from, from + span};
}

} // namespace qs

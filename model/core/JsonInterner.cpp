// SPDX-License-Identifier: MIT
#include "model/core/JsonInterner.h"

#include <cstring>

namespace qs {

namespace {

using json = nlohmann::json;

/// Equal down to the bytes a save writes: nlohmann's == calls 64 and 64.0, or 0.0 and -0.0,
/// equal, and sharing one for the other would change the file. Bitwise-equal NaNs are the same.
bool sameJson(const json& a, const json& b)
{
    if (a.type() != b.type())
        return false;
    switch (a.type()) {
    case json::value_t::object: {
        if (a.size() != b.size())
            return false;
        for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y)
            if (x.key() != y.key() || !sameJson(*x, *y))
                return false;
        return true;
    }
    case json::value_t::array: {
        if (a.size() != b.size())
            return false;
        for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y)
            if (!sameJson(*x, *y))
                return false;
        return true;
    }
    case json::value_t::number_float: {
        const double x = a.get<double>(), y = b.get<double>();
        return std::memcmp(&x, &y, sizeof x) == 0;
    }
    default:
        return a == b;
    }
}

} // namespace

SharedJson JsonInterner::intern(const SharedJson& value)
{
    // std::hash<json> walks the value without allocating; values sameJson() calls equal hash alike.
    const std::size_t hash = std::hash<json> {}(*value);
    const auto [begin, end] = m_values.equal_range(hash);
    for (auto it = begin; it != end; ++it)
        if (it->second.sharesWith(value) || sameJson(*it->second, *value))
            return it->second;
    m_values.emplace(hash, value);
    return value;
}

QString JsonInterner::intern(const QString& text)
{
    const auto it = m_texts.constFind(text);
    if (it != m_texts.constEnd())
        return *it;
    m_texts.insert(text);
    return text;
}

} // namespace qs

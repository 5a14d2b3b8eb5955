// SPDX-License-Identifier: MIT
#pragma once

// Type-checked access to a results file's JSON: every failure names the path inside the file.
// Inline: reading a record calls these for every value. Internal to model/store.

#include "model/store/ResultFormat.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace qs::results {

/// A position in the file, built on the stack while descending and only rendered to text when
/// something is wrong (so reading a valid record allocates no path strings).
struct Loc {
    std::string_view prefix; ///< root only: "run.json", "run.json.journal: line 4" or "… records[3]"
    bool prefixIsPath = false; ///< root only: `prefix` already ends inside the JSON (a record's path)
    const Loc* parent = nullptr;
    const char* key = nullptr; ///< a member of the parent, or
    std::size_t index = 0; ///< an element of the parent (when key is null)

    static Loc root(std::string_view where)
    {
        // A `where` naming a record ("run.json: records[12]") continues with ".field"; a file
        // or line ("run.json", "x.journal: line 3") continues with ": field".
        return Loc {where, !where.empty() && where.back() == ']'};
    }
    // A child points at its parent: never take one of a temporary.
    Loc member(const char* k) const& { return Loc {{}, false, this, k, 0}; }
    Loc element(std::size_t i) const& { return Loc {{}, false, this, nullptr, i}; }
    Loc member(const char*) const&& = delete;
    Loc element(std::size_t) const&& = delete;

    std::string path() const
    {
        if (!parent)
            return {};
        std::string p = parent->path();
        if (key) {
            if (!p.empty())
                p += '.';
            p += key;
        } else {
            p += '[' + std::to_string(index) + ']';
        }
        return p;
    }
    std::string str() const
    {
        const Loc* r = this;
        while (r->parent)
            r = r->parent;
        const std::string p = path();
        const std::string pre(r->prefix);
        if (p.empty())
            return pre;
        if (pre.empty())
            return p;
        if (r->prefixIsPath)
            return pre + (p.front() == '[' ? "" : ".") + p;
        return pre + ": " + p;
    }
};

/// "a number", "a string", … for an error message.
std::string typeName(const json& j);
/// A short, printable excerpt of a value for an error message.
std::string excerpt(const json& j, std::size_t max = 60);
[[noreturn]] void badField(const Loc& loc, const std::string& what);
/// "expected <what>, found <the type of found>".
[[noreturn]] void expected(const Loc& loc, const char* what, const json& found);

/// A whole number (an integral float such as 5.0 is accepted: some writers emit them).
inline std::optional<qint64> toInteger(const json& v)
{
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        return u <= std::uint64_t(std::numeric_limits<qint64>::max()) ? std::optional<qint64>(qint64(u))
                                                                      : std::nullopt;
    }
    if (v.is_number_integer())
        return qint64(v.get<std::int64_t>());
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9e15)
            return qint64(d);
    }
    return std::nullopt;
}

inline qint64 checkedInteger(const json& v, const Loc& loc, qint64 min, qint64 max)
{
    const std::optional<qint64> n = toInteger(v);
    if (!n) {
        if (v.is_number())
            badField(loc, "expected a whole number, found " + excerpt(v));
        expected(loc, "a whole number", v);
    }
    if (*n < min || *n > max)
        badField(loc,
            std::to_string(*n) + " is out of range (" + std::to_string(min) + " to " + std::to_string(max)
                + ")");
    return *n;
}

inline QString toQString(const json& v)
{
    const auto& s = v.get_ref<const std::string&>();
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

/// Typed access to the members of one JSON object.
class Fields {
public:
    Fields(const json& j, const Loc& loc)
        : m_j(j)
        , m_loc(loc)
    {
        if (!j.is_object())
            expected(loc, "an object", j);
    }

    /// nullptr when the key is missing or null.
    const json* find(const char* key) const
    {
        const auto it = m_j.find(key);
        return it == m_j.end() || it->is_null() ? nullptr : &*it;
    }
    [[noreturn]] void fail(const char* key, const std::string& what) const
    {
        badField(m_loc.member(key), what);
    }
    [[noreturn]] void missing(const char* key) const { fail(key, "missing"); }

    QString string(const char* key) const
    {
        const json* v = find(key);
        if (!v)
            return {};
        if (!v->is_string())
            expected(m_loc.member(key), "a string", *v);
        return toQString(*v);
    }
    QString requiredString(const char* key) const
    {
        if (!find(key))
            missing(key);
        return string(key);
    }
    std::optional<double> optNumber(const char* key) const
    {
        const json* v = find(key);
        if (!v)
            return std::nullopt;
        if (!v->is_number())
            expected(m_loc.member(key), "a number or null", *v);
        return v->get<double>();
    }
    double number(const char* key, double fallback) const { return optNumber(key).value_or(fallback); }
    std::optional<qint64> optInteger(const char* key, qint64 min = std::numeric_limits<qint64>::min(),
        qint64 max = std::numeric_limits<qint64>::max()) const
    {
        const json* v = find(key);
        if (!v)
            return std::nullopt;
        return checkedInteger(*v, m_loc.member(key), min, max);
    }
    int integer(const char* key, int fallback, int min = INT_MIN, int max = INT_MAX) const
    {
        return int(optInteger(key, min, max).value_or(fallback));
    }
    int requiredInteger(const char* key, int min = INT_MIN, int max = INT_MAX) const
    {
        if (!find(key))
            missing(key);
        return integer(key, 0, min, max);
    }
    /// A required index into the file's `endpoints` list, which has `endpointCount` entries.
    int endpointIndex(const char* key, std::size_t endpointCount) const
    {
        const int index = requiredInteger(key, 0);
        if (std::size_t(index) >= endpointCount)
            fail(key,
                std::to_string(index) + " is out of range: the file lists " + std::to_string(endpointCount)
                    + " endpoints");
        return index;
    }
    bool boolean(const char* key, bool fallback) const
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_boolean())
            expected(m_loc.member(key), "true or false", *v);
        return v->get<bool>();
    }
    bool requiredBoolean(const char* key) const
    {
        if (!find(key))
            missing(key);
        return boolean(key, false);
    }
    /// An opaque value, copied as is; `fallback` when missing (null is kept as null).
    json any(const char* key, const json& fallback) const
    {
        const auto it = m_j.find(key);
        return it == m_j.end() ? fallback : *it;
    }
    /// An object member or nullptr when missing/null; anything else is an error.
    const json* object(const char* key) const
    {
        const json* v = find(key);
        if (v && !v->is_object())
            expected(m_loc.member(key), "an object or null", *v);
        return v;
    }
    const json* array(const char* key) const
    {
        const json* v = find(key);
        if (v && !v->is_array())
            expected(m_loc.member(key), "a list or null", *v);
        return v;
    }
    QDateTime time(const char* key) const
    {
        const QString s = string(key);
        if (s.isEmpty())
            return {};
        const QDateTime t = QDateTime::fromString(s, Qt::ISODateWithMs);
        if (!t.isValid())
            fail(key,
                "expected an ISO 8601 time such as \"2026-01-31T14:05:09.123Z\", found \"" + u8(s.left(40))
                    + "\"");
        return t.toUTC();
    }
    QStringList stringList(const char* key) const
    {
        QStringList out;
        if (const json* a = array(key)) {
            const Loc at = m_loc.member(key);
            for (std::size_t i = 0; i < a->size(); ++i) {
                const json& v = (*a)[i];
                if (!v.is_string())
                    expected(at.element(i), "a string", v);
                out << toQString(v);
            }
        }
        return out;
    }

private:
    const json& m_j;
    const Loc& m_loc;
};

/// The `endpoints` list of a header.
std::vector<RunEndpoint> endpointsFromJson(const json& a, const Loc& loc);

} // namespace qs::results

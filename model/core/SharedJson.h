// SPDX-License-Identifier: MIT
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>

namespace qs {

/// A JSON value that copies share until one of them is changed (copy on write, like Qt's
/// implicitly shared types).
///
/// Why: a record's request body and gate verdicts are ~5 and ~7–11 KB of nlohmann nodes, most of
/// a record's heap, and a live run copies every record into each snapshot the dashboard shows
/// (twice a second, for hours). Shared, a copy of a record costs its plain fields only.
///
/// Read through `*` and `->`; change through edit(), which copies the value first when another
/// record still shares it. Copies may be read from several threads at once, as any const value;
/// edit() needs the same exclusive access as changing any other member.
class SharedJson {
public:
    /// A JSON null.
    SharedJson()
        : m_value(shared(nlohmann::json::value_t::null))
    {
    }
    /// An empty JSON object (one for every record that has none of its own yet).
    static SharedJson emptyObject()
    {
        SharedJson j;
        j.m_value = shared(nlohmann::json::value_t::object);
        return j;
    }
    /// Explicit: `SharedJson s = {{"a", 1}}` would read the braces as an array, not an object.
    explicit SharedJson(nlohmann::json value)
        : m_value(std::make_shared<nlohmann::json>(std::move(value)))
    {
    }
    SharedJson& operator=(nlohmann::json value)
    {
        m_value = std::make_shared<nlohmann::json>(std::move(value));
        return *this;
    }
    /// `record.gates = {{"no_markdown", true}}` reads the braces as nlohmann::json would.
    SharedJson& operator=(nlohmann::json::initializer_list_t init) { return *this = nlohmann::json(init); }

    const nlohmann::json& operator*() const { return *m_value; }
    const nlohmann::json* operator->() const { return m_value.get(); }
    /// So that a record's JSON passes where `const nlohmann::json&` is expected.
    operator const nlohmann::json&() const { return *m_value; }

    /// The value to change, no longer shared with any copy.
    nlohmann::json& edit()
    {
        if (m_value.use_count() != 1)
            m_value = std::make_shared<nlohmann::json>(*m_value);
        else // the last other owner may have just let go on another thread: see its reads first
            std::atomic_thread_fence(std::memory_order_acquire);
        return *m_value;
    }

    /// Whether two copies share one value (for tests and measurements).
    bool sharesWith(const SharedJson& other) const { return m_value == other.m_value; }

    friend bool operator==(const SharedJson& a, const SharedJson& b)
    {
        return a.m_value == b.m_value || *a.m_value == *b.m_value;
    }
    friend bool operator==(const SharedJson& a, const nlohmann::json& b) { return *a.m_value == b; }

private:
    /// One null and one empty object for every value made without one of its own; edit() copies
    /// them before changing them (this copy keeps their count above 1).
    static const std::shared_ptr<nlohmann::json>& shared(nlohmann::json::value_t type)
    {
        static const auto null = std::make_shared<nlohmann::json>(nlohmann::json::value_t::null);
        static const auto object = std::make_shared<nlohmann::json>(nlohmann::json::value_t::object);
        return type == nlohmann::json::value_t::object ? object : null;
    }
    std::shared_ptr<nlohmann::json> m_value;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace qs {

/// An optional value held on the heap: reads like `std::optional<T>` (test, `*`, `->`, assign a
/// T, an optional or nullopt, reset, compare) and copies its value like one, but costs one pointer
/// when empty.
///
/// Why: a record carries parts that most requests never have — a stream error (144 bytes as a
/// std::optional), llama-server's timings (184 bytes) — and a run or a reviewed file holds tens of
/// thousands of records. Boxed, they cost 8 bytes each where absent.
template <typename T> class Boxed {
public:
    Boxed() = default;
    Boxed(std::nullopt_t) { }
    Boxed(const T& value)
        : m_value(std::make_unique<T>(value))
    {
    }
    Boxed(T&& value)
        : m_value(std::make_unique<T>(std::move(value)))
    {
    }
    Boxed(const std::optional<T>& value)
    {
        if (value)
            m_value = std::make_unique<T>(*value);
    }
    Boxed(const Boxed& other)
        : m_value(other.m_value ? std::make_unique<T>(*other.m_value) : nullptr)
    {
    }
    Boxed(Boxed&&) noexcept = default;
    Boxed& operator=(const Boxed& other)
    {
        if (this != &other)
            m_value = other.m_value ? std::make_unique<T>(*other.m_value) : nullptr;
        return *this;
    }
    Boxed& operator=(Boxed&&) noexcept = default;
    Boxed& operator=(std::nullopt_t)
    {
        m_value.reset();
        return *this;
    }
    Boxed& operator=(const T& value) { return *this = Boxed(value); }
    Boxed& operator=(T&& value) { return *this = Boxed(std::move(value)); }
    Boxed& operator=(const std::optional<T>& value) { return *this = Boxed(value); }

    bool has_value() const { return m_value != nullptr; }
    explicit operator bool() const { return has_value(); }
    const T& operator*() const { return *m_value; }
    T& operator*() { return *m_value; }
    const T* operator->() const { return m_value.get(); }
    T* operator->() { return m_value.get(); }
    void reset() { m_value.reset(); }

    friend bool operator==(const Boxed& a, const Boxed& b)
    {
        return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
    }
    friend bool operator==(const Boxed& a, const std::optional<T>& b)
    {
        return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
    }
    friend bool operator==(const Boxed& a, std::nullopt_t) { return !a.has_value(); }

private:
    std::unique_ptr<T> m_value;
};

} // namespace qs

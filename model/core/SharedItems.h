// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace qs {

/// A sequence of records whose copies share the records themselves (copy-on-write, like Qt's
/// containers, one record at a time).
///
/// Why: a live run is held by the runner, by the growing copy the dashboard's workers keep, by
/// the snapshot being evaluated and by the one shown — with a plain vector each held its own
/// copy of every record, 4 × what the run measured (issue #24: 10 KB of heap per request in the
/// soak). Here a copy costs one pointer per record, and the records stay allocated once.
///
/// Reads through a const list never copy. Writing through a non-const accessor (operator[],
/// front(), back(), a non-const iteration) first gives this list its own copy of a record that
/// is shared — so assigning a field of `result.records[i]` never changes another list's record.
/// Addresses of records are stable while the list holds them (push_back never moves a record).
/// Like any container, one list is used by one thread at a time; different lists sharing
/// records may live on different threads.
template <typename T> class SharedItems {
    using Item = std::shared_ptr<T>;

    template <bool Const> class Iter {
        using Base = std::conditional_t<Const, typename std::vector<Item>::const_iterator,
            typename std::vector<Item>::iterator>;
        Base m_it;

    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = std::conditional_t<Const, const T*, T*>;
        using reference = std::conditional_t<Const, const T&, T&>;

        Iter() = default;
        explicit Iter(Base it)
            : m_it(it)
        {
        }
        template <bool C = Const, typename = std::enable_if_t<C>>
        Iter(const Iter<false>& other) // NOLINT: iterator → const_iterator, as a vector's
            : m_it(other.base())
        {
        }
        Base base() const { return m_it; }
        reference operator*() const { return **m_it; }
        pointer operator->() const { return m_it->get(); }
        reference operator[](difference_type n) const { return *m_it[n]; }
        Iter& operator++() { return ++m_it, *this; }
        Iter operator++(int) { return Iter(m_it++); }
        Iter& operator--() { return --m_it, *this; }
        Iter operator--(int) { return Iter(m_it--); }
        Iter& operator+=(difference_type n) { return m_it += n, *this; }
        Iter& operator-=(difference_type n) { return m_it -= n, *this; }
        friend Iter operator+(Iter a, difference_type n) { return a += n; }
        friend Iter operator+(difference_type n, Iter a) { return a += n; }
        friend Iter operator-(Iter a, difference_type n) { return a -= n; }
        friend difference_type operator-(const Iter& a, const Iter& b) { return a.m_it - b.m_it; }
        friend bool operator==(const Iter& a, const Iter& b) { return a.m_it == b.m_it; }
        friend auto operator<=>(const Iter& a, const Iter& b) { return a.m_it <=> b.m_it; }
    };

public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using reference = T&;
    using const_reference = const T&;
    using iterator = Iter<false>;
    using const_iterator = Iter<true>;

    SharedItems() = default;
    SharedItems(std::initializer_list<T> items)
    {
        m_items.reserve(items.size());
        for (const T& item : items)
            push_back(item);
    }

    size_type size() const { return m_items.size(); }
    bool empty() const { return m_items.empty(); }
    void reserve(size_type n) { m_items.reserve(n); }
    void clear() { m_items.clear(); }
    void pop_back() { m_items.pop_back(); }
    /// Keeps the first `n` items, or adds default ones up to `n`.
    void resize(size_type n)
    {
        if (n <= m_items.size()) {
            m_items.resize(n);
            return;
        }
        m_items.reserve(n);
        while (m_items.size() < n)
            m_items.push_back(std::make_shared<T>());
    }

    void push_back(const T& item) { m_items.push_back(std::make_shared<T>(item)); }
    void push_back(T&& item) { m_items.push_back(std::make_shared<T>(std::move(item))); }
    /// Shares `item` (never null) with whoever else holds it: nothing is copied. The object must
    /// not have been created const (make_shared<T>, not make_shared<const T>): a write through
    /// this list, once no one else holds it, changes it in place.
    void push_back(std::shared_ptr<const T> item)
    {
        // Held as non-const only so a writer can detach: a shared item is never written.
        m_items.push_back(std::const_pointer_cast<T>(std::move(item)));
    }
    template <typename... Args> T& emplace_back(Args&&... args)
    {
        return *m_items.emplace_back(std::make_shared<T>(std::forward<Args>(args)...));
    }
    /// Appends every item of `other`, shared.
    void append(const SharedItems& other)
    {
        m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end());
    }

    const T& operator[](size_type i) const { return *m_items[i]; }
    T& operator[](size_type i) { return detach(m_items[i]); }
    const T& front() const { return *m_items.front(); }
    T& front() { return detach(m_items.front()); }
    const T& back() const { return *m_items.back(); }
    T& back() { return detach(m_items.back()); }
    /// Item `i`, shared with this list: stays valid and unchanged whatever the list does next.
    std::shared_ptr<const T> shared(size_type i) const { return m_items[i]; }

    const_iterator begin() const { return const_iterator(m_items.begin()); }
    const_iterator end() const { return const_iterator(m_items.end()); }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    /// Non-const iteration may write any item: every shared one is copied first.
    iterator begin()
    {
        for (Item& item : m_items)
            detach(item);
        return iterator(m_items.begin());
    }
    iterator end() { return iterator(m_items.end()); }
    iterator erase(const_iterator first, const_iterator last)
    {
        return iterator(m_items.erase(first.base(), last.base()));
    }
    iterator erase(const_iterator pos) { return iterator(m_items.erase(pos.base())); }

    /// True when item `i` is held by this list alone (a write would not copy it).
    bool unshared(size_type i) const { return m_items[i].use_count() == 1; }

private:
    static T& detach(Item& item)
    {
        if (item.use_count() != 1)
            item = std::make_shared<T>(std::as_const(*item));
        return *item;
    }

    std::vector<Item> m_items;
};

} // namespace qs

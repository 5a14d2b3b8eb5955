// SPDX-License-Identifier: MIT
#pragma once

#include <QtGlobal>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace qs {

/// One token-bearing event on the response timeline. Offsets index into the assembled
/// `content`/`reasoning` strings (UTF-16 units), so later analysis can tell exactly which text
/// arrived when (e.g. reclassify content before a leaked `</think>` as reasoning).
struct TokenEvent {
    qint64 stampNs = 0;
    int contentBegin = 0; ///< [contentBegin, contentEnd) of AssembledResponse::content
    int contentEnd = 0;
    int reasoningBegin = 0; ///< [reasoningBegin, reasoningEnd) of AssembledResponse::reasoning
    int reasoningEnd = 0;
    bool toolCall = false; ///< carried a tool-call fragment with a name or argument piece
    bool hasContent() const { return contentEnd > contentBegin; }
    bool hasReasoning() const { return reasoningEnd > reasoningBegin; }
    friend bool operator==(const TokenEvent&, const TokenEvent&) = default;
};

/// A response's token events in arrival order, read like a `std::vector<TokenEvent>` (size, [],
/// front, back, iteration — each event by value) and held in 16 bytes an event instead of 32.
///
/// Why: a run's events are most of its records' memory (60 events × 32 bytes of a 4 KB record),
/// and a stream's events are contiguous — each begins where the one before ended, as a stream
/// appends to the text — so only the ends need keeping. Events that are not (made by hand, e.g. in
/// a test) are kept whole: nothing is ever lost.
class TokenTimeline {
public:
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = TokenEvent;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = TokenEvent;

        const_iterator() = default;
        TokenEvent operator*() const { return (*m_timeline)[m_index]; }
        TokenEvent operator[](difference_type n) const { return (*m_timeline)[m_index + std::size_t(n)]; }
        const_iterator& operator++()
        {
            ++m_index;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator old = *this;
            ++m_index;
            return old;
        }
        const_iterator& operator--()
        {
            --m_index;
            return *this;
        }
        const_iterator& operator+=(difference_type n)
        {
            m_index = std::size_t(difference_type(m_index) + n);
            return *this;
        }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b)
        {
            return difference_type(a.m_index) - difference_type(b.m_index);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b)
        {
            return a.m_index == b.m_index;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b)
        {
            return a.m_index <=> b.m_index;
        }

    private:
        friend class TokenTimeline;
        const_iterator(const TokenTimeline* timeline, std::size_t index)
            : m_timeline(timeline)
            , m_index(index)
        {
        }
        const TokenTimeline* m_timeline = nullptr;
        std::size_t m_index = 0;
    };
    using value_type = TokenEvent;
    using size_type = std::size_t;
    using iterator = const_iterator;

    TokenTimeline() = default;
    TokenTimeline(std::initializer_list<TokenEvent> events)
    {
        for (const TokenEvent& e : events)
            push_back(e);
    }

    void push_back(const TokenEvent& e)
    {
        if (!m_whole.empty() || !fitsPacked(e)) {
            unpack();
            m_whole.push_back(e);
            return;
        }
        m_packed.push_back({e.stampNs, e.contentEnd, quint32(e.reasoningEnd) | (e.toolCall ? kToolBit : 0u)});
    }
    void reserve(std::size_t n)
    {
        if (m_whole.empty())
            m_packed.reserve(n);
        else
            m_whole.reserve(n);
    }
    void clear()
    {
        m_packed.clear();
        m_whole.clear();
    }
    std::size_t size() const { return m_whole.empty() ? m_packed.size() : m_whole.size(); }
    bool empty() const { return size() == 0; }

    TokenEvent operator[](std::size_t i) const { return m_whole.empty() ? packedAt(i) : m_whole[i]; }
    TokenEvent front() const { return (*this)[0]; }
    TokenEvent back() const { return (*this)[size() - 1]; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

    /// A copy as a plain list (for code that wants one).
    operator std::vector<TokenEvent>() const { return {begin(), end()}; }

    friend bool operator==(const TokenTimeline& a, const TokenTimeline& b)
    {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!(a[i] == b[i]))
                return false;
        return true;
    }

private:
    static constexpr quint32 kToolBit = 0x8000'0000u;
    struct Packed {
        qint64 stampNs;
        int contentEnd;
        quint32 reasoningEnd; ///< and the tool-call flag in its top bit
    };
    static_assert(sizeof(Packed) == 16);

    TokenEvent packedAt(std::size_t i) const
    {
        const Packed& p = m_packed[i];
        TokenEvent e;
        e.stampNs = p.stampNs;
        e.contentEnd = p.contentEnd;
        e.reasoningEnd = int(p.reasoningEnd & ~kToolBit);
        e.toolCall = (p.reasoningEnd & kToolBit) != 0;
        if (i > 0) {
            const Packed& before = m_packed[i - 1];
            e.contentBegin = before.contentEnd;
            e.reasoningBegin = int(before.reasoningEnd & ~kToolBit);
        }
        return e;
    }

    /// Whether `e` begins where the last event ended (the first: at 0), with ends that fit.
    bool fitsPacked(const TokenEvent& e) const
    {
        const int contentBegin = m_packed.empty() ? 0 : m_packed.back().contentEnd;
        const int reasoningBegin = m_packed.empty() ? 0 : int(m_packed.back().reasoningEnd & ~kToolBit);
        return e.contentBegin == contentBegin && e.reasoningBegin == reasoningBegin && e.contentEnd >= 0
            && e.reasoningEnd >= 0;
    }
    /// From now on every event is kept whole.
    void unpack()
    {
        if (!m_whole.empty() || m_packed.empty())
            return;
        m_whole.reserve(m_packed.size() + 1);
        for (std::size_t i = 0; i < m_packed.size(); ++i)
            m_whole.push_back(packedAt(i));
        m_packed.clear();
        m_packed.shrink_to_fit();
    }

    std::vector<Packed> m_packed; ///< while every event is contiguous
    std::vector<TokenEvent> m_whole; ///< once one was not (then every event is here)
};

} // namespace qs

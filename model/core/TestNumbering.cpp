// SPDX-License-Identifier: MIT
#include "model/core/TestNumbering.h"

namespace qs {

namespace {

// At most this many distinct data pointers are remembered: strings that were never interned
// would otherwise hold one entry per record.
constexpr std::size_t maxHeld = 4096;

bool sameData(const QString& a, const QString& b)
{
    return a.constData() == b.constData() && a.size() == b.size();
}

} // namespace

int TestNumbering::byData(const QString& test) const
{
    if (m_lastNumber >= 0 && sameData(test, m_last))
        return m_lastNumber;
    const auto it = m_byDataPointer.constFind(test.constData());
    if (it != m_byDataPointer.constEnd() && m_ids[*it].size() == test.size())
        return *it;
    return -1;
}

void TestNumbering::remember(const QString& test, int number)
{
    m_last = test;
    m_lastNumber = number;
    if (test.isEmpty() || m_held.size() >= maxHeld || m_byDataPointer.contains(test.constData()))
        return;
    m_held.push_back(test);
    m_byDataPointer.insert(test.constData(), number);
}

int TestNumbering::number(const QString& test)
{
    if (const int n = byData(test); n >= 0) {
        m_last = test;
        m_lastNumber = n;
        return n;
    }
    auto it = m_byText.constFind(test);
    if (it == m_byText.constEnd()) {
        it = m_byText.insert(test, int(m_ids.size()));
        m_ids.append(test);
    }
    remember(test, *it);
    return *it;
}

int TestNumbering::find(const QString& test) const
{
    if (const int n = byData(test); n >= 0)
        return n;
    return m_byText.value(test, -1);
}

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <vector>

namespace qs {

/// Numbers the distinct test ids of a run's records 0, 1, 2… in the order first seen.
///
/// Why: a view makes one pass over up to 100,000 records and needs each record's test as a small
/// integer. Hashing every record's id cost 60–80 ms per view on the GUI thread. The records of one
/// test share one string (the runner hands out the suite's, readers intern them: internJson), so
/// the common case here is a comparison of data pointers; a string built apart costs one hash.
class TestNumbering {
public:
    /// The number of `test`, giving it the next one when it is new.
    int number(const QString& test);
    /// The number of `test`, or -1 when it has not been numbered.
    int find(const QString& test) const;
    /// The ids numbered, by number.
    const QStringList& ids() const { return m_ids; }
    int size() const { return int(m_ids.size()); }

private:
    int byData(const QString& test) const;
    void remember(const QString& test, int number);

    QHash<QString, int> m_byText;
    QStringList m_ids;
    /// Strings already looked up, by their data: each is held (`m_held`), so its data cannot be
    /// freed and reused for another id while the numbering lives.
    QHash<const QChar*, int> m_byDataPointer;
    std::vector<QString> m_held;
    QString m_last;
    int m_lastNumber = -1;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/SharedJson.h"

#include <QSet>
#include <QString>
#include <cstddef>
#include <unordered_map>

namespace qs {

/// Hands out one shared value for each distinct JSON value it is given.
///
/// Why: a run sends an endpoint the same request body in every iteration, and most answers pass
/// the same gates for the same reasons: a long run holds far fewer distinct bodies and verdicts
/// than records. Sharing copies of one record (SharedJson) does not share equal values built
/// apart; interning them does, and a record then costs mostly its own measurements (5.5 KB
/// instead of 13.8 in the 40,000-request soak, docs/benchmarks.md).
///
/// The pool keeps what it holds alive for as long as it lives (one run, one file being read), and
/// so keeps it shared: a record that edits its body or verdicts gets its own copy
/// (SharedJson::edit) and never changes the pool's. Not thread-safe: one pool per thread.
class JsonInterner {
public:
    /// An interned value equal to `value`: the one interned before, or `value` itself from now on.
    /// Equal means the same text when saved: 64 and 64.0 (equal to nlohmann's ==) are not shared.
    SharedJson intern(const SharedJson& value);
    /// The same for the short texts every record repeats (its test id): one string per distinct
    /// text, so a pass over the records compares data pointers (TestNumbering), not text.
    QString intern(const QString& text);

    std::size_t size() const { return m_values.size(); } ///< distinct JSON values held
    void clear()
    {
        m_values.clear();
        m_texts.clear();
    }

private:
    std::unordered_multimap<std::size_t, SharedJson> m_values; ///< by std::hash<json>
    QSet<QString> m_texts;
};

} // namespace qs

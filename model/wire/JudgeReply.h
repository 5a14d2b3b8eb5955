// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <map>
#include <optional>
#include <variant>

// Reading what a judge answered (docs/judging.md, "Reply formats"). Tolerant of how models wrap
// JSON — a ```json fence, prose before or after, a <think>…</think> block, single trailing
// commas are NOT repaired — and strict about what it means: a reply that does not hold exactly
// one readable verdict is an error with the reason, never a guessed score. Pure, bounded (no
// recursion beyond nlohmann's depth limit on at most 64 KiB of candidate text), fuzzable.

namespace qs {

struct RubricReply {
    std::map<QString, int> scores; ///< every id in `criteria`, each 1..5
    QString reason;
};

struct PairReply {
    enum class Better { First, Second, Tie } better = Better::Tie;
    QString reason;
};

/// The reply, or why it could not be read ("no JSON object in the reply", "score for
/// \"warm_personal\" is 7, not 1-5", "missing score for \"correct\"", …).
template <typename T> using JudgeReplyResult = std::variant<T, QString>;

/// Reads {"scores": {"<id>": 1-5, …}, "reason": "…"}. Every id in `criteria` must have an integer
/// score 1..5 (5.0 is accepted, 4.5 is not; a string "4" is accepted); unknown ids are an error.
JudgeReplyResult<RubricReply> readRubricReply(const QString& reply, const QStringList& criteria);
/// Reads {"better": "1" | "2" | "tie", "reason": "…"} (1 and 2 may also be numbers; "TIE" and
/// "Tie" are accepted).
JudgeReplyResult<PairReply> readPairReply(const QString& reply);

/// The JSON object a reply most likely means: the content of the last ```json (or ```) fence that
/// parses as an object, else the last balanced {…} in the text outside any <think> block that
/// parses as an object. nullopt when there is none.
std::optional<QString> extractJsonObject(const QString& reply);

} // namespace qs

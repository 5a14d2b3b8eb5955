// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the decoding tests: fixture loading, parsing in pieces, printers.

#include "model/wire/SseParser.h"
#include "model/wire/StreamAssembler.h"
#include "model/wire/StreamChunk.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <gtest/gtest.h>
#include <optional>
#include <ostream>
#include <vector>

// gtest finds printers by ADL; QString and QByteArray live in the global namespace.
inline void PrintTo(const QString& s, std::ostream* os)
{
    *os << '"' << s.toStdString() << '"';
}
inline void PrintTo(const QByteArray& b, std::ostream* os)
{
    *os << '"' << b.toStdString() << '"';
}

namespace qs {

inline void PrintTo(const SseEvent& e, std::ostream* os)
{
    *os << "{event=" << e.event.toStdString() << " id=" << e.id.toStdString() << " stamp=" << e.stampNs
        << " complete=" << e.complete << " data=" << e.data.toStdString() << '}';
}

namespace detail {
template <typename T> void printOptional(std::ostream* os, const char* name, const std::optional<T>& v)
{
    if (v)
        *os << ' ' << name << '=' << *v;
}
} // namespace detail

inline void PrintTo(const ToolCall& c, std::ostream* os)
{
    *os << "{index=" << c.index << " id=" << c.id.toStdString() << " type=" << c.type.toStdString()
        << " name=" << c.name.toStdString() << " arguments=" << c.arguments.toStdString() << '}';
}

inline void PrintTo(const ToolCallFragment& c, std::ostream* os)
{
    *os << "{index=" << c.index << " id=" << c.id.toStdString() << " type=" << c.type.toStdString()
        << " name=" << c.name.toStdString() << " arguments=" << c.arguments.toStdString() << '}';
}

inline void PrintTo(const TokenUsage& u, std::ostream* os)
{
    *os << '{';
    detail::printOptional(os, "prompt", u.promptTokens);
    detail::printOptional(os, "completion", u.completionTokens);
    detail::printOptional(os, "total", u.totalTokens);
    detail::printOptional(os, "reasoning", u.reasoningTokens);
    detail::printOptional(os, "cached", u.cachedPromptTokens);
    *os << " }";
}

inline void PrintTo(const ServerTimings& t, std::ostream* os)
{
    *os << '{';
    detail::printOptional(os, "cache_n", t.cacheN);
    detail::printOptional(os, "prompt_n", t.promptN);
    detail::printOptional(os, "prompt_ms", t.promptMs);
    detail::printOptional(os, "prompt_per_token_ms", t.promptPerTokenMs);
    detail::printOptional(os, "prompt_per_second", t.promptPerSecond);
    detail::printOptional(os, "predicted_n", t.predictedN);
    detail::printOptional(os, "predicted_ms", t.predictedMs);
    detail::printOptional(os, "predicted_per_token_ms", t.predictedPerTokenMs);
    detail::printOptional(os, "predicted_per_second", t.predictedPerSecond);
    detail::printOptional(os, "draft_n", t.draftN);
    detail::printOptional(os, "draft_n_accepted", t.draftNAccepted);
    *os << " }";
}

inline void PrintTo(const ServerError& e, std::ostream* os)
{
    *os << "{code=" << e.code << " codeText=" << e.codeText.toStdString() << " type=" << e.type.toStdString()
        << " message=" << e.message.toStdString() << " param=" << e.param.toStdString();
    detail::printOptional(os, "n_prompt_tokens", e.nPromptTokens);
    detail::printOptional(os, "n_ctx", e.nCtx);
    *os << '}';
}

inline void PrintTo(ReasoningField f, std::ostream* os)
{
    *os << "ReasoningField(" << int(f) << ')';
}

inline void PrintTo(StreamChunk::Kind k, std::ostream* os)
{
    static const char* const names[] = {"Data", "Done", "Error", "Malformed"};
    *os << names[int(k) & 3];
}

namespace test {

inline QString fixtureDir()
{
    return QString::fromUtf8(QS_TEST_DATA_DIR "/streams");
}

inline QByteArray loadFixture(const QString& name)
{
    QFile file(fixtureDir() + u'/' + name);
    if (!file.open(QIODevice::ReadOnly)) {
        ADD_FAILURE() << "cannot open fixture " << file.fileName().toStdString();
        return {};
    }
    return file.readAll();
}

inline QStringList fixtureNames()
{
    return QDir(fixtureDir()).entryList({QStringLiteral("*.sse")}, QDir::Files, QDir::Name);
}

struct Parsed {
    std::vector<SseEvent> events;
    int comments = 0;
};

/// Feeds `bytes` in pieces of `pieceSize` (the whole at once when <= 0); piece i is stamped
/// stampBase + i, finish() is stamped `finishStamp`.
inline Parsed parseInPieces(
    QByteArrayView bytes, qsizetype pieceSize, qint64 stampBase = 1, qint64 finishStamp = 1'000'000'000)
{
    SseParser parser;
    Parsed parsed;
    if (pieceSize <= 0)
        pieceSize = std::max<qsizetype>(bytes.size(), 1);
    qint64 stamp = stampBase;
    for (qsizetype pos = 0; pos < bytes.size(); pos += pieceSize)
        parser.feed(bytes.sliced(pos, std::min(pieceSize, bytes.size() - pos)), stamp++, parsed.events);
    parser.finish(finishStamp, parsed.events);
    parsed.comments = parser.commentCount();
    return parsed;
}

inline bool sameContent(const SseEvent& a, const SseEvent& b)
{
    return a.event == b.event && a.data == b.data && a.id == b.id && a.complete == b.complete;
}

} // namespace test
} // namespace qs

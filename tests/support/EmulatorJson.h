// SPDX-License-Identifier: MIT
#pragma once

// JSON and byte helpers shared by the dialect writers. Internal to qs_emulator.

#include <QByteArray>
#include <QString>
#include <nlohmann/json.hpp>
#include <string>

namespace qs::emu::detail {

/// Insertion-ordered JSON: every server's key order is reproduced by building objects in order.
using ojson = nlohmann::ordered_json;

/// Compact JSON as nlohmann `dump(-1)`, pydantic `model_dump_json`, Starlette and ORJSON write it:
/// no spaces, non-ASCII left as UTF-8.
QByteArray compactJson(const ojson& value);

/// A value that compactJson writes as the bare literal `-Infinity` (Python's json.dumps with
/// allow_nan), which JSON itself cannot hold.
ojson bareNegativeInfinity();

/// Python `json.dumps(value)` with its defaults: `", "` and `": "` separators and `\uXXXX` escapes
/// for everything outside ASCII (vLLM and SGLang build their in-stream error chunks this way).
QByteArray pythonJsonDumps(const ojson& value);

/// One SSE event: `data: <payload>\n\n`.
QByteArray sseData(const QByteArray& payload);
inline QByteArray sseDone()
{
    return QByteArrayLiteral("data: [DONE]\n\n");
}

inline std::string str(const QString& s)
{
    return s.toStdString();
}

QByteArray randomAlnum(int length); ///< [0-9A-Za-z]
QByteArray randomHex(int length); ///< lowercase hex
qint64 unixTimeSeconds();

} // namespace qs::emu::detail

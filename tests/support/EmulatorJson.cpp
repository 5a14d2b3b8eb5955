// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorJson.h"

#include <QDateTime>
#include <QRandomGenerator>

namespace qs::emu::detail {

namespace {

// A string no server text holds: compactJson turns it, quotes included, into -Infinity.
const char* const kBareInfinityMarker = "\x01-Infinity\x01";

} // namespace

ojson bareNegativeInfinity()
{
    return ojson(kBareInfinityMarker);
}

QByteArray compactJson(const ojson& value)
{
    const std::string text = value.dump(-1, ' ', false, ojson::error_handler_t::replace);
    QByteArray out(text.data(), qsizetype(text.size()));
    // nlohmann escapes the control characters: "\u0001-Infinity\u0001".
    static const QByteArray quotedMarker = QByteArray::fromStdString(ojson(kBareInfinityMarker).dump());
    if (out.contains(quotedMarker))
        out.replace(quotedMarker, QByteArrayLiteral("-Infinity"));
    return out;
}

namespace {

void appendPythonString(QByteArray& out, const std::string& utf8)
{
    static const char hex[] = "0123456789abcdef";
    auto appendEscape = [&out](char16_t unit) {
        out += "\\u";
        out += hex[(unit >> 12) & 0xF];
        out += hex[(unit >> 8) & 0xF];
        out += hex[(unit >> 4) & 0xF];
        out += hex[unit & 0xF];
    };
    out += '"';
    // Walk UTF-16 units: Python's ensure_ascii escapes astral characters as surrogate pairs.
    const QString text = QString::fromStdString(utf8);
    for (const QChar ch : text) {
        const char16_t unit = ch.unicode();
        switch (unit) {
        case u'"':
            out += "\\\"";
            break;
        case u'\\':
            out += "\\\\";
            break;
        case u'\n':
            out += "\\n";
            break;
        case u'\r':
            out += "\\r";
            break;
        case u'\t':
            out += "\\t";
            break;
        case u'\b':
            out += "\\b";
            break;
        case u'\f':
            out += "\\f";
            break;
        default:
            if (unit < 0x20 || unit > 0x7E)
                appendEscape(unit);
            else
                out += char(unit);
        }
    }
    out += '"';
}

void appendPython(QByteArray& out, const ojson& value)
{
    switch (value.type()) {
    case ojson::value_t::object: {
        out += '{';
        bool first = true;
        for (const auto& [key, item] : value.items()) {
            if (!first)
                out += ", ";
            first = false;
            appendPythonString(out, key);
            out += ": ";
            appendPython(out, item);
        }
        out += '}';
        break;
    }
    case ojson::value_t::array: {
        out += '[';
        bool first = true;
        for (const auto& item : value) {
            if (!first)
                out += ", ";
            first = false;
            appendPython(out, item);
        }
        out += ']';
        break;
    }
    case ojson::value_t::string:
        appendPythonString(out, value.get_ref<const std::string&>());
        break;
    case ojson::value_t::null:
        out += "null";
        break;
    default:
        out += compactJson(value);
        break; // numbers and booleans print alike
    }
}

} // namespace

QByteArray pythonJsonDumps(const ojson& value)
{
    QByteArray out;
    appendPython(out, value);
    return out;
}

QByteArray sseData(const QByteArray& payload)
{
    return QByteArrayLiteral("data: ") + payload + QByteArrayLiteral("\n\n");
}

QByteArray randomAlnum(int length)
{
    static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    QByteArray out(length, Qt::Uninitialized);
    for (int i = 0; i < length; ++i)
        out[i] = alphabet[QRandomGenerator::global()->bounded(62)];
    return out;
}

QByteArray randomHex(int length)
{
    static const char alphabet[] = "0123456789abcdef";
    QByteArray out(length, Qt::Uninitialized);
    for (int i = 0; i < length; ++i)
        out[i] = alphabet[QRandomGenerator::global()->bounded(16)];
    return out;
}

qint64 unixTimeSeconds()
{
    return QDateTime::currentSecsSinceEpoch();
}

} // namespace qs::emu::detail

// SPDX-License-Identifier: MIT
#include "model/wire/JsonScanner.h"

#include <QByteArray>

namespace qs::detail {

namespace {

void appendUtf8(QByteArray& out, uint codepoint)
{
    if (codepoint < 0x80) {
        out += char(codepoint);
    } else if (codepoint < 0x800) {
        out += char(0xC0 | (codepoint >> 6));
        out += char(0x80 | (codepoint & 0x3F));
    } else if (codepoint < 0x10000) {
        out += char(0xE0 | (codepoint >> 12));
        out += char(0x80 | ((codepoint >> 6) & 0x3F));
        out += char(0x80 | (codepoint & 0x3F));
    } else {
        out += char(0xF0 | (codepoint >> 18));
        out += char(0x80 | ((codepoint >> 12) & 0x3F));
        out += char(0x80 | ((codepoint >> 6) & 0x3F));
        out += char(0x80 | (codepoint & 0x3F));
    }
}

uint hex4At(const char* p)
{
    uint value = 0;
    for (int i = 0; i < 4; ++i)
        value = value << 4 | uint(hexValue(p[i]));
    return value;
}

} // namespace

QString jsonText(const RawString& s)
{
    if (!s.present)
        return {};
    if (!s.escaped)
        return QString::fromUtf8(s.data, s.size);
    QByteArray utf8; // validated by the scanner: every escape here is complete and well-formed
    utf8.reserve(s.size);
    for (qsizetype i = 0; i < s.size; ++i) {
        const char c = s.data[i];
        if (c != '\\') {
            utf8 += c;
            continue;
        }
        const char e = s.data[++i];
        switch (e) {
        case 'b':
            utf8 += '\b';
            break;
        case 'f':
            utf8 += '\f';
            break;
        case 'n':
            utf8 += '\n';
            break;
        case 'r':
            utf8 += '\r';
            break;
        case 't':
            utf8 += '\t';
            break;
        case 'u': {
            uint codepoint = hex4At(s.data + i + 1);
            i += 4;
            if (codepoint >= 0xD800 && codepoint <= 0xDBFF) {
                codepoint = 0x10000 + ((codepoint - 0xD800) << 10) + (hex4At(s.data + i + 3) - 0xDC00);
                i += 6;
            }
            appendUtf8(utf8, codepoint);
            break;
        }
        default: // '"', '\\', '/'
            utf8 += e;
            break;
        }
    }
    return QString::fromUtf8(utf8);
}

} // namespace qs::detail

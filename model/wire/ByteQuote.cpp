// SPDX-License-Identifier: MIT
#include "model/wire/ByteQuote.h"

namespace qs {

QString quoteBytes(QByteArrayView bytes, qsizetype maxChars)
{
    QString out = QStringLiteral("\"");
    qsizetype printed = 0;
    qsizetype used = 0;
    for (; used < bytes.size(); ++used) {
        const auto b = static_cast<unsigned char>(bytes[used]);
        const bool plain = b >= 0x20 && b < 0x7f;
        const qsizetype width = plain ? 1 : 4;
        if (printed + width > maxChars)
            break;
        if (plain)
            out += QLatin1Char(char(b));
        else
            out += QStringLiteral("\\x%1").arg(uint(b), 2, 16, QLatin1Char('0'));
        printed += width;
    }
    if (used == bytes.size())
        return out + u'"';
    // The reader needs to know how much was left out, not only that something was.
    return out + QChar(0x2026) + QStringLiteral("\" (%1 bytes)").arg(bytes.size());
}

} // namespace qs

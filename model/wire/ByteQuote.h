// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArrayView>
#include <QString>

namespace qs {

/// Bytes a server sent, quoted for a message that must show them exactly: printable ASCII as
/// it is, every other byte as \xNN (so a stray NUL, a cut UTF-8 sequence or a line break shows
/// up instead of vanishing), in double quotes. Longer than `maxChars` printed characters, the
/// quote is cut there and says how long the whole was: "{\"choi…" (4096 bytes).
QString quoteBytes(QByteArrayView bytes, qsizetype maxChars = 120);

} // namespace qs

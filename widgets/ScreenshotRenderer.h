// SPDX-License-Identifier: MIT
#pragma once

#include <QImage>
#include <QString>

class QWidget;

namespace qs {

/// Renders a widget (a chart, a panel, the whole window) into an image of exactly
/// size × scale device pixels, independent of the screen's own pixel ratio, so "2×" always
/// means 2×. The widget must be laid out at the logical size wanted (resize it first).
QImage renderWidget(QWidget* widget, qreal scale);

/// Writes a PNG atomically. Returns an error message, or an empty string on success.
QString savePng(const QImage& image, const QString& path);

} // namespace qs

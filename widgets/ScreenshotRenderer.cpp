// SPDX-License-Identifier: MIT
#include "widgets/ScreenshotRenderer.h"

#include <QBuffer>
#include <QPainter>
#include <QSaveFile>
#include <QWidget>

namespace qs {

QImage renderWidget(QWidget* widget, qreal scale)
{
    if (!widget || scale <= 0)
        return {};
    const QSize logical = widget->size();
    QImage image(logical * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(widget->palette().color(QPalette::Window));
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    widget->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
    painter.end();
    return image;
}

QString savePng(const QImage& image, const QString& path)
{
    if (image.isNull())
        return QStringLiteral("nothing to save: the image is empty");
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG"))
        return QStringLiteral("could not encode the image as PNG");
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    if (file.write(bytes) != bytes.size() || !file.commit())
        return QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/Theme.h"

#include <QAbstractAxis>
#include <QChart>
#include <QFont>
#include <QIcon>
#include <QLegend>
#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <cmath>

namespace qs {

QString themeId(Theme theme)
{
    return theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

std::optional<Theme> themeFromId(const QString& id)
{
    if (id.compare(u"light", Qt::CaseInsensitive) == 0)
        return Theme::Light;
    if (id.compare(u"dark", Qt::CaseInsensitive) == 0)
        return Theme::Dark;
    return std::nullopt;
}

const ThemeColors& themeColors(Theme theme)
{
    // Light: quiet greys and saturated-but-not-neon accents that print well on white. Dark:
    // the same hues, lifted. Span colours stay distinguishable for the common colour-vision
    // deficiencies (amber / violet / blue / red / green differ in lightness too).
    static const ThemeColors light {QColor(0xf6, 0xf7, 0xf9), QColor(0xff, 0xff, 0xff),
        QColor(0x1f, 0x23, 0x28), QColor(0x5f, 0x67, 0x72), QColor(0xe3, 0xe6, 0xea),
        QColor(0x1a, 0x7f, 0x37), QColor(0xd7, 0xf2, 0xdd), QColor(0xff, 0xef, 0xc2),
        QColor(0xfb, 0xd5, 0xd5), QColor(0xea, 0xec, 0xef), QColor(0xff, 0xe0, 0x8a),
        QColor(0xe4, 0xd4, 0xff), QColor(0xc8, 0xe1, 0xff), QColor(0xff, 0xc4, 0xc4),
        QColor(0xc9, 0xf0, 0xd1), QColor(0xfd, 0xe8, 0xe8), QColor(0xc6, 0x28, 0x28),
        QColor(0xff, 0xf4, 0xdb), QColor(0xd9, 0x8e, 0x04), QColor(0xe8, 0xf1, 0xfd),
        QColor(0x2f, 0x6f, 0xd6)};
    static const ThemeColors dark {QColor(0x1e, 0x21, 0x26), QColor(0x16, 0x18, 0x1c),
        QColor(0xe6, 0xe8, 0xeb), QColor(0x9a, 0xa3, 0xad), QColor(0x33, 0x38, 0x40),
        QColor(0x5f, 0xd3, 0x7c), QColor(0x1d, 0x4a, 0x2c), QColor(0x55, 0x45, 0x12),
        QColor(0x5c, 0x22, 0x22), QColor(0x2b, 0x2f, 0x36), QColor(0x6b, 0x55, 0x10),
        QColor(0x4b, 0x36, 0x7a), QColor(0x1f, 0x44, 0x73), QColor(0x73, 0x26, 0x26),
        QColor(0x1f, 0x55, 0x30), QColor(0x45, 0x1b, 0x1b), QColor(0xf0, 0x5a, 0x5a),
        QColor(0x45, 0x36, 0x0f), QColor(0xf2, 0xb1, 0x3a), QColor(0x1b, 0x2e, 0x4a),
        QColor(0x6a, 0xa5, 0xff)};
    return theme == Theme::Dark ? dark : light;
}

QColor endpointColor(int index, Theme theme)
{
    // Okabe–Ito-like order: the first two (baseline, candidate) contrast strongly.
    static const QColor light[] = {QColor(0x1f, 0x6f, 0xc5), QColor(0xe0, 0x6c, 0x00),
        QColor(0x0f, 0x9d, 0x76), QColor(0xc2, 0x3b, 0x8a), QColor(0x6b, 0x4f, 0xbb),
        QColor(0x8a, 0x6d, 0x00), QColor(0x00, 0x8b, 0xa8), QColor(0x59, 0x59, 0x59)};
    static const QColor dark[] = {QColor(0x5d, 0xa5, 0xf5), QColor(0xff, 0x9f, 0x43),
        QColor(0x3d, 0xd6, 0xa5), QColor(0xf0, 0x6f, 0xbd), QColor(0xa8, 0x8b, 0xf7),
        QColor(0xe0, 0xc1, 0x4a), QColor(0x4f, 0xd0, 0xee), QColor(0xb0, 0xb0, 0xb0)};
    const int i = ((index % 8) + 8) % 8;
    return theme == Theme::Dark ? dark[i] : light[i];
}

QPalette themePalette(Theme theme)
{
    const ThemeColors& c = themeColors(theme);
    QPalette p;
    p.setColor(QPalette::Window, c.window);
    p.setColor(QPalette::WindowText, c.text);
    p.setColor(QPalette::Base, c.base);
    p.setColor(
        QPalette::AlternateBase, theme == Theme::Dark ? c.window.lighter(115) : QColor(0xf3, 0xf5, 0xf8));
    p.setColor(QPalette::Text, c.text);
    p.setColor(QPalette::Button, theme == Theme::Dark ? QColor(0x2b, 0x2f, 0x36) : QColor(0xf0, 0xf2, 0xf5));
    p.setColor(QPalette::ButtonText, c.text);
    p.setColor(QPalette::ToolTipBase, c.base);
    p.setColor(QPalette::ToolTipText, c.text);
    p.setColor(QPalette::PlaceholderText, c.mutedText);
    // The selection: the baseline's blue, deepened in the dark theme, whose own blue is light
    // enough for lines on a dark plot but gave white text only 2.6:1.
    p.setColor(
        QPalette::Highlight, theme == Theme::Dark ? QColor(0x2f, 0x6d, 0xb5) : endpointColor(0, theme));
    p.setColor(QPalette::HighlightedText, QColor(Qt::white));
    p.setColor(QPalette::Link, endpointColor(0, theme));
    p.setColor(QPalette::Mid, c.grid);
    p.setColor(QPalette::Disabled, QPalette::Text, c.mutedText);
    p.setColor(QPalette::Disabled, QPalette::WindowText, c.mutedText);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, c.mutedText);
    return p;
}

void applyChartTheme(QChart* chart, Theme theme)
{
    if (!chart)
        return;
    const ThemeColors& c = themeColors(theme);
    chart->setBackgroundBrush(c.base);
    chart->setBackgroundRoundness(0);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(c.text);
    QFont title = chart->titleFont();
    title.setBold(true);
    chart->setTitleFont(title);
    chart->legend()->setLabelColor(c.text);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(c.mutedText);
        axis->setTitleBrush(c.mutedText);
        axis->setLinePenColor(c.grid.darker(130));
        axis->setGridLineColor(c.grid);
        axis->setMinorGridLineColor(c.grid.lighter(105));
    }
}

QIcon colorDot(const QColor& color)
{
    // Drawn large and scaled down, so it stays round at 2× and 3×.
    QPixmap pixmap(48, 48);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawEllipse(QRectF(8, 8, 32, 32));
    p.end();
    QIcon icon;
    // The same dot when selected: the state colour must survive the selection highlight.
    icon.addPixmap(pixmap, QIcon::Normal);
    icon.addPixmap(pixmap, QIcon::Selected);
    return icon;
}

double contrastRatio(const QColor& a, const QColor& b)
{
    // Relative luminance of sRGB (WCAG 2.x).
    const auto luminance = [](const QColor& c) {
        const auto channel
            = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>
#include <optional>

class QChart;
class QIcon;

namespace qs {

/// The dashboard's two looks. Light is made for screenshots on a white blog page; Dark for the
/// desk. Every view takes its colours from here, so a screenshot in either theme is consistent.
enum class Theme { Light, Dark };

QString themeId(Theme theme); ///< "light", "dark"
std::optional<Theme> themeFromId(const QString& id);

/// Named colours of one theme.
struct ThemeColors {
    QColor window; ///< panel background
    QColor base; ///< text/table background
    QColor text;
    QColor mutedText; ///< secondary text, axis labels
    QColor grid; ///< chart grid lines
    QColor pass; ///< gate passed (text-safe on `base`)
    QColor passBackground; ///< table cell, all passed
    QColor partialBackground; ///< table cell, some passed
    QColor failBackground; ///< table cell, none passed
    QColor notApplicable;
    // Span highlights in response text (backgrounds, readable with `text` on top).
    QColor markdownSpan; ///< markdown syntax (no_markdown gate)
    QColor thinkingSpan; ///< leaked reasoning (no_thinking_leak gate)
    QColor toolTextSpan; ///< a tool call written as text (tool_call gate, leaked_into_text)
    QColor incoherentSpan; ///< garbled text (coherent gate)
    QColor answerSpan; ///< the expected answer found (expected_answer gate)
    // Guardrail banner backgrounds and their accent (left border) colours.
    QColor criticalBackground;
    QColor criticalAccent;
    QColor warningBackground;
    QColor warningAccent;
    QColor infoBackground;
    QColor infoAccent;
};

const ThemeColors& themeColors(Theme theme);

/// The colour of endpoint `index` (stable across every chart and table; cycles after 8).
QColor endpointColor(int index, Theme theme);

/// A round dot of `color`, for a list or header item (an endpoint's colour, a probe state). It
/// keeps its colour when the item is selected, and stays round at 2× and 3×.
QIcon colorDot(const QColor& color);

/// A Fusion palette for the whole application in this theme. Its text on its base and its
/// selected text on its selection contrast at least 4.5:1 (WCAG AA) in both themes.
QPalette themePalette(Theme theme);

/// WCAG 2 contrast ratio of two colours, from 1 (same luminance) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);

/// Applies background, fonts, axis and legend colours to a chart (call after its axes exist, and
/// again when they change). Series colours are the caller's: use endpointColor().
void applyChartTheme(QChart* chart, Theme theme);

} // namespace qs

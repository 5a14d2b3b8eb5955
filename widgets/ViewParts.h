// SPDX-License-Identifier: MIT
#pragma once
// Small pieces the tabular views (Decision, Fidelity) build themselves from, so they look and
// behave alike.

#include <QString>

class QColor;
class QIcon;
class QLabel;
class QTableWidget;
class QTableWidgetItem;
class QWidget;

namespace qs {

/// A word-wrapped, selectable label that never reads its text as markup: headlines and notes
/// carry endpoint names and server-reported model ids.
QLabel* plainLabel(QWidget* parent, const QString& objectName);

/// The item at (row, column) of a read-only table, created (enabled, selectable, not editable)
/// when missing, so a live refresh fills the table in place and keeps the reader's selection.
QTableWidgetItem* tableCell(QTableWidget* table, int row, int column);

/// The Run and Stop actions' icons, drawn in `color` (a theme's pass and critical accents): the
/// style's own media icons are black, invisible on the dark theme's toolbar. Qt greys them when
/// the action is disabled.
QIcon playIcon(const QColor& color);
QIcon stopIcon(const QColor& color);

} // namespace qs

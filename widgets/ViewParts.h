// SPDX-License-Identifier: MIT
#pragma once
// Small pieces the tabular views (Decision, Fidelity) build themselves from, so they look and
// behave alike.

#include <QString>

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

} // namespace qs

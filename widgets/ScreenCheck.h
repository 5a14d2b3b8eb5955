// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <vector>

class QWidget;

namespace qs {

/// What a person would notice on a rendered view, found by walking its widgets: the checks behind
/// `quantscope screenshot --check` and the screen check in CI (tests/app/tst_screen_check.cpp),
/// so that cut-off warnings, columns off to the right and scrollbars in exported images do not
/// come back.
struct ScreenProblem {
    enum class Kind {
        ClippedText, ///< a label's text is cut: wider or taller than the label
        ElidedCell, ///< a table cell or header shows "…" or less than its text
        ColumnOffScreen, ///< a table column starts or ends beyond the visible width
        HorizontalScrollBar, ///< content scrolls sideways: part of it is not in the image
        VerticalScrollBar, ///< content scrolls down: part of it is not in the image
    } kind
        = Kind::ClippedText;
    QString where; ///< the widget: its object name or class, and its parents'
    QString what; ///< the text or column concerned and the numbers, e.g. "needs 412 px, has 300"
    QString text() const; ///< "clipped text in RunPanel/QLabel: \"Settings in force…\" needs …"
};
QString screenProblemId(ScreenProblem::Kind kind); ///< "clipped_text", "elided_cell", …

/// Every problem under `root`, which must be shown (offscreen is fine) and laid out at the size to
/// check. Only what is visible counts: hidden widgets, rows scrolled out of view and the parts of
/// a scroll area outside its viewport are not problems. A widget (or an ancestor) with the
/// property "qsMayElide" set elides by design (a URL column with the full text in its tooltip):
/// its cells are not checked for elision.
std::vector<ScreenProblem> checkScreen(QWidget* root);

} // namespace qs

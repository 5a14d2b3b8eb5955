// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Judging.h"
#include "widgets/Theme.h"

#include <QWidget>
#include <optional>

class QLabel;

namespace qs {

/// What the LLM judge said about one answer (RubricVerdict): its scores in one compact line,
/// "answers_question 4 · correct 5 · warm_personal 2", each coloured by score (4–5 good, 3 middling,
/// 1–2 poor) with the criteria's titles as tooltip; under it the judge's reason as plain text; or
/// "judge failed: ERROR" with the raw reply as tooltip. The reason and the reply are model output:
/// never rendered as rich text.
class RubricVerdictBox : public QWidget {
    Q_OBJECT
public:
    explicit RubricVerdictBox(QWidget* parent = nullptr);

    /// Shows `verdict` (a copy is kept); `rubric` names the criteria. With no verdict, "not graded"
    /// when `graded` (a rubric ran on this file), else the box hides.
    void setVerdict(const RubricVerdict* verdict, const Rubric* rubric, bool graded);
    void setTheme(Theme theme);

    bool hasVerdict() const { return m_verdict.has_value(); }
    bool failed() const { return m_verdict && m_verdict->failed(); }
    /// The scores line as plain text, "answers_question 4 · correct 5"; empty without scores.
    QString scoresText() const;
    /// The judge's reason as shown, or "judge failed: …", or "Not graded by the judge.".
    QString reasonText() const;

private:
    void rebuild();
    Theme m_theme = Theme::Light;
    std::optional<RubricVerdict> m_verdict;
    bool m_graded = false;
    /// criterion id → title, in rubric order (scores are listed in this order, unknown ids last).
    std::vector<std::pair<QString, QString>> m_criteria;
    QString m_scoresText;
    QLabel* m_caption;
    QLabel* m_scores;
    QLabel* m_reason;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Judging.h"
#include "model/core/RunRecord.h"
#include "widgets/Theme.h"
#include "widgets/responses/ResponseFormatting.h"

#include <QWidget>
#include <optional>

class QLabel;
class QToolButton;

namespace qs {

class FlowLayout;
struct FidelityPrompt;
class RubricVerdictBox;
class SafeTextView;

/// One endpoint's response to the selected test, turn and iteration, as a card: the endpoint's
/// name over a bar in its colour; TTFT (visible and any), completion tokens with their source,
/// decode rate; a badge per judged gate (its reason as tooltip); a failed request's kind,
/// message and advice; the reasoning folded away; the answer, raw with the gates' spans
/// highlighted or rendered as a chat UI would show it; the tool calls. When fidelity was measured
/// on the answer, where it diverges from the reference's (a line above the answer, and the raw
/// text underlined from the diverging character on).
class ResponseColumn : public QWidget {
    Q_OBJECT
public:
    explicit ResponseColumn(QWidget* parent = nullptr);

    /// Shows `record` (a copy is kept), or "no response yet" when it is null. Does nothing when
    /// the same response is shown already, so a live refresh keeps the scroll position and the
    /// reasoning fold.
    void setRecord(const QString& endpointTitle, int endpoint, const RunRecord* record);
    void setTheme(Theme theme);
    /// The judge's rubric verdict on this answer (a copy is kept): see RubricVerdictBox::setVerdict.
    void setRubricVerdict(const RubricVerdict* verdict, const Rubric* rubric, bool graded);
    RubricVerdictBox* rubricBox() const { return m_rubric; }
    /// Fidelity on this answer: `prompt` compares it with the reference's answer to the same
    /// prompt (a copy of what is needed is kept; null: not compared); `isReference`: this is the
    /// answer the others were compared with. Call after setRecord().
    void setFidelity(const FidelityPrompt* prompt, bool isReference);
    /// The fidelity line above the answer ("Diverges from the reference at token 7 (…)"); empty
    /// when none is shown.
    QString fidelityText() const;
    /// Where the raw answer's divergence mark begins: a UTF-16 index into the response content
    /// (FidelityPrompt::firstDivergenceChar counts the reasoning field first, then the content).
    std::optional<int> divergenceChar() const;
    void setRendered(bool rendered); ///< false = raw text with highlights
    bool rendered() const { return m_rendered; }

    int endpoint() const { return m_endpoint; }
    QString title() const;
    bool hasRecord() const { return m_record.has_value(); }
    const RunRecord* record() const { return m_record ? &*m_record : nullptr; }

    /// The reasoning section: hidden when there is none, folded until the user opens it.
    bool hasReasoning() const;
    bool reasoningExpanded() const;
    void setReasoningExpanded(bool expanded);
    QString reasoningTitle() const; ///< "Reasoning — N characters"

    SafeTextView* answerView() const { return m_answer; }
    SafeTextView* reasoningView() const { return m_reasoning; }

Q_SIGNALS:
    /// A link in the model's output was clicked; nothing has been opened.
    void linkActivated(const QUrl& url);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild();
    void rebuildHeader();
    void rebuildText();
    void updateReasoningTitle();
    void styleFidelity(); ///< the fidelity line's text and colours
    void fitReasoningHeight(); ///< as tall as its text, up to a limit: the answer keeps the room

    Theme m_theme = Theme::Light;
    bool m_rendered = false;
    int m_endpoint = -1;
    std::optional<RunRecord> m_record;
    std::optional<DivergenceMark> m_mark;
    QString m_fidelityText;

    QLabel* m_title = nullptr;
    QLabel* m_subtitle = nullptr;
    QWidget* m_metricsBox = nullptr;
    FlowLayout* m_metrics = nullptr;
    QWidget* m_badgesBox = nullptr;
    FlowLayout* m_badges = nullptr;
    QLabel* m_failure = nullptr;
    QLabel* m_gateReasons = nullptr; ///< each failed gate's title and reason, one per line
    RubricVerdictBox* m_rubric = nullptr;
    QToolButton* m_reasoningToggle = nullptr;
    SafeTextView* m_reasoning = nullptr;
    QLabel* m_fidelity = nullptr;
    QLabel* m_answerCaption = nullptr;
    SafeTextView* m_answer = nullptr;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/responses/ResponseColumn.h"

#include "model/evaluate/Fidelity.h"
#include "model/gates/GateWords.h"
#include "model/gates/QualityGates.h"
#include "widgets/fidelity/FidelityText.h"
#include "widgets/responses/FlowLayout.h"
#include "widgets/responses/RubricVerdictBox.h"
#include "widgets/responses/SafeTextView.h"

#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace qs {

namespace {

constexpr int kAccentHeight = 4;
constexpr int kRadius = 6;
constexpr int kMargin = 12;
constexpr int kMaxReasoningHeight = 200;

// Metric definitions in the words of docs/methodology.md.
const QString kTtftVisibleHelp = QStringLiteral(
    "ttft_visible_ms = t(first event with visible content or a tool-call fragment) − t0.\n"
    "What a user waits for. Whitespace-only content is not visible; leaked thinking is not visible.");
const QString kTtftAnyHelp = QStringLiteral(
    "ttft_any_ms = t(first token-bearing event) − t0.\n"
    "Time to first token of any kind, reasoning included. Role-only and empty chunks never count.");
const QString kDecodeHelp = QStringLiteral(
    "decode_tps = (completion_tokens − 1) / ((e2e_ms − ttft_any_ms) / 1000).\n"
    "Per-request decode rate after the first token, reasoning tokens included (they are decoded too).");

QString formatMs(const std::optional<double>& ms)
{
    if (!ms)
        return QStringLiteral("—");
    return *ms < 100 ? QStringLiteral("%1 ms").arg(*ms, 0, 'f', 1)
                     : QStringLiteral("%1 ms").arg(*ms, 0, 'f', 0);
}

QString countSourceHelp(CountSource source)
{
    switch (source) {
    case CountSource::ServerUsage:
        return QStringLiteral("From the server's usage object (usage.completion_tokens).");
    case CountSource::ServerTimings:
        return QStringLiteral("From llama-server's timings (predicted_n).");
    case CountSource::Estimate:
        return QStringLiteral("An estimate: counted from stream events (one token-bearing event ≈ one "
                              "token); the server sent no usage.");
    case CountSource::None:
        break;
    }
    return QStringLiteral("Unknown: the server sent no count and no events were counted.");
}

/// A small two-line statistic: the name over the value. Only numbers and fixed words go in.
QLabel* statLabel(const QString& name, const QString& value, const QString& help, const QString& objectName,
    const ThemeColors& c)
{
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setTextFormat(Qt::RichText);
    label->setText(QStringLiteral(
        "<span style=\"color:%1\">%2</span><br><span style=\"font-size:large\"><b>%3</b></span>")
                       .arg(c.mutedText.name(), name.toHtmlEscaped(), value.toHtmlEscaped()));
    label->setToolTip(plainToolTip(help));
    return label;
}

QLabel* badge(const QString& text, const QString& tip, const QColor& background, const QColor& foreground,
    const QString& objectName)
{
    auto* label = new QLabel(text);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setToolTip(plainToolTip(tip));
    label->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; border-radius: 9px; padding: 2px 8px; }")
            .arg(background.name(), foreground.name()));
    return label;
}

QString jsonString(const nlohmann::json& object, const char* key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

/// Whether two records show the same thing (a live refresh hands a new copy of the same record).
bool sameResponse(const RunRecord& a, const RunRecord& b)
{
    const RequestRecord& x = a.request;
    const RequestRecord& y = b.request;
    return a.test == b.test && a.turn == b.turn && a.iteration == b.iteration
        && x.response.content == y.response.content && x.response.reasoning == y.response.reasoning
        && x.response.toolCalls == y.response.toolCalls && x.response.finishReason == y.response.finishReason
        && x.failure.kind == y.failure.kind && x.failure.summary == y.failure.summary
        && x.metrics.ttftVisibleMs == y.metrics.ttftVisibleMs && x.metrics.ttftAnyMs == y.metrics.ttftAnyMs
        && x.metrics.decodeTps == y.metrics.decodeTps
        && x.metrics.completionTokens.value == y.metrics.completionTokens.value
        && x.metrics.completionTokens.source == y.metrics.completionTokens.source
        && x.metrics.visibleContentOffset == y.metrics.visibleContentOffset && a.gateDetails == b.gateDetails;
}

} // namespace

ResponseColumn::ResponseColumn(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(kMargin, kMargin + kAccentHeight, kMargin, 10);
    layout->setSpacing(6);

    m_title = new QLabel;
    m_title->setTextFormat(Qt::PlainText); // user-given names are not markup either
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    layout->addWidget(m_title);

    m_subtitle = new QLabel;
    m_subtitle->setTextFormat(Qt::PlainText);
    m_subtitle->setWordWrap(true);
    layout->addWidget(m_subtitle);

    m_metricsBox = new QWidget;
    m_metrics = new FlowLayout(m_metricsBox, 18, 4);
    layout->addWidget(m_metricsBox);

    m_badgesBox = new QWidget;
    m_badges = new FlowLayout(m_badgesBox, 5, 5);
    layout->addWidget(m_badgesBox);
    // Why a gate failed, in words, where it is read (not only in a badge's tooltip).
    m_gateReasons = new QLabel;
    m_gateReasons->setObjectName(QStringLiteral("gateReasons"));
    m_gateReasons->setTextFormat(Qt::PlainText);
    m_gateReasons->setWordWrap(true);
    m_gateReasons->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_gateReasons->hide();
    layout->addWidget(m_gateReasons);

    m_failure = new QLabel;
    m_failure->setObjectName(QStringLiteral("failure"));
    m_failure->setTextFormat(Qt::RichText); // built from escaped pieces only
    m_failure->setWordWrap(true);
    m_failure->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failure->hide();
    layout->addWidget(m_failure);

    m_rubric = new RubricVerdictBox;
    layout->addWidget(m_rubric);

    m_reasoningToggle = new QToolButton;
    m_reasoningToggle->setObjectName(QStringLiteral("reasoningToggle"));
    m_reasoningToggle->setCheckable(true);
    m_reasoningToggle->setAutoRaise(true);
    m_reasoningToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_reasoningToggle->setArrowType(Qt::RightArrow);
    m_reasoningToggle->setToolTip(
        QStringLiteral("Reasoning is kept apart from the answer: the reasoning field, and thinking the "
                       "server left in the answer text before a </think>."));
    layout->addWidget(m_reasoningToggle);

    m_reasoning = new SafeTextView;
    m_reasoning->setObjectName(QStringLiteral("reasoning"));
    m_reasoning->setFrameShape(QFrame::NoFrame);
    m_reasoning->hide();
    layout->addWidget(m_reasoning);
    connect(m_reasoningToggle, &QToolButton::toggled, this, [this](bool open) {
        m_reasoningToggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        m_reasoning->setVisible(open && hasReasoning());
        fitReasoningHeight();
    });

    m_fidelity = new QLabel;
    m_fidelity->setObjectName(QStringLiteral("fidelity"));
    m_fidelity->setTextFormat(Qt::PlainText);
    m_fidelity->setWordWrap(true);
    m_fidelity->hide();
    layout->addWidget(m_fidelity);

    m_answerCaption = new QLabel;
    m_answerCaption->setObjectName(QStringLiteral("answerCaption"));
    layout->addWidget(m_answerCaption);

    m_answer = new SafeTextView;
    m_answer->setObjectName(QStringLiteral("answer"));
    m_answer->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_answer, 1);

    connect(m_answer, &SafeTextView::linkActivated, this, &ResponseColumn::linkActivated);
    connect(m_reasoning, &SafeTextView::linkActivated, this, &ResponseColumn::linkActivated);
    setTheme(m_theme);
}

void ResponseColumn::setRecord(const QString& endpointTitle, int endpoint, const RunRecord* record)
{
    const bool unchanged = endpoint == m_endpoint && endpointTitle == m_title->text()
        && (record ? m_record && sameResponse(*m_record, *record) : !m_record);
    if (unchanged)
        return;
    m_endpoint = endpoint;
    m_title->setText(endpointTitle);
    if (record)
        m_record = *record;
    else
        m_record.reset();
    rebuild();
}

void ResponseColumn::setRubricVerdict(const RubricVerdict* verdict, const Rubric* rubric, bool graded)
{
    m_rubric->setVerdict(verdict, rubric, graded);
}

void ResponseColumn::setFidelity(const FidelityPrompt* prompt, bool isReference)
{
    std::optional<DivergenceMark> mark;
    QString text;
    if (isReference) {
        text = QStringLiteral("The fidelity reference: the other answers are compared with this one, token "
                              "by token.");
    } else if (prompt) {
        text = divergenceMarkText(*prompt);
        // The comparison reads an answer as its reasoning field followed by its content (the order
        // the tokens come in), so the offset into the content is past the reasoning; a divergence
        // inside the reasoning marks the whole answer.
        const int reasoning = m_record ? int(m_record->request.response.reasoning.size()) : 0;
        if (prompt->firstDivergence && prompt->firstDivergenceChar)
            mark = DivergenceMark {std::max(0, *prompt->firstDivergenceChar - reasoning), text};
    }
    const bool same = text == m_fidelityText && mark.has_value() == m_mark.has_value()
        && (!mark || (mark->begin == m_mark->begin && mark->tip == m_mark->tip));
    if (same)
        return;
    m_fidelityText = text;
    m_mark = mark;
    styleFidelity();
    rebuildText();
}

QString ResponseColumn::fidelityText() const
{
    return m_fidelity->isHidden() ? QString() : m_fidelity->text();
}

std::optional<int> ResponseColumn::divergenceChar() const
{
    return m_mark ? std::optional<int>(m_mark->begin) : std::nullopt;
}

void ResponseColumn::styleFidelity()
{
    QString text = m_fidelityText;
    if (m_mark && m_rendered)
        text += QStringLiteral(" Switch to Raw to see where.");
    m_fidelity->setText(text);
    m_fidelity->setVisible(!text.isEmpty());
    m_fidelity->setToolTip(plainToolTip(
        QStringLiteral("Fidelity (docs/methodology.md): greedy answers compared token by token with the "
                       "reference's. The raw answer is underlined from the first diverging character on.")));
    const ThemeColors& c = themeColors(m_theme);
    const QColor accent = m_mark ? c.criticalAccent : c.infoAccent;
    m_fidelity->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; border-left: 3px solid %3; padding: 4px 6px; }")
            .arg(c.window.name(), c.text.name(), accent.name()));
}

void ResponseColumn::setTheme(Theme theme)
{
    m_theme = theme;
    m_rubric->setTheme(theme);
    const ThemeColors& c = themeColors(theme);
    QPalette card = palette();
    card.setColor(QPalette::Window, c.base);
    card.setColor(QPalette::Base, c.base);
    card.setColor(QPalette::Text, c.text);
    card.setColor(QPalette::WindowText, c.text);
    setPalette(card);
    QPalette tinted = card;
    tinted.setColor(QPalette::Base, c.window);
    m_reasoning->setPalette(tinted);
    QPalette muted = card;
    muted.setColor(QPalette::WindowText, c.mutedText);
    m_subtitle->setPalette(muted);
    m_answerCaption->setPalette(muted);
    m_reasoningToggle->setPalette(muted);
    // A disclosure line, not a button: no frame, whatever its state.
    m_reasoningToggle->setStyleSheet(
        QStringLiteral("QToolButton { border: none; padding: 2px 0px; color: %1; }").arg(c.text.name()));
    rebuild();
    styleFidelity();
    update();
}

void ResponseColumn::setRendered(bool rendered)
{
    if (rendered == m_rendered)
        return;
    m_rendered = rendered;
    styleFidelity();
    rebuildText();
}

QString ResponseColumn::title() const
{
    return m_title->text();
}

bool ResponseColumn::hasReasoning() const
{
    return m_record && reasoningLength(m_record->request) > 0;
}

bool ResponseColumn::reasoningExpanded() const
{
    return m_reasoningToggle->isChecked();
}

void ResponseColumn::setReasoningExpanded(bool expanded)
{
    m_reasoningToggle->setChecked(expanded);
}

QString ResponseColumn::reasoningTitle() const
{
    return m_reasoningToggle->text();
}

void ResponseColumn::paintEvent(QPaintEvent* event)
{
    Q_UNUSED(event)
    // A card: the endpoint's colour on top ties the column to the charts' series.
    const ThemeColors& c = themeColors(m_theme);
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF card = QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5);
    QPainterPath outline;
    outline.addRoundedRect(card, kRadius, kRadius);
    painter.fillPath(outline, c.base);
    painter.setPen(QPen(c.grid, 1));
    painter.drawPath(outline);
    painter.save();
    painter.setClipPath(outline);
    painter.fillRect(QRectF(card.left(), card.top(), card.width(), kAccentHeight),
        m_endpoint >= 0 ? endpointColor(m_endpoint, m_theme) : c.grid);
    painter.restore();
}

void ResponseColumn::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitReasoningHeight();
}

void ResponseColumn::fitReasoningHeight()
{
    if (m_reasoning->isHidden())
        return;
    // The layout gives the view the column's width less the margins; its document wraps there.
    const int frame = 2 * m_reasoning->frameWidth();
    const int scrollbar = m_reasoning->verticalScrollBar()->sizeHint().width();
    QTextDocument* doc = m_reasoning->document();
    doc->setTextWidth(std::max(50, width() - 2 * kMargin - frame));
    int height = int(std::ceil(doc->size().height())) + frame;
    if (height > kMaxReasoningHeight) {
        doc->setTextWidth(std::max(50, width() - 2 * kMargin - frame - scrollbar));
        height = kMaxReasoningHeight;
    }
    m_reasoning->setFixedHeight(height);
}

void ResponseColumn::rebuild()
{
    rebuildHeader();
    rebuildText();
    update();
}

void ResponseColumn::rebuildHeader()
{
    const ThemeColors& c = themeColors(m_theme);
    m_metrics->clear();
    m_badges->clear();
    m_gateReasons->hide();
    if (!m_record) {
        m_subtitle->setText(QStringLiteral("No response for this selection yet."));
        m_metricsBox->hide();
        m_badgesBox->hide();
        m_failure->hide();
        return;
    }
    const RequestRecord& request = m_record->request;
    const RequestMetrics& m = request.metrics;

    QStringList facts;
    if (!request.response.model.isEmpty())
        facts << request.response.model;
    if (!request.response.finishReason.isEmpty())
        facts << QStringLiteral("finish: %1").arg(request.response.finishReason);
    if (request.httpStatus)
        facts << QStringLiteral("HTTP %1").arg(request.httpStatus);
    m_subtitle->setText(facts.join(QStringLiteral(" · ")));

    m_metrics->addWidget(statLabel(QStringLiteral("TTFT visible"), formatMs(m.ttftVisibleMs),
        kTtftVisibleHelp, QStringLiteral("ttftVisible"), c));
    m_metrics->addWidget(statLabel(
        QStringLiteral("TTFT any"), formatMs(m.ttftAnyMs), kTtftAnyHelp, QStringLiteral("ttftAny"), c));
    const TokenCount& tokens = m.completionTokens;
    const QString tokenText = tokens.value ? QString::number(*tokens.value) : QStringLiteral("—");
    m_metrics->addWidget(statLabel(
        tokens.isEstimate() ? QStringLiteral("Tokens (estimate)") : QStringLiteral("Tokens"), tokenText,
        QStringLiteral("completion_tokens (source: %1). %2")
            .arg(countSourceId(tokens.source), countSourceHelp(tokens.source)),
        QStringLiteral("tokens"), c));
    m_metrics->addWidget(statLabel(QStringLiteral("Decode"),
        m.decodeTps ? QStringLiteral("%1 tok/s").arg(*m.decodeTps, 0, 'f', 1) : QStringLiteral("—"),
        kDecodeHelp, QStringLiteral("decode"), c));
    m_metricsBox->show();

    // One badge per judged gate; the gates that do not apply are summed up in one muted badge.
    QStringList notApplicable;
    QStringList reasons;
    for (const QString& gate : gateNames()) {
        const std::string key = gate.toStdString();
        const nlohmann::json details
            = m_record->gateDetails->is_object() && m_record->gateDetails->contains(key)
            ? m_record->gateDetails->at(key)
            : nlohmann::json();
        const QString verdict = jsonString(details, "verdict");
        const QString reason = jsonString(details, "reason");
        const QString failureClass = jsonString(details, "failure_class");
        if (verdict == u"pass" || verdict == u"fail") {
            const bool pass = verdict == u"pass";
            QString tip = gate + (pass ? QStringLiteral(": pass") : QStringLiteral(": fail"));
            if (!failureClass.isEmpty())
                tip += QStringLiteral(" (%1)").arg(failureClass);
            if (!reason.isEmpty())
                tip += u'\n' + reason;
            const GateWords* words = gateWords(gate);
            const QString title = words ? words->title : gate;
            if (!pass)
                reasons << QStringLiteral("✗ ") + title
                        + (reason.isEmpty() ? QString() : QStringLiteral(": ") + reason);
            m_badges->addWidget(badge((pass ? QStringLiteral("✓ ") : QStringLiteral("✗ ")) + title, tip,
                pass ? c.passBackground : c.failBackground, pass ? c.pass : c.criticalAccent,
                QStringLiteral("gate:") + gate));
        } else {
            notApplicable << (reason.isEmpty() ? gate : gate + QStringLiteral(": ") + reason);
        }
    }
    if (!notApplicable.isEmpty()) {
        const bool none = notApplicable.size() == gateNames().size();
        m_badges->addWidget(
            badge(none ? QStringLiteral("not judged") : QStringLiteral("%1 n/a").arg(notApplicable.size()),
                QStringLiteral("Not applicable:\n") + notApplicable.join(u'\n'), c.notApplicable, c.mutedText,
                QStringLiteral("gates:not_applicable")));
    }
    m_badgesBox->show();
    m_gateReasons->setText(reasons.join(u'\n'));
    m_gateReasons->setStyleSheet(QStringLiteral("color: %1;").arg(c.criticalAccent.name()));
    m_gateReasons->setVisible(!reasons.isEmpty());

    const Failure& f = request.failure;
    if (f.isFailure()) {
        QString html = QStringLiteral("<b>Request failed: %1</b>").arg(failureKindId(f.kind).toHtmlEscaped());
        if (f.httpStatus)
            html += QStringLiteral(" (HTTP %1)").arg(f.httpStatus);
        if (!f.summary.isEmpty())
            html += QStringLiteral("<br>") + f.summary.toHtmlEscaped();
        if (!f.serverMessage.isEmpty())
            html += QStringLiteral("<br><i>Server said:</i> ") + f.serverMessage.toHtmlEscaped();
        if (!f.advice.isEmpty())
            html += QStringLiteral("<br><i>What to do:</i> ") + f.advice.toHtmlEscaped();
        if (!request.response.content.isEmpty() || !request.response.reasoning.isEmpty())
            html += QStringLiteral("<br>The partial response received is shown below.");
        m_failure->setText(html);
        m_failure->setStyleSheet(
            QStringLiteral("QLabel { background: %1; color: %2; border-left: 3px solid %3; padding: 6px; }")
                .arg(c.criticalBackground.name(), c.text.name(), c.criticalAccent.name()));
        m_failure->show();
    } else {
        m_failure->hide();
    }
}

void ResponseColumn::rebuildText()
{
    if (!m_record) {
        m_answer->setUntrustedPlainText(QString());
        m_answerCaption->hide();
        m_reasoningToggle->hide();
        m_reasoning->hide();
        return;
    }
    const RequestRecord& request = m_record->request;
    m_answerCaption->show();
    m_answerCaption->setText(m_rendered ? QStringLiteral("Answer, rendered as a chat UI shows it")
                                        : QStringLiteral("Answer, exactly as sent"));
    if (m_rendered) {
        m_answer->setUntrustedMarkdown(request.response.content.mid(answerStart(request)));
        appendToolCalls(m_answer->document(), request.response.toolCalls, m_theme);
    } else {
        writeRawAnswer(m_answer->document(), *m_record, m_theme, m_mark);
    }

    updateReasoningTitle();
    if (hasReasoning()) {
        writeReasoning(m_reasoning->document(), *m_record, m_theme);
        m_reasoningToggle->show();
        m_reasoning->setVisible(m_reasoningToggle->isChecked());
        fitReasoningHeight();
    } else {
        m_reasoning->document()->clear();
        m_reasoningToggle->hide();
        m_reasoning->hide();
    }
}

void ResponseColumn::updateReasoningTitle()
{
    if (!m_record) {
        m_reasoningToggle->setText(QString());
        return;
    }
    const int n = reasoningLength(m_record->request);
    QString text = QStringLiteral("Reasoning — %1 characters").arg(n);
    if (answerStart(m_record->request) > 0)
        text += QStringLiteral(" (leaked into the answer text)");
    m_reasoningToggle->setText(text);
}

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/tables/GuardrailBanner.h"

#include "widgets/tables/TableText.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace qs {

namespace {

/// Around each warning's row, and around the "… and N more" line under the rows.
const QMargins kRowMargins(10, 5, 8, 5);
const QMargins kMoreMargins(14, 0, 0, 2);

} // namespace

namespace {

bool sameGuardrails(const std::vector<Guardrail>& a, const std::vector<Guardrail>& b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || a[i].severity != b[i].severity || a[i].title != b[i].title
            || a[i].evidence != b[i].evidence || a[i].advice != b[i].advice)
            return false;
    return true;
}

/// The rows' scroll area: as tall as the rows need at its width (their text wraps), up to two
/// fifths of the window — no cap when the banner is a window of its own (a screenshot).
class RowsArea : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize sizeHint() const override
    {
        const QWidget* rows = widget();
        if (!rows)
            return QScrollArea::sizeHint();
        const int width = std::max(1, viewport()->width());
        int height = rows->hasHeightForWidth() ? rows->heightForWidth(width) : rows->sizeHint().height();
        const QWidget* top = window();
        if (top && top != parentWidget())
            height = std::min(height, std::max(120, top->height() * 2 / 5));
        return {QScrollArea::sizeHint().width(), height + 2 * frameWidth()};
    }
    QSize minimumSizeHint() const override { return {100, std::min(sizeHint().height(), 80)}; }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        const bool widthChanged = event->size().width() != event->oldSize().width();
        QScrollArea::resizeEvent(event);
        if (widthChanged)
            updateGeometry(); // the wrapped rows' height follows the width
    }
};

QString plural(int n, const char* one, const char* many)
{
    return QString::number(n) + QLatin1Char(' ') + QString::fromLatin1(n == 1 ? one : many);
}

} // namespace

GuardrailBanner::GuardrailBanner(QWidget* parent)
    : QWidget(parent)
    , m_headline(new QLabel(this))
    , m_toggle(new QToolButton(this))
    , m_rows(new QVBoxLayout)
    , m_rowsHost(new QWidget)
    , m_area(new RowsArea(this))
{
    m_headline->setObjectName(QStringLiteral("guardrailHeadline"));
    m_headline->setWordWrap(true);
    QFont font = m_headline->font();
    font.setBold(true);
    m_headline->setFont(font);
    m_toggle->setObjectName(QStringLiteral("guardrailDetailsToggle"));
    m_toggle->setAutoRaise(true);
    m_toggle->setCursor(Qt::PointingHandCursor);
    connect(m_toggle, &QToolButton::clicked, this, [this] { setExpanded(!m_expanded); });

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_headline, 1);
    bar->addWidget(m_toggle);
    m_rows->setSpacing(4);
    m_rows->setContentsMargins(0, 0, 0, 0);
    m_rowsHost->setLayout(m_rows);
    m_area->setObjectName(QStringLiteral("guardrailRows"));
    m_area->setFrameShape(QFrame::NoFrame);
    m_area->setWidgetResizable(true);
    m_area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_area->setWidget(m_rowsHost);
    m_area->viewport()->setAutoFillBackground(false); // the banner's own background shows
    m_area->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 8);
    layout->setSpacing(4);
    layout->addLayout(bar);
    layout->addWidget(m_area);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    setTheme(Theme::Light);
    setVisible(false);
}

int GuardrailBanner::warningCount() const
{
    return int(m_guardrails.size());
}

QString GuardrailBanner::headline() const
{
    return m_headline->text();
}

void GuardrailBanner::setData(const DashboardData& dashboard)
{
    if (dashboard.live != m_live) {
        m_live = dashboard.live;
        reserveRoom();
        if (m_guardrails.empty())
            rebuild(); // the "none so far" line comes or goes
    }
    if (!dashboard.isEmpty() && !dashboard.evaluation)
        return; // still being evaluated: keep what is shown rather than flicker
    std::vector<Guardrail> guardrails;
    if (!dashboard.isEmpty())
        guardrails = dashboard.evaluation->guardrails;
    // Live refreshes usually bring the same warnings: leave the widgets (and the reader) alone.
    if (sameGuardrails(guardrails, m_guardrails))
        return;
    m_guardrails = std::move(guardrails);
    rebuild();
}

void GuardrailBanner::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    rebuild();
}

void GuardrailBanner::setExpanded(bool expanded)
{
    m_expanded = expanded;
    m_toggle->setText(expanded ? QStringLiteral("Hide details") : QStringLiteral("Show details"));
    for (QWidget* detail : std::as_const(m_details))
        detail->setVisible(expanded);
    for (int i = 0; i < m_rowWidgets.size(); ++i)
        m_rowWidgets[i]->setVisible(expanded || i < CollapsedRows);
    const int hidden = expanded ? 0 : std::max(0, int(m_rowWidgets.size()) - CollapsedRows);
    if (m_more) {
        m_more->setText(QStringLiteral("… and %1 more (Show details)").arg(hidden));
        m_more->setVisible(hidden > 0);
    }
    m_area->updateGeometry();
    reserveRoom();
}

void GuardrailBanner::reserveRoom()
{
    if (!m_live || m_expanded) {
        setMinimumHeight(0);
        return;
    }
    // The headline, CollapsedRows one-line rows and the "… and N more" line, read off the layouts
    // rebuild() makes (a row's margins, the line under the rows), so the two cannot drift apart.
    const int line = fontMetrics().height();
    const QMargins outer = layout()->contentsMargins();
    const int row = line + kRowMargins.top() + kRowMargins.bottom() + m_rows->spacing();
    setMinimumHeight(outer.top() + outer.bottom() + line + layout()->spacing() + CollapsedRows * row + line
        + kMoreMargins.bottom());
}

void GuardrailBanner::rebuild()
{
    m_details.clear();
    m_rowWidgets.clear();
    m_more = nullptr;
    while (QLayoutItem* item = m_rows->takeAt(0)) {
        delete item->widget();
        delete item;
    }

    int counts[3] = {0, 0, 0};
    for (const Guardrail& g : m_guardrails)
        ++counts[int(g.severity)];
    const int critical = counts[int(Guardrail::Severity::Critical)];
    const int warnings = counts[int(Guardrail::Severity::Warning)];
    const int notes = counts[int(Guardrail::Severity::Info)];
    QStringList parts;
    if (critical)
        parts << QString::number(critical) + QStringLiteral(" critical");
    if (warnings)
        parts << plural(warnings, "warning", "warnings");
    if (notes)
        parts << plural(notes, "note", "notes");
    const QString verdict = critical ? QStringLiteral("this comparison may mislead")
        : warnings                   ? QStringLiteral("read the numbers with these in mind")
                                     : QStringLiteral("worth knowing");
    m_headline->setText(m_guardrails.empty()
            ? QStringLiteral("No methodology warnings so far: the checks run again as the answers come in")
            : parts.join(QStringLiteral(", ")) + QStringLiteral(": ") + verdict);

    const ThemeColors& c = themeColors(m_theme);
    QFont chipFont = font();
    chipFont.setBold(true);
    chipFont.setPointSizeF(chipFont.pointSizeF() * 0.8);
    const int chipWidth = QFontMetrics(chipFont).horizontalAdvance(QStringLiteral("CRITICAL")) + 14;
    for (const Guardrail& g : m_guardrails) {
        QColor background = c.infoBackground;
        QColor accent = c.infoAccent;
        QString severity = QStringLiteral("INFO");
        if (g.severity == Guardrail::Severity::Critical) {
            background = c.criticalBackground;
            accent = c.criticalAccent;
            severity = QStringLiteral("CRITICAL");
        } else if (g.severity == Guardrail::Severity::Warning) {
            background = c.warningBackground;
            accent = c.warningAccent;
            severity = QStringLiteral("WARNING");
        }

        auto* row = new QFrame(m_rowsHost);
        row->setObjectName(QStringLiteral("guardrailRow"));
        row->setProperty("guardrailId", g.id);
        // A style sheet stops the palette from reaching the labels: they get the text colour here.
        row->setStyleSheet(
            QStringLiteral("QFrame#guardrailRow { background-color: %1; border-left: 4px solid %2; }"
                           "QLabel { color: %3; }")
                .arg(background.name(), accent.name(), c.text.name()));
        auto* chip = new QLabel(severity, row);
        chip->setObjectName(QStringLiteral("severityChip"));
        chip->setFont(chipFont);
        chip->setAlignment(Qt::AlignCenter);
        chip->setFixedWidth(chipWidth);
        chip->setStyleSheet(
            QStringLiteral("background-color: %1; color: %2; border-radius: 3px; padding: 1px 4px;")
                .arg(accent.name(), readableTextOn(accent).name()));
        chip->setToolTip(QStringLiteral("Guardrail \"%1\" (%2)").arg(g.id, severityId(g.severity)));

        auto* title = new QLabel(g.title, row);
        title->setObjectName(QStringLiteral("guardrailTitle"));
        title->setWordWrap(true);
        title->setTextFormat(Qt::PlainText);
        auto detail = [&](const QString& label, const QString& text) {
            auto* l = new QLabel(
                QStringLiteral("<b>") + label + QStringLiteral("</b> ") + text.toHtmlEscaped(), row);
            l->setTextFormat(Qt::RichText);
            l->setWordWrap(true);
            l->setTextInteractionFlags(Qt::TextSelectableByMouse);
            l->setVisible(m_expanded);
            m_details << l;
            return l;
        };
        auto* text = new QVBoxLayout;
        text->setSpacing(3);
        text->addWidget(title);
        if (!g.evidence.isEmpty())
            text->addWidget(detail(QStringLiteral("Evidence:"), g.evidence));
        if (!g.advice.isEmpty())
            text->addWidget(detail(QStringLiteral("What to do:"), g.advice));
        auto* layout = new QHBoxLayout(row);
        layout->setContentsMargins(kRowMargins);
        layout->setSpacing(10);
        layout->addWidget(chip, 0, Qt::AlignTop);
        layout->addLayout(text, 1);
        m_rows->addWidget(row);
        m_rowWidgets << row;
    }
    m_more = new QLabel(m_rowsHost);
    m_more->setObjectName(QStringLiteral("guardrailMore"));
    m_more->setForegroundRole(QPalette::PlaceholderText);
    m_more->setContentsMargins(kMoreMargins);
    m_rows->addWidget(m_more);
    setExpanded(m_expanded);
    m_toggle->setVisible(!m_guardrails.empty());
    setVisible(!m_guardrails.empty() || m_live);
}

} // namespace qs

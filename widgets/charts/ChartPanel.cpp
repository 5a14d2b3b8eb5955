// SPDX-License-Identifier: MIT
#include "widgets/charts/ChartPanel.h"

#include "widgets/charts/ChartExplorer.h"
#include "widgets/charts/ChartOverlay.h"
#include "widgets/charts/NiceScale.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QPainter>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QXYSeries>
#include <algorithm>

namespace qs {

namespace {

/// A definition as rich text, so that Qt wraps the tooltip (plain text shows as one line as
/// wide as its longest paragraph: ~1,000 px for a formula and its sources). A table of fixed
/// width holds it to a column that reads.
QString definitionHtml(const QString& text)
{
    QStringList paragraphs;
    for (const QString& p : text.split(QStringLiteral("\n\n")))
        paragraphs << p.toHtmlEscaped().replace(u'\n', QStringLiteral("<br>"));
    return QStringLiteral("<table width=\"380\"><tr><td><p>") + paragraphs.join(QStringLiteral("</p><p>"))
        + QStringLiteral("</p></td></tr></table>");
}

/// The definition's marker: an "i" in a ring, painted (no font is sure to have "ⓘ").
QPixmap infoMarker(const QColor& color, const QFont& font, qreal dpr)
{
    const int size = QFontMetrics(font).height();
    QPixmap pixmap(QSize(size, size) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(color, 1.2));
    p.drawEllipse(QRectF(1, 1, size - 2, size - 2));
    QFont bold = font;
    bold.setBold(true);
    bold.setPixelSize(std::max(8, size * 2 / 3));
    p.setFont(bold);
    p.drawText(QRectF(0, 0, size, size), Qt::AlignCenter, QStringLiteral("i"));
    return pixmap;
}

} // namespace

QString ChartPanel::gestureHint()
{
    return exploreHint();
}

ChartPanel::ChartPanel(QWidget* parent)
    : QWidget(parent)
    , m_view(new QChartView(new QChart))
    , m_subtitle(new QLabel)
    , m_controls(new QHBoxLayout)
    , m_title(new QLabel)
    , m_controlsBox(new QWidget)
    , m_info(new QLabel)
    , m_resetZoom(new QToolButton)
    , m_explorer(new ChartExplorer(m_view, this))
    , m_overlay(new ChartOverlay(m_view->chart()))
{
    setAutoFillBackground(true);

    // Title and subtitle are labels above the plot, left-aligned like a figure in an article:
    // the chart's own centred title cannot carry a second, lighter line.
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    m_title->setFont(titleFont);
    m_title->setTextFormat(Qt::PlainText);
    m_subtitle->setTextFormat(Qt::PlainText);
    m_subtitle->setWordWrap(true);

    m_controls->setContentsMargins(0, 0, 0, 0);
    m_controls->setSpacing(6);
    m_controlsBox->setLayout(m_controls);

    // The definition behind a marker beside the title: on demand, never over the data.
    m_info->setObjectName(QStringLiteral("definitionMarker"));
    m_info->setAccessibleName(QStringLiteral("Definition"));
    m_info->setCursor(Qt::WhatsThisCursor);
    m_info->hide();
    auto* titleRow = new QHBoxLayout;
    titleRow->setSpacing(6);
    titleRow->addWidget(m_title);
    titleRow->addWidget(m_info);
    titleRow->addStretch(1);

    m_resetZoom->setObjectName(QStringLiteral("resetZoom"));
    m_resetZoom->setText(QStringLiteral("Reset zoom"));
    m_resetZoom->setToolTip(QStringLiteral("Back to the full view (double-click the plot or press Esc). ")
        + gestureHint().replace(QStringLiteral(" · "), QStringLiteral("; ")));
    m_resetZoom->hide();
    m_controls->addWidget(m_resetZoom);
    connect(m_resetZoom, &QToolButton::clicked, this, [this] { resetZoom(); });

    connect(m_explorer, &ChartExplorer::pointerMoved, this, &ChartPanel::pointerMoved);
    connect(m_explorer, &ChartExplorer::pointerLeft, this, &ChartPanel::pointerLeft);
    connect(m_explorer, &ChartExplorer::zoomChanged, this, [this] {
        setZoomedState(m_explorer->zoomed());
        refreshReadout();
    });

    auto* headings = new QVBoxLayout;
    headings->setSpacing(2);
    headings->addLayout(titleRow);
    headings->addWidget(m_subtitle);
    auto* header = new QHBoxLayout;
    header->addLayout(headings, 1);
    header->addWidget(m_controlsBox, 0, Qt::AlignTop);

    QChart* c = m_view->chart();
    c->setAnimationOptions(QChart::NoAnimation); // deterministic screenshots, no lag while live
    c->setMargins(QMargins(2, 2, 8, 2));
    c->layout()->setContentsMargins(0, 0, 0, 0);
    c->legend()->setAlignment(Qt::AlignTop);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setMinimumHeight(160);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(14, 10, 14, 8);
    layout->setSpacing(6);
    layout->addLayout(header);
    layout->addWidget(m_view, 1);

    applyTheme();
}

QChart* ChartPanel::chart() const
{
    return m_view->chart();
}

QString ChartPanel::title() const
{
    return m_title->text();
}

QString ChartPanel::subtitle() const
{
    return m_subtitle->text();
}

void ChartPanel::setTheme(Theme theme)
{
    m_theme = theme;
    applyTheme();
}

void ChartPanel::setControlsVisible(bool visible)
{
    m_controlsBox->setVisible(visible);
    m_info->setVisible(visible && !m_definition.isEmpty());
}

void ChartPanel::setTitle(const QString& title)
{
    m_title->setText(title);
}

void ChartPanel::setSubtitle(const QString& text)
{
    m_subtitle->setText(text);
}

void ChartPanel::setDefinition(const QString& text)
{
    m_definition = text;
    const QString html = definitionHtml(text);
    m_info->setToolTip(html);
    m_info->setVisible(!text.isEmpty() && m_controlsBox->isVisibleTo(this));
    // Over the title and subtitle too; the plot eats its tooltip events (ChartExplorer).
    setToolTip(html);
}

void ChartPanel::setZoomAxis(QAbstractAxis* axis)
{
    m_explorer->setAxis(axis);
}

QString ChartPanel::readout() const
{
    return m_readout.text();
}

bool ChartPanel::isZoomed() const
{
    return m_explorer->zoomed();
}

void ChartPanel::resetZoom()
{
    m_explorer->reset();
}

void ChartPanel::setZoomedState(bool zoomed)
{
    m_resetZoom->setVisible(zoomed);
}

void ChartPanel::setCrosshair(ChartCrosshair* hub)
{
    m_crosshair = hub;
}

Readout ChartPanel::readoutAt(const QPointF& pos)
{
    return xyReadout(chart(), pos, m_readoutFormat);
}

Readout ChartPanel::readoutAtShared(const QVariant& at)
{
    bool ok = false;
    const double x = at.toDouble(&ok);
    return ok ? xyReadoutAtX(chart(), x, m_readoutFormat) : Readout {};
}

void ChartPanel::pointerMoved(const QPointF& pos)
{
    m_readout = readoutAt(pos);
    m_overlay->setHint(
        m_explorer->zoomable() && chart()->plotArea().contains(pos) ? gestureHint() : QString());
    m_overlay->show(m_readout, pos);
    if (m_readout.shared.isValid())
        shareCrosshair(m_readout.shared);
    else
        leaveCrosshair();
}

void ChartPanel::pointerLeft()
{
    m_readout = {};
    m_overlay->clear();
    leaveCrosshair();
}

void ChartPanel::refreshReadout()
{
    if (const std::optional<QPointF> at = m_explorer->pointer())
        pointerMoved(*at);
}

void ChartPanel::shareCrosshair(const QVariant& at)
{
    if (m_crosshair)
        m_crosshair->move(this, crosshairAxis(), at);
}

void ChartPanel::leaveCrosshair()
{
    if (m_crosshair)
        m_crosshair->leave(this);
}

void ChartPanel::showCrosshair(const QVariant& at)
{
    m_readout = at.isValid() ? readoutAtShared(at) : Readout {};
    if (!m_readout.x || chart()->series().isEmpty()) {
        m_readout = {};
        m_overlay->clear();
        return;
    }
    // The box hangs from the top of the line, where it hides the least.
    const double x = chart()->mapToPosition(QPointF(*m_readout.x, 0), chart()->series().constFirst()).x();
    m_overlay->show(m_readout, QPointF(x, chart()->plotArea().top()));
}

void ChartPanel::setPlotWidget(QWidget* plot)
{
    auto* box = static_cast<QVBoxLayout*>(layout());
    delete box->replaceWidget(m_view, plot);
    m_view->hide();
    box->setStretchFactor(plot, 1);
}

void ChartPanel::showMessage(const QString& subtitle)
{
    chart()->removeAllSeries();
    for (QAbstractAxis* axis : chart()->axes())
        axis->setVisible(false);
    chart()->legend()->setVisible(false);
    setSubtitle(subtitle);
}

void ChartPanel::showPlot()
{
    for (QAbstractAxis* axis : chart()->axes())
        axis->setVisible(true);
    chart()->legend()->setVisible(true);
}

void ChartPanel::setNiceRange(QValueAxis* axis, double top, bool tight)
{
    const NiceScale s = niceScale(top, 7, tight);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    axis->setTickInterval(s.step);
    axis->setMinorTickCount(0);
    axis->setLabelFormat(QStringLiteral("%.") + QString::number(s.decimals) + QStringLiteral("f"));
    axis->setRange(0, s.top);
}

void ChartPanel::setChoices(QComboBox* box, const QList<std::pair<QString, QString>>& choices)
{
    bool same = box->count() == choices.size();
    for (int i = 0; same && i < choices.size(); ++i)
        same = box->itemText(i) == choices[i].first && box->itemData(i).toString() == choices[i].second;
    if (same)
        return;
    const QString selected = box->currentData().toString();
    const QSignalBlocker blocker(box);
    box->clear();
    for (const auto& [label, id] : choices)
        box->addItem(label, id);
    box->setCurrentIndex(std::max(0, box->findData(selected)));
}

void ChartPanel::applyTheme()
{
    const ThemeColors& c = themeColors(m_theme);
    // The panel is one card: the same background behind the headings and the plot.
    QPalette p = themePalette(m_theme);
    p.setColor(QPalette::Window, c.base);
    setPalette(p);
    QPalette muted = p;
    muted.setColor(QPalette::WindowText, c.mutedText);
    m_subtitle->setPalette(muted);
    m_info->setPixmap(infoMarker(c.mutedText, font(), devicePixelRatioF()));
    m_view->setBackgroundBrush(c.base);
    applyChartTheme(chart(), m_theme);
    m_overlay->setTheme(m_theme);
}

void ChartPanel::setUpTtftVariantPicker(QComboBox* box)
{
    box->setObjectName(QStringLiteral("variantPicker"));
    box->addItem(QStringLiteral("TTFT visible"));
    box->addItem(QStringLiteral("TTFT any (incl. reasoning)"));
    box->setToolTip(QStringLiteral("Visible: first answer text or tool call. Any: first token of any kind, "
                                   "reasoning included."));
}

void ChartPanel::addTaggedSeries(
    QXYSeries* series, QAbstractAxis* x, QAbstractAxis* y, int endpoint, const char* role, bool inLegend)
{
    series->setProperty(endpointProperty, endpoint);
    series->setProperty(roleProperty, QString::fromLatin1(role));
    chart()->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    if (!inLegend)
        for (QLegendMarker* marker : chart()->legend()->markers(series))
            marker->setVisible(false);
}

} // namespace qs

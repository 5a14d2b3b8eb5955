// SPDX-License-Identifier: MIT
#include "widgets/charts/ChartPanel.h"

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
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QXYSeries>
#include <algorithm>

namespace qs {

ChartPanel::ChartPanel(QWidget* parent)
    : QWidget(parent)
    , m_view(new QChartView(new QChart))
    , m_subtitle(new QLabel)
    , m_controls(new QHBoxLayout)
    , m_title(new QLabel)
    , m_controlsBox(new QWidget)
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

    auto* headings = new QVBoxLayout;
    headings->setSpacing(2);
    headings->addWidget(m_title);
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
    setToolTip(text);
    m_view->setToolTip(text);
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
    m_view->setBackgroundBrush(c.base);
    applyChartTheme(chart(), m_theme);
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

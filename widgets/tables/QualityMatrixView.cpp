// SPDX-License-Identifier: MIT
#include "widgets/tables/QualityMatrixView.h"

#include "model/gates/QualityGates.h"
#include "widgets/Theme.h"
#include "widgets/tables/TableText.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

namespace qs {

namespace {

using GateCounts = std::map<QString, std::pair<int, int>>;

std::pair<int, int> countFor(const GateCounts& gates, const QString& gate)
{
    if (!gate.isEmpty()) {
        const auto it = gates.find(gate);
        return it == gates.end() ? std::pair {0, 0} : it->second;
    }
    std::pair<int, int> sum {0, 0};
    for (const auto& [name, count] : gates) {
        sum.first += count.first;
        sum.second += count.second;
    }
    return sum;
}

QString elided(const QString& text, int length)
{
    return text.size() <= length ? text : text.left(length - 1) + QStringLiteral("…");
}

/// Draws a selected cell with its pass-rate colour and a frame, instead of the selection colour
/// that would hide what the cell says.
class FramedSelectionDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem plain(option);
        const bool selected = option.state & QStyle::State_Selected;
        plain.state &= ~(QStyle::State_Selected | QStyle::State_HasFocus);
        QStyledItemDelegate::paint(painter, plain, index);
        if (selected) {
            painter->save();
            painter->setPen(QPen(option.palette.color(QPalette::Text), 2));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(QRectF(option.rect).adjusted(1, 1, -1, -1));
            painter->restore();
        }
    }
};

} // namespace

QualityMatrixView::QualityMatrixView(QWidget* parent)
    : QWidget(parent)
    , m_table(new QTableWidget(this))
    , m_gateBox(new QComboBox(this))
    , m_description(new QLabel(this))
    , m_legend(new QLabel(this))
{
    auto* title = new QLabel(QStringLiteral("Quality gates: requests passed / judged"), this);
    QFont font = title->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.1);
    title->setFont(font);
    title->setToolTip(
        QStringLiteral("Counted over every measured request whose gate was judged, failed requests "
                       "included; a gate that does not apply to a request is not counted."));

    m_gateBox->setObjectName(QStringLiteral("gatePicker"));
    m_gateBox->addItem(QStringLiteral("All gates"), QString());
    for (const QString& gate : gateNames()) {
        m_gateBox->addItem(gateTitle(gate), gate);
        m_gateBox->setItemData(m_gateBox->count() - 1, gateDescription(gate), Qt::ToolTipRole);
    }
    m_gateBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* gateLabel = new QLabel(QStringLiteral("Gate:"), this);
    gateLabel->setBuddy(m_gateBox);

    m_description->setWordWrap(true);
    m_description->setObjectName(QStringLiteral("gateDescription"));
    m_legend->setTextFormat(Qt::RichText);

    m_table->setObjectName(QStringLiteral("qualityMatrix"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->setItemDelegate(new FramedSelectionDelegate(m_table));
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // the columns stretch to fit
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(120);
    m_table->horizontalHeader()->setIconSize(QSize(12, 12));
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 14);
    m_table->verticalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);

    auto* bar = new QHBoxLayout;
    bar->addWidget(title, 1);
    bar->addWidget(gateLabel);
    bar->addWidget(m_gateBox);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(bar);
    layout->addWidget(m_description);
    layout->addWidget(m_table);
    layout->addWidget(m_legend);
    layout->addStretch(1); // the matrix is as tall as its rows, the legend right below it

    connect(m_gateBox, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
    setTheme(Theme::Light);
}

void QualityMatrixView::setGate(const QString& gate)
{
    const int i = m_gateBox->findData(gate);
    m_gateBox->setCurrentIndex(i >= 0 ? i : 0);
}

QString QualityMatrixView::gate() const
{
    return m_gateBox->currentData().toString();
}

void QualityMatrixView::setData(const DashboardData& dashboard)
{
    m_data = dashboard;
    rebuild();
}

void QualityMatrixView::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    QPalette muted = m_description->palette();
    muted.setColor(QPalette::WindowText, themeColors(theme).mutedText);
    m_description->setPalette(muted);
    m_legend->setPalette(muted);
    updateLegend();
    rebuild();
}

QString QualityMatrixView::cellToolTip(int endpoint, const QString& test, const GateCounts& gates) const
{
    const ThemeColors& c = themeColors(m_theme);
    QString html = QStringLiteral("<p style='white-space:pre'><b>")
        + endpointTitle(*m_data.result, endpoint).toHtmlEscaped() + QStringLiteral(" · ")
        + (test.isEmpty() ? QStringLiteral("all tests") : test.toHtmlEscaped())
        + QStringLiteral("</b></p><table cellspacing='0' cellpadding='2'>");
    for (const QString& gate : gateNames()) {
        const auto count = countFor(gates, gate);
        QString why;
        if (count.second == 0) {
            why = QStringLiteral("not applicable");
        } else if (!m_data.evaluation) {
            why.clear();
        } else if (const auto t = m_data.evaluation->gateFailures.find(GateFailureKey {endpoint, test, gate});
                   t != m_data.evaluation->gateFailures.end()) {
            // The most common kind of failure (a tie goes to the first in alphabetical order).
            const std::pair<int, QString>* best = nullptr;
            QString bestKind;
            for (const auto& [kind, tally] : t->second.reasons)
                if (!best || tally.first > best->first) {
                    best = &tally;
                    bestKind = kind;
                }
            if (best) {
                why = QStringLiteral("most often ")
                    + QString(bestKind).replace(QLatin1Char('_'), QLatin1Char(' '))
                    + QStringLiteral(" (%1 of %2)").arg(best->first).arg(t->second.failures);
                if (best->second != bestKind)
                    why += QStringLiteral(": ") + elided(best->second, 70);
            }
        }
        html += QStringLiteral("<tr><td>") + gateTitle(gate).toHtmlEscaped()
            + QStringLiteral("&nbsp;&nbsp;</td><td align='right'><b>") + gateCount(count)
            + QStringLiteral("</b>&nbsp;&nbsp;</td><td style='color:") + c.mutedText.name()
            + QStringLiteral("'>") + why.toHtmlEscaped() + QStringLiteral("</td></tr>");
    }
    return html + QStringLiteral("</table>");
}

void QualityMatrixView::rebuild()
{
    const ThemeColors& colors = themeColors(m_theme);
    const QString gate = this->gate();
    m_description->setText(gateDescription(gate));

    const Evaluation* evaluation = m_data.isEmpty() ? nullptr : m_data.evaluation.get();
    const int endpoints = evaluation ? int(m_data.result->endpoints.size()) : 0;

    // Tests in the order they first ran, with each endpoint's all-turns cell.
    QStringList tests;
    std::map<std::pair<int, QString>, const CellStatistics*> cells;
    std::vector<GateCounts> allTests(std::size_t(std::max(endpoints, 0)));
    if (evaluation)
        for (const CellStatistics& c : evaluation->cells) {
            if (c.turn != 0 || c.endpoint < 0 || c.endpoint >= endpoints)
                continue;
            if (!tests.contains(c.test))
                tests << c.test;
            cells[{c.endpoint, c.test}] = &c;
            for (const auto& [name, count] : c.gates) {
                auto& sum = allTests[std::size_t(c.endpoint)][name];
                sum.first += count.first;
                sum.second += count.second;
            }
        }

    // Rows and columns only grow or shrink at the end ("All tests" first, tests in run order),
    // so a live refresh keeps the user's selection.
    const int rows = tests.isEmpty() ? 0 : int(tests.size()) + 1;
    m_table->setColumnCount(endpoints);
    m_table->setRowCount(rows);
    for (int e = 0; e < endpoints; ++e) {
        QTableWidgetItem* header = m_table->horizontalHeaderItem(e);
        if (!header) {
            header = new QTableWidgetItem;
            m_table->setHorizontalHeaderItem(e, header);
        }
        header->setText(endpointTitle(*m_data.result, e));
        header->setIcon(colorDot(endpointColor(e, m_theme)));
        header->setToolTip(
            e == evaluation->baseline ? QStringLiteral("The baseline of the paired comparison") : QString());
    }
    for (int row = 0; row < rows; ++row) {
        const QString test = row == 0 ? QString() : tests[row - 1];
        QTableWidgetItem* header = m_table->verticalHeaderItem(row);
        if (!header) {
            header = new QTableWidgetItem;
            m_table->setVerticalHeaderItem(row, header);
        }
        header->setText(row == 0 ? QStringLiteral("All tests") : test);
        QFont font = m_table->font();
        font.setBold(row == 0);
        header->setFont(font);
        for (int e = 0; e < endpoints; ++e) {
            QTableWidgetItem* item = m_table->item(row, e);
            if (!item) {
                item = new QTableWidgetItem;
                item->setTextAlignment(Qt::AlignCenter);
                item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
                m_table->setItem(row, e, item);
            }
            item->setFont(font);
            const CellStatistics* cell = nullptr;
            if (row > 0)
                if (const auto it = cells.find({e, test}); it != cells.end())
                    cell = it->second;
            if (row > 0 && !cell) { // this endpoint has not run the test (yet)
                item->setText(QStringLiteral("—"));
                item->setBackground(colors.notApplicable);
                item->setForeground(colors.mutedText);
                item->setToolTip(QStringLiteral("Not measured on this endpoint."));
                continue;
            }
            const GateCounts& gates = row == 0 ? allTests[std::size_t(e)] : cell->gates;
            const auto [passed, applicable] = countFor(gates, gate);
            QColor background = colors.partialBackground;
            if (applicable == 0)
                background = colors.notApplicable;
            else if (passed == applicable)
                background = colors.passBackground;
            else if (passed == 0)
                background = colors.failBackground;
            item->setText(gateCount({passed, applicable}));
            item->setBackground(background);
            item->setForeground(applicable == 0 ? colors.mutedText : colors.text);
            item->setToolTip(cellToolTip(e, test, gates));
        }
    }
}

void QualityMatrixView::updateLegend()
{
    const ThemeColors& c = themeColors(m_theme);
    auto entry = [&](const QColor& color, const QString& text) {
        return QStringLiteral("<span style='background-color:%1; color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;</span>"
                              "&nbsp;%2&nbsp;&nbsp;&nbsp;&nbsp;")
            .arg(color.name(), text);
    };
    m_legend->setText(entry(c.passBackground, QStringLiteral("all passed"))
        + entry(c.partialBackground, QStringLiteral("some failed"))
        + entry(c.failBackground, QStringLiteral("all failed"))
        + entry(c.notApplicable, QStringLiteral("not applicable (0/0)")));
}

} // namespace qs

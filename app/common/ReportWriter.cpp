// SPDX-License-Identifier: MIT
#include "app/common/ReportWriter.h"

#include "app/common/DashboardViews.h"
#include "app/common/PagedTables.h"
#include "widgets/ScreenshotRenderer.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QFont>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextOption>
#include <QUrl>
#include <QWidget>

using namespace Qt::StringLiterals;

namespace qs::app {

namespace {

/// The widest a chart is laid out for the report, in widget pixels (see renderReportCharts).
constexpr int printChartWidth = 740;

QByteArray pngBytes(const QImage& image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

QString saveBytes(const QString& path, const QByteArray& bytes)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return u"cannot write "_s + path + u": "_s + file.errorString();
    if (file.write(bytes) != bytes.size() || !file.commit())
        return u"cannot write "_s + path + u": "_s + file.errorString();
    return QString();
}

/// The resource name a chart has inside a QTextDocument.
QString resourceName(const ReportChart& chart)
{
    return u"chart-"_s + chart.name + u".png"_s;
}

} // namespace

std::optional<ReportFormat> reportFormatFromId(const QString& id)
{
    const QString l = id.toLower();
    if (l == u"md" || l == u"markdown")
        return ReportFormat::Markdown;
    if (l == u"html" || l == u"htm")
        return ReportFormat::Html;
    if (l == u"pdf")
        return ReportFormat::Pdf;
    return std::nullopt;
}

QString reportFormatId(ReportFormat format)
{
    switch (format) {
    case ReportFormat::Markdown:
        return u"md"_s;
    case ReportFormat::Html:
        return u"html"_s;
    case ReportFormat::Pdf:
        break;
    }
    return u"pdf"_s;
}

std::optional<ReportFormat> reportFormatForPath(const QString& path)
{
    return reportFormatFromId(QFileInfo(path).suffix());
}

std::vector<RenderedChart> renderReportCharts(
    const DashboardData& data, const std::vector<ReportChart>& charts)
{
    std::vector<RenderedChart> out;
    for (const ReportChart& chart : charts) {
        const ViewInfo* view = findView(chart.name);
        std::unique_ptr<QWidget> widget = createDataView(chart.name, data, Theme::Light);
        if (!view || !widget)
            continue;
        // The same standalone rendering as `quantscope screenshot` (no toggles), but narrower: the
        // page shows a chart about 165 mm wide, and a 960 px chart's 9 pt text would print at 6 pt.
        // At 740 px it prints at about 7.5 pt, the size of a figure in a paper.
        const QSize size = view->size.width() > printChartWidth
            ? QSize(printChartWidth, view->size.height() * printChartWidth / view->size.width())
            : view->size;
        widget->resize(size);
        widget->setAttribute(Qt::WA_DontShowOnScreen);
        widget->show();
        QCoreApplication::processEvents();
        RenderedChart r {chart, renderWidget(widget.get(), 2)};
        r.chart.width = size.width();
        r.chart.height = size.height();
        if (!r.image.isNull())
            out.push_back(std::move(r));
    }
    return out;
}

void loadReportDocument(QTextDocument& document, ReportInput input, const std::vector<RenderedChart>& charts)
{
    input.charts.clear();
    for (const RenderedChart& c : charts) {
        ReportChart chart = c.chart;
        chart.source = resourceName(chart);
        document.addResource(QTextDocument::ImageResource, QUrl(chart.source), c.image);
        input.charts.push_back(chart);
    }
    document.setDefaultFont(QFont(u"DejaVu Sans"_s, 9));
    QTextOption option = document.defaultTextOption();
    // QTextDocument's default breaks words anywhere, which lets Qt's table layout squeeze a column
    // until "Conversational" splits; at word boundaries it sizes columns to their words.
    option.setWrapMode(QTextOption::WordWrap);
    document.setDefaultTextOption(option);
    document.setMetaInformation(QTextDocument::DocumentTitle, reportTitle(input));
    document.setHtml(reportHtml(input, HtmlFlavor::RichText));
}

void setUpA4(QPdfWriter& pdf)
{
    pdf.setResolution(300);
    pdf.setPageLayout(QPageLayout(
        QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(18, 16, 18, 10), QPageLayout::Millimeter));
}

double layOutForPrint(QTextDocument& document, QPdfWriter& pdf, bool keepRows)
{
    const qreal mm = pdf.resolution() / 25.4;
    const QSizeF paper(pdf.width(), pdf.height()); // the printable area, in device pixels
    const qreal footer = 7 * mm;
    document.documentLayout()->setPaintDevice(&pdf); // lay out with the printer's metrics, as print() does
    QTextFrameFormat root = document.rootFrame()->frameFormat();
    root.setMargin(0); // the page layout's margins are the margins
    document.rootFrame()->setFrameFormat(root);
    document.setPageSize(QSizeF(paper.width(), paper.height() - footer));
    if (keepRows)
        keepTableRowsTogether(document);
    return footer;
}

namespace {

void printPaged(QTextDocument& document, QPdfWriter& pdf)
{
    // Not QTextDocument::print(): it clips each page to the whole sheet, so a coloured callout or
    // table cell that crosses a page break paints its background down through the bottom margin,
    // under the page number. Here each page is clipped to its text area, and the number sits
    // below it in a footer of its own.
    const qreal footer = layOutForPrint(document, pdf, true);
    const QSizeF body = document.pageSize();
    QAbstractTextDocumentLayout* layout = document.documentLayout();
    const int pages = document.pageCount();

    QPainter painter(&pdf);
    QFont numberFont = document.defaultFont();
    numberFont.setPointSizeF(numberFont.pointSizeF() * 0.9);
    for (int page = 0; page < pages; ++page) {
        if (page > 0)
            pdf.newPage();
        painter.save();
        const QRectF view(0, page * body.height(), body.width(), body.height());
        painter.setClipRect(QRectF(QPointF(0, 0), body));
        painter.translate(0, -view.top());
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = view;
        context.palette.setColor(QPalette::Text, Qt::black);
        layout->draw(&painter, context);
        painter.restore();
        painter.setFont(numberFont);
        painter.setPen(QColor(0x57, 0x60, 0x6a));
        painter.drawText(QRectF(0, body.height(), body.width(), footer), Qt::AlignRight | Qt::AlignBottom,
            QStringLiteral("%1 / %2").arg(page + 1).arg(pages));
    }
}

} // namespace

QString printPdf(QTextDocument& document, const QString& path, const QString& title, const QString& creator)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return u"cannot write "_s + path + u": "_s + file.errorString();
    {
        QPdfWriter pdf(&file);
        pdf.setTitle(title);
        pdf.setCreator(creator);
        setUpA4(pdf);
        printPaged(document, pdf);
    } // the writer finishes the file when it goes
    if (!file.commit())
        return u"cannot write "_s + path + u": "_s + file.errorString();
    return QString();
}

QString writeCampaignDocument(ReportFormat format, const QString& path, const CampaignDocumentInput& input)
{
    switch (format) {
    case ReportFormat::Markdown:
        return saveBytes(path, campaignMarkdown(input).toUtf8());
    case ReportFormat::Html:
        return saveBytes(path, campaignHtml(input, HtmlFlavor::Browser).toUtf8());
    case ReportFormat::Pdf:
        break;
    }
    QTextDocument document;
    QTextOption option = document.defaultTextOption();
    option.setWrapMode(QTextOption::WordWrap);
    document.setDefaultTextOption(option);
    document.setMetaInformation(QTextDocument::DocumentTitle, campaignTitle(*input.campaign));
    document.setHtml(campaignHtml(input, HtmlFlavor::RichText));
    return printPdf(document, path, campaignTitle(*input.campaign), input.generator);
}

QString reportAssetsDir(const QString& markdownPath)
{
    const QFileInfo info(markdownPath);
    return info.dir().filePath(info.completeBaseName() + u"-assets"_s);
}

QString writeReport(ReportFormat format, const QString& path, ReportInput input,
    const std::vector<RenderedChart>& charts, QStringList* written)
{
    QStringList files;
    QString error;
    switch (format) {
    case ReportFormat::Markdown: {
        const QString assets = reportAssetsDir(path);
        input.charts.clear();
        if (!charts.empty() && !QDir().mkpath(assets))
            return u"cannot create the folder "_s + assets + u" for the report's images"_s;
        for (const RenderedChart& c : charts) {
            const QString file = QDir(assets).filePath(c.chart.name + u".png"_s);
            if (error = savePng(c.image, file); !error.isEmpty())
                return error;
            files << file;
            ReportChart chart = c.chart;
            // Relative to the Markdown file, so the pair can be moved or committed together.
            chart.source = QFileInfo(assets).fileName() + u'/' + c.chart.name + u".png"_s;
            input.charts.push_back(chart);
        }
        error = saveBytes(path, reportMarkdown(input).toUtf8());
        break;
    }
    case ReportFormat::Html:
        input.charts.clear();
        for (const RenderedChart& c : charts) {
            ReportChart chart = c.chart;
            chart.source = u"data:image/png;base64,"_s + QString::fromLatin1(pngBytes(c.image).toBase64());
            input.charts.push_back(chart);
        }
        error = saveBytes(path, reportHtml(input, HtmlFlavor::Browser).toUtf8());
        break;
    case ReportFormat::Pdf: {
        QTextDocument document;
        loadReportDocument(document, input, charts);
        error = printPdf(document, path, reportTitle(input), input.generator);
        break;
    }
    }
    if (!error.isEmpty())
        return error;
    files << path;
    if (written)
        *written = files;
    return QString();
}

} // namespace qs::app

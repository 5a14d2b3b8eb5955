// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/CampaignDocument.h"
#include "model/decide/Report.h"
#include "widgets/DashboardData.h"

#include <QImage>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

class QPdfWriter;
class QTextDocument;

namespace qs::app {

// Turns a qs::ReportInput (model/Report.h) into files: it renders the charts with the dashboard's
// own views and writes Markdown (with its images in a folder beside it), one self-contained HTML
// file, or a PDF printed by Qt. Shared by `quantscope report` and the dashboard's Export Report.

enum class ReportFormat { Markdown, Html, Pdf };

/// "md" (or "markdown"), "html", "pdf"; case-insensitive.
std::optional<ReportFormat> reportFormatFromId(const QString& id);
QString reportFormatId(ReportFormat format); ///< "md", "html", "pdf"
/// The format a file name's suffix implies (.md, .markdown, .html, .htm, .pdf).
std::optional<ReportFormat> reportFormatForPath(const QString& path);

/// A chart of the document and its pixels.
struct RenderedChart {
    ReportChart chart;
    QImage image;
};

/// Renders `charts` (reportCharts()) from `data` with the dashboard's views: light theme, 2×, at
/// each view's screenshot size. Needs a QApplication; views that show nothing are left out.
std::vector<RenderedChart> renderReportCharts(
    const DashboardData& data, const std::vector<ReportChart>& charts);

/// Fills `document` with the report as rich text — the charts as its image resources — ready to
/// print or to show in a QTextBrowser. `input.charts` is replaced by `charts`.
void loadReportDocument(QTextDocument& document, ReportInput input, const std::vector<RenderedChart>& charts);

/// Where a Markdown report's images go: "report.md" → "report-assets" beside it.
QString reportAssetsDir(const QString& markdownPath);

/// Writes the report to `path` atomically (QSaveFile). Markdown writes its PNGs into
/// reportAssetsDir(path) first. Returns an error message that names the file, or an empty string;
/// `written` receives every file written.
QString writeReport(ReportFormat format, const QString& path, ReportInput input,
    const std::vector<RenderedChart>& charts, QStringList* written = nullptr);

/// The page the documents are printed on: A4 portrait, 300 dpi, margins 18/16/18/10 mm.
void setUpA4(QPdfWriter& pdf);
/// Lays `document` out on `pdf`'s pages as printPdf() prints them: the printer's metrics, room for
/// the page number below, and (with `keepRows`) no table row broken across a page
/// (PagedTables.h). Returns the footer's height in device pixels.
double layOutForPrint(QTextDocument& document, QPdfWriter& pdf, bool keepRows = true);

/// Prints `document` to a PDF at `path` (A4, atomically), page numbers in a footer. Returns an
/// error message that names the file, or an empty string.
QString printPdf(QTextDocument& document, const QString& path, const QString& title, const QString& creator);

/// Writes the campaign document (model/decide/CampaignDocument.h) as Markdown, self-contained
/// HTML or PDF, atomically. Returns an error message that names the file, or an empty string.
QString writeCampaignDocument(ReportFormat format, const QString& path, const CampaignDocumentInput& input);

} // namespace qs::app

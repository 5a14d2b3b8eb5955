// SPDX-License-Identifier: MIT
#include "app/dashboard/ReportDialog.h"

#include "model/decide/Recommendation.h"
#include "model/decide/Report.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace qs::app {

QString exportPathBeside(const QString& resultsFile, const QString& fileName)
{
    const QFileInfo results(resultsFile);
    if (resultsFile.isEmpty() || !results.dir().exists())
        return QDir::home().filePath(QStringLiteral("quantscope-") + fileName);
    return results.dir().filePath(results.completeBaseName() + u'-' + fileName);
}

ReportDialog::ReportDialog(const DashboardData& dashboard, QWidget* parent)
    : QDialog(parent)
    , m_data(dashboard)
    , m_evaluation(dashboard.evaluation)
{
    setWindowTitle(QStringLiteral("Export Report"));
    resize(980, 820);
    Q_ASSERT(m_data.result && m_evaluation);
    if (!m_evaluation->hasComparison) {
        // The verdict needs the paired comparison; the dashboard's first pass skips it.
        QApplication::setOverrideCursor(Qt::WaitCursor);
        m_evaluation = std::make_shared<const Evaluation>(evaluate(*m_data.result, m_evaluation->baseline));
        QApplication::restoreOverrideCursor();
        m_data.evaluation = m_evaluation;
    }
    m_charts = renderReportCharts(m_data, reportCharts(*m_data.result, *m_evaluation));

    m_profileBox = new QComboBox;
    for (const QString& name : builtinDecisionProfileNames())
        m_profileBox->addItem(name, name);
    m_profileBox->addItem(QStringLiteral("Profile file…"), QString());
    m_profileBox->setToolTip(QStringLiteral(
        "The criteria a candidate must meet to replace the baseline (docs/decision-profiles.md)."));
    m_formatBox = new QComboBox;
    m_formatBox->addItem(QStringLiteral("PDF"), int(ReportFormat::Pdf));
    m_formatBox->addItem(QStringLiteral("HTML (one self-contained file)"), int(ReportFormat::Html));
    m_formatBox->addItem(QStringLiteral("Markdown (with an images folder)"), int(ReportFormat::Markdown));
    m_status = new QLabel;
    m_status->setWordWrap(true);
    m_preview = new QTextBrowser;
    m_preview->setOpenLinks(false);
    m_preview->setOpenExternalLinks(false);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close);
    m_buttons->button(QDialogButtonBox::Save)->setText(QStringLiteral("Save…"));

    auto* form = new QFormLayout;
    form->addRow(QStringLiteral("Decision profile:"), m_profileBox);
    form->addRow(QStringLiteral("Format:"), m_formatBox);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_buttons);

    connect(m_profileBox, &QComboBox::activated, this, &ReportDialog::onProfileChosen);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ReportDialog::save);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    // The suite decides the default profile, as on the command line.
    setProfile(defaultDecisionProfileName(m_data.result->suite));
}

QString ReportDialog::setProfile(const QString& nameOrPath)
{
    try {
        m_profile = loadDecisionProfile(nameOrPath);
        m_profileLoaded = true;
    } catch (const std::exception& e) {
        m_status->setText(QStringLiteral("Decision profile not loaded: ") + QString::fromUtf8(e.what()));
        return QString::fromUtf8(e.what());
    }
    int index = m_profileBox->findData(nameOrPath);
    if (index < 0) {
        // A file: listed before "Profile file…", so it can be chosen again.
        index = m_profileBox->count() - 1;
        m_profileBox->insertItem(index, QFileInfo(nameOrPath).fileName(), nameOrPath);
    }
    m_profileBox->setCurrentIndex(index);
    m_lastProfileIndex = index;
    regenerate();
    return QString();
}

void ReportDialog::onProfileChosen(int index)
{
    QString choice = m_profileBox->itemData(index).toString();
    if (choice.isEmpty()) {
        choice = QFileDialog::getOpenFileName(this, QStringLiteral("Decision profile"), QDir::homePath(),
            QStringLiteral("Decision profile (*.json)"));
        if (choice.isEmpty()) {
            m_profileBox->setCurrentIndex(m_lastProfileIndex);
            return;
        }
    }
    if (!setProfile(choice).isEmpty())
        m_profileBox->setCurrentIndex(m_lastProfileIndex);
}

void ReportDialog::setFormat(ReportFormat format)
{
    m_formatBox->setCurrentIndex(m_formatBox->findData(int(format)));
}

ReportFormat ReportDialog::format() const
{
    return ReportFormat(m_formatBox->currentData().toInt());
}

ReportInput ReportDialog::input() const
{
    ReportInput in;
    in.result = m_data.result.get();
    in.evaluation = m_evaluation.get();
    in.recommendations = m_recommendations;
    in.profile = m_profile;
    in.sources = m_data.sources;
    in.generatedAt = QDateTime::currentDateTimeUtc();
    in.generator = QStringLiteral("quantscope " QS_VERSION);
    return in;
}

void ReportDialog::regenerate()
{
    m_recommendations.clear();
    try {
        m_recommendations = recommend(*m_data.result, *m_evaluation, m_profile);
        QStringList lines;
        for (const Recommendation& r : m_recommendations)
            lines << r.headline;
        m_status->setText(lines.join(u'\n'));
    } catch (const std::exception& e) {
        m_status->setText(
            QStringLiteral("The profile's criteria could not be judged: ") + QString::fromUtf8(e.what()));
    }
    const int scroll = m_preview->verticalScrollBar()->value();
    const bool first = m_preview->document()->isEmpty();
    m_preview->document()->clear();
    loadReportDocument(*m_preview->document(), input(), m_charts);
    // The first preview opens at its top (the verdict); a reload keeps the reader's place.
    m_preview->verticalScrollBar()->setValue(first ? 0 : scroll);
    m_buttons->button(QDialogButtonBox::Save)->setEnabled(m_profileLoaded);
}

QStringList ReportDialog::headlines() const
{
    QStringList lines;
    for (const Recommendation& r : m_recommendations)
        lines << r.headline;
    return lines;
}

QString ReportDialog::saveTo(const QString& path)
{
    if (!m_profileLoaded)
        return QStringLiteral("no decision profile is loaded");
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const QString error = writeReport(format(), path, input(), m_charts);
    QApplication::restoreOverrideCursor();
    return error;
}

void ReportDialog::save()
{
    const ReportFormat f = format();
    const QString suffix = reportFormatId(f);
    const QString filter = f == ReportFormat::Pdf ? QStringLiteral("PDF (*.pdf)")
        : f == ReportFormat::Html                 ? QStringLiteral("HTML (*.html *.htm)")
                                                  : QStringLiteral("Markdown (*.md)");
    // Beside the results it reports on, not the home folder.
    QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save report"),
        exportPathBeside(m_data.sources.size() == 1 ? m_data.sources.front() : QString(),
            QStringLiteral("report.") + suffix),
        filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += u'.' + suffix;
    const QString error = saveTo(path);
    if (!error.isEmpty()) {
        m_status->setText(QStringLiteral("Not saved: ") + error);
        return;
    }
    m_status->setText(QStringLiteral("Saved ") + path
        + (f == ReportFormat::Markdown ? QStringLiteral(" (images in ") + reportAssetsDir(path) + u')'
                                       : QString()));
    accept();
}

} // namespace qs::app

// SPDX-License-Identifier: MIT
#pragma once

#include "app/common/ReportWriter.h"
#include "model/decide/DecisionProfile.h"
#include "widgets/DashboardData.h"

#include <QDialog>
#include <memory>
#include <vector>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QTextBrowser;

namespace qs::app {

/// Where an export (a report, a screenshot) is offered to go: `fileName` beside the results file
/// it shows, named after it ("run-20261129.json" → "run-20261129-report.pdf"), else in the home
/// folder. `fileName` is the part after the results file's base name.
QString exportPathBeside(const QString& resultsFile, const QString& fileName);

/// Export Report: pick a decision profile and a format, read the document in a preview, save it.
/// The preview is the same rich text the PDF is printed from; its links never open (the text
/// quotes model output, escaped — nothing in it is followed or run).
class ReportDialog : public QDialog {
    Q_OBJECT
public:
    /// `data` must carry a result and its evaluation; a first-pass evaluation without the paired
    /// comparison is completed here (seconds on a very large file).
    explicit ReportDialog(const DashboardData& dashboard, QWidget* parent = nullptr);

    /// Selects a built-in profile by name, or loads a profile file. Returns an error, or empty.
    QString setProfile(const QString& nameOrPath);
    void setFormat(ReportFormat format);
    ReportFormat format() const;
    /// Writes the document to `path` in the chosen format. Returns an error, or empty.
    QString saveTo(const QString& path);

    QTextBrowser* preview() const { return m_preview; }
    /// The headline of each recommendation, as the preview shows them (for tests).
    QStringList headlines() const;

private:
    void onProfileChosen(int index);
    void regenerate();
    void save();
    ReportInput input() const;

    DashboardData m_data;
    std::shared_ptr<const Evaluation> m_evaluation;
    std::vector<RenderedChart> m_charts;
    DecisionProfile m_profile;
    bool m_profileLoaded = false;
    std::vector<Recommendation> m_recommendations;

    QComboBox* m_profileBox = nullptr;
    QComboBox* m_formatBox = nullptr;
    QLabel* m_status = nullptr;
    QTextBrowser* m_preview = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    int m_lastProfileIndex = 0;
};

} // namespace qs::app

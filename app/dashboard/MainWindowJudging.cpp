// SPDX-License-Identifier: MIT
// MainWindow: judging the results shown with an LLM judge (the Judge dialog, JudgeSession), and
// the Decision tab's profile files.
#include "app/dashboard/EvaluationScheduler.h"
#include "app/dashboard/FileSession.h"
#include "app/dashboard/JudgeDialog.h"
#include "app/dashboard/JudgeSession.h"
#include "app/dashboard/MainWindow.h"
#include "model/decide/DecisionProfile.h"
#include "model/store/ResultFile.h"
#include "widgets/decision/DecisionView.h"
#include "widgets/panels/EndpointsPanel.h"

#include <QAction>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QtConcurrent>

namespace qs::app {

void MainWindow::wireJudging()
{
    connect(m_decision, &DecisionView::openProfileRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Decision profile"), QString(),
            QStringLiteral("Decision profiles (*.json);;All files (*)"));
        if (path.isEmpty())
            return;
        try {
            m_decision->addProfile(loadDecisionProfileFile(path));
        } catch (const ProfileError& e) {
            QMessageBox::warning(this, QStringLiteral("Decision profile"),
                QStringLiteral("That profile cannot be used:\n%1").arg(QString::fromUtf8(e.what())));
        }
    });

    m_judge = new JudgeSession(this);
    m_judgeProgress = new QProgressBar(this);
    m_judgeProgress->setMaximumWidth(220);
    m_judgeProgress->setFormat(QStringLiteral("Judged %v/%m"));
    m_judgeProgress->hide();
    m_judgeStop = new QPushButton(QStringLiteral("Stop judging"), this);
    m_judgeStop->hide();
    statusBar()->addPermanentWidget(m_judgeProgress);
    statusBar()->addPermanentWidget(m_judgeStop);
    connect(m_judgeStop, &QPushButton::clicked, m_judge, &JudgeSession::cancel);

    connect(m_judge, &JudgeSession::started, this, [this](const QString& text) {
        statusBar()->showMessage(text);
        m_judgeProgress->show();
        m_judgeStop->show();
        updateActions();
    });
    connect(m_judge, &JudgeSession::progress, this, [this](const JudgeProgress& p) {
        m_judgeProgress->setRange(0, std::max(1, p.total));
        m_judgeProgress->setValue(p.done);
        m_judgeProgress->setToolTip(
            QStringLiteral("%1 judge failures; %2 verdicts kept from before").arg(p.failed).arg(p.resumed));
    });
    // The verdicts so far reach the views about once a second (medians only: the intervals
    // come once judging ends).
    connect(m_judge, &JudgeSession::updated, this, [this](std::shared_ptr<const RunResult> result) {
        if (running() || m_reviewed != m_judgedShown)
            return; // the user moved on to other results: judging goes on for its file
        m_reviewed = result;
        m_judgedShown = result;
        m_evaluator->invalidate();
        m_evaluator->evaluate(std::move(result), false, false);
    });
    connect(m_judge, &JudgeSession::failed, this, [this](const QString& message) {
        m_judgeProgress->hide();
        m_judgeStop->hide();
        statusBar()->showMessage(QStringLiteral("Not judged: ") + message);
        updateActions();
    });
    connect(m_judge, &JudgeSession::finished, this,
        [this](std::shared_ptr<const RunResult> result, const QString& message) {
            m_judgeProgress->hide();
            m_judgeStop->hide();
            const bool shown = !running() && m_reviewed == m_judgedShown;
            // The verdicts belong with the measurements: written into the file they judge.
            if (shown) {
                m_reviewed = result;
                m_evaluator->invalidate();
                m_evaluator->evaluate(result, false, true);
                if (!m_judgedFile.isEmpty()) {
                    m_judgingDone = QStringLiteral("Judging finished: ") + message;
                    m_files->save(result, m_judgedFile);
                    statusBar()->showMessage(m_judgingDone + QStringLiteral("; saving into ") + m_judgedFile);
                } else {
                    statusBar()->showMessage(QStringLiteral("Judging finished: ") + message
                        + QStringLiteral("; use File ▸ Save As to keep the verdicts"));
                }
            } else if (!m_judgedFile.isEmpty()) {
                // Other results are shown now: save beside them without making this file current.
                auto* watcher = new QFutureWatcher<QString>(this);
                connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, message] {
                    const QString error = watcher->result();
                    statusBar()->showMessage(error.isEmpty()
                            ? QStringLiteral("Judging finished: ") + message + QStringLiteral("; saved into ")
                                + m_judgedFile
                            : QStringLiteral("The verdicts could not be saved into %1: %2")
                                  .arg(m_judgedFile, error));
                    watcher->deleteLater();
                });
                watcher->setFuture(
                    QtConcurrent::run([result, path = m_judgedFile] { return saveResults(*result, path); }));
            } else {
                statusBar()->showMessage(message
                    + QStringLiteral(" — other results are shown now; the verdicts "
                                     "of the unsaved results were dropped"));
            }
            m_judgedShown.reset();
            updateActions();
        });
}

namespace {

/// The Judge dialog for endpoints named `labels` (real ones offered as judges by `specs`);
/// nullopt when cancelled.
std::optional<JudgeSetup> askJudge(
    QWidget* parent, const QStringList& specs, const QStringList& labels, int baseline)
{
    const int base = std::clamp(baseline, 0, std::max(0, int(labels.size()) - 1));
    // One endpoint has nothing to be compared with: no baseline, no pairwise choice.
    const QString baseLabel = labels.size() < 2 ? QString() : labels[base];
    JudgeDialog dialog(specs, baseLabel, base, parent);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    return dialog.setup();
}

} // namespace

void MainWindow::judgeAnswers()
{
    if (!m_reviewed || running() || m_judge->running())
        return;
    QStringList specs;
    QStringList labels;
    for (const RunEndpoint& e : m_reviewed->endpoints) {
        if (!e.simulated)
            specs << QStringLiteral("url=%1").arg(e.endpoint.baseUrl.toString());
        labels << e.endpoint.displayName();
    }
    const std::optional<JudgeSetup> setup = askJudge(this, specs, labels, baseline());
    if (!setup)
        return;
    m_judgedShown = m_reviewed;
    m_judgedFile = currentFile();
    m_judge->start(m_reviewed, *setup);
}

std::optional<JudgeSetup> MainWindow::chooseJudgeForRun()
{
    QStringList specs;
    QStringList labels;
    for (const EndpointEntry& e : m_endpoints->entries()) {
        if (!e.simulated())
            specs << QStringLiteral("url=%1").arg(e.spec());
        labels << e.endpoint.displayName();
    }
    // The run's first endpoint is its baseline until the user picks another.
    return askJudge(this, specs, labels, 0);
}

void MainWindow::judgeSavedRun()
{
    if (!m_pendingJudge || !m_reviewed || m_judge->running())
        return;
    const JudgeSetup setup = *m_pendingJudge;
    m_pendingJudge.reset();
    m_judgedShown = m_reviewed;
    m_judgedFile = currentFile();
    m_judge->start(m_reviewed, setup);
}

} // namespace qs::app

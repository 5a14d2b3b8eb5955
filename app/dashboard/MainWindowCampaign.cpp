// SPDX-License-Identifier: MIT
// MainWindow: the Campaign tab — a folder of attempts built off the GUI thread (CampaignSession),
// and an attempt opened in the window's own views.
#include "app/dashboard/CampaignSession.h"
#include "app/dashboard/EvaluationScheduler.h"
#include "app/dashboard/MainWindow.h"
#include "app/dashboard/RunSession.h"
#include "model/decide/DecisionProfile.h"
#include "widgets/campaign/CampaignView.h"
#include "widgets/decision/DecisionView.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace qs::app {

void MainWindow::wireCampaign()
{
    m_campaign = new CampaignSession(this);
    connect(m_campaign, &CampaignSession::built, this,
        [this](std::shared_ptr<const Campaign> campaign, const QStringList& notes) {
            m_campaignView->setCampaign(campaign);
            revealView(QStringLiteral("campaign"));
            QString message = QStringLiteral("Campaign: %1 attempts in %2 files")
                                  .arg(campaign->attempts.size())
                                  .arg(campaign->files.size());
            if (!notes.isEmpty())
                message += QStringLiteral(" (%1)").arg(notes.join(QStringLiteral("; ")));
            statusBar()->showMessage(message, 10000);
            Q_EMIT campaignShown(true, message);
        });
    connect(m_campaign, &CampaignSession::failed, this, [this](const QString& error) {
        statusBar()->clearMessage();
        if (m_persistent)
            QMessageBox::warning(this, QStringLiteral("Open Campaign"),
                QStringLiteral("That campaign cannot be opened:\n%1").arg(error));
        Q_EMIT campaignShown(false, error);
    });
    // The campaign is judged with the Decision tab's profile: another profile, another verdict.
    connect(m_decision, &DecisionView::profileChanged, this, [this](const QString& source) {
        const Campaign* shown = m_campaignView->campaign();
        if (!m_campaignPaths.isEmpty() && (!shown || shown->profileSource != source))
            openCampaign(m_campaignPaths);
    });
    // An attempt's own views: its file, its baseline, its candidate on the Decision tab.
    connect(m_campaignView, &CampaignView::attemptActivated, this,
        [this](int index, const QString& file, int candidate) {
            const Campaign* c = m_campaignView->campaign();
            if (!c || running())
                return;
            const CampaignAttempt& a = c->attempts.at(std::size_t(index));
            const RunResult& result = c->files.at(std::size_t(a.fileIndex)).result;
            m_evaluator->setBaselineLabel(
                result.endpoints.at(std::size_t(a.baseline)).endpoint.displayName());
            auto once = std::make_shared<QMetaObject::Connection>();
            const QString absolute = QFileInfo(file).absoluteFilePath();
            *once = connect(this, &MainWindow::dataShown, this, [this, once, candidate, absolute] {
                // The first time the attempt's own file is on screen with its evaluation.
                if (currentFile() != absolute || !data().evaluation)
                    return;
                disconnect(*once);
                m_decision->selectCandidate(candidate);
                revealView(QStringLiteral("decision"));
            });
            connect(
                this, &MainWindow::loadFinished, this,
                [once](bool ok, const QString&) {
                    if (!ok)
                        QObject::disconnect(*once);
                },
                Qt::SingleShotConnection);
            openFiles({file});
        });
}

void MainWindow::chooseCampaign()
{
    const QString dir = QFileDialog::getExistingDirectory(this,
        QStringLiteral("Open Campaign: a folder of results files that share a baseline"),
        QFileInfo(currentFile()).absolutePath().isEmpty() ? runsDirectory()
                                                          : QFileInfo(currentFile()).absolutePath());
    if (!dir.isEmpty())
        openCampaign({dir});
}

void MainWindow::openCampaign(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    statusBar()->showMessage(
        QStringLiteral("Reading the campaign in %1…").arg(paths.join(QStringLiteral(", "))));
    const DecisionProfile* profile = m_decision->currentProfile();
    m_campaign->build(paths, profile ? std::optional<DecisionProfile>(*profile) : std::nullopt);
}

QString MainWindow::useProfile(const QString& nameOrPath)
{
    try {
        m_decision->addProfile(loadDecisionProfile(nameOrPath));
    } catch (const ProfileError& e) {
        return QString::fromUtf8(e.what());
    }
    return QString();
}

} // namespace qs::app

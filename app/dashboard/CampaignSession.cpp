// SPDX-License-Identifier: MIT
#include "app/dashboard/CampaignSession.h"

#include "model/store/ResultFile.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace qs::app {

namespace {

struct Built {
    std::shared_ptr<const Campaign> campaign;
    QString error;
    QStringList notes;
};

Built buildOffThread(
    const QStringList& paths, const std::optional<DecisionProfile>& profile, const QString& baseline)
{
    Built out;
    try {
        auto files = loadCampaignFiles(paths, &out.notes);
        DecisionProfile chosen;
        if (profile) {
            chosen = *profile;
        } else {
            const auto earliest = std::min_element(
                files.begin(), files.end(), [](const CampaignFile& a, const CampaignFile& b) {
                    return a.result.startedAt < b.result.startedAt;
                });
            chosen = loadBuiltinDecisionProfile(defaultDecisionProfileName(
                earliest != files.end() ? earliest->result.suite : nlohmann::json()));
        }
        out.campaign = std::make_shared<const Campaign>(buildCampaign(std::move(files), chosen, baseline));
    } catch (const std::exception& e) { // ResultFileError, CampaignError, a criterion that cannot be judged
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

} // namespace

CampaignSession::CampaignSession(QObject* parent)
    : QObject(parent)
{
}

void CampaignSession::build(
    const QStringList& paths, const std::optional<DecisionProfile>& profile, const QString& baselineLabel)
{
    const quint64 request = ++m_sequence;
    m_busy = true;
    auto* watcher = new QFutureWatcher<Built>(this);
    connect(watcher, &QFutureWatcher<Built>::finished, this, [this, watcher, request] {
        const Built done = watcher->result();
        watcher->deleteLater();
        if (request != m_sequence)
            return;
        m_busy = false;
        if (!done.error.isEmpty())
            Q_EMIT failed(done.error);
        else
            Q_EMIT built(done.campaign, done.notes);
    });
    watcher->setFuture(QtConcurrent::run(buildOffThread, paths, profile, baselineLabel));
}

} // namespace qs::app

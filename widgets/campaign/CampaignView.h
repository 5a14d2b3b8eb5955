// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Campaign.h"
#include "widgets/Theme.h"

#include <QWidget>
#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;
class QTextBrowser;

namespace qs {

class LooksChart;

/// A campaign (model/decide/Campaign.h) on screen: the answer so far on top (the best attempt, or
/// why none stands out, and a warning when the baseline moved between files); the attempts as
/// rows in time order with the profile's criteria as columns (each cell the figure the verdict
/// was decided on, coloured by its outcome, the measured text and explanation in its tooltip);
/// under it, each criterion's figure across attempts with its interval (small multiples, the
/// Decision tab's looks chart drawn over attempts) beside the selected attempt's story — its
/// notes, what changed since the one before, its headline — and the baseline's drift. Activating
/// a row (double-click, Enter, or the Open button) asks the window to open that attempt's file.
class CampaignView : public QWidget {
    Q_OBJECT
public:
    explicit CampaignView(QWidget* parent = nullptr);

    void setCampaign(std::shared_ptr<const Campaign> campaign);
    const Campaign* campaign() const { return m_campaign.get(); }
    void setTheme(Theme theme);
    /// Selects attempt `index` (time order) and shows its story.
    void selectAttempt(int index);
    int selectedAttempt() const;

    // What a reader sees, for tests.
    QTableWidget* table() const { return m_table; }
    LooksChart* trendChart() const { return m_trend; }
    QString headlineText() const;
    QString detailsText() const; ///< the selected attempt's story, as plain text
    QString driftText() const; ///< the drift notes, as plain text

Q_SIGNALS:
    /// The user wants attempt `index`'s own views: open `file` with `candidate` against its baseline.
    void attemptActivated(int index, const QString& file, int candidate);

private:
    void fill();
    void showDetails();
    void activate(int row);

    std::shared_ptr<const Campaign> m_campaign;
    Theme m_theme = Theme::Light;
    QLabel* m_headline = nullptr;
    QTableWidget* m_table = nullptr;
    LooksChart* m_trend = nullptr;
    QTextBrowser* m_details = nullptr;
    QTextBrowser* m_drift = nullptr;
    QPushButton* m_open = nullptr;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#include "widgets/decision/DecisionView.h"

#include "widgets/ViewParts.h"
#include "widgets/decision/CriteriaTable.h"
#include "widgets/decision/LooksChart.h"
#include "widgets/decision/VerdictBanner.h"
#include "widgets/responses/ResponseFormatting.h"
#include "widgets/responses/SafeTextView.h"

#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTextCursor>
#include <QTextDocument>
#include <QThreadPool>
#include <QVBoxLayout>
#include <algorithm>

namespace qs {

namespace {

// From this many records on, the verdict is computed on a worker thread.
constexpr std::size_t largeRun = 20000;

/// A scroll area as tall as the looks need and no taller: the splitter gives the rest to the
/// table above and the list below. Many criteria make the looks taller than their share, and then
/// they scroll; but never less than the legend and one whole line of plots shows.
class LooksArea : public QScrollArea {
public:
    explicit LooksArea(LooksChart* chart, QWidget* parent)
        : QScrollArea(parent)
        , m_chart(chart)
    {
        setWidget(chart);
    }
    void fit()
    {
        const int width = this->width() - 2 * frameWidth();
        setMinimumHeight(m_chart->heightForLines(width, 1) + 2 * frameWidth());
        setMaximumHeight(std::max(minimumHeight(), m_chart->heightForWidth(width) + 2 * frameWidth()));
    }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QScrollArea::resizeEvent(event);
        fit();
    }

private:
    LooksChart* m_chart;
};

} // namespace

namespace {

QString profileTitle(const DecisionProfile& p, bool builtin)
{
    const QString name = p.name.isEmpty() ? p.id : p.name;
    return builtin ? name + QStringLiteral(" (built-in)") : name + QStringLiteral(" (file)");
}

/// Whether an until-decided run's profile (as `run --profile` took it: a built-in's name or a
/// file) is `p`. A file is matched by its name: the run may have been started elsewhere.
bool isProfile(const QString& runProfile, const DecisionProfile& p)
{
    if (runProfile == p.id || runProfile == p.source || QStringLiteral("builtin:") + runProfile == p.source)
        return true;
    return !p.source.startsWith(QLatin1String("builtin:"))
        && QFileInfo(runProfile).fileName() == QFileInfo(p.source).fileName();
}

} // namespace

DecisionView::DecisionView(QWidget* parent)
    : QWidget(parent)
{
    for (const QString& name : builtinDecisionProfileNames()) {
        try {
            m_profiles.push_back(loadBuiltinDecisionProfile(name));
        } catch (const ProfileError&) {
            // A built-in is compiled in and tested: nothing the user can do about it here.
        }
    }
    m_builtinCount = int(m_profiles.size());

    m_profileBox = new QComboBox(this);
    m_profileBox->setObjectName(QStringLiteral("profilePicker"));
    m_profileBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* profileLabel = new QLabel(QStringLiteral("Profile:"), this);
    profileLabel->setBuddy(m_profileBox);
    m_openButton = new QPushButton(QStringLiteral("Open profile…"), this);
    m_openButton->setObjectName(QStringLiteral("openProfile"));
    m_openButton->setToolTip(QStringLiteral("Load a decision profile file (docs/decision-profiles.md)"));
    m_candidateBox = new QComboBox(this);
    m_candidateBox->setObjectName(QStringLiteral("candidatePicker"));
    m_candidateBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_candidateLabel = new QLabel(QStringLiteral("Candidate:"), this);
    m_candidateLabel->setBuddy(m_candidateBox);

    auto* bar = new QHBoxLayout;
    bar->addWidget(profileLabel);
    bar->addWidget(m_profileBox);
    bar->addWidget(m_openButton);
    bar->addSpacing(16);
    bar->addWidget(m_candidateLabel);
    bar->addWidget(m_candidateBox);
    bar->addStretch(1);

    m_description = plainLabel(this, QStringLiteral("profileDescription"));
    m_statusLabel = plainLabel(this, QStringLiteral("decisionStatus"));

    // The verdict first: its name, one sentence, the criteria that decided it.
    m_banner = new VerdictBanner(this);
    QFont bold = font();
    bold.setBold(true);

    // An until-decided run: when and why it stopped, right under the verdict it explains.
    m_looksLine = plainLabel(this, QStringLiteral("looksLine"));
    m_looksLine->setFont(bold);
    m_looksLine->hide();

    m_caveats = plainLabel(this, QStringLiteral("caveats"));
    // What the verdict promises (its error rates), stated where it is read.
    m_errorRates = plainLabel(this, QStringLiteral("errorRates"));

    m_table = new CriteriaTable(this);

    auto* changeBox = new QWidget(this);
    m_changeTitle = new QLabel(QStringLiteral("What would change it"), changeBox);
    m_changeTitle->setFont(bold);
    m_change = new SafeTextView(changeBox);
    m_change->setObjectName(QStringLiteral("whatWouldChange"));
    auto* changeLayout = new QVBoxLayout(changeBox);
    changeLayout->setContentsMargins(0, 4, 0, 0);
    changeLayout->addWidget(m_changeTitle);
    changeLayout->addWidget(m_change, 1);

    // The looks go under the table (the verdict first, then how it was reached), scrolling when
    // many criteria need more lines of plots than the pane holds.
    m_looksChart = new LooksChart;
    m_looksArea = new LooksArea(m_looksChart, this);
    m_looksArea->setObjectName(QStringLiteral("looksArea"));
    m_looksArea->setWidgetResizable(true);
    m_looksArea->setFrameShape(QFrame::NoFrame);
    m_looksArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_looksArea->hide();

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(m_looksArea);
    splitter->addWidget(changeBox);
    splitter->setChildrenCollapsible(false);
    // The criteria are the evidence: they get most of the height.
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->addLayout(bar);
    layout->addWidget(m_description);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_banner);
    layout->addWidget(m_looksLine);
    layout->addWidget(m_errorRates);
    layout->addWidget(m_caveats);
    layout->addWidget(splitter, 1);

    connect(m_openButton, &QPushButton::clicked, this, &DecisionView::openProfileRequested);
    connect(m_profileBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_syncing || index < 0)
            return;
        m_profile = profileIndex(m_profileBox->itemData(index).toString());
        m_profileChosen = true;
        recompute();
        Q_EMIT profileChanged(m_profiles[std::size_t(m_profile)].source);
    });
    connect(m_candidateBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_syncing || index < 0)
            return;
        m_candidate = m_candidateBox->itemData(index).toInt();
        recompute();
    });

    syncProfileBox();
    setTheme(m_theme);
    setData(DashboardData {});
}

void DecisionView::setData(const DashboardData& dashboard)
{
    // The same run, not evaluated yet (a live refresh ahead of its evaluation): keep the verdict
    // shown rather than flicker. A new run or file starts afresh.
    const bool sameRun = m_data.result == dashboard.result || (m_data.live && dashboard.live);
    // The looks come with the run, not its evaluation: a round's new look shows at once.
    m_untilDecided = dashboard.isEmpty() ? std::nullopt : untilDecidedOf(*dashboard.result);
    if (!dashboard.isEmpty() && !dashboard.evaluation && m_data.evaluation && sameRun) {
        showLooks();
        return;
    }
    // The same file evaluated again (a judge's verdicts arriving, once a second): its first pass
    // has no paired comparison yet, and criteria already decided would flash back to "open" until
    // the comparison comes. The verdict shown stays, marked as updating, until it does.
    const bool sameFile = !dashboard.isEmpty() && !m_data.isEmpty() && !dashboard.live && !m_data.live
        && dashboard.sources == m_data.sources && dashboard.result->startedAt == m_data.result->startedAt;
    if (sameFile && dashboard.evaluation && !dashboard.evaluation->hasComparison && m_data.evaluation
        && m_data.evaluation->hasComparison && dashboard.evaluation->baseline == m_data.evaluation->baseline
        && recommendation()) {
        m_provisional = QStringLiteral(
            "Updating — the results changed (new judge verdicts?); this verdict stays until the paired "
            "comparison is computed again.");
        m_banner->setRecommendation(recommendation(), m_provisional, m_theme);
        return;
    }
    m_data = dashboard;
    if (!m_profileChosen) {
        const int wanted = profileIndex(defaultProfileName());
        if (wanted >= 0 && wanted != m_profile) {
            m_profile = wanted;
            syncProfileBox();
        }
    }
    syncCandidateBox();
    recompute();
    showLooks(); // a large run's verdict comes from a worker: the looks need not wait for it
}

void DecisionView::setTheme(Theme theme)
{
    m_theme = theme;
    setPalette(themePalette(theme));
    setAutoFillBackground(true);
    QPalette muted = palette();
    muted.setColor(QPalette::WindowText, themeColors(theme).mutedText);
    m_description->setPalette(muted);
    m_statusLabel->setPalette(muted);
    m_errorRates->setPalette(muted);
    m_banner->setRecommendation(recommendation(), m_provisional, theme);
    const ThemeColors& c = themeColors(theme);
    m_caveats->setStyleSheet(
        QStringLiteral("QLabel { background: %1; color: %2; border-left: 4px solid %3; padding: 6px; }")
            .arg(c.criticalBackground.name(), c.text.name(), c.criticalAccent.name()));
    fillTable(recommendation());
    m_looksChart->setTheme(theme);
}

void DecisionView::addProfile(const DecisionProfile& profile)
{
    int index = -1;
    for (std::size_t i = std::size_t(m_builtinCount); i < m_profiles.size(); ++i)
        if (m_profiles[i].source == profile.source)
            index = int(i);
    if (index < 0) {
        m_profiles.push_back(profile);
        index = int(m_profiles.size()) - 1;
    } else {
        m_profiles[std::size_t(index)] = profile;
    }
    m_profile = index;
    m_profileChosen = true;
    syncProfileBox();
    recompute();
    Q_EMIT profileChanged(profile.source);
}

void DecisionView::setProfiles(const std::vector<DecisionProfile>& profiles)
{
    const QString current = currentProfile() ? currentProfile()->source : QString();
    m_profiles.resize(std::size_t(m_builtinCount));
    m_profiles.insert(m_profiles.end(), profiles.begin(), profiles.end());
    m_profile = profileIndex(current);
    if (m_profile < 0) {
        m_profileChosen = false; // its profile is gone: follow the suite again
        m_profile = profileIndex(defaultProfileName());
    }
    syncProfileBox();
    recompute();
}

bool DecisionView::selectProfile(const QString& idOrSource)
{
    const int index = profileIndex(idOrSource);
    if (index < 0)
        return false;
    m_profileChosen = true;
    if (index != m_profile) {
        m_profile = index;
        syncProfileBox();
        recompute();
        Q_EMIT profileChanged(m_profiles[std::size_t(index)].source);
    }
    return true;
}

const DecisionProfile* DecisionView::currentProfile() const
{
    return m_profile >= 0 && m_profile < int(m_profiles.size()) ? &m_profiles[std::size_t(m_profile)]
                                                                : nullptr;
}

bool DecisionView::selectCandidate(int endpoint)
{
    const int index = m_candidateBox->findData(endpoint);
    if (index < 0)
        return false;
    m_candidateBox->setCurrentIndex(index);
    return true;
}

int DecisionView::currentCandidate() const
{
    return recommendation() ? m_candidate : -1;
}

const Recommendation* DecisionView::recommendation() const
{
    for (const Recommendation& r : m_recommendations)
        if (r.candidate == m_candidate)
            return &r;
    return nullptr;
}

std::vector<ShownOutcome> DecisionView::shownOutcomes() const
{
    return m_shown;
}

QString DecisionView::decisionLabel() const
{
    return recommendation() ? m_banner->decisionText() : QString();
}

QString DecisionView::headline() const
{
    const Recommendation* rec = recommendation();
    return rec ? rec->headline : QString();
}

QString DecisionView::verdictSentence() const
{
    return recommendation() ? m_banner->sentence() : QString();
}

QString DecisionView::decidingText() const
{
    return recommendation() ? m_banner->deciding() : QString();
}

bool DecisionView::isProvisional() const
{
    return recommendation() && !m_provisional.isEmpty();
}

QString DecisionView::provisionalText() const
{
    return recommendation() ? m_provisional : QString();
}

QString DecisionView::statusText() const
{
    return m_status;
}

QString DecisionView::looksText() const
{
    return m_looksLine->isHidden() ? QString() : m_looksLine->text();
}

int DecisionView::profileIndex(const QString& idOrSource) const
{
    for (std::size_t i = 0; i < m_profiles.size(); ++i)
        if (m_profiles[i].source == idOrSource)
            return int(i);
    for (std::size_t i = 0; i < m_profiles.size(); ++i)
        if (m_profiles[i].id == idOrSource)
            return int(i);
    return -1;
}

QString DecisionView::defaultProfileName() const
{
    // A run until decided was judged by its own profile: its verdict is that profile's, when known.
    if (m_untilDecided && !m_untilDecided->profile.isEmpty()) {
        const QString& p = m_untilDecided->profile;
        for (const QString& name : {QString(QStringLiteral("builtin:") + p), p})
            if (profileIndex(name) >= 0)
                return name;
    }
    // As `quantscope report` chooses when no --profile is given.
    return QStringLiteral("builtin:")
        + defaultDecisionProfileName(m_data.result ? m_data.result->suite : nlohmann::json());
}

void DecisionView::syncProfileBox()
{
    m_syncing = true;
    m_profileBox->clear();
    for (std::size_t i = 0; i < m_profiles.size(); ++i) {
        const DecisionProfile& p = m_profiles[i];
        m_profileBox->addItem(profileTitle(p, int(i) < m_builtinCount), p.source);
        m_profileBox->setItemData(m_profileBox->count() - 1,
            plainToolTip(p.source + (p.description.isEmpty() ? QString() : u'\n' + p.description)),
            Qt::ToolTipRole);
    }
    m_profileBox->setCurrentIndex(m_profile);
    m_syncing = false;
}

void DecisionView::syncCandidateBox()
{
    QList<int> endpoints;
    QStringList titles;
    if (!m_data.isEmpty() && m_data.evaluation)
        for (int e = 0; e < int(m_data.result->endpoints.size()); ++e)
            if (e != m_data.evaluation->baseline) {
                endpoints << e;
                titles << endpointTitle(*m_data.result, e);
            }
    if (!endpoints.contains(m_candidate))
        m_candidate = endpoints.isEmpty() ? -1 : endpoints.front();

    bool same = m_candidateBox->count() == endpoints.size();
    for (int i = 0; same && i < endpoints.size(); ++i)
        same
            = m_candidateBox->itemData(i).toInt() == endpoints[i] && m_candidateBox->itemText(i) == titles[i];
    m_syncing = true;
    if (!same) {
        m_candidateBox->clear();
        for (int i = 0; i < endpoints.size(); ++i)
            m_candidateBox->addItem(titles[i], endpoints[i]);
    }
    m_candidateBox->setCurrentIndex(m_candidateBox->findData(m_candidate));
    m_syncing = false;
    // One candidate needs no picking: the headline names it.
    m_candidateLabel->setVisible(endpoints.size() > 1);
    m_candidateBox->setVisible(endpoints.size() > 1);
}

void DecisionView::recompute()
{
    const quint64 ticket = ++m_ticket; // whatever a worker is still computing is out of date
    m_status.clear();
    const DecisionProfile* profile = currentProfile();
    m_description->setText(profile ? profile->description : QString());
    m_description->setVisible(profile && !profile->description.isEmpty());
    if (m_data.isEmpty())
        m_status = m_data.live ? QStringLiteral("Waiting for the first measured responses…")
                               : QStringLiteral("No run loaded: run a benchmark or open a results file.");
    else if (m_data.result->endpoints.size() < 2)
        m_status = QStringLiteral("A decision needs two endpoints: the baseline and a candidate.");
    else if (!m_data.evaluation)
        m_status = QStringLiteral("Evaluating…");
    else if (!profile)
        m_status = QStringLiteral("No decision profile: open a profile file.");
    if (!m_status.isEmpty()) {
        m_recommendations.clear();
        showRecommendation(recommendation());
        return;
    }
    // A live run until decided: its records so far will be judged at the next look, so read them
    // at that look's level (a file that stopped says how many looks it took; recommend() reads it).
    std::optional<int> looks;
    if (m_data.live && m_untilDecided && m_untilDecided->stop == StopReason::Running)
        looks = int(m_untilDecided->looks.size()) + 1;
    auto work = [result = m_data.result, evaluation = m_data.evaluation, profile = *profile, looks] {
        std::vector<Recommendation> recs;
        QString error;
        try {
            recs = recommend(*result, *evaluation, profile, looks);
        } catch (const std::exception& e) {
            error = QStringLiteral("Cannot judge the profile's criteria: ") + QString::fromUtf8(e.what());
        }
        return std::pair {std::move(recs), error};
    };
    // Over a small run the verdict takes a few milliseconds: computed here, so the tab never
    // flickers. Over a large one its bootstraps over prompts (thresholds, fidelity) would hold the
    // GUI thread: a worker computes it, and the verdict shown stays until the new one arrives.
    if (m_data.result->records.size() < largeRun) {
        auto [recs, error] = work();
        recommended(ticket, std::move(recs), error);
        return;
    }
    QPointer<DecisionView> self(this);
    QThreadPool::globalInstance()->start([self, ticket, work = std::move(work)] {
        auto [recs, error] = work();
        QMetaObject::invokeMethod(
            qApp,
            [self, ticket, records = std::move(recs), error]() mutable {
                if (self)
                    self->recommended(ticket, std::move(records), error);
            },
            Qt::QueuedConnection);
    });
    if (m_recommendations.empty()) {
        m_status = QStringLiteral("Deciding…");
        showRecommendation(nullptr);
    }
}

void DecisionView::recommended(quint64 ticket, std::vector<Recommendation> recommendations, QString error)
{
    if (ticket != m_ticket)
        return; // a newer request is on its way
    m_recommendations = std::move(recommendations);
    m_status = error;
    showRecommendation(recommendation());
}

void DecisionView::showRecommendation(const Recommendation* rec)
{
    m_shown.clear();
    if (rec)
        for (const CriterionResult& c : rec->criteria)
            m_shown.push_back(shownOutcome(c, *m_data.evaluation));
    m_statusLabel->setText(m_status);
    m_statusLabel->setVisible(!m_status.isEmpty());
    m_table->setVisible(rec);
    m_change->parentWidget()->setVisible(rec);

    QString provisional;
    if (rec && m_data.live)
        provisional
            = QStringLiteral("Provisional — run in progress: the verdict may change as requests come in.");
    else if (rec && !m_data.evaluation->hasComparison)
        provisional = QStringLiteral("Provisional — computing the paired comparison with the baseline…");
    m_provisional = provisional;
    m_banner->setRecommendation(rec, provisional, m_theme);
    m_errorRates->setText(rec ? errorRateStatement(*rec) : QString());
    m_errorRates->setVisible(rec);
    m_caveats->setText(rec && !rec->caveats.isEmpty()
            ? QStringLiteral("The comparison is not fair:\n• ") + rec->caveats.join(QStringLiteral("\n• "))
            : QString());
    m_caveats->setVisible(rec && !rec->caveats.isEmpty());
    fillTable(rec);

    const QStringList change = rec ? rec->whatWouldChange : QStringList();
    const QString text
        = change.isEmpty() ? QString() : QStringLiteral("• ") + change.join(QStringLiteral("\n• "));
    if (m_change->toPlainText() != text)
        m_change->setUntrustedPlainText(text);
    m_changeTitle->setText(change.isEmpty() ? QStringLiteral("What would change it: nothing left to decide")
                                            : QStringLiteral("What would change it"));
    showLooks();
}

void DecisionView::showLooks()
{
    if (!m_untilDecided) {
        m_looksLine->hide();
        m_looksArea->hide();
        m_looksChart->clear();
        return;
    }
    m_looksLine->setText(untilDecidedLine(*m_untilDecided, m_data.live));
    m_looksLine->show();
    // The looks judged the run's baseline; another one picked in the toolbar has none to show.
    UntilDecided shown = *m_untilDecided;
    const int baseline = m_data.evaluation ? m_data.evaluation->baseline : -1;
    QString judgedAgainst;
    for (DecisionLook& look : shown.looks) {
        for (const LookVerdict& v : look.verdicts)
            if (baseline >= 0 && v.baseline != baseline && m_data.result
                && v.baseline < int(m_data.result->endpoints.size()))
                judgedAgainst = m_data.result->endpoints[std::size_t(v.baseline)].endpoint.displayName();
        std::erase_if(look.verdicts,
            [baseline](const LookVerdict& v) { return baseline >= 0 && v.baseline != baseline; });
    }
    // The candidate shown; before the first verdict (no evaluation yet), the first the looks judged.
    int candidate = m_candidate;
    const std::vector<DecisionLook>& looks = shown.looks;
    const bool judged = std::any_of(looks.begin(), looks.end(), [candidate](const DecisionLook& l) {
        return std::any_of(l.verdicts.begin(), l.verdicts.end(),
            [candidate](const LookVerdict& v) { return v.candidate == candidate; });
    });
    if (!judged && !looks.empty() && !looks.back().verdicts.empty())
        candidate = looks.back().verdicts.front().candidate;
    // The profile shown names the criteria; the looks were judged with the run's, and share its ids.
    QHash<QString, QString> titles;
    QString note;
    if (const DecisionProfile* profile = currentProfile()) {
        for (const Criterion& c : profile->criteria)
            if (!c.title.isEmpty())
                titles.insert(c.id, c.title);
        if (!m_untilDecided->profile.isEmpty() && !isProfile(m_untilDecided->profile, *profile))
            note = QStringLiteral("the looks were judged with profile %1, the table with %2")
                       .arg(m_untilDecided->profile, profile->id);
    }
    if (!judgedAgainst.isEmpty())
        note = QStringLiteral("the looks were judged against %1, the baseline of the run").arg(judgedAgainst);
    m_looksChart->setLooks(shown, candidate, titles, note);
    if (m_looksChart->isEmpty() && !judgedAgainst.isEmpty())
        m_looksLine->setText(m_looksLine->text()
            + QStringLiteral(
                " — its looks were judged against %1, the run's baseline: pick it as the baseline to "
                "see them")
                  .arg(judgedAgainst));
    static_cast<LooksArea*>(m_looksArea)->fit();
    m_looksArea->setVisible(!m_looksChart->isEmpty());
}

void DecisionView::fillTable(const Recommendation* rec)
{
    m_table->fill(rec, m_shown, m_data.live, m_theme);
}

} // namespace qs

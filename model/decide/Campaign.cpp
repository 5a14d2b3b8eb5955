// SPDX-License-Identifier: MIT
#include "model/decide/Campaign.h"

#include "model/evaluate/Evaluation.h"

#include <QFileInfo>
#include <algorithm>
#include <numeric>

namespace qs {

using json = nlohmann::json;
using Outcome = CriterionResult::Outcome;

namespace {

/// Model, quantization and runtime as the file knows them (the probe's where the user gave none).
struct Identity {
    QString model;
    QString quantization;
    QString runtime;
    bool operator==(const Identity&) const = default;
};

Identity identityOf(const RunEndpoint& e)
{
    Identity id;
    id.model = modelOf(e);
    id.quantization = e.endpoint.quantization;
    id.runtime = runtimeOf(e);
    return id;
}

/// The baseline's endpoint in `result`: by label, else by model + quantization + runtime (all
/// three known). -1 when none is.
int findBaseline(const RunResult& result, const QString& label, const std::optional<Identity>& identity)
{
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (result.endpoints[i].endpoint.displayName() == label)
            return int(i);
    if (!identity || identity->model.isEmpty() || identity->quantization.isEmpty())
        return -1;
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        if (identityOf(result.endpoints[i]) == *identity)
            return int(i);
    return -1;
}

int decisionRank(Recommendation::Decision d)
{
    switch (d) {
    case Recommendation::Decision::Switch:
        return 2;
    case Recommendation::Decision::Inconclusive:
        return 1;
    case Recommendation::Decision::KeepBaseline:
        break;
    }
    return 0;
}

/// `a` beats `b` on some criterion and `b` beats `a` on none.
bool dominates(const CampaignAttempt& a, const CampaignAttempt& b, int criteria)
{
    bool better = false;
    for (int c = 0; c < criteria; ++c) {
        if (separatedBetter(b, a, c))
            return false;
        better = better || separatedBetter(a, b, c);
    }
    return better;
}

/// The best of `attempts` (indices), or -1, with the reason.
std::pair<int, QString> bestOf(const Campaign& campaign, const std::vector<int>& attempts, int criteria)
{
    if (attempts.empty())
        return {-1, QString()};
    int top = 0;
    for (int i : attempts)
        top = std::max(top, decisionRank(campaign.attempts[std::size_t(i)].recommendation.decision));
    std::vector<int> leaders;
    for (int i : attempts)
        if (decisionRank(campaign.attempts[std::size_t(i)].recommendation.decision) == top)
            leaders.push_back(i);
    const QString decision
        = decisionId(campaign.attempts[std::size_t(leaders.front())].recommendation.decision);
    if (leaders.size() == 1) {
        const int only = leaders.front();
        QString why = attempts.size() == 1
            ? QStringLiteral("%1 is the only attempt (%2).").arg(attemptName(campaign, only), decision)
            : QStringLiteral("%1 is the only attempt whose verdict is %2.")
                  .arg(attemptName(campaign, only), decision);
        return {only, why};
    }
    for (int i : leaders) {
        bool all = true;
        for (int j : leaders)
            if (j != i
                && !dominates(campaign.attempts[std::size_t(i)], campaign.attempts[std::size_t(j)], criteria))
                all = false;
        if (all)
            return {i,
                QStringLiteral("%1 and %2 other attempt(s) share the verdict %3; %1 beats each of them on at "
                               "least one criterion, with intervals that do not overlap, and loses to none.")
                    .arg(attemptName(campaign, i))
                    .arg(leaders.size() - 1)
                    .arg(decision)};
    }
    QStringList names;
    for (int i : leaders)
        names << attemptName(campaign, i);
    return {-1,
        QStringLiteral(
            "No single best: %1 share the verdict %2 and the evidence does not separate them (their "
            "intervals overlap, or each beats the other somewhere).")
            .arg(names.join(QStringLiteral(", ")), decision)};
}

CampaignStanding standingOf(const Campaign& campaign, int c)
{
    CampaignStanding s;
    const std::size_t n = campaign.attempts.size();
    std::vector<int> judged;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& criteria = campaign.attempts[i].recommendation.criteria;
        if (std::size_t(c) < criteria.size() && criteria[std::size_t(c)].outcome != Outcome::NotMeasured) {
            judged.push_back(int(i));
            s.criterion = criteria[std::size_t(c)].criterion.id;
            s.title = criteria[std::size_t(c)].criterion.title;
        }
    }
    if (judged.empty()) {
        s.sentence = QStringLiteral("Not measured in any attempt.");
        return s;
    }
    for (int i : judged) {
        bool beaten = false;
        bool beatsAll = true;
        for (int j : judged) {
            if (i == j)
                continue;
            beaten = beaten
                || separatedBetter(campaign.attempts[std::size_t(j)], campaign.attempts[std::size_t(i)], c);
            beatsAll = beatsAll
                && separatedBetter(campaign.attempts[std::size_t(i)], campaign.attempts[std::size_t(j)], c);
        }
        if (!beaten)
            s.leaders.push_back(i);
        if (beatsAll && judged.size() > 1)
            s.best = i;
    }
    QStringList names;
    for (int i : s.leaders)
        names << attemptName(campaign, i);
    if (s.best >= 0)
        s.sentence
            = QStringLiteral("Best: %1, clear of every other attempt.").arg(attemptName(campaign, s.best));
    else if (judged.size() == 1)
        s.sentence = QStringLiteral("Only %1 measured it.").arg(attemptName(campaign, judged.front()));
    else if (s.leaders.size() == judged.size())
        s.sentence = QStringLiteral("Not separated: every attempt's interval overlaps the others'.");
    else
        s.sentence = QStringLiteral("Leading, not separated from each other: %1.")
                         .arg(names.join(QStringLiteral(", ")));
    return s;
}

json intervalJson(const std::optional<Interval>& i)
{
    return i ? json {{"low", i->lo}, {"high", i->hi}} : json(nullptr);
}

} // namespace

QString CampaignChange::text() const
{
    if (from.isEmpty())
        return QStringLiteral("%1: set to %2").arg(field, to);
    if (to.isEmpty())
        return QStringLiteral("%1: %2 dropped").arg(field, from);
    return QStringLiteral("%1: %2 → %3").arg(field, from, to);
}

bool separatedBetter(const CampaignAttempt& a, const CampaignAttempt& b, int index)
{
    const auto& ac = a.recommendation.criteria;
    const auto& bc = b.recommendation.criteria;
    if (index < 0 || std::size_t(index) >= ac.size() || std::size_t(index) >= bc.size())
        return false;
    const CriterionResult& x = ac[std::size_t(index)];
    const CriterionResult& y = bc[std::size_t(index)];
    if (x.outcome == Outcome::NotMeasured || y.outcome == Outcome::NotMeasured)
        return false;
    if (x.interval && y.interval)
        return x.worseAbove ? x.interval->hi < y.interval->lo : x.interval->lo > y.interval->hi;
    // Decided on an observed count (a leak that happened is certain): pass against fail separates.
    if (!x.interval && !y.interval)
        return x.outcome == Outcome::Pass && y.outcome == Outcome::Fail;
    return false;
}

QString attemptName(const Campaign& campaign, int attempt)
{
    if (attempt < 0 || std::size_t(attempt) >= campaign.attempts.size())
        return QString();
    const CampaignAttempt& a = campaign.attempts[std::size_t(attempt)];
    const QString label = a.quantization.isEmpty() || a.candidateLabel.contains(a.quantization)
        ? a.candidateLabel
        : a.candidateLabel + QStringLiteral(" · ") + a.quantization;
    return QStringLiteral("%1 (%2)").arg(label, QFileInfo(a.file).fileName());
}

Campaign buildCampaign(
    std::vector<CampaignFile> files, const DecisionProfile& profile, const QString& baselineLabel)
{
    if (files.empty())
        throw CampaignError("no results file to build a campaign from");
    Campaign campaign;
    campaign.profileId = profile.id;
    campaign.profileSource = profile.source;
    // Time order; files without a start time (hand-written) keep their place at the end.
    std::stable_sort(files.begin(), files.end(), [](const CampaignFile& a, const CampaignFile& b) {
        if (a.result.startedAt.isValid() != b.result.startedAt.isValid())
            return a.result.startedAt.isValid();
        return a.result.startedAt < b.result.startedAt;
    });

    QString label = baselineLabel;
    std::optional<Identity> identity;
    for (CampaignFile& f : files) {
        const QString name = QFileInfo(f.path).fileName();
        int b = -1;
        if (label.isEmpty()) {
            if (!f.result.endpoints.empty())
                b = 0;
        } else {
            b = findBaseline(f.result, label, identity);
        }
        if (b < 0) {
            campaign.notes << QStringLiteral(
                "%1 left out: no endpoint labelled \"%2\" (nor one with its model, "
                "quantization and runtime); give --baseline LABEL to name it")
                                  .arg(name, label);
            continue;
        }
        if (f.result.endpoints.size() < 2) {
            campaign.notes
                << QStringLiteral("%1 left out: it measured the baseline only (no candidate)").arg(name);
            continue;
        }
        if (label.isEmpty())
            label = f.result.endpoints[std::size_t(b)].endpoint.displayName();
        if (!identity)
            identity = identityOf(f.result.endpoints[std::size_t(b)]);
        if (!f.result.note.isEmpty())
            campaign.notes << name + QStringLiteral(": ") + f.result.note;
        campaign.baselineOf.push_back(b);
        campaign.files.push_back(std::move(f));
    }
    campaign.baselineLabel = label;
    if (campaign.files.empty())
        throw CampaignError(
            QStringLiteral("no file has the baseline \"%1\" and a candidate to compare with it")
                .arg(label)
                .toStdString());

    for (std::size_t fi = 0; fi < campaign.files.size(); ++fi) {
        const RunResult& result = campaign.files[fi].result;
        const int b = campaign.baselineOf[fi];
        const Evaluation evaluation = evaluate(result, b);
        for (Recommendation& r : recommend(result, evaluation, profile)) {
            CampaignAttempt a;
            a.file = campaign.files[fi].path;
            a.startedAt = result.startedAt;
            a.fileIndex = int(fi);
            a.baseline = b;
            a.candidate = r.candidate;
            a.candidateLabel = r.candidateLabel;
            a.quantization = result.endpoints[std::size_t(r.candidate)].endpoint.quantization;
            a.recommendation = std::move(r);
            if (!result.userNote.isEmpty())
                a.notes << result.userNote;
            for (const auto& [key, value] : result.endpoints[std::size_t(a.candidate)].endpoint.meta)
                a.notes << key + u'=' + value;
            if (!campaign.attempts.empty()) {
                const CampaignAttempt& before = campaign.attempts.back();
                a.changes = attemptChanges(campaign.files[std::size_t(before.fileIndex)].result,
                    before.candidate, result, a.candidate);
            }
            campaign.attempts.push_back(std::move(a));
        }
    }
    if (campaign.attempts.empty())
        throw CampaignError("no candidate was judged in any file");

    // Each file against the one before, and — with three or more — the last against the first:
    // a baseline that crept a little each time has still moved.
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t fi = 1; fi < campaign.files.size(); ++fi)
        pairs.emplace_back(int(fi) - 1, int(fi));
    if (campaign.files.size() > 2)
        pairs.emplace_back(0, int(campaign.files.size()) - 1);
    for (const auto& [from, to] : pairs) {
        auto rows = baselineDrift(campaign, from, to);
        std::move(rows.begin(), rows.end(), std::back_inserter(campaign.drift));
    }

    const int criteria = int(profile.criteria.size());
    for (int c = 0; c < criteria; ++c)
        campaign.standings.push_back(standingOf(campaign, c));
    std::vector<int> prefix;
    for (std::size_t i = 0; i < campaign.attempts.size(); ++i) {
        prefix.push_back(int(i));
        campaign.bestSoFar.push_back(bestOf(campaign, prefix, criteria).first);
    }
    std::tie(campaign.best, campaign.bestSentence) = bestOf(campaign, prefix, criteria);
    return campaign;
}

json toJson(const Campaign& campaign)
{
    json attempts = json::array();
    for (std::size_t i = 0; i < campaign.attempts.size(); ++i) {
        const CampaignAttempt& a = campaign.attempts[i];
        json criteria = json::array();
        for (const CriterionResult& c : a.recommendation.criteria)
            criteria.push_back(toJson(c)); // as `summary --json --profile` writes each criterion
        json changes = json::array();
        for (const CampaignChange& c : a.changes)
            changes.push_back({{"field", c.field.toStdString()}, {"from", c.from.toStdString()},
                {"to", c.to.toStdString()}, {"text", c.text().toStdString()}});
        json notes = json::array();
        for (const QString& n : a.notes)
            notes.push_back(n.toStdString());
        attempts.push_back({{"index", i}, {"file", a.file.toStdString()},
            {"started_at", a.startedAt.toString(Qt::ISODateWithMs).toStdString()},
            {"baseline_label", a.recommendation.baselineLabel.toStdString()}, {"candidate", a.candidate},
            {"candidate_label", a.candidateLabel.toStdString()},
            {"decision", decisionId(a.recommendation.decision).toStdString()},
            {"headline", a.recommendation.headline.toStdString()}, {"criteria", std::move(criteria)},
            {"changes", std::move(changes)}, {"notes", std::move(notes)},
            {"best_so_far", campaign.bestSoFar[i] >= 0 ? json(campaign.bestSoFar[i]) : json(nullptr)}});
    }
    json drift = json::array();
    for (const CampaignDrift& d : campaign.drift) {
        json row = {{"metric", d.metric.toStdString()},
            {"from", campaign.files[std::size_t(d.fromFile)].path.toStdString()},
            {"to", campaign.files[std::size_t(d.toFile)].path.toStdString()},
            {"from_value", d.fromText.toStdString()}, {"to_value", d.toText.toStdString()},
            {"estimate", d.estimate ? json(*d.estimate) : json(nullptr)},
            {"interval", intervalJson(d.interval)}, {"prompts", d.prompts}, {"significant", d.significant},
            {"sentence", d.sentence.toStdString()}};
        drift.push_back(std::move(row));
    }
    json standings = json::array();
    for (const CampaignStanding& s : campaign.standings)
        standings.push_back({{"criterion", s.criterion.toStdString()}, {"title", s.title.toStdString()},
            {"best", s.best >= 0 ? json(s.best) : json(nullptr)}, {"leaders", s.leaders},
            {"sentence", s.sentence.toStdString()}});
    json notes = json::array();
    for (const QString& n : campaign.notes)
        notes.push_back(n.toStdString());
    json best = nullptr;
    if (campaign.best >= 0)
        best = {{"attempt", campaign.best},
            {"file", campaign.attempts[std::size_t(campaign.best)].file.toStdString()},
            {"candidate_label", campaign.attempts[std::size_t(campaign.best)].candidateLabel.toStdString()}};
    return {{"campaign",
        {{"profile", campaign.profileId.toStdString()}, {"baseline", campaign.baselineLabel.toStdString()},
            {"attempts", std::move(attempts)}, {"best", std::move(best)},
            {"best_reason", campaign.bestSentence.toStdString()}, {"baseline_drift", std::move(drift)},
            {"drift_tolerance", DriftTolerance}, {"standings", std::move(standings)},
            {"notes", std::move(notes)}}}};
}

} // namespace qs

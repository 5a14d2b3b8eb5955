// SPDX-License-Identifier: MIT
#include "model/evaluate/TurnScaling.h"

#include "model/evaluate/MeasuredTests.h"
#include "model/evaluate/Statistics.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <map>

namespace qs {

std::optional<LinearFit> fitLine(const std::vector<double>& x, const std::vector<double>& y)
{
    const std::size_t n = std::min(x.size(), y.size());
    if (n < 2)
        return std::nullopt;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= double(n);
    my /= double(n);
    // Centred sums: exact for collinear data and free of the cancellation of Σx² − n·x̄².
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (!(sxx > 0))
        return std::nullopt;
    LinearFit fit;
    fit.n = int(n);
    fit.slope = sxy / sxx;
    fit.intercept = my - fit.slope * mx;
    if (syy > 0)
        fit.r2 = std::clamp(sxy * sxy / (sxx * syy), 0.0, 1.0);
    return fit;
}

Crossover crossover(const LatencyModel& a, const LatencyModel& b)
{
    Crossover c;
    const double perTokenGap = 1000.0 / a.decodeTps - 1000.0 / b.decodeTps; // > 0: a decodes slower
    const double ttftGap = b.ttftMs - a.ttftMs; // > 0: a starts sooner
    if (perTokenGap != 0) {
        const double n = ttftGap / perTokenGap;
        if (n > 0 && std::isfinite(n)) {
            c.tokens = n;
            c.fasterShort = ttftGap > 0 ? Faster::First : Faster::Second;
            c.fasterLong = perTokenGap > 0 ? Faster::Second : Faster::First;
            return c;
        }
    }
    // No crossing at a positive length: the arm that decodes faster is ahead at every length
    // (it starts no later); with equal rates, the one that starts sooner.
    const Faster always = perTokenGap > 0 ? Faster::Second
        : perTokenGap < 0                 ? Faster::First
        : ttftGap > 0                     ? Faster::First
        : ttftGap < 0                     ? Faster::Second
                                          : Faster::Neither;
    c.fasterShort = c.fasterLong = always;
    return c;
}

namespace {

struct Group {
    std::map<int, std::vector<const RunRecord*>> byTurn; // successful measured records
};

std::optional<double> medianOf(const std::vector<const RunRecord*>& records, Metric metric)
{
    std::vector<double> v;
    for (const RunRecord* r : records)
        if (const auto x = metricValue(r->request.metrics, metric))
            v.push_back(*x);
    return median(std::move(v));
}

QString ms(double v)
{
    return QString::number(v, 'f', v >= 100 ? 0 : 1);
}

QString turnRange(int from, int to)
{
    if (from == to)
        return QStringLiteral("turn ") + QString::number(from);
    return QStringLiteral("turns ") + QString::number(from) + QStringLiteral("–") + QString::number(to);
}

std::optional<LinearFit> perKiloToken(const std::map<int, std::vector<const RunRecord*>>& byTurn, Metric ttft)
{
    std::vector<double> x, y;
    for (const auto& [turn, records] : byTurn)
        for (const RunRecord* r : records) {
            const auto prompt = metricValue(r->request.metrics, Metric::PromptTokens);
            const auto t = metricValue(r->request.metrics, ttft);
            if (prompt && t) {
                x.push_back(*prompt / 1000.0);
                y.push_back(*t);
            }
        }
    return fitLine(x, y);
}

EndpointScaling scaleEndpoint(const RunResult& result, const QString& test, int endpoint, const Group& group)
{
    EndpointScaling s;
    s.test = test;
    s.endpoint = endpoint;
    s.endpointLabel = result.endpoints[std::size_t(endpoint)].endpoint.displayName();
    for (const auto& [turn, records] : group.byTurn) {
        TurnMedians t;
        t.turn = turn;
        t.n = int(records.size());
        t.ttftAnyMs = medianOf(records, Metric::TtftAny);
        t.ttftVisibleMs = medianOf(records, Metric::TtftVisible);
        t.promptTokens = medianOf(records, Metric::PromptTokens);
        t.decodeTps = medianOf(records, Metric::DecodeTps);
        t.e2eMs = medianOf(records, Metric::E2e);
        t.completionTokens = medianOf(records, Metric::CompletionTokens);
        s.turns.push_back(t);
    }
    const auto growth = [&](std::optional<double> TurnMedians::*field, int* fromTurn, int* toTurn) {
        const TurnMedians* first = nullptr;
        const TurnMedians* last = nullptr;
        for (const TurnMedians& t : s.turns)
            if (t.*field) {
                first = first ? first : &t;
                last = &t;
            }
        if (!first || first == last || !(*(first->*field) > 0))
            return std::optional<double>();
        if (fromTurn) {
            *fromTurn = first->turn;
            *toTurn = last->turn;
        }
        return std::optional<double>(*(last->*field) / *(first->*field));
    };
    int fromTurn = 0, toTurn = 0;
    s.ttftAnyGrowth = growth(&TurnMedians::ttftAnyMs, &fromTurn, &toTurn);
    s.ttftVisibleGrowth = growth(&TurnMedians::ttftVisibleMs, nullptr, nullptr);
    s.ttftAnyPerKiloToken = perKiloToken(group.byTurn, Metric::TtftAny);
    s.ttftVisiblePerKiloToken = perKiloToken(group.byTurn, Metric::TtftVisible);

    // "Q4_K_M, chat: TTFT 345 → 1434 ms from turn 1 to turn 5 (×4.16); +412 ms per 1k prompt
    //  tokens (r² 0.98, 25 requests)"
    QString sentence = s.endpointLabel + QStringLiteral(", ") + test + QStringLiteral(": ");
    if (s.ttftAnyGrowth) {
        const auto at = [&](int turn) {
            for (const TurnMedians& t : s.turns)
                if (t.turn == turn)
                    return *t.ttftAnyMs;
            return 0.0;
        };
        sentence += QStringLiteral("TTFT ") + ms(at(fromTurn)) + QStringLiteral(" → ") + ms(at(toTurn))
            + QStringLiteral(" ms from turn ") + QString::number(fromTurn) + QStringLiteral(" to turn ")
            + QString::number(toTurn) + QStringLiteral(" (×") + QString::number(*s.ttftAnyGrowth, 'f', 2)
            + QLatin1Char(')');
    } else {
        sentence += QStringLiteral("TTFT growth unknown (fewer than two turns with a TTFT)");
    }
    if (const auto& fit = s.ttftAnyPerKiloToken) {
        sentence += QStringLiteral("; ") + (fit->slope >= 0 ? QStringLiteral("+") : QString())
            + QString::number(fit->slope, 'f', 0) + QStringLiteral(" ms per 1k prompt tokens (");
        if (fit->r2)
            sentence += QStringLiteral("r² ") + QString::number(*fit->r2, 'f', 2) + QStringLiteral(", ");
        sentence += QString::number(fit->n) + QStringLiteral(" requests)");
    }
    s.sentence = sentence;
    return s;
}

int endpointOf(Faster f, const PairCrossover& p)
{
    return f == Faster::First ? p.first : f == Faster::Second ? p.second : -1;
}

QString labelOf(int endpoint, const PairCrossover& p)
{
    return endpoint == p.first ? p.firstLabel
        : endpoint == p.second ? p.secondLabel
                               : QStringLiteral("neither");
}

LengthOutlook outlook(const PairCrossover& p, double tokens, bool typical)
{
    LengthOutlook o;
    o.tokens = tokens;
    o.typical = typical;
    for (const TurnCrossover& t : p.turns) {
        const double a = t.first.predictMs(tokens);
        const double b = t.second.predictMs(tokens);
        o.fasterByTurn.push_back({t.turn, a < b ? p.first : b < a ? p.second : -1});
    }
    const QString lead = (typical ? QStringLiteral("For a typical ") : QStringLiteral("For a "))
        + QString::number(std::round(tokens)) + QStringLiteral("-token answer, ");
    if (o.fasterByTurn.empty())
        return o;
    const int reference = o.fasterByTurn.front().second;
    for (const auto& [turn, faster] : o.fasterByTurn)
        if (faster != reference) {
            o.changeTurn = turn;
            break;
        }
    const int firstTurn = p.turns.front().turn;
    const int lastTurn = p.turns.back().turn;
    o.projectionHorizon = 4 * lastTurn;
    if (o.changeTurn) {
        int before = firstTurn;
        for (const auto& [turn, faster] : o.fasterByTurn)
            if (turn < *o.changeTurn)
                before = turn;
        const int after = [&] {
            for (const auto& [turn, faster] : o.fasterByTurn)
                if (turn == *o.changeTurn)
                    return faster;
            return -1;
        }();
        o.sentence = lead + labelOf(reference, p) + QStringLiteral(" is faster at ")
            + turnRange(firstTurn, before) + QStringLiteral(", ") + labelOf(after, p)
            + QStringLiteral(" from turn ") + QString::number(*o.changeTurn) + QLatin1Char('.');
        return o;
    }
    o.sentence = lead + labelOf(reference, p) + QStringLiteral(" is faster at every measured turn (")
        + turnRange(firstTurn, lastTurn) + QLatin1Char(')');
    // Extrapolate: TTFT linear in the turn (least squares over the medians), decode rate of the
    // last measured turn, e2e difference D(t) = ΔTTFT(t) + 1000·N·(1/r_a − 1/r_b).
    std::vector<double> turns, ta, tb;
    for (const TurnCrossover& t : p.turns) {
        turns.push_back(t.turn);
        ta.push_back(t.first.ttftMs);
        tb.push_back(t.second.ttftMs);
    }
    const auto fa = fitLine(turns, ta);
    const auto fb = fitLine(turns, tb);
    if (fa && fb && reference >= 0 && fa->slope != fb->slope) {
        const TurnCrossover& last = p.turns.back();
        const double constant = fa->intercept - fb->intercept
            + 1000.0 * tokens * (1.0 / last.first.decodeTps - 1.0 / last.second.decodeTps);
        const double root = -constant / (fa->slope - fb->slope);
        if (std::isfinite(root) && root >= lastTurn) {
            const int turn = int(std::floor(root)) + 1;
            if (turn <= o.projectionHorizon)
                o.projectedChangeTurn = turn;
        }
        const QString other = labelOf(reference == p.first ? p.second : p.first, p);
        o.sentence += QStringLiteral("; extrapolating TTFT linearly, ");
        if (o.projectedChangeTurn)
            o.sentence += other + QStringLiteral(" would be faster from turn ")
                + QString::number(*o.projectedChangeTurn);
        else
            o.sentence += QStringLiteral("no change within ") + QString::number(o.projectionHorizon)
                + QStringLiteral(" turns");
    }
    o.sentence += QLatin1Char('.');
    return o;
}

QString pairSentence(const PairCrossover& p)
{
    QString s = p.firstLabel + QStringLiteral(" vs ") + p.secondLabel + QStringLiteral(", ") + p.test
        + QStringLiteral(": ");
    std::vector<const TurnCrossover*> crossing;
    std::map<int, QList<int>> dominant; // endpoint -> turns where it is faster at every length
    for (const TurnCrossover& t : p.turns) {
        if (t.crossover.tokens)
            crossing.push_back(&t);
        else
            dominant[endpointOf(t.crossover.fasterShort, p)] << t.turn;
    }
    QStringList parts;
    if (!crossing.empty()) {
        const bool sameArms = std::all_of(crossing.begin(), crossing.end(), [&](const TurnCrossover* t) {
            return t->crossover.fasterShort == crossing.front()->crossover.fasterShort;
        });
        const auto under = [](const TurnCrossover* t) -> QString {
            return QString::number(std::round(*t->crossover.tokens)) + QStringLiteral(" at turn ")
                + QString::number(t->turn);
        };
        if (sameArms) {
            const int shortArm = endpointOf(crossing.front()->crossover.fasterShort, p);
            const int longArm = endpointOf(crossing.front()->crossover.fasterLong, p);
            QString part = labelOf(shortArm, p) + QStringLiteral(" is faster for answers under ")
                + QString::number(std::round(*crossing.front()->crossover.tokens))
                + QStringLiteral(" tokens at turn ") + QString::number(crossing.front()->turn);
            if (crossing.size() > 1)
                part += QStringLiteral(", under ") + under(crossing.back());
            parts << part + QStringLiteral(" (") + labelOf(longArm, p) + QStringLiteral(" for longer ones)");
        } else {
            for (const TurnCrossover* t : crossing)
                parts << labelOf(endpointOf(t->crossover.fasterShort, p), p)
                        + QStringLiteral(" is faster for answers under ")
                        + QString::number(std::round(*t->crossover.tokens))
                        + QStringLiteral(" tokens at turn ") + QString::number(t->turn);
        }
    }
    for (const auto& [endpoint, turns] : dominant) {
        QStringList list;
        for (int t : turns)
            list << QString::number(t);
        parts << labelOf(endpoint, p) + QStringLiteral(" is faster at every length at turn")
                + (turns.size() > 1 ? QStringLiteral("s ") : QStringLiteral(" "))
                + list.join(QStringLiteral(", "));
    }
    s += parts.join(QStringLiteral("; ")) + QStringLiteral(".");
    if (!p.lengths.empty() && p.lengths.front().typical)
        s += QLatin1Char(' ') + p.lengths.front().sentence;
    return s;
}

} // namespace

TurnScaling turnScaling(const RunResult& result)
{
    const int endpoints = int(result.endpoints.size());
    MeasuredTests measured;
    std::map<std::pair<QString, int>, Group> groups;
    for (const RunRecord& r : result.records) {
        if (!measured.add(r, endpoints))
            continue;
        if (r.request.ok())
            groups[{r.test, r.endpoint}].byTurn[r.turn].push_back(&r);
    }
    TurnScaling out;
    for (const QString& test : measured.order) {
        if (measured.maxTurn[test] <= 1)
            continue;
        std::map<int, const EndpointScaling*> scaled;
        const std::size_t firstIndex = out.endpoints.size();
        for (int e = 0; e < endpoints; ++e)
            if (const auto g = groups.find({test, e}); g != groups.end())
                out.endpoints.push_back(scaleEndpoint(result, test, e, g->second));
        for (std::size_t i = firstIndex; i < out.endpoints.size(); ++i)
            scaled[out.endpoints[i].endpoint] = &out.endpoints[i];

        // Typical answer length: median completion tokens of the test, both arms pooled.
        for (auto a = scaled.begin(); a != scaled.end(); ++a)
            for (auto b = std::next(a); b != scaled.end(); ++b) {
                PairCrossover p;
                p.test = test;
                p.first = a->first;
                p.second = b->first;
                p.firstLabel = a->second->endpointLabel;
                p.secondLabel = b->second->endpointLabel;
                for (const TurnMedians& ta : a->second->turns)
                    for (const TurnMedians& tb : b->second->turns) {
                        if (ta.turn != tb.turn || !ta.ttftAnyMs || !tb.ttftAnyMs || !ta.decodeTps
                            || !tb.decodeTps || !(*ta.decodeTps > 0) || !(*tb.decodeTps > 0))
                            continue;
                        TurnCrossover t;
                        t.turn = ta.turn;
                        t.first = {*ta.ttftAnyMs, *ta.decodeTps};
                        t.second = {*tb.ttftAnyMs, *tb.decodeTps};
                        t.crossover = crossover(t.first, t.second);
                        p.turns.push_back(t);
                    }
                if (p.turns.empty())
                    continue;
                std::vector<double> tokens;
                for (int e : {p.first, p.second})
                    for (const auto& [turn, records] : groups[{test, e}].byTurn)
                        for (const RunRecord* r : records)
                            if (const auto v = metricValue(r->request.metrics, Metric::CompletionTokens))
                                tokens.push_back(*v);
                if (const auto typical = median(tokens))
                    p.lengths.push_back(outlook(p, *typical, true));
                for (double fixed : {50.0, 200.0})
                    p.lengths.push_back(outlook(p, fixed, false));
                p.sentence = pairSentence(p);
                out.pairs.push_back(std::move(p));
            }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// JSON

nlohmann::json toJson(const LinearFit& fit)
{
    return {{"n", fit.n}, {"slope", roundedJson(fit.slope, 3)}, {"intercept", roundedJson(fit.intercept, 3)},
        {"r2", roundedJson(fit.r2, 4)}};
}

namespace {
nlohmann::json optionalFit(const std::optional<LinearFit>& fit)
{
    return fit ? toJson(*fit) : nlohmann::json(nullptr);
}

nlohmann::json fasterJson(Faster f, const PairCrossover& p)
{
    const int e = endpointOf(f, p);
    return e < 0 ? nlohmann::json(nullptr) : nlohmann::json(labelOf(e, p).toStdString());
}

nlohmann::json optionalInt(const std::optional<int>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
} // namespace

nlohmann::json toJson(const EndpointScaling& s)
{
    nlohmann::json turns = nlohmann::json::array();
    for (const TurnMedians& t : s.turns)
        turns.push_back({{"turn", t.turn}, {"n", t.n}, {"ttft_any_ms", roundedJson(t.ttftAnyMs, 3)},
            {"ttft_visible_ms", roundedJson(t.ttftVisibleMs, 3)},
            {"prompt_tokens", roundedJson(t.promptTokens, 1)}, {"decode_tps", roundedJson(t.decodeTps, 3)},
            {"e2e_ms", roundedJson(t.e2eMs, 3)}, {"completion_tokens", roundedJson(t.completionTokens, 1)}});
    return {{"test", s.test.toStdString()}, {"endpoint", s.endpointLabel.toStdString()},
        {"endpoint_index", s.endpoint}, {"turns", turns},
        {"ttft_any_growth", roundedJson(s.ttftAnyGrowth, 3)},
        {"ttft_visible_growth", roundedJson(s.ttftVisibleGrowth, 3)},
        {"ttft_any_ms_per_1k_prompt_tokens", optionalFit(s.ttftAnyPerKiloToken)},
        {"ttft_visible_ms_per_1k_prompt_tokens", optionalFit(s.ttftVisiblePerKiloToken)},
        {"sentence", s.sentence.toStdString()}};
}

nlohmann::json toJson(const PairCrossover& p)
{
    nlohmann::json turns = nlohmann::json::array();
    for (const TurnCrossover& t : p.turns)
        turns.push_back({{"turn", t.turn},
            {"first",
                {{"ttft_ms", roundedJson(t.first.ttftMs, 3)},
                    {"decode_tps", roundedJson(t.first.decodeTps, 3)}}},
            {"second",
                {{"ttft_ms", roundedJson(t.second.ttftMs, 3)},
                    {"decode_tps", roundedJson(t.second.decodeTps, 3)}}},
            {"crossover_tokens", roundedJson(t.crossover.tokens, 1)},
            {"faster_short", fasterJson(t.crossover.fasterShort, p)},
            {"faster_long", fasterJson(t.crossover.fasterLong, p)}});
    nlohmann::json lengths = nlohmann::json::array();
    for (const LengthOutlook& o : p.lengths) {
        nlohmann::json byTurn = nlohmann::json::array();
        for (const auto& [turn, e] : o.fasterByTurn)
            byTurn.push_back({{"turn", turn},
                {"faster", e < 0 ? nlohmann::json(nullptr) : nlohmann::json(labelOf(e, p).toStdString())}});
        lengths.push_back({{"tokens", roundedJson(o.tokens, 1)}, {"typical", o.typical},
            {"faster_by_turn", byTurn}, {"change_turn", optionalInt(o.changeTurn)},
            {"projected_change_turn", optionalInt(o.projectedChangeTurn)},
            {"projection_horizon", o.projectionHorizon}, {"sentence", o.sentence.toStdString()}});
    }
    return {{"test", p.test.toStdString()},
        {"first", {{"index", p.first}, {"label", p.firstLabel.toStdString()}}},
        {"second", {{"index", p.second}, {"label", p.secondLabel.toStdString()}}}, {"turns", turns},
        {"lengths", lengths}, {"sentence", p.sentence.toStdString()}};
}

nlohmann::json toJson(const TurnScaling& s)
{
    nlohmann::json endpoints = nlohmann::json::array();
    for (const EndpointScaling& e : s.endpoints)
        endpoints.push_back(toJson(e));
    nlohmann::json pairs = nlohmann::json::array();
    for (const PairCrossover& p : s.pairs)
        pairs.push_back(toJson(p));
    return {{"model", "e2e(N) = ttft_any_ms + 1000 * N / decode_tps (per turn medians)"},
        {"endpoints", endpoints}, {"pairs", pairs}};
}

} // namespace qs

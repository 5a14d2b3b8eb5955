// SPDX-License-Identifier: MIT
// Prefill scaling: the OLS slope of ttft_any on uncached prompt tokens per endpoint, its cluster
// bootstrap over distinct prompts, and the context sweep's correctness and memory per context size.
#include "model/evaluate/PrefillScaling.h"

#include "model/core/GatePatterns.h"
#include "model/core/Percentile.h"
#include "model/core/Suite.h"
#include "model/evaluate/MeasuredTests.h"
#include "model/evaluate/ResourceParts.h"
#include "model/evaluate/Statistics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

namespace qs {

QString prefillSourceId(PrefillSource source)
{
    switch (source) {
    case PrefillSource::ContextSweep:
        return QStringLiteral("context-sweep");
    case PrefillSource::MultiTurn:
        return QStringLiteral("multi-turn");
    case PrefillSource::None:
        break;
    }
    return {};
}

std::optional<double> EndpointPrefill::cachedShare() const
{
    if (requestsWithCachedCount == 0 || !(promptTokensTotal > 0))
        return std::nullopt;
    return cachedTokensTotal / promptTokensTotal;
}

const EndpointPrefill* PrefillScaling::find(int endpoint) const
{
    for (const EndpointPrefill& e : endpoints)
        if (e.endpoint == endpoint)
            return &e;
    return nullptr;
}

QString cacheModeText(const QString& mode)
{
    if (mode == u"cold")
        return QStringLiteral("cold: prefill measured, nothing served from cache");
    if (mode == u"warm")
        return QStringLiteral("warm: production's pattern");
    return QStringLiteral("not stated");
}

QString msPer1kText(double v)
{
    const double a = std::fabs(v);
    return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

QString prefillFigureText(const EndpointPrefill& e)
{
    if (!e.msPer1kTokens)
        return QStringLiteral("no slope: ") + e.reason;
    QString text = msPer1kText(*e.msPer1kTokens) + QStringLiteral(" ms per 1K tokens");
    if (e.interval)
        text += QStringLiteral(" [%1–%2]").arg(msPer1kText(e.interval->lo), msPer1kText(e.interval->hi));
    return text;
}

QString contextSizeText(int tokens)
{
    if (tokens < 1000)
        return QString::number(tokens);
    // The sweep's sizes are powers of two (1024 → "1K") or round thousands (30000 → "30K").
    const double k = tokens % 1024 == 0 ? tokens / 1024.0 : tokens / 1000.0;
    return QString::number(k, 'g', 3) + QLatin1Char('K');
}

namespace {

/// The fewest distinct prompts, and the smallest max/min ratio of their token counts, a slope is
/// reported for: below either, a line through the points says more about noise than about prefill.
constexpr int minPrompts = 3;
constexpr double minSpan = 2.0;
constexpr int maxResamples = 2000;

/// What a slope rests on, summed per cluster (one distinct prompt) around the endpoint's means, so
/// that a bootstrap resample costs O(clusters) whatever the number of requests, and the sums of
/// squares of 30,000-token prompts lose nothing to cancellation.
struct ClusterSums {
    double n = 0;
    double x = 0;
    double y = 0;
    double xx = 0;
    double xy = 0;
    void add(const ClusterSums& o)
    {
        n += o.n;
        x += o.x;
        y += o.y;
        xx += o.xx;
        xy += o.xy;
    }
    /// The OLS slope of the pooled sums; nothing when every x is the same.
    std::optional<double> slope(double scale) const
    {
        if (n < 2)
            return std::nullopt;
        const double sxx = xx - x * x / n;
        if (!(sxx > 1e-12 * scale))
            return std::nullopt;
        return (xy - x * y / n) / sxx;
    }
};

/// The per-test facts the suite states: which tests carry a generated context, and its spec.
std::map<QString, ContextSpec> contextTests(const RunResult& result)
{
    std::map<QString, ContextSpec> out;
    if (!result.suite.is_object())
        return out;
    try {
        const Suite suite = parseSuite(result.suite, QStringLiteral("the suite stored in the file"));
        for (const SuiteTest& t : suite.tests)
            if (t.context)
                out[t.id] = *t.context;
    } catch (const std::exception&) {
        // Described as having no context tests: the multi-turn growth, if any, is the source.
    }
    return out;
}

std::optional<bool> expectedAnswer(const RunRecord& r)
{
    if (!r.gates->is_object())
        return std::nullopt;
    const auto it = r.gates->find(gate_names::expectedAnswer.toStdString());
    if (it == r.gates->end() || !it->is_boolean())
        return std::nullopt;
    return it->get<bool>();
}

QString tokensText(double v)
{
    return QString::number(std::llround(v));
}

std::optional<Interval> clusterBootstrap(
    const std::vector<ClusterSums>& clusters, double scale, const PrefillOptions& options, int* used)
{
    const int resamples = std::clamp(options.resamples, 0, maxResamples);
    *used = resamples;
    if (clusters.empty() || resamples <= 0)
        return std::nullopt;
    // The engine and its use as in bootstrapInterval: the same data gives the same interval on
    // every platform.
    std::mt19937_64 engine(options.seed);
    std::vector<double> slopes;
    slopes.reserve(std::size_t(resamples));
    for (int r = 0; r < resamples; ++r) {
        ClusterSums pooled;
        for (std::size_t k = 0; k < clusters.size(); ++k)
            pooled.add(clusters[std::size_t(engine() % clusters.size())]);
        if (const auto s = pooled.slope(scale); s && std::isfinite(*s))
            slopes.push_back(*s * 1000.0);
    }
    if (slopes.size() * 2 < std::size_t(resamples))
        return std::nullopt;
    const double tail = (1.0 - options.confidence) / 2.0 * 100.0;
    std::sort(slopes.begin(), slopes.end());
    return Interval {*percentile(slopes, tail), *percentile(slopes, 100.0 - tail)};
}

/// The slope, intercept, r² and interval of one endpoint's points, or the reason there is none.
void fit(EndpointPrefill& e, const PrefillOptions& options, int* resamples)
{
    if (e.points.empty()) {
        e.reason = QStringLiteral("no measured, successful request with a TTFT and a prompt token count");
        return;
    }
    double lo = e.points.front().uncachedTokens;
    double hi = lo;
    double mx = 0, my = 0;
    for (const PrefillPoint& p : e.points) {
        lo = std::min(lo, p.uncachedTokens);
        hi = std::max(hi, p.uncachedTokens);
        mx += p.uncachedTokens;
        my += p.ttftMs;
    }
    mx /= double(e.points.size());
    my /= double(e.points.size());
    e.minTokens = lo;
    e.maxTokens = hi;
    std::map<QString, ClusterSums> byPrompt;
    double syy = 0;
    for (const PrefillPoint& p : e.points) {
        const double x = p.uncachedTokens - mx;
        const double y = p.ttftMs - my;
        ClusterSums& c = byPrompt[p.test];
        c.n += 1;
        c.x += x;
        c.y += y;
        c.xx += x * x;
        c.xy += x * y;
        syy += y * y;
    }
    e.prompts = int(byPrompt.size());
    if (e.prompts < minPrompts) {
        e.reason = QStringLiteral("only %1 distinct prompt%2: a slope needs at least %3")
                       .arg(e.prompts)
                       .arg(e.prompts == 1 ? QString() : QStringLiteral("s"))
                       .arg(minPrompts);
        if (e.source == PrefillSource::MultiTurn)
            e.reason += QStringLiteral(" (a conversation is one, all its turns included; the context-sweep "
                                       "suite measures prefill)");
        return;
    }
    if (hi < minSpan * lo) {
        e.reason = QStringLiteral("the uncached prompt tokens span only %1–%2 (%3×): a slope needs at least "
                                  "%4×")
                       .arg(tokensText(lo), tokensText(hi))
                       .arg(lo > 0 ? hi / lo : 1.0, 0, 'f', 2)
                       .arg(minSpan, 0, 'f', 0);
        if (const auto share = e.cachedShare(); share && *share > 0.5)
            e.reason += QStringLiteral(
                "; %1 % of the prompt tokens came from the prefix cache, so this run did not measure "
                "prefill (a cold run does)")
                            .arg(std::llround(*share * 100));
        return;
    }
    std::vector<ClusterSums> clusters;
    clusters.reserve(byPrompt.size());
    ClusterSums all;
    for (const auto& [test, sums] : byPrompt) {
        clusters.push_back(sums);
        all.add(sums);
    }
    const double scale = std::max(1.0, all.xx);
    const auto slope = all.slope(scale);
    if (!slope) {
        e.reason = QStringLiteral("every request had the same number of uncached prompt tokens");
        return;
    }
    e.msPer1kTokens = *slope * 1000.0;
    // Centred data: the intercept at x = 0 is ȳ − slope·x̄ in the original units.
    e.interceptMs = my + (all.y / all.n) - *slope * (mx + all.x / all.n);
    const double sxx = all.xx - all.x * all.x / all.n;
    const double sxy = all.xy - all.x * all.y / all.n;
    const double syyc = syy - all.y * all.y / all.n;
    if (syyc > 0)
        e.r2 = std::clamp(sxy * sxy / (sxx * syyc), 0.0, 1.0);
    if (options.intervals)
        e.interval = clusterBootstrap(clusters, scale, options, resamples);
}

/// The medians of each distinct prompt and turn, ascending in uncached tokens.
void promptMedians(EndpointPrefill& e)
{
    std::map<std::pair<QString, int>, std::vector<const PrefillPoint*>> groups;
    for (const PrefillPoint& p : e.points)
        groups[{p.test, p.turn}].push_back(&p);
    for (const auto& [key, points] : groups) {
        PrefillPromptMedian m;
        m.test = key.first;
        m.turn = key.second;
        m.requests = int(points.size());
        std::vector<double> prompt, uncached, ttft;
        for (const PrefillPoint* p : points) {
            prompt.push_back(p->promptTokens);
            uncached.push_back(p->uncachedTokens);
            ttft.push_back(p->ttftMs);
            m.graded += p->correct ? 1 : 0;
            m.right += p->correct.value_or(false) ? 1 : 0;
            m.contextTokens = p->contextTokens;
        }
        m.promptTokens = *median(prompt);
        m.uncachedTokens = *median(uncached);
        m.ttftMs = *median(ttft);
        e.medians.push_back(std::move(m));
    }
    std::stable_sort(
        e.medians.begin(), e.medians.end(), [](const PrefillPromptMedian& a, const PrefillPromptMedian& b) {
            return a.uncachedTokens < b.uncachedTokens;
        });
}

/// What a request of the sweep adds to its context size's row.
struct ContextTally {
    std::set<QString> tests;
    int requests = 0;
    int graded = 0;
    int right = 0;
    std::vector<double> prompt;
    std::vector<double> ttft;
    std::vector<resources::Interval> inFlight;
};

/// The highest memory sample of endpoint `e`'s server inside each size's requests, with the
/// memory the resource report chose for that server (GPU framebuffer, else host).
void contextMemory(const RunResult& result, const EndpointResources* measured, int e,
    std::map<int, ContextTally>& tallies, std::vector<ContextRow>& rows)
{
    if (!measured || measured->memoryKind.isEmpty())
        return;
    const MetricRole role
        = measured->memoryKind == u"gpu" ? MetricRole::GpuMemoryUsed : MetricRole::HostMemoryUsed;
    const resources::EndpointView view(result, e);
    const resources::SourceSamples* source = resources::sourceWith(view, role);
    if (!source)
        return;
    QString family;
    const auto series = resources::roleSeries(*source, role, &family);
    const QString where = resources::figureSource(family, source->source->url);
    for (ContextRow& row : rows) {
        const std::vector<resources::Interval> within
            = resources::merged(std::move(tallies[row.contextTokens].inFlight));
        std::optional<double> peak;
        int samples = 0;
        for (const auto& [sample, value] : series)
            if (resources::inside(within, sample->atMs)) {
                peak = std::max(peak.value_or(value), value);
                ++samples;
            }
        if (peak)
            row.memoryPeak = {peak, where, samples};
    }
}

void tokenNotes(EndpointPrefill& e, int estimated, const QString& cacheMode)
{
    const int n = int(e.points.size());
    if (n == 0)
        return;
    if (e.requestsWithCachedCount == 0 && cacheMode == u"cold")
        e.notes << QStringLiteral("the server did not say how many prompt tokens it served from its cache; "
                                  "in a cold run none should be, and all prompt tokens count as processed");
    else if (e.requestsWithCachedCount == 0)
        e.notes << QStringLiteral(
            "the server did not say how many prompt tokens it served from its cache: all prompt tokens "
            "are counted as processed (if some were cached, the slope understates the prefill)");
    else if (e.requestsWithCachedCount < n)
        e.notes << QStringLiteral("%1 of %2 requests said how many prompt tokens were cached; the others "
                                  "count all their prompt tokens as processed")
                       .arg(e.requestsWithCachedCount)
                       .arg(n);
    if (estimated > 0)
        e.notes << QStringLiteral("%1 of %2 prompt token counts are estimates (the server sent no usage)")
                       .arg(estimated)
                       .arg(n);
}

} // namespace

PrefillScaling prefillScaling(
    const RunResult& result, const ResourceReport& resourceReport, const PrefillOptions& options)
{
    PrefillScaling out;
    out.withIntervals = options.intervals;
    if (result.suite.is_object()) {
        const auto text = [&](const char* key) {
            const auto it = result.suite.find(key);
            return it != result.suite.end() && it->is_string()
                ? QString::fromStdString(it->get<std::string>())
                : QString();
        };
        const QString id = text("id").isEmpty() ? text("name") : text("id");
        out.cacheModes.push_back({id, text("prefix_cache")});
    }

    const int endpoints = int(result.endpoints.size());
    const std::map<QString, ContextSpec> contexts = contextTests(result);
    MeasuredTests measured;
    for (const RunRecord& r : result.records)
        measured.add(r, endpoints);
    std::set<QString> used;
    if (!contexts.empty()) {
        out.source = PrefillSource::ContextSweep;
        for (const auto& [test, spec] : contexts)
            used.insert(test);
    } else {
        for (const auto& [test, turns] : measured.maxTurn)
            if (turns > 1)
                used.insert(test);
        if (!used.empty())
            out.source = PrefillSource::MultiTurn;
    }
    if (out.source == PrefillSource::None)
        return out;

    std::vector<int> estimated(std::size_t(std::max(endpoints, 0)), 0);
    std::vector<std::map<int, ContextTally>> tallies(std::size_t(std::max(endpoints, 0)));
    std::vector<std::map<double, DepthRow>> depths(std::size_t(std::max(endpoints, 0)));
    for (int e = 0; e < endpoints; ++e) {
        EndpointPrefill ep;
        ep.endpoint = e;
        ep.label = result.endpoints[std::size_t(e)].endpoint.displayName();
        ep.source = out.source;
        out.endpoints.push_back(std::move(ep));
    }
    for (const RunRecord& r : result.records) {
        if (r.warmup || r.endpoint < 0 || r.endpoint >= endpoints || !used.count(r.test))
            continue;
        const auto e = std::size_t(r.endpoint);
        const auto spec = contexts.find(r.test);
        const int contextTokens = spec == contexts.end() ? 0 : spec->second.tokens;
        const std::optional<bool> correct = expectedAnswer(r);
        const RequestMetrics& m = r.request.metrics;
        if (spec != contexts.end()) {
            ContextTally& t = tallies[e][contextTokens];
            t.tests.insert(r.test);
            ++t.requests;
            t.graded += correct ? 1 : 0;
            t.right += correct.value_or(false) ? 1 : 0;
            t.inFlight.push_back(resources::requestInterval(r));
            if (r.request.ok() && m.promptTokens.value)
                t.prompt.push_back(double(*m.promptTokens.value));
            if (r.request.ok() && m.ttftAnyMs)
                t.ttft.push_back(*m.ttftAnyMs);
            if (correct) {
                // Depths as written in the suite, to two decimals: 0.333… and 0.33 are one row.
                DepthRow& d = depths[e][std::round(spec->second.depth * 100) / 100];
                ++d.graded;
                d.right += *correct ? 1 : 0;
            }
        }
        if (!r.request.ok() || !m.ttftAnyMs || !m.promptTokens.value || !std::isfinite(*m.ttftAnyMs))
            continue;
        EndpointPrefill& ep = out.endpoints[e];
        PrefillPoint p;
        p.test = r.test;
        p.turn = r.turn;
        p.iteration = r.iteration;
        p.promptTokens = double(*m.promptTokens.value);
        p.uncachedTokens = p.promptTokens;
        if (m.cachedPromptTokens.value) {
            const double cached = std::clamp(double(*m.cachedPromptTokens.value), 0.0, p.promptTokens);
            p.uncachedTokens = p.promptTokens - cached;
            ++ep.requestsWithCachedCount;
            ep.promptTokensTotal += p.promptTokens;
            ep.cachedTokensTotal += cached;
        }
        p.ttftMs = *m.ttftAnyMs;
        p.correct = correct;
        p.contextTokens = contextTokens;
        estimated[e] += m.promptTokens.isEstimate() ? 1 : 0;
        ep.points.push_back(std::move(p));
    }

    for (EndpointPrefill& ep : out.endpoints) {
        const auto e = std::size_t(ep.endpoint);
        ep.requests = int(ep.points.size());
        int resamples = 0;
        fit(ep, options, &resamples);
        out.resamples = std::max(out.resamples, resamples);
        tokenNotes(ep, estimated[e], out.cacheModes.empty() ? QString() : out.cacheModes.front().mode);
        promptMedians(ep);
        // The fit and the medians are made: a request's point is not kept in the evaluation, which
        // the dashboard holds and replaces twice a second during a run (100,000 points with a
        // string each, for nothing any view reads).
        std::vector<PrefillPoint>().swap(ep.points);
        for (auto& [size, t] : tallies[e]) {
            ContextRow row;
            row.contextTokens = size;
            row.prompts = int(t.tests.size());
            row.requests = t.requests;
            row.graded = t.graded;
            row.right = t.right;
            row.medianPromptTokens = median(t.prompt);
            row.medianTtftMs = median(t.ttft);
            ep.contexts.push_back(std::move(row));
        }
        contextMemory(
            result, findResources(resourceReport, ep.endpoint), ep.endpoint, tallies[e], ep.contexts);
        for (const auto& [depth, row] : depths[e]) {
            DepthRow d = row;
            d.depth = depth;
            ep.depths.push_back(d);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// JSON

namespace {

nlohmann::json intervalJson(const std::optional<Interval>& ci)
{
    if (!ci)
        return nullptr;
    return nlohmann::json::array({roundedJson(ci->lo, 3), roundedJson(ci->hi, 3)});
}

nlohmann::json nullableString(const QString& s)
{
    return s.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(s.toStdString());
}

QString tokensBasis(const EndpointPrefill& e)
{
    if (e.requestsWithCachedCount == 0)
        return QStringLiteral("prompt");
    return e.requestsWithCachedCount == e.requests ? QStringLiteral("uncached") : QStringLiteral("mixed");
}

} // namespace

nlohmann::json prefillScalingJson(const PrefillScaling& prefill)
{
    const QString mode = prefill.cacheModes.empty() ? QString() : prefill.cacheModes.front().mode;
    nlohmann::json out = nlohmann::json::array();
    for (const EndpointPrefill& e : prefill.endpoints) {
        nlohmann::json j;
        j["endpoint"] = e.label.toStdString();
        j["ms_per_1k_tokens"] = roundedJson(e.msPer1kTokens, 3);
        j["interval"] = e.msPer1kTokens ? intervalJson(e.interval) : nlohmann::json(nullptr);
        j["source"] = nullableString(prefillSourceId(e.source));
        j["intercept_ms"] = e.msPer1kTokens ? roundedJson(e.interceptMs, 3) : nlohmann::json(nullptr);
        j["r2"] = e.msPer1kTokens ? roundedJson(e.r2, 4) : nlohmann::json(nullptr);
        j["prompts"] = e.prompts;
        j["requests"] = e.requests;
        j["tokens_span"] = e.minTokens && e.maxTokens
            ? nlohmann::json::array({roundedJson(e.minTokens, 1), roundedJson(e.maxTokens, 1)})
            : nlohmann::json(nullptr);
        j["tokens"] = tokensBasis(e).toStdString();
        j["cached_share"] = roundedJson(e.cachedShare(), 4);
        j["cache_mode"] = mode.isEmpty() ? std::string("not stated") : mode.toStdString();
        j["reason"] = nullableString(e.reason);
        j["notes"] = nlohmann::json::array();
        for (const QString& n : e.notes)
            j["notes"].push_back(n.toStdString());
        j["depths"] = nlohmann::json::array();
        for (const DepthRow& d : e.depths)
            j["depths"].push_back(
                {{"depth", roundedJson(d.depth, 2)}, {"graded", d.graded}, {"right", d.right}});
        out.push_back(std::move(j));
    }
    return out;
}

nlohmann::json prefillContextJson(const PrefillScaling& prefill)
{
    nlohmann::json out = nlohmann::json::array();
    for (const EndpointPrefill& e : prefill.endpoints)
        for (const ContextRow& c : e.contexts)
            out.push_back({{"endpoint", e.label.toStdString()}, {"context_tokens", c.contextTokens},
                {"prompts", c.prompts}, {"requests", c.requests}, {"graded", c.graded}, {"right", c.right},
                {"median_prompt_tokens", roundedJson(c.medianPromptTokens, 1)},
                {"median_ttft_ms", roundedJson(c.medianTtftMs, 3)},
                {"memory_peak_bytes", roundedJson(c.memoryPeak.value, 0)},
                {"memory_source", nullableString(c.memoryPeak.source)}});
    return out;
}

} // namespace qs

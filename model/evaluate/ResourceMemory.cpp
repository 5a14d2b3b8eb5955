// SPDX-License-Identifier: MIT
// The gauges of one endpoint's server: memory at idle and while serving (overall and per
// concurrency level), GPU utilisation and power while serving, energy per generated token, and
// the KV-cache and waiting peaks. GPU series are read one by one (ResourceParts.h: RoleTable,
// Gauge), so that a GPU blank in one scrape is a gap in its own series, never a dip of a sum or a
// counter that drops and jumps; power and energy also say how far they can be trusted
// (FigureUncertainty), from the blocks of serving time below.
#include "model/core/Percentile.h"
#include "model/evaluate/ResourceParts.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qs::resources {

namespace {

using Series = std::vector<std::pair<const TelemetrySample*, double>>;
constexpr double Infinity = std::numeric_limits<double>::infinity();

ResourceFigure medianFigure(const std::vector<double>& values, const QString& source)
{
    if (values.empty())
        return {};
    return {percentile(values, 50), source, int(values.size())};
}

ResourceFigure peakFigure(const std::vector<double>& values, const QString& source)
{
    if (values.empty())
        return {};
    return {*std::max_element(values.begin(), values.end()), source, int(values.size())};
}

template <typename Keep> std::vector<double> valuesWhere(const Series& series, Keep keep)
{
    std::vector<double> out;
    for (const auto& [sample, value] : series)
        if (keep(*sample))
            out.push_back(value);
    return out;
}

bool idle(const TelemetrySample& s)
{
    return s.phase != TelemetrySample::Phase::Run;
}

double medianOr(std::vector<double> values, double otherwise)
{
    return percentile(std::move(values), 50).value_or(otherwise);
}

double standardDeviation(const std::vector<double>& v)
{
    if (v.size() < 2)
        return 0;
    double mean = 0;
    for (const double x : v)
        mean += x;
    mean /= double(v.size());
    double ss = 0;
    for (const double x : v)
        ss += (x - mean) * (x - mean);
    return std::sqrt(ss / double(v.size() - 1));
}

// ------------------------------------------------------------------ blocks (FigureUncertainty)

/// Consecutive stretches of the run that a figure is measured over apart, each cut on a scrape.
struct Blocks {
    std::vector<double> cuts; ///< ascending; block k is [cuts[k − 1], cuts[k]), open at both ends
    int count() const { return cuts.empty() ? 0 : int(cuts.size()) + 1; }
    double from(int k) const { return k == 0 ? -Infinity : cuts[std::size_t(k - 1)]; }
    double to(int k) const { return k + 1 >= count() ? Infinity : cuts[std::size_t(k)]; }
    int of(double t) const { return int(std::upper_bound(cuts.begin(), cuts.end(), t) - cuts.begin()); }
};

/// 3–10 blocks of equal serving time, each at least `minBlockMs` of it, every cut moved to the
/// nearest scrape so that no scrape interval is split. None when the run is too short for 3.
Blocks makeBlocks(const std::vector<Interval>& serving, double minBlockMs, const std::vector<double>& scrapes)
{
    constexpr int MaxBlocks = 10;
    Blocks b;
    const double total = totalMs(serving);
    if (scrapes.empty() || minBlockMs <= 0 || total < 3 * minBlockMs)
        return b;
    const int wanted = std::min(MaxBlocks, int(total / minBlockMs));
    double passed = 0;
    std::size_t i = 0;
    for (int k = 1; k < wanted; ++k) {
        const double target = total * k / wanted;
        while (i < serving.size() && passed + (serving[i].endMs - serving[i].startMs) < target) {
            passed += serving[i].endMs - serving[i].startMs;
            ++i;
        }
        if (i >= serving.size())
            break;
        const double at = serving[i].startMs + (target - passed);
        auto next = std::lower_bound(scrapes.begin(), scrapes.end(), at);
        if (next == scrapes.end() || (next != scrapes.begin() && at - *(next - 1) < *next - at))
            --next;
        if (b.cuts.empty() || *next > b.cuts.back())
            b.cuts.push_back(*next);
    }
    if (b.count() < 3)
        b.cuts.clear();
    return b;
}

/// Student's t, 97.5th percentile, for `df` degrees of freedom (blocks − 1, at most 9 here).
double t975(int df)
{
    static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
    if (df < 1)
        return Infinity;
    return df <= 10 ? table[df - 1] : 1.96;
}

void setSpread(FigureUncertainty& u, double value, double relativeSe, int blocks)
{
    u.relativeSe = relativeSe;
    u.blocks = blocks;
    const double t = t975(blocks - 1);
    u.low = value * std::exp(-t * relativeSe);
    u.high = value * std::exp(t * relativeSe);
}

/// Share of the serving time between two consecutive usable samples of a gauge (no failed scrape
/// or blank in between).
double gaugeCoverage(const EndpointView& view, const Gauge& g)
{
    const double servingMs = totalMs(view.serving);
    if (servingMs <= 0)
        return 0;
    double covered = 0;
    const auto& samples = g.source->samples;
    for (std::size_t k = 1; k < samples.size(); ++k)
        if (g.perSample[k - 1] && g.perSample[k])
            covered += overlapMs(view.serving, samples[k - 1]->atMs, samples[k]->atMs);
    return std::min(1.0, covered / servingMs);
}

// ------------------------------------------------------------------ memory, gauges

void computeMemory(const EndpointView& view, EndpointResources& out)
{
    // DCGM's framebuffer when there is one; unified-memory machines (GB10) report none, and the
    // host's memory is the figure that matters there.
    MetricRole role = MetricRole::GpuMemoryUsed;
    MetricRole totalRole = MetricRole::GpuMemoryTotal;
    const SourceSamples* source = sourceWith(view, role);
    out.memoryKind = QStringLiteral("gpu");
    if (!source) {
        role = MetricRole::HostMemoryUsed;
        totalRole = MetricRole::HostMemoryTotal;
        source = sourceWith(view, role);
        out.memoryKind = QStringLiteral("host");
    }
    if (!source) {
        out.memoryKind.clear();
        return;
    }
    const Gauge g = gauge(*source, role);
    const Series series = g.series();
    const QString where = figureSource(g.family, source->source->url);
    const auto scoped = [&](ResourceFigure f) {
        scope(f, *source, g.gpus);
        return f;
    };
    const auto serving = [&view](const TelemetrySample& s) { return inside(view.serving, s.atMs); };
    out.memoryIdle = scoped(medianFigure(valuesWhere(series, idle), where));
    out.memoryIdleBefore = scoped(medianFigure(
        valuesWhere(
            series, [](const TelemetrySample& s) { return s.phase == TelemetrySample::Phase::IdleBefore; }),
        where));
    out.memoryIdleAfter = scoped(medianFigure(
        valuesWhere(
            series, [](const TelemetrySample& s) { return s.phase == TelemetrySample::Phase::IdleAfter; }),
        where));
    const std::vector<double> whileServing = valuesWhere(series, serving);
    out.memoryPeak = scoped(peakFigure(whileServing, where));
    out.memoryServingMedian = scoped(medianFigure(whileServing, where));
    for (const auto& [level, intervals] : view.byLevel) {
        // Captured by name: clang 14 (the fuzz build) cannot capture a structured binding.
        const std::vector<double> values = valuesWhere(
            series, [&within = intervals](const TelemetrySample& s) { return inside(within, s.atMs); });
        if (values.empty())
            continue;
        out.byConcurrency.push_back(
            {level, scoped(medianFigure(values, where)), scoped(peakFigure(values, where))});
    }
    QString totalFamily;
    const Series total = roleSeries(*source, totalRole, &totalFamily);
    if (!total.empty())
        out.memoryTotal = scoped(
            {total.back().second, figureSource(totalFamily, source->source->url), int(total.size())});
    if (g.blanks > 0)
        out.notes << blankNote(where, g.blanks);
}

/// The median of a gauge role over the samples taken while serving.
ResourceFigure servingMedian(const EndpointView& view, MetricRole role)
{
    const SourceSamples* source = sourceWith(view, role);
    if (!source)
        return {};
    const Gauge g = gauge(*source, role);
    ResourceFigure f = medianFigure(
        valuesWhere(g.series(), [&view](const TelemetrySample& s) { return inside(view.serving, s.atMs); }),
        figureSource(g.family, source->source->url));
    scope(f, *source, g.gpus);
    return f;
}

/// The highest value of a gauge role over every good sample.
ResourceFigure peakOver(const EndpointView& view, MetricRole role)
{
    const SourceSamples* source = sourceWith(view, role);
    if (!source)
        return {};
    QString family;
    const Series series = roleSeries(*source, role, &family);
    return peakFigure(valuesWhere(series, [](const TelemetrySample&) { return true; }),
        figureSource(family, source->source->url));
}

/// Median power while serving, and the spread of the blocks' medians.
void computePower(const EndpointView& view, EndpointResources& out)
{
    const SourceSamples* source = sourceWith(view, MetricRole::GpuPower);
    if (!source)
        return;
    const Gauge g = gauge(*source, MetricRole::GpuPower);
    const QString where = figureSource(g.family, source->source->url);
    std::vector<double> values;
    std::vector<double> times;
    for (const auto& [sample, value] : g.series())
        if (inside(view.serving, sample->atMs)) {
            values.push_back(value);
            times.push_back(sample->atMs);
        }
    ResourceFigure f = medianFigure(values, where);
    if (!f.value)
        return;
    scope(f, *source, g.gpus);
    f.uncertainty.coverage = gaugeCoverage(view, g);
    const Blocks blocks = makeBlocks(
        view.serving, 4 * std::max(samplePeriod(*source), medianRequestMs(view)), goodTimes(*source));
    std::vector<std::vector<double>> perBlock(std::size_t(blocks.count()));
    for (std::size_t i = 0; i < values.size() && blocks.count() > 0; ++i)
        perBlock[std::size_t(blocks.of(times[i]))].push_back(values[i]);
    std::vector<double> medians;
    for (const std::vector<double>& b : perBlock)
        if (b.size() >= 2)
            medians.push_back(*percentile(b, 50));
    if (medians.size() >= 3 && *f.value > 0)
        setSpread(f.uncertainty, *f.value,
            standardDeviation(medians) / std::sqrt(double(medians.size())) / *f.value, int(medians.size()));
    out.powerMedian = f;
}

// ------------------------------------------------------------------ energy

/// One scrape interval of one GPU, and the joules of it that go to serving (already scaled).
struct Slice {
    double a = 0;
    double b = 0;
    double joules = 0;
};

/// Energy while serving, interval by interval over every GPU, and what it rests on.
struct Energy {
    std::vector<Slice> slices;
    double joules = 0;
    double coveredMs = 0; ///< serving covered, averaged over the GPUs
    double meanStepJ = 0; ///< a typical step of the counter, or a scrape interval's energy (all GPUs)
    double updateMs = 0; ///< how often the counter moved (its exporter's update period)
    bool stepped = false; ///< the counter stood still between some scrapes
    int episodes = 0; ///< stretches of serving with their steps, as one edge each side
    std::optional<double> idleW; ///< idle power taken out of the intervals' idle time (all GPUs)
    QString idleFrom;
    int pairs = 0;
    int resets = 0;
    int gpus = 0;
    QString family;
    QString missing; ///< non-empty: a GPU's energy could not be read while serving
    double afterMs = Infinity; ///< from the end of serving to the last reading of the counter
};

/// Serving, each stretch extended by up to `byMs` into the idle time after it (never past the next).
std::vector<Interval> extended(const std::vector<Interval>& serving, double byMs)
{
    std::vector<Interval> out = serving;
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i].endMs = i + 1 < out.size() ? std::min(out[i].endMs + byMs, serving[i + 1].startMs)
                                          : out[i].endMs + byMs;
    return merged(std::move(out));
}

/// Idle power from the power gauge of the same page, when it agrees with the counter (its integral
/// over the run within 25 % of the counter's Δ): the median of the samples outside `region`.
std::optional<double> gaugeIdlePower(
    const SourceSamples& s, const std::vector<Interval>& region, double counterJ, double fromMs, double toMs)
{
    const Gauge power = gauge(s, MetricRole::GpuPower);
    double joules = 0;
    double coveredMs = 0;
    std::vector<double> idle;
    for (std::size_t k = 0; k < s.samples.size(); ++k) {
        const double at = s.samples[k]->atMs;
        if (power.perSample[k] && !inside(region, at))
            idle.push_back(*power.perSample[k]);
        if (k == 0 || !power.perSample[k] || !power.perSample[k - 1] || s.samples[k - 1]->atMs < fromMs
            || at > toMs)
            continue;
        const double ms = at - s.samples[k - 1]->atMs;
        joules += (*power.perSample[k] + *power.perSample[k - 1]) / 2 * ms / 1000;
        coveredMs += ms;
    }
    if (idle.size() < 2 || coveredMs <= 0 || counterJ <= 0)
        return std::nullopt;
    const double gaugeJ = joules * (toMs - fromMs) / coveredMs;
    if (std::abs(gaugeJ / counterJ - 1) > 0.25)
        return std::nullopt;
    return percentile(idle, 50);
}

/// The energy counter, GPU by GPU: each pair of consecutive good readings of a GPU is one interval
/// (a blank or failed scrape between them is bridged: the counter kept counting). A step measured
/// the serving before it: the serving is charged the steps that land after it ended, before the
/// endpoint's next request or within the counter's update period. Intervals that touch serving so
/// extended count whole, less the idle power over their idle part when it is known; without it,
/// in proportion to the extended serving in them.
Energy counterEnergy(const EndpointView& view, const SourceSamples& s, const RoleTable& t, double periodMs)
{
    struct Step {
        double a = 0;
        double b = 0;
        double delta = 0;
    };
    Energy e;
    e.family = t.family;
    e.gpus = int(t.series.size());
    std::vector<std::vector<Step>> steps(t.series.size());
    for (std::size_t c = 0; c < t.series.size(); ++c) {
        const TelemetrySample* last = nullptr;
        double lastValue = 0;
        for (std::size_t k = 0; k < s.samples.size(); ++k) {
            if (!t.values[c][k])
                continue;
            if (last && s.samples[k]->atMs > last->atMs)
                steps[c].push_back({last->atMs, s.samples[k]->atMs, *t.values[c][k] - lastValue});
            last = s.samples[k];
            lastValue = *t.values[c][k];
        }
    }
    // Stepped: still between at least a fifth of the scrapes; its period is the median time
    // between the scrapes that saw it move.
    int still = 0;
    int total = 0;
    std::vector<double> between;
    for (const std::vector<Step>& series : steps) {
        double moved = std::numeric_limits<double>::quiet_NaN();
        for (const Step& x : series) {
            if (x.delta < 0)
                continue;
            ++total;
            if (x.delta == 0) {
                ++still;
                continue;
            }
            if (!std::isnan(moved))
                between.push_back(x.b - moved);
            moved = x.b;
        }
    }
    e.stepped = total > 0 && still * 5 >= total;
    if (!view.serving.empty() && !steps.empty() && !steps.front().empty())
        e.afterMs = steps.front().back().b - view.serving.back().endMs;
    e.updateMs = e.stepped ? std::max(periodMs, medianOr(between, periodMs)) : periodMs;
    // A step measured the serving before it, whenever it lands: every stretch of serving takes the
    // steps up to one update period after it (one scrape period for a live counter), never past the
    // next request. Their idle part is taken out below when idle power is known.
    const std::vector<Interval> region = extended(view.serving, e.updateMs);
    e.episodes = int(region.size());

    // Idle power, per GPU: the counter's own rate over intervals that touch no serving, when they
    // add up to long enough to hold its steps; else the power gauge beside it.
    double idleJ = 0;
    double idleMs = 0;
    double allJ = 0;
    double firstMs = Infinity;
    double lastMs = -Infinity;
    for (const std::vector<Step>& series : steps)
        for (const Step& x : series) {
            if (x.delta < 0)
                continue;
            allJ += x.delta;
            firstMs = std::min(firstMs, x.a);
            lastMs = std::max(lastMs, x.b);
            if (overlapMs(region, x.a, x.b) > 0)
                continue;
            idleJ += x.delta;
            idleMs += x.b - x.a;
        }
    if (e.gpus > 0 && idleMs / e.gpus >= std::max(2 * e.updateMs, 1000.0)) {
        e.idleW = idleJ / idleMs * 1000 * e.gpus;
        e.idleFrom = QStringLiteral("the counter over %1 s of idle intervals")
                         .arg(idleMs / e.gpus / 1000, 0, 'f', 1);
    } else if (const auto w = gaugeIdlePower(s, region, allJ, firstMs, lastMs)) {
        e.idleW = *w;
        e.idleFrom = QStringLiteral("the power gauge's median while idle");
    }

    const double servingMs = totalMs(view.serving);
    for (std::size_t c = 0; c < steps.size(); ++c) {
        std::vector<Slice> mine;
        double covered = 0;
        double moved = 0;
        int moves = 0;
        int served = 0;
        for (const Step& x : steps[c]) {
            if (x.delta < 0) { // the counter was reset (driver reload): this interval says nothing
                ++e.resets;
                continue;
            }
            const double inRegion = overlapMs(region, x.a, x.b);
            if (inRegion <= 0)
                continue;
            const double inServing = overlapMs(view.serving, x.a, x.b);
            const double joules = e.idleW ? x.delta - *e.idleW / e.gpus * (x.b - x.a - inServing) / 1000
                                          : x.delta * inRegion / (x.b - x.a);
            mine.push_back({x.a, x.b, joules});
            covered += inServing;
            served += inServing > 0 ? 1 : 0;
            if (x.delta > 0) {
                moved += x.delta;
                ++moves;
            }
        }
        if (covered <= 0) {
            e.missing = QStringLiteral("a GPU's counter (%1) has no two readings around the serving")
                            .arg(s.source->series[std::size_t(t.series[c])].key());
            return e;
        }
        for (Slice& slice : mine) {
            slice.joules *= servingMs / covered;
            e.joules += slice.joules;
            e.slices.push_back(slice);
        }
        e.coveredMs += covered / double(steps.size());
        e.meanStepJ += moves > 0 ? moved / moves : 0;
        e.pairs = std::max(e.pairs, served);
    }
    return e;
}

/// No energy counter: the power gauge integrated (trapezoids) over the serving in each interval,
/// never across a failed scrape or a blank GPU.
Energy gaugeEnergy(const EndpointView& view, const Gauge& g, double periodMs)
{
    Energy e;
    e.family = g.family;
    e.gpus = g.gpus;
    e.updateMs = periodMs;
    e.episodes = int(view.serving.size());
    const auto& samples = g.source->samples;
    double whole = 0;
    for (std::size_t k = 1; k < samples.size(); ++k) {
        const double a = samples[k - 1]->atMs;
        const double b = samples[k]->atMs;
        if (!g.perSample[k - 1] || !g.perSample[k] || b <= a)
            continue;
        const double inServing = overlapMs(view.serving, a, b);
        if (inServing <= 0)
            continue;
        const double joules = (*g.perSample[k - 1] + *g.perSample[k]) / 2 * (b - a) / 1000;
        e.slices.push_back({a, b, joules * inServing / (b - a)});
        e.coveredMs += inServing;
        whole += joules;
    }
    e.pairs = int(e.slices.size());
    if (e.coveredMs <= 0)
        return e;
    e.meanStepJ = whole / e.pairs;
    const double scale = totalMs(view.serving) / e.coveredMs;
    for (Slice& slice : e.slices) {
        slice.joules *= scale;
        e.joules += slice.joules;
    }
    return e;
}

/// How far energy per token can be trusted: the blocks' joules against their tokens (ln of a
/// ratio of sums, linearised), the steps at the edges of serving, and the scaling for gaps.
FigureUncertainty energyUncertainty(
    const EndpointView& view, const Energy& e, double tokens, double periodMs, const SourceSamples& source)
{
    FigureUncertainty u;
    const double servingMs = totalMs(view.serving);
    u.coverage = std::min(1.0, e.coveredMs / servingMs);
    u.scaled = *u.coverage < 0.999;
    const Blocks blocks = makeBlocks(
        view.serving, 4 * std::max({periodMs, e.updateMs, medianRequestMs(view)}), goodTimes(source));
    const int n = blocks.count();
    if (n < 3 || e.joules <= 0)
        return u;
    std::vector<double> joules(std::size_t(n), 0.0);
    std::vector<double> served(std::size_t(n), 0.0);
    std::vector<double> generated(std::size_t(n), 0.0);
    const auto overlap = [&blocks](int k, double a, double b) {
        return std::max(0.0, std::min(b, blocks.to(k)) - std::max(a, blocks.from(k)));
    };
    for (const Slice& s : e.slices)
        for (int k = blocks.of(s.a); k <= blocks.of(s.b) && k < n; ++k)
            joules[std::size_t(k)] += s.joules * overlap(k, s.a, s.b) / (s.b - s.a);
    for (const RunRecord* r : view.records) {
        const Interval i = requestInterval(*r);
        const double count = double(r->request.metrics.completionTokens.value.value_or(0));
        if (i.endMs <= i.startMs) {
            generated[std::size_t(blocks.of(i.startMs))] += count;
            continue;
        }
        for (int k = blocks.of(i.startMs); k <= blocks.of(i.endMs) && k < n; ++k)
            generated[std::size_t(k)] += count * overlap(k, i.startMs, i.endMs) / (i.endMs - i.startMs);
    }
    double batch = 0;
    std::vector<double> power;
    for (int k = 0; k < n; ++k) {
        const double z = joules[std::size_t(k)] / e.joules - generated[std::size_t(k)] / tokens;
        batch += z * z;
        served[std::size_t(k)] = overlapMs(view.serving, blocks.from(k), blocks.to(k));
        if (served[std::size_t(k)] > 0)
            power.push_back(joules[std::size_t(k)] / served[std::size_t(k)]);
    }
    batch *= double(n) / double(n - 1);
    // Which side of an edge of serving a step belongs to, when a step can straddle one (a counter
    // that moves in steps) or its interval is shared out by time (no idle power known): uniform
    // over one step, ±0.29 of it.
    const bool edgesBlur = e.stepped || !e.idleW;
    const double edge = edgesBlur ? 0.29 * e.meanStepJ * std::sqrt(2.0 * e.episodes) / e.joules : 0;
    double meanPower = 0;
    for (const double p : power)
        meanPower += p / double(power.size());
    const double gap = (1 - *u.coverage) * (meanPower > 0 ? standardDeviation(power) / meanPower : 0);
    setSpread(u, e.joules / tokens, std::sqrt(batch + edge * edge + gap * gap), n);
    return u;
}

/// Joules spent while this endpoint was serving ÷ the completion tokens of all its records.
void computeEnergy(const EndpointView& view, EndpointResources& out)
{
    double tokens = 0;
    for (const RunRecord* r : view.records)
        tokens += double(r->request.metrics.completionTokens.value.value_or(0));
    const double servingMs = totalMs(view.serving);
    if (tokens <= 0 || servingMs <= 0)
        return;
    const SourceSamples* source = sourceWith(view, MetricRole::GpuEnergy);
    const bool counter = source != nullptr;
    if (!counter)
        source = sourceWith(view, MetricRole::GpuPower);
    if (!source)
        return;
    const double period = samplePeriod(*source);
    int blanks = 0;
    Energy e;
    if (counter) {
        const RoleTable t = roleTable(*source, MetricRole::GpuEnergy);
        blanks = t.blanks;
        e = counterEnergy(view, *source, t, period);
    } else {
        const Gauge g = gauge(*source, MetricRole::GpuPower);
        blanks = g.blanks;
        e = gaugeEnergy(view, g, period);
    }
    const QString where = figureSource(e.family, source->source->url);
    if (blanks > 0)
        out.notes << blankNote(where, blanks);
    if (!e.missing.isEmpty()) {
        out.notes << QStringLiteral("%1: %2: energy per token not measured").arg(where, e.missing);
        return;
    }
    if (e.pairs == 0 || e.coveredMs <= 0)
        return;
    ResourceFigure f;
    f.value = std::max(0.0, e.joules) / tokens;
    f.samples = e.pairs;
    scope(f, *source, e.gpus);
    f.uncertainty = energyUncertainty(view, e, tokens, period, *source);
    f.source = (counter ? QStringLiteral("%1: Δ of the energy counter")
                        : QStringLiteral("%1 integrated over time "
                                         "(trapezoids; no energy "
                                         "counter)"))
                   .arg(where)
        + QStringLiteral(" over the %1 s of serving the samples covered").arg(e.coveredMs / 1000.0, 0, 'f', 1)
        + (f.uncertainty.scaled ? QStringLiteral(", scaled to all %1 s (serving ÷ covered time)")
                                      .arg(servingMs / 1000.0, 0, 'f', 1)
                                : QString())
        + QStringLiteral(" ÷ %1 completion tokens (warm-ups included: they spent energy too)")
              .arg(tokens, 0, 'f', 0)
        + (e.idleW
                ? QStringLiteral("; idle power %1 W (from %2) taken out of the idle part of those intervals")
                      .arg(*e.idleW, 0, 'f', 1)
                      .arg(e.idleFrom)
                : QString());
    out.energyPerToken = f;
    if (e.resets > 0)
        out.notes << QStringLiteral(
            "%1 went down %2 times (counter reset): those intervals are left out of the "
            "energy per token")
                         .arg(where)
                         .arg(e.resets);
    if (e.stepped)
        out.notes << QStringLiteral(
            "%1 moves in steps (about every %2 s): a step that landed after serving "
            "ended, before this endpoint's next request or within %2 s, is counted as "
            "that serving's")
                         .arg(where)
                         .arg(e.updateMs / 1000.0, 0, 'f', 1);
    if (counter && !e.idleW)
        out.notes << QStringLiteral("%1: no idle power could be told apart (no idle stretch long enough, no "
                                    "power gauge that agrees with the counter): up to %2 s of idle energy "
                                    "after each stretch of serving may be in the energy per token")
                         .arg(where)
                         .arg(e.updateMs / 1000.0, 0, 'f', 1);
    if (e.stepped && e.afterMs < e.updateMs)
        out.notes << QStringLiteral(
            "%1 was last read %2 s after the last request ended, sooner than it moves "
            "(about every %3 s): the step of the last requests may be missing, and "
            "energy per token read low")
                         .arg(where)
                         .arg(std::max(0.0, e.afterMs) / 1000.0, 0, 'f', 1)
                         .arg(e.updateMs / 1000.0, 0, 'f', 1);
    if (f.uncertainty.scaled)
        out.notes << QStringLiteral(
            "energy per token rests on %1 % of the serving time (failed scrapes, blank readings or "
            "a counter reset left the rest uncovered): its joules are scaled by serving ÷ covered "
            "time, as if the uncovered time drew the same power")
                         .arg(std::llround(100 * *f.uncertainty.coverage));
}

} // namespace

void computeGauges(const EndpointView& view, EndpointResources& out)
{
    computeMemory(view, out);
    out.gpuUtilizationMedian = servingMedian(view, MetricRole::GpuUtilization);
    computePower(view, out);
    computeEnergy(view, out);
    out.kvCachePeak = peakOver(view, MetricRole::KvCacheUsage);
    out.waitingPeak = peakOver(view, MetricRole::RequestsWaiting);
    for (const ResourceFigure* f : {&out.memoryPeak, &out.memoryIdle, &out.powerMedian, &out.energyPerToken})
        out.wholeMachine = out.wholeMachine || (f->value && f->wholeMachine);
}

} // namespace qs::resources

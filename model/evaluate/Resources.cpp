// SPDX-License-Identifier: MIT
#include "model/evaluate/Resources.h"

#include "model/core/Percentile.h"
#include "model/evaluate/ResourceParts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace qs {

namespace resources {

Interval requestInterval(const RunRecord& r)
{
    const RequestTiming& t = r.request.timing;
    const RequestMetrics& m = r.request.metrics;
    double duration = 0;
    if (t.endNs > 0 && t.t0Ns > 0 && t.endNs >= t.t0Ns)
        duration = double(t.endNs - t.t0Ns) / 1e6;
    else if (t.endNs > 0 && t.startNs > 0 && t.endNs >= t.startNs)
        duration = double(t.endNs - t.startNs) / 1e6;
    else if (m.streamEndMs)
        duration = *m.streamEndMs;
    else if (m.e2eMs)
        duration = *m.e2eMs;
    return {r.startOffsetMs, r.startOffsetMs + std::max(0.0, duration)};
}

std::vector<Interval> merged(std::vector<Interval> intervals)
{
    std::sort(intervals.begin(), intervals.end(),
        [](const Interval& a, const Interval& b) { return a.startMs < b.startMs; });
    std::vector<Interval> out;
    for (const Interval& i : intervals) {
        if (!out.empty() && i.startMs <= out.back().endMs)
            out.back().endMs = std::max(out.back().endMs, i.endMs);
        else
            out.push_back(i);
    }
    return out;
}

bool inside(const std::vector<Interval>& intervals, double atMs)
{
    // The last interval starting at or before atMs is the only one that can hold it.
    auto it = std::upper_bound(
        intervals.begin(), intervals.end(), atMs, [](double t, const Interval& i) { return t < i.startMs; });
    if (it == intervals.begin())
        return false;
    --it;
    return atMs <= it->endMs;
}

double overlapMs(const std::vector<Interval>& intervals, double a, double b)
{
    // Merged intervals are sorted by their ends too: skip those that end before `a` (an hour's run
    // has thousands, and every scrape interval asks).
    auto it = std::upper_bound(
        intervals.begin(), intervals.end(), a, [](double t, const Interval& i) { return t < i.endMs; });
    double covered = 0;
    for (; it != intervals.end() && it->startMs < b; ++it)
        covered += std::max(0.0, std::min(b, it->endMs) - std::max(a, it->startMs));
    return covered;
}

double totalMs(const std::vector<Interval>& intervals)
{
    double total = 0;
    for (const Interval& i : intervals)
        total += i.endMs - i.startMs;
    return total;
}

namespace {

/// Whether `other` (a source of another endpoint) reads GPUs that `s`'s figures include.
bool seesOurGpus(const SourceSamples& s, const TelemetrySource& other, int endpoint)
{
    if (other.endpoint == endpoint || scrapedUrl(other.url) != scrapedUrl(s.source->url))
        return false;
    // Our selection names our GPUs; another endpoint's figures on the same GPUs are its own
    // business, unless it names the very same ones.
    return s.selection.empty() || seriesSelectionOf(other.url) == std::optional(s.selection);
}

} // namespace

EndpointView::EndpointView(const RunResult& r, int e)
    : run(r)
    , endpoint(e)
{
    std::vector<Interval> all;
    std::map<int, std::vector<Interval>> levels;
    for (const RunRecord& rec : r.records) {
        if (rec.endpoint != e)
            continue;
        records.push_back(&rec);
        const Interval i = requestInterval(rec);
        all.push_back(i);
        levels[rec.concurrency].push_back(i);
    }
    serving = merged(std::move(all));
    for (auto& [level, intervals] : levels)
        byLevel.emplace_back(level, merged(std::move(intervals)));
    const Telemetry& t = r.telemetry;
    for (std::size_t i = 0; i < t.sources.size(); ++i) {
        if (t.sources[i].endpoint != e)
            continue;
        SourceSamples s {int(i), &t.sources[i], {}, nullptr, nullptr};
        if (const auto selection = seriesSelectionOf(s.source->url, &s.selectionError))
            s.selection = *selection;
        for (const TelemetrySource& other : t.sources)
            s.shared = s.shared || seesOurGpus(s, other, e);
        sources.push_back(std::move(s));
    }
    for (const TelemetrySample& s : t.samples) {
        for (SourceSamples& ss : sources) {
            if (ss.index != s.source)
                continue;
            ss.samples.push_back(&s);
            if (!s.ok())
                break;
            if (s.phase == TelemetrySample::Phase::IdleBefore && !ss.baselineBefore)
                ss.baselineBefore = &s;
            if (s.phase == TelemetrySample::Phase::IdleAfter)
                ss.baselineAfter = &s;
            break;
        }
    }
    for (SourceSamples& ss : sources) {
        std::stable_sort(ss.samples.begin(), ss.samples.end(),
            [](const TelemetrySample* a, const TelemetrySample* b) { return a->atMs < b->atMs; });
        if (!ss.baselineBefore || !ss.baselineAfter)
            ss.baselineBefore = ss.baselineAfter = nullptr;
    }
}

QString figureSource(const QString& family, const QString& url)
{
    return family + QStringLiteral(" @ ") + url;
}

std::vector<std::pair<const TelemetrySample*, double>> roleSeries(
    const SourceSamples& s, MetricRole role, QString* family)
{
    std::vector<std::pair<const TelemetrySample*, double>> out;
    for (const TelemetrySample* sample : s.samples) {
        QString found;
        if (const auto v = readRole(*s.source, *sample, role, &found, s.selection)) {
            if (family && family->isEmpty())
                *family = found;
            out.emplace_back(sample, *v);
        }
    }
    return out;
}

const SourceSamples* sourceWith(const EndpointView& view, MetricRole role)
{
    for (const SourceSamples& s : view.sources)
        for (const TelemetrySample* sample : s.samples)
            if (readRole(*s.source, *sample, role, nullptr, s.selection))
                return &s;
    return nullptr;
}

RoleTable roleTable(const SourceSamples& s, MetricRole role)
{
    RoleTable t;
    const std::size_t n = s.samples.size();
    for (std::size_t k = 0; k < n; ++k) {
        QString found;
        for (const SeriesReading& r : readRoleSeries(*s.source, *s.samples[k], role, s.selection, &found)) {
            if (!r.value)
                continue;
            if (t.family.isEmpty())
                t.family = found;
            const auto it = std::find(t.series.begin(), t.series.end(), r.series);
            const auto column = std::size_t(it - t.series.begin());
            if (it == t.series.end()) {
                t.series.push_back(r.series);
                t.values.emplace_back(n);
            }
            t.values[column][k] = r.value;
        }
    }
    for (std::size_t k = 0; k < n; ++k)
        if (s.samples[k]->ok())
            for (const auto& column : t.values)
                t.blanks += column[k] ? 0 : 1;
    return t;
}

std::vector<std::pair<const TelemetrySample*, double>> Gauge::series() const
{
    std::vector<std::pair<const TelemetrySample*, double>> out;
    for (std::size_t k = 0; k < perSample.size(); ++k)
        if (perSample[k])
            out.emplace_back(source->samples[k], *perSample[k]);
    return out;
}

Gauge gauge(const SourceSamples& s, MetricRole role)
{
    Gauge g;
    g.source = &s;
    g.perSample.resize(s.samples.size());
    const RoleTable t = roleTable(s, role);
    if (t.series.empty()) { // no per-series name (host memory), or nothing the selection keeps
        for (std::size_t k = 0; k < s.samples.size(); ++k)
            g.perSample[k] = readRole(
                *s.source, *s.samples[k], role, g.family.isEmpty() ? &g.family : nullptr, s.selection);
        return g;
    }
    g.family = t.family;
    g.gpus = int(t.series.size());
    g.blanks = t.blanks;
    const bool mean = role == MetricRole::GpuUtilization || role == MetricRole::GpuTemperature;
    for (std::size_t k = 0; k < s.samples.size(); ++k) {
        double sum = 0;
        bool complete = true;
        for (const auto& column : t.values) {
            complete = complete && column[k].has_value();
            sum += column[k].value_or(0);
        }
        if (complete)
            g.perSample[k] = mean ? sum / double(t.values.size()) : sum;
    }
    return g;
}

void scope(ResourceFigure& f, const SourceSamples& s, int gpus)
{
    // A node exporter's is the machine's; an exporter's GPUs are this endpoint's when the URL names
    // them, or when it reports one GPU that no other endpoint of the run reads.
    f.series = gpus;
    f.selection = s.selection.text();
    f.wholeMachine = gpus == 0 || s.shared || (s.selection.empty() && gpus > 1);
}

QString blankNote(const QString& where, int blanks)
{
    return QStringLiteral("%1: %2 readings of single GPUs were blank or missing (DCGM's sentinel): each is a "
                          "gap in that GPU's own series, not a zero")
        .arg(where)
        .arg(blanks);
}

double samplePeriod(const SourceSamples& s)
{
    std::vector<double> gaps;
    double last = std::numeric_limits<double>::quiet_NaN();
    for (const TelemetrySample* x : s.samples) {
        if (!x->ok())
            continue;
        if (!std::isnan(last) && x->atMs > last)
            gaps.push_back(x->atMs - last);
        last = x->atMs;
    }
    return percentile(std::move(gaps), 50).value_or(double(DefaultScrapeMs));
}

std::vector<double> goodTimes(const SourceSamples& s)
{
    std::vector<double> out;
    for (const TelemetrySample* x : s.samples)
        if (x->ok())
            out.push_back(x->atMs);
    return out;
}

double medianRequestMs(const EndpointView& view)
{
    std::vector<double> durations;
    for (const RunRecord* r : view.records) {
        const Interval i = requestInterval(*r);
        durations.push_back(i.endMs - i.startMs);
    }
    return percentile(std::move(durations), 50).value_or(0);
}

} // namespace resources

namespace {

using namespace resources;

QString seconds(double ms)
{
    return QString::number(ms / 1000.0, 'f', 1) + QStringLiteral(" s");
}

/// How finely a counter printed with 6 significant digits (llama-server's `%g`) is known.
double printQuantum(double value)
{
    if (!(std::abs(value) >= 1e6))
        return 0;
    return std::pow(10.0, std::floor(std::log10(std::abs(value))) - 5);
}

/// Δ of a counter role between a source's baselines, with the family used.
struct CounterDelta {
    double delta = 0;
    double quantum = 0;
    QString family;
    QString url;
};
std::optional<CounterDelta> counterDelta(const EndpointView& view, MetricRole role)
{
    for (const SourceSamples& s : view.sources) {
        if (!s.baselineBefore)
            continue;
        QString family;
        const auto before = readRole(*s.source, *s.baselineBefore, role, &family);
        const auto after = readRole(*s.source, *s.baselineAfter, role);
        if (before && after)
            return CounterDelta {*after - *before, printQuantum(*after), family, s.source->url};
    }
    return std::nullopt;
}

/// A counter or histogram count that went down between two good samples of one source: the
/// server restarted. Returns the note, or empty.
QString restartNote(const SourceSamples& s)
{
    static const MetricRole counters[]
        = {MetricRole::GeneratedTokens, MetricRole::PromptTokens, MetricRole::PromptTokensCached,
            MetricRole::Preemptions, MetricRole::PromptSeconds, MetricRole::PredictedSeconds};
    static const MetricRole histograms[] = {MetricRole::ServerTtft, MetricRole::ServerItl,
        MetricRole::ServerE2e, MetricRole::ServerQueue, MetricRole::ServerPrefill};
    std::map<MetricRole, std::pair<double, double>> last; // role → (value, atMs)
    for (const TelemetrySample* sample : s.samples) {
        if (!sample->ok())
            continue;
        const auto check = [&](MetricRole role, std::optional<double> v, const QString& family) -> QString {
            if (!v)
                return {};
            const auto it = last.find(role);
            if (it != last.end() && *v < it->second.first)
                return QStringLiteral(
                    "%1: %2 went down from %3 to %4 between %5 and %6: the server restarted, "
                    "so its counters over the run are not measured")
                    .arg(s.source->url, family)
                    .arg(it->second.first, 0, 'g', 10)
                    .arg(*v, 0, 'g', 10)
                    .arg(seconds(it->second.second), seconds(sample->atMs));
            last[role] = {*v, sample->atMs};
            return {};
        };
        for (const MetricRole role : counters) {
            QString family;
            const auto v = readRole(*s.source, *sample, role, &family);
            if (const QString note = check(role, v, family); !note.isEmpty())
                return note;
        }
        for (const MetricRole role : histograms) {
            const auto h = readHistogram(*s.source, *sample, role);
            if (const QString note = check(role, h ? std::optional<double>(h->count) : std::nullopt,
                    h ? h->family + QStringLiteral("_count") : QString());
                !note.isEmpty())
                return note;
        }
    }
    return {};
}

/// "URL failed 4 times between 12.3 s and 15.0 s: connection refused", one per run of failures.
QStringList gapNotes(const SourceSamples& s, int& failed)
{
    QStringList notes;
    std::size_t i = 0;
    while (i < s.samples.size()) {
        if (s.samples[i]->ok()) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < s.samples.size() && !s.samples[j + 1]->ok())
            ++j;
        const int n = int(j - i + 1);
        failed += n;
        notes << (n == 1
                ? QStringLiteral("%1 failed once at %2: %3")
                      .arg(s.source->url, seconds(s.samples[i]->atMs), s.samples[i]->error)
                : QStringLiteral("%1 failed %2 times between %3 and %4: %5")
                      .arg(s.source->url)
                      .arg(n)
                      .arg(seconds(s.samples[i]->atMs), seconds(s.samples[j]->atMs), s.samples[i]->error));
        i = j + 1;
    }
    return notes;
}

/// Samples where the server held more requests than the run had in flight to it (every endpoint
/// scraped at the same URL counts as "the run").
ForeignLoad foreignLoad(const EndpointView& view)
{
    // Generous windows: a gauge may lag (SGLang refreshes every few decode steps) and the scrape
    // is answered some time after it was sent.
    constexpr double lagMs = 1000;
    constexpr double leadMs = 50;
    ForeignLoad found;
    double worst = 0;
    const Telemetry& t = view.run.telemetry;
    for (const SourceSamples& s : view.sources) {
        std::vector<double> starts, ends;
        std::vector<int> sharing;
        for (const TelemetrySource& other : t.sources)
            if (other.url == s.source->url)
                sharing.push_back(other.endpoint);
        for (const RunRecord& r : view.run.records) {
            if (std::find(sharing.begin(), sharing.end(), r.endpoint) == sharing.end())
                continue;
            const Interval i = requestInterval(r);
            starts.push_back(i.startMs);
            ends.push_back(i.endMs);
        }
        std::sort(starts.begin(), starts.end());
        std::sort(ends.begin(), ends.end());
        for (const TelemetrySample* sample : s.samples) {
            QString runningFamily, waitingFamily;
            const auto running = readRole(*s.source, *sample, MetricRole::RequestsRunning, &runningFamily);
            const auto waiting = readRole(*s.source, *sample, MetricRole::RequestsWaiting, &waitingFamily);
            if (!running && !waiting)
                continue;
            const double a = sample->atMs - lagMs;
            const double b = sample->atMs + sample->durationMs + leadMs;
            // Requests overlapping [a, b]: started by b and not ended before a.
            const int inFlight = int(std::upper_bound(starts.begin(), starts.end(), b) - starts.begin())
                - int(std::lower_bound(ends.begin(), ends.end(), a) - ends.begin());
            const double held = running.value_or(0) + waiting.value_or(0);
            const double excess = held - inFlight;
            if (excess < 1)
                continue;
            ++found.samples;
            if (excess > worst) {
                worst = excess;
                found.atMs = sample->atMs;
                found.running = running.value_or(0);
                found.waiting = waiting.value_or(0);
                found.inFlight = inFlight;
                found.source = figureSource(
                    QStringList {runningFamily, waitingFamily}.join(QStringLiteral(" + ")), s.source->url);
            }
        }
    }
    return found;
}

std::optional<double> clientSum(const EndpointView& view, TokenCount RequestMetrics::*count)
{
    std::optional<double> sum;
    for (const RunRecord* r : view.records)
        if (const auto v = (r->request.metrics.*count).value)
            sum = sum.value_or(0) + double(*v);
    return sum;
}

void computeCounters(const EndpointView& view, EndpointResources& out)
{
    if (const auto g = counterDelta(view, MetricRole::GeneratedTokens)) {
        out.serverGeneratedTokens = g->delta;
        out.generatedTokensQuantum = g->quantum;
    }
    if (const auto p = counterDelta(view, MetricRole::PromptTokens)) {
        // llama-server counts only the prompt tokens it computed; its cache hits are a second counter.
        const bool split = p->family.startsWith(QStringLiteral("llamacpp:"));
        const auto cached = split ? counterDelta(view, MetricRole::PromptTokensCached) : std::nullopt;
        if (!split) {
            out.serverPromptTokens = p->delta;
            out.promptTokensQuantum = p->quantum;
        } else if (cached) {
            out.serverPromptTokens = p->delta + cached->delta;
            out.promptTokensQuantum = p->quantum + cached->quantum;
        } else {
            out.notes << QStringLiteral(
                "%1 counts only the prompt tokens computed (cache hits excluded) and this "
                "build has no llamacpp:prompt_tokens_cached_total: server prompt tokens "
                "not measured")
                             .arg(figureSource(p->family, p->url));
        }
    }
    if (const auto p = counterDelta(view, MetricRole::Preemptions))
        out.preemptions = p->delta;
    const double servingS = totalMs(view.serving) / 1000.0;
    if (servingS > 0 && out.serverGeneratedTokens)
        out.serverGeneratedPerSecond = *out.serverGeneratedTokens / servingS;
    if (servingS > 0 && out.clientGeneratedTokens)
        out.clientGeneratedPerSecond = *out.clientGeneratedTokens / servingS;
    bool anyBaseline = false;
    for (const SourceSamples& s : view.sources)
        anyBaseline = anyBaseline || s.baselineBefore;
    if (!view.sources.empty() && !anyBaseline)
        out.notes << QStringLiteral(
            "no good idle sample both before the first and after the last request (run "
            "interrupted, or the sources failed): the server's counters over the run are "
            "not measured");
}

/// Where the GPU figures are the whole machine's for want of a selection, or a selection matched
/// no GPU: what to write instead.
QStringList scopeNotes(const EndpointView& view, const EndpointResources& out)
{
    QStringList notes;
    for (const SourceSamples& s : view.sources) {
        // Figures name their page as "FAMILY @ URL" (energy goes on with ": …").
        const QString at = QStringLiteral(" @ ") + s.source->url;
        int gpus = 0;
        for (const ResourceFigure* f : {&out.memoryPeak, &out.powerMedian, &out.energyPerToken})
            if (f->value && (f->source.endsWith(at) || f->source.contains(at + u':')))
                gpus = std::max(gpus, f->series);
        if (s.selection.empty() && gpus > 1)
            notes << QStringLiteral(
                "%1 reports %2 GPUs and its URL names none of them: this endpoint's GPU memory, power "
                "and energy are all %2 GPUs' (the whole machine's, whatever else runs there); name "
                "its GPUs after the URL, e.g. %1#gpu=0 (or #UUID=…), to attribute them")
                         .arg(scrapedUrl(s.source->url))
                         .arg(gpus);
        if (s.selection.empty())
            continue;
        // A selection that keeps no GPU series of the page leaves its GPU figures unmeasured.
        QStringList seen;
        bool kept = false;
        for (const TelemetrySeries& series : s.source->series) {
            if (!series.name.startsWith(QStringLiteral("DCGM_FI_")))
                continue;
            kept = kept || s.selection.matches(series);
            for (const auto& [label, values] : s.selection.terms)
                if (const QString v = series.label(label); !v.isEmpty() && !seen.contains(label + u'=' + v))
                    seen << label + u'=' + v;
        }
        if (!kept && !seen.isEmpty())
            notes << QStringLiteral(
                "%1: the selection #%2 matches none of the page's GPUs (it has %3): its GPU "
                "figures are not measured")
                         .arg(scrapedUrl(s.source->url), s.selection.text(), seen.join(QStringLiteral(", ")));
    }
    return notes;
}

void dropCounterFigures(EndpointResources& out)
{
    out.serverGeneratedTokens.reset();
    out.serverPromptTokens.reset();
    out.serverGeneratedPerSecond.reset();
    out.preemptions.reset();
    out.generatedTokensQuantum = out.promptTokensQuantum = 0;
    out.serverLatency.clear();
}

EndpointResources computeEndpoint(const RunResult& result, int e)
{
    const EndpointView view(result, e);
    EndpointResources out;
    out.endpoint = e;
    out.label = result.endpoints[std::size_t(e)].endpoint.displayName();
    for (const SourceSamples& s : view.sources)
        if (!out.sources.contains(s.source->url))
            out.sources << s.source->url;
    out.clientGeneratedTokens = clientSum(view, &RequestMetrics::completionTokens);
    out.clientPromptTokens = clientSum(view, &RequestMetrics::promptTokens);
    computeTtftBreakdown(view, out); // llama-server's timings need no scraping
    if (view.sources.empty())
        return out;
    for (const SourceSamples& s : view.sources) {
        if (!s.selectionError.isEmpty())
            out.notes << QStringLiteral("%1: %2; its figures are read as the whole machine's")
                             .arg(scrapedUrl(s.source->url), s.selectionError);
        for (const TelemetrySource& other : result.telemetry.sources) {
            if (!seesOurGpus(s, other, e) || other.endpoint < 0
                || std::size_t(other.endpoint) >= result.endpoints.size())
                continue;
            out.notes << QStringLiteral(
                "%1 is also scraped for \"%2\": its figures are the machine's, covering "
                "both servers")
                             .arg(s.source->url,
                                 result.endpoints[std::size_t(other.endpoint)].endpoint.displayName());
        }
    }
    computeGauges(view, out);
    out.notes << scopeNotes(view, out);
    computeCounters(view, out);
    computeServerLatency(view, out);
    for (const SourceSamples& s : view.sources) {
        if (const QString note = restartNote(s); !note.isEmpty()) {
            out.restarted = true;
            out.notes << note;
        }
    }
    if (out.restarted)
        dropCounterFigures(out);
    out.foreignLoad = foreignLoad(view);
    for (const SourceSamples& s : view.sources) {
        // The recorder notes when a source goes down and comes back; a file without those notes
        // still gets the gaps from its samples, but one gap is never told twice.
        const QStringList gaps = gapNotes(s, out.failedScrapes);
        if (s.source->notes.isEmpty())
            out.notes << gaps;
        for (const QString& note : s.source->notes)
            out.notes << s.source->url + QStringLiteral(": ") + note;
    }
    return out;
}

} // namespace

ResourceReport computeResources(const RunResult& result)
{
    ResourceReport report;
    report.collected = !result.telemetry.empty();
    for (std::size_t e = 0; e < result.endpoints.size(); ++e)
        report.endpoints.push_back(computeEndpoint(result, int(e)));
    return report;
}

const EndpointResources* findResources(const ResourceReport& report, int endpoint)
{
    for (const EndpointResources& e : report.endpoints)
        if (e.endpoint == endpoint)
            return &e;
    return nullptr;
}

} // namespace qs

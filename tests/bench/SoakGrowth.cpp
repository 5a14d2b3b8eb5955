// SPDX-License-Identifier: MIT
#include "tests/bench/SoakGrowth.h"

#include "model/evaluate/TurnScaling.h"

#include <QTextStream>
#include <algorithm>

namespace qs::test {

namespace {

constexpr double MiB = 1024.0 * 1024.0;

double slopeOf(const std::vector<double>& x, const std::vector<double>& y)
{
    const std::optional<LinearFit> fit = fitLine(x, y);
    return fit ? fit->slope : 0;
}

QString fixed(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}

} // namespace

SoakGrowth measureGrowth(const SoakResult& r)
{
    SoakGrowth g;
    const std::vector<SoakSample>& s = r.samples;
    if (s.empty())
        return g;
    g.requests = s.back().requests;
    g.requestsPerS = s.back().atS > 0 ? g.requests / s.back().atS : 0;
    const std::size_t half = s.size() / 2;
    std::vector<double> requests, seconds, heap, rss;
    for (std::size_t i = half; i < s.size(); ++i) {
        requests.push_back(s[i].requests);
        seconds.push_back(s[i].atS);
        heap.push_back(s[i].process.heapMiB);
        rss.push_back(s[i].process.rssMiB);
        g.fdsMax = std::max(g.fdsMax, s[i].process.fds);
        g.threadsMax = std::max(g.threadsMax, s[i].process.threads);
    }
    g.samplesFitted = int(requests.size());
    g.heapKiBPer1000Requests = slopeOf(requests, heap) * 1024 * 1000;
    g.rssKiBPer1000Requests = slopeOf(requests, rss) * 1024 * 1000;
    g.heapMiBPerHour = slopeOf(seconds, heap) * 3600;
    g.rssMiBPerHour = slopeOf(seconds, rss) * 3600;
    g.fdsAfterWarmup = s[half].process.fds;
    g.threadsAfterWarmup = s[half].process.threads;
    g.fdsBaseline = r.baseline.fds;
    g.fdsReleased = r.released.fds;
    g.threadsBaseline = r.baseline.threads;
    g.threadsReleased = r.released.threads;
    if (r.records > 0)
        g.heldBytesPerRecord = (r.ended.heapMiB - r.released.heapMiB) * MiB / r.records;
    g.residueMiB = r.released.heapMiB - r.baseline.heapMiB;
    g.residueBytesPerRequest = g.requests > 0 ? g.residueMiB * MiB / g.requests : 0;
    g.latenessP99Ms = r.lateness.percentile(99);
    g.latenessWorstMs = r.lateness.max();
    return g;
}

QStringList clearGrowth(const SoakResult& r, const SoakGrowth& g, const SoakLimits& limits)
{
    QStringList broken;
    if (!r.error.isEmpty())
        return {r.error};
    if (g.samplesFitted < 10 || g.requests < 100)
        broken << QStringLiteral("too short to judge: %1 samples fitted, %2 requests")
                      .arg(g.samplesFitted)
                      .arg(g.requests);
    const double residueLimitMiB
        = std::max(limits.residueFloorMiB, limits.residueBytesPerRequest * g.requests / MiB);
    if (g.residueMiB > residueLimitMiB)
        broken << QStringLiteral("heap not released: %1 MiB still allocated after the window closed "
                                 "(%2 bytes per request; limit %3 MiB)")
                      .arg(fixed(g.residueMiB, 1), fixed(g.residueBytesPerRequest, 0),
                          fixed(residueLimitMiB, 1));
    const double liveLimit = limits.liveCopies * r.recordBytes / 1024 * 1000;
    if (r.recordBytes > 0 && g.heapKiBPer1000Requests > liveLimit)
        broken << QStringLiteral("heap grows %1 KiB per 1000 requests during the run, over %2 copies of the "
                                 "%3 bytes a record is (limit %4 KiB)")
                      .arg(fixed(g.heapKiBPer1000Requests, 0), fixed(limits.liveCopies, 2),
                          fixed(r.recordBytes, 0), fixed(liveLimit, 0));
    const double heldLimit
        = limits.heldCopies * r.recordBytes + limits.heldFloorMiB * MiB / std::max(g.requests, 1);
    if (r.recordBytes > 0 && g.heldBytesPerRecord > heldLimit)
        broken << QStringLiteral("the finished run is held more than %1 times: %2 bytes per record while "
                                 "shown, one plain copy is %3 (limit %4 with the views' fixed %5 MiB)")
                      .arg(fixed(limits.heldCopies, 1), fixed(g.heldBytesPerRecord, 0),
                          fixed(r.recordBytes, 0), fixed(heldLimit, 0), fixed(limits.heldFloorMiB, 0));
    if (g.fdsReleased - g.fdsBaseline > limits.extraFds)
        broken << QStringLiteral("descriptors leak: %1 open after the window closed, %2 before the run")
                      .arg(g.fdsReleased)
                      .arg(g.fdsBaseline);
    if (g.fdsMax - g.fdsAfterWarmup > limits.fdDrift)
        broken << QStringLiteral("descriptors grow during the run: %1 after warm-up, up to %2 later")
                      .arg(g.fdsAfterWarmup)
                      .arg(g.fdsMax);
    if (g.threadsMax - g.threadsAfterWarmup > limits.threadDrift)
        broken << QStringLiteral("threads grow during the run: %1 after warm-up, up to %2 later")
                      .arg(g.threadsAfterWarmup)
                      .arg(g.threadsMax);
    if (g.threadsReleased - g.threadsBaseline > limits.threadDrift)
        broken << QStringLiteral("threads leak: %1 after the window closed, %2 before the run")
                      .arg(g.threadsReleased)
                      .arg(g.threadsBaseline);
    if (r.worstBusyMs > limits.guiBusyMs)
        broken << QStringLiteral("the GUI thread worked %1 ms without returning to the event loop "
                                 "during the live run (limit %2 ms)")
                      .arg(fixed(r.worstBusyMs, 1), fixed(limits.guiBusyMs, 0));
    return broken;
}

QString describeGrowth(const SoakResult& r, const SoakGrowth& g)
{
    QString text;
    QTextStream out(&text);
    const SoakSample& last = r.samples.empty() ? SoakSample {} : r.samples.back();
    out << "requests: " << g.requests << " finished in " << fixed(r.runS, 0) << " s ("
        << fixed(g.requestsPerS, 1) << "/s), " << last.failed << " failed; saved result: " << r.records
        << " records\n";
    out << "failures by kind:";
    for (const auto& [kind, n] : r.failuresByKind)
        out << ' ' << kind << ' ' << n;
    out << "\n";
    out << "RSS MiB: baseline " << fixed(r.baseline.rssMiB, 1) << ", window open " << fixed(r.idle.rssMiB, 1)
        << ", end of run " << fixed(last.process.rssMiB, 1) << ", shown " << fixed(r.ended.rssMiB, 1)
        << ", window closed " << fixed(r.released.rssMiB, 1) << "\n";
    out << "heap MiB: baseline " << fixed(r.baseline.heapMiB, 1) << ", window open "
        << fixed(r.idle.heapMiB, 1) << ", end of run " << fixed(last.process.heapMiB, 1) << ", shown "
        << fixed(r.ended.heapMiB, 1) << ", window closed " << fixed(r.released.heapMiB, 1) << "\n";
    out << "growth over the second half (" << g.samplesFitted << " samples, least squares): heap "
        << fixed(g.heapMiBPerHour, 1) << " MiB/h = " << fixed(g.heapKiBPer1000Requests, 0)
        << " KiB per 1000 requests; RSS " << fixed(g.rssMiBPerHour, 1)
        << " MiB/h = " << fixed(g.rssKiBPer1000Requests, 0) << " KiB per 1000 requests\n";
    const double copy = r.recordBytes > 0 ? r.recordBytes : 1;
    out << "one plain copy of a record (the saved file loaded again): " << fixed(r.recordBytes, 0)
        << " bytes; live growth per request " << fixed(g.heapKiBPer1000Requests * 1.024 / copy, 2)
        << " copies; a finished record while shown " << fixed(g.heldBytesPerRecord, 0) << " bytes ("
        << fixed(g.heldBytesPerRecord / copy, 2) << " copies)\n";
    out << "residue after the window closed: " << fixed(g.residueMiB, 2) << " MiB ("
        << fixed(g.residueBytesPerRequest, 1) << " bytes per request)\n";
    out << "descriptors: baseline " << g.fdsBaseline << ", after warm-up " << g.fdsAfterWarmup << ", max "
        << g.fdsMax << ", window closed " << g.fdsReleased << "; threads: baseline " << g.threadsBaseline
        << ", after warm-up " << g.threadsAfterWarmup << ", max " << g.threadsMax << ", window closed "
        << g.threadsReleased << "\n";
    out << "GUI event loop (5 ms timer, " << r.lateness.count() << " ticks): lateness p99 "
        << fixed(g.latenessP99Ms, 2) << " ms, worst " << fixed(g.latenessWorstMs, 1)
        << " ms; GUI-thread CPU between two ticks, worst " << fixed(r.worstBusyMs, 1)
        << " ms; stop + save + evaluation: worst lateness " << fixed(r.endWorstLatenessMs, 1) << " ms, CPU "
        << fixed(r.endWorstBusyMs, 1) << " ms\n";
    out << "emulators' own served-request log (cleared every sample; priming run): "
        << fixed(r.emulatorBytesPerRequest, 0) << " bytes per request\n";
    return text;
}

} // namespace qs::test

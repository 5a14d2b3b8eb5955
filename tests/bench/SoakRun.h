// SPDX-License-Identifier: MIT
#pragma once
// A soak run: hours' worth of requests compressed into minutes, with the dashboard open on the
// live run, to see whether anything grows that should stay flat (docs/benchmarks.md, "Soak").
//
// Three emulated endpoints (llama-server, vLLM, SGLang legacy era) on threads of their own
// answer a mix of fast, long, stalling and faulty streams (SoakMix). The real MainWindow
// (offscreen) runs one long suite through its Run action at the requested concurrency, and the
// process is sampled every second: resident memory, heap in use, descriptors, threads, GUI
// event-loop lateness and GUI-thread CPU per tick (EventLoopProbe), requests finished.
//
// Around the run, a leak check that data held by design cannot blur: a short warm-up run in a
// first window primes Qt's caches, that window is closed and the heap measured (`baseline`);
// after the soak run its window is closed too (`released`). Whatever the run made and the
// window's end did not free is the residue.

#include "tests/bench/ProcessSample.h"

#include <QString>
#include <functional>
#include <map>
#include <vector>

namespace qs::test {

struct SoakConfig {
    int durationS = 1800; ///< the measured run; then it is stopped and saved as a user would
    int concurrency = 64; ///< conversations in flight (the run panel's concurrency)
    int warmupRunS = 10; ///< the first window's priming run (0: none)
    int sampleMs = 1000;
    QString keepPath; ///< where to copy the saved results file (`--keep`); empty: not kept
};

/// One sample of the process while the run goes on. The GUI figures cover the interval since
/// the previous sample.
struct SoakSample {
    double atS = 0; ///< since the run was started
    int requests = 0; ///< finished (ok or failed)
    int failed = 0;
    ProcessSample process;
    double worstLatenessMs = 0; ///< the latest a 5 ms GUI timer fired in the interval
    double worstBusyMs = 0; ///< the most GUI-thread CPU between two ticks in the interval
};

/// GUI timer lateness over the whole run, in constant memory (a soak must not grow itself).
class LatenessHistogram {
public:
    void add(double ms);
    double percentile(double p) const; ///< p in 0..100; upper edge of the bucket it falls in
    double max() const { return m_max; }
    long long count() const { return m_count; }

private:
    static constexpr double bucketMs = 0.25;
    std::vector<long long> m_buckets = std::vector<long long>(8000); ///< up to 2 s, then the last
    long long m_count = 0;
    double m_max = 0;
};

struct SoakResult {
    QString error; ///< non-empty: the soak could not be carried out (nothing below is meaningful)
    ProcessSample baseline; ///< priming window closed, heap trimmed: before the soak window opened
    ProcessSample idle; ///< soak window open, run not started
    std::vector<SoakSample> samples; ///< every sampleMs while the run went on
    ProcessSample ended; ///< run stopped, saved, evaluated and shown
    ProcessSample released; ///< soak window closed, heap trimmed
    int records = 0; ///< in the saved result
    std::map<QString, int> failuresByKind; ///< failureKindId → count (cancelled: the stop)
    double runS = 0;
    LatenessHistogram lateness;
    double worstBusyMs = 0;
    /// After the duration: the stop, the save and the evaluation of everything recorded.
    double endWorstLatenessMs = 0;
    double endWorstBusyMs = 0;
    /// One record's heap as a single plain copy (the saved file loaded again), for comparison
    /// with what a record costs in the window (SoakGrowth::heldBytesPerRecord).
    double recordBytes = 0;
    /// Heap the emulators' own log of served requests holds per request (measured on the
    /// priming run; the soak clears it every sample, as it is the emulator's, not the app's).
    double emulatorBytesPerRequest = 0;
};

/// Runs the soak. Needs a QApplication; sets XDG_DATA_HOME/XDG_CONFIG_HOME to a temporary
/// folder while it runs (results are saved there, then deleted). `onSample` sees each sample.
SoakResult runSoak(const SoakConfig& config, const std::function<void(const SoakSample&)>& onSample = {});

} // namespace qs::test

// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Endpoint.h"
#include "model/core/JsonInterner.h"
#include "model/core/Judging.h"
#include "model/core/RequestRecord.h"
#include "model/core/SharedItems.h"
#include "model/core/Telemetry.h"

#include <QDateTime>
#include <QString>
#include <nlohmann/json.hpp>
#include <vector>

namespace qs {

/// One request of a run: where it sat in the plan, and everything measured about it.
struct RunRecord {
    int endpoint = 0; ///< index into RunResult::endpoints
    QString test; ///< SuiteTest::id
    int turn = 1; ///< 1-based turn of a conversation (1 for single-prompt tests)
    int iteration = 1; ///< 1-based; warm-ups and measured runs are numbered separately
    bool warmup = false; ///< warm-ups are stored but never enter statistics
    int concurrency = 1; ///< requests the runner kept in flight when this one ran
    double startOffsetMs = 0; ///< this request's t0 relative to the run's start (monotonic)
    QDateTime startedAt; ///< wall-clock time of t0, UTC (for reading, not for measuring)
    RequestRecord request;
    /// Gate name → true / false / null. Shared between copies of the record, as are gateDetails and
    /// the request body (SharedJson): they are most of a record's memory.
    SharedJson gates = SharedJson::emptyObject();
    SharedJson gateDetails = SharedJson::emptyObject(); ///< reasons and character ranges
};

/// Shares the record's request body, gate verdicts, test id and the short texts every response
/// repeats (labels, content type, server, finish reason, role, model, fingerprint) with equal ones
/// already in `pool`: how the runner and the loaders keep a long run's records at the cost of
/// their own measurements.
void internJson(RunRecord& record, JsonInterner& pool);

/// A run's records: copies share them (SharedItems), so the runner, the dashboard's growing copy
/// and every snapshot of a live run hold each record once.
using RecordList = SharedItems<RunRecord>;
/// One finished record, shared read-only between the runner and whoever shows it.
using SharedRecord = std::shared_ptr<const RunRecord>;

enum class RunOrder {
    Interleaved, ///< per test, endpoints alternate A B, B A, … so drift hits every arm alike
    Sequential, ///< all of endpoint A, then all of B
    Parallel, ///< every endpoint at once, each in its own lane (endpoints on separate machines)
};
QString runOrderId(RunOrder order); ///< "interleaved", "sequential", "parallel"
std::optional<RunOrder> runOrderFromId(const QString& id);

struct RunSettings {
    int warmup = -1; ///< -1 = the suite's (per test) value
    int runs = -1; ///< -1 = the suite's value
    RunOrder order = RunOrder::Interleaved;
    int concurrency = 1; ///< requests in flight per endpoint (ignored by a suite's concurrency sweep)
    std::optional<int> maxTokens; ///< overrides the suite and its tests
    quint64 seed = 1; ///< fixes the plan's order (which arm goes first, test order)
    int requestTimeoutMs = 0; ///< total per request; 0 = the endpoint's own timeouts only
    /// Scrape every endpoint's `/metrics` and extra metrics URLs during the run
    /// (`--no-server-metrics` turns it off).
    bool serverMetrics = true;
    int scrapeMs = DefaultScrapeMs; ///< scrape period (`--scrape-ms`)
    /// Run only this many distinct prompts of each category, drawn with `seed`
    /// (`--prompts-per-category`; the demo's short run); 0 runs every test of the suite.
    int promptsPerCategory = 0;
};

/// An endpoint as the run saw it: its description (never a key), how the user named it, and
/// what the probe found.
struct RunEndpoint {
    Endpoint endpoint;
    QString spec; ///< as given, e.g. "sim:nvfp4-like" or "http://10.0.0.5:8000"
    bool simulated = false;
    nlohmann::json probe = nlohmann::json::object(); ///< toJson(ProbeResult)
    /// The fidelity reference (`run --reference NAME`): every other arm's next-token choices are
    /// compared with this one's (e.g. BF16 on vLLM). At most one endpoint of a run is; with none,
    /// fidelity is measured against the baseline.
    bool reference = false;
};

/// A whole run: what was asked, of whom, and every request. This is what a results file holds.
struct RunResult {
    QString toolVersion;
    QString host;
    QDateTime startedAt; ///< UTC
    QDateTime endedAt; ///< UTC; invalid while running
    nlohmann::json suite; ///< the suite as run (Suite::raw plus its source)
    RunSettings settings;
    std::vector<RunEndpoint> endpoints;
    RecordList records;
    Telemetry telemetry; ///< what the servers spent (empty when not scraped)
    Judging judging; ///< what an LLM judge said of the answers (empty when none judged)
    bool complete = false; ///< false for a cancelled run or one recovered from a journal
    QString note; ///< e.g. "recovered from run.json.journal; 3 requests were in flight"
    /// What the user said of this run (`run --note`), e.g. "strategy B: MLP-only, 500 Annie
    /// conversations"; a campaign shows it beside the attempt.
    QString userNote;
    /// `run --until-decided`: the profile, the budget, why it stopped and every look taken
    /// (model/decide/Sequential.h reads and writes it); null for a run of a fixed size. Its number
    /// of looks sets the level every later verdict of this file is computed at.
    nlohmann::json untilDecided;
};

/// The endpoint marked as the fidelity reference, or -1 when none is (the first, if a hand-edited
/// file marks several).
int referenceEndpoint(const RunResult& result);

/// The endpoint `indexOrLabel` names: an index ("1") or a label (Endpoint::displayName(), exact).
/// -1 when it names none. How `--baseline` and the dashboard's baseline picker find an endpoint.
int findEndpoint(const RunResult& result, const QString& indexOrLabel);

} // namespace qs

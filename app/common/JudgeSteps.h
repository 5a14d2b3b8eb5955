// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Rubric.h"
#include "model/core/RunRecord.h"
#include "model/wire/EndpointProbe.h"

#include <QCommandLineParser>
#include <QString>
#include <optional>

// Judging from the command line, shared by `quantscope judge` and `quantscope run --judge`.

namespace qs::app {

struct JudgeCliOptions {
    QString spec; ///< --judge SPEC, as for run --endpoint
    std::optional<Rubric> rubric; ///< --rubric NAME|FILE
    QString pairwiseBaseline; ///< --pairwise BASELINE (an endpoint label or index); empty: none
    int concurrency = 2;
    int timeoutMs = 120000;
    int maxTokens = 1024;
    qint64 seed = 1;
    bool quiet = false;
};

/// --judge, --rubric, --pairwise, --judge-concurrency, --judge-timeout-ms, --judge-max-tokens,
/// --judge-seed.
void addJudgeOptions(QCommandLineParser& parser);
/// nullopt with an empty `error` when --judge is not given; nullopt with `error` set when a value
/// is wrong (the message says what to type instead).
std::optional<JudgeCliOptions> judgeOptionsFrom(const QCommandLineParser& parser, QString& error);

/// The judge's identity from what was asked (`spec`), what it resolved to and what its probe found.
JudgeIdentity judgeIdentity(
    const QString& spec, const RunEndpoint& resolved, const ProbeResult& probe, qint64 seed);

/// Judges `result` with the judge `options` name, printing progress to stderr, and saves it to
/// `outPath` every few seconds and at the end (so a killed judging keeps what was judged, and the
/// same command resumes it). Ctrl+C stops cleanly. Returns the exit code: 0 judged (failures of
/// single judgements are part of the result and are counted), 1 the judge could not be used or
/// the file not written, 2 a wrong argument (e.g. --pairwise names no endpoint).
int judgeAndSave(
    RunResult& result, const JudgeCliOptions& options, const QString& outPath, const char* command);

} // namespace qs::app

// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/cli/RescueSave.h"
#include "app/cli/RunLike.h"
#include "app/cli/Terminal.h"
#include "app/common/EndpointSpec.h"
#include "app/common/JudgeSteps.h"
#include "model/core/Suite.h"
#include "model/decide/Sequential.h"
#include "model/run/RunController.h"
#include "model/run/RunPlan.h"
#include "model/run/SuiteComposition.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTextStream>
#include <QTimer>
#include <algorithm>

namespace qs::app {

namespace {
// `--reference`: marks the endpoint it names: an index, its label as saved, or the name= it was
// given (a simulated one's label gains " (simulated)"). An error when it names none.
QString markReference(
    const QCommandLineParser& p, const std::vector<EndpointSpec>& specs, RunRequest& request)
{
    RunResult given;
    given.endpoints = request.endpoints;
    QString error;
    std::optional<int> reference = endpointFrom(p, "reference", given, error);
    if (!reference) {
        const QString wanted = p.value(QStringLiteral("reference"));
        const auto byName = std::find_if(
            specs.begin(), specs.end(), [&](const EndpointSpec& s) { return s.name == wanted; });
        if (byName == specs.end())
            return error;
        reference = int(byName - specs.begin());
    }
    if (*reference < 0)
        return {};
    request.endpoints[std::size_t(*reference)].reference = true;
    const bool anyFidelity = std::any_of(request.suite.tests.begin(), request.suite.tests.end(),
        [](const SuiteTest& t) { return t.fidelity; });
    if (!anyFidelity)
        QTextStream(stderr) << "note: --reference marks the endpoint the fidelity tests are compared with, "
                               "but suite \""
                            << request.suite.id
                            << "\" has none (try --suite fidelity); it is saved, and nothing is compared\n";
    return {};
}
} // namespace

int runRun(const QStringList& args)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Run a benchmark suite against one or more endpoints and save every measurement.\n\n"
        "SPEC is name=LABEL,url=URL[,model=ID][,quant=Q][,runtime=R][,key-env=VAR][,metrics=URL|URL]"
        "[,meta.KEY=VALUE…][,body=JSON] (body= last; its JSON may contain commas), or just a URL; meta.KEY "
        "records a fact about the endpoint (e.g. meta.calibration=annie-500). url=sim:q4km-like and "
        "url=sim:nvfp4-like are built-in simulated endpoints.\n\n"
        "Server metrics: during the run, each endpoint's own /metrics (when it answers: llama-server "
        "needs --metrics, SGLang --enable-metrics) and every metrics= URL (a DCGM exporter on :9400, a "
        "node exporter on :9100…) are scraped every --scrape-ms, with an idle baseline before the first "
        "request and after the last; they are saved with the results.\n\n"
        "Judging: with --judge SPEC, once the last request has finished (so the judge never competes with "
        "a measured request), the answers are graded (--rubric) and/or compared with a baseline "
        "(--pairwise), as `quantscope judge` does, and the verdicts are saved in the same file."));
    p.addHelpOption();
    const auto opt = [&](const char* name, const char* help, const char* value) {
        p.addOption({QString::fromLatin1(name), QString::fromUtf8(help), QString::fromLatin1(value)});
    };
    opt("like",
        "Run again as an earlier results file did: its suite, endpoints (a sim: one gets a fresh "
        "emulator), settings and fidelity reference; any option given here wins. An --endpoint named "
        "like one of the file's replaces that one alone (e.g. the candidate on a new server); endpoints "
        "with other names replace them all.",
        "FILE");
    opt("suite",
        "Built-in suite name (voice-assistant, context-sweep, quick-smoke, throughput, fidelity) or a suite "
        "file.",
        "NAME|FILE");
    opt("endpoint", "An endpoint (repeatable).", "SPEC");
    opt("endpoints", "A JSON list of endpoints with the SPEC fields.", "FILE");
    opt("warmup", "Warm-up runs per endpoint and test (default: the suite's).", "N");
    opt("runs", "Measured runs per endpoint and test (default: the suite's).", "N");
    opt("prompts-per-category",
        "Ask only N distinct prompts of each category, drawn with --seed (a short run: the statistics then "
        "rest on fewer prompts). Default: every prompt of the suite.",
        "N");
    opt("order", "interleaved (default), sequential or parallel.", "ORDER");
    opt("concurrency", "Requests in flight per endpoint (default 1).", "N");
    opt("max-tokens", "Override max_tokens for every request.", "N");
    opt("seed", "Seed that fixes the run order (default 1).", "N");
    opt("timeout-ms", "Total time allowed per request (default: no limit beyond the endpoint's timeouts).",
        "MS");
    opt("out", "Results file to write (a journal <out>.journal is kept while running).", "FILE");
    opt("note",
        "What this run is, saved with it and shown beside it in a campaign, e.g. \"strategy B: MLP-only, "
        "500 Annie conversations\".",
        "TEXT");
    opt("scrape-ms",
        "Period of the server-metrics scrapes, 50 to 60000 ms (default 333: about three a second).", "MS");
    p.addOption({QStringLiteral("no-server-metrics"),
        QStringLiteral("Do not scrape /metrics or the endpoints' metrics URLs during the run.")});
    p.addOption({QStringLiteral("until-decided"),
        QStringLiteral(
            "Run until the decision is made (docs/methodology.md §9.8): draw prompts from the suite's "
            "pools in rounds (at least 12 distinct prompts, then about 1.5× as many each "
            "round), judge every criterion of --profile "
            "after each round (the first endpoint is the baseline) and stop once every verdict is "
            "made, or when --max-prompts or --budget-minutes would be passed. Each look reads its "
            "intervals at a stricter level, so looking never spends the stated error.")});
    opt("profile", "The decision profile --until-decided judges with (a built-in name or a file).",
        "NAME|FILE");
    opt("budget-minutes",
        "With --until-decided: start no round that would end past M minutes (at the pace so far).", "M");
    opt("max-prompts", "With --until-decided: start no round that would pass N distinct prompts in all.",
        "N");
    p.addOption({QStringLiteral("quiet"), QStringLiteral("No progress output.")});
    p.addOption(referenceOption(QStringLiteral(
        "The fidelity reference: an endpoint given here (an index or its name), e.g. BF16 on vLLM. The "
        "answers of every other endpoint to the suite's fidelity tests (--suite fidelity) are compared "
        "token by token with its answers (without it: with the baseline's, the first endpoint unless "
        "summary --baseline says otherwise).")));
    addJudgeOptions(p);
    if (const int rc = parseSubcommand(p, "run", args); rc >= 0)
        return rc;
    const auto usage = [&](const QString& message) {
        err << "quantscope run: " << message << '\n';
        return 2;
    };
    if (!p.positionalArguments().isEmpty())
        return usage(QStringLiteral("unexpected argument \"%1\"").arg(p.positionalArguments().front()));
    QString error;
    std::optional<LikeRun> like;
    if (p.isSet(QStringLiteral("like"))) {
        like = likeRunFrom(p.value(QStringLiteral("like")), error);
        if (!like)
            return usage(error);
    }
    if (!like && !p.isSet(QStringLiteral("suite")))
        return usage(
            QStringLiteral("--suite is required (built-in: voice-assistant, context-sweep, quick-smoke, "
                           "throughput, fidelity)"));
    if (!p.isSet(QStringLiteral("out")))
        return usage(QStringLiteral("--out FILE is required: where to save the results"));
    if (!like && !p.isSet(QStringLiteral("endpoint")) && !p.isSet(QStringLiteral("endpoints")))
        return usage(
            QStringLiteral("give at least one --endpoint SPEC (or --endpoints FILE), e.g. --endpoint "
                           "name=Q4,url=http://10.0.0.5:8003 or --endpoint url=sim:q4km-like"));

    RunSettings settings = like ? like->settings : RunSettings();
    int seed = int(settings.seed);
    if (!intOption(p, "warmup", 0, 1000, settings.warmup, error)
        || !intOption(p, "runs", 1, 100000, settings.runs, error)
        || !intOption(p, "concurrency", 1, 1024, settings.concurrency, error)
        || !intOption(p, "seed", 0, 2147483647, seed, error)
        || !intOption(p, "timeout-ms", 1, 86400000, settings.requestTimeoutMs, error)
        || !intOption(p, "scrape-ms", 50, 60000, settings.scrapeMs, error)
        || !intOption(p, "prompts-per-category", 1, 100000, settings.promptsPerCategory, error))
        return usage(error);
    auto judgeOptions = judgeOptionsFrom(p, error);
    if (!judgeOptions && !error.isEmpty())
        return usage(error);
    if (p.isSet(QStringLiteral("no-server-metrics")))
        settings.serverMetrics = false;
    if (!settings.serverMetrics && p.isSet(QStringLiteral("scrape-ms")))
        return usage(QStringLiteral("--scrape-ms sets the period of the scrapes that --no-server-metrics "
                                    "turns off: give one or the other"));
    settings.seed = quint64(seed);
    if (p.isSet(QStringLiteral("max-tokens"))) {
        int maxTokens = 0;
        if (!intOption(p, "max-tokens", 1, 1000000, maxTokens, error))
            return usage(error);
        settings.maxTokens = maxTokens;
    }
    if (p.isSet(QStringLiteral("order"))) {
        const auto order = runOrderFromId(p.value(QStringLiteral("order")));
        if (!order)
            return usage(QStringLiteral("--order must be interleaved, sequential or parallel"));
        settings.order = *order;
    }

    const bool untilDecided = p.isSet(QStringLiteral("until-decided"));
    for (const char* name : {"profile", "budget-minutes", "max-prompts"})
        if (p.isSet(QString::fromLatin1(name)) && !untilDecided)
            return usage(QStringLiteral("--%1 belongs to --until-decided").arg(QString::fromLatin1(name)));
    if (like && !like->untilDecidedProfile.isEmpty() && !untilDecided
        && !p.isSet(QStringLiteral("prompts-per-category")))
        return usage(
            QStringLiteral("%1 ran until decided: add --until-decided --profile %2 to repeat it so, or "
                           "--prompts-per-category N for a run of a fixed size (its suite holds every "
                           "prompt a round could draw)")
                .arg(p.value(QStringLiteral("like")), like->untilDecidedProfile));
    UntilDecided rounds;
    std::optional<DecisionProfile> profile;
    if (untilDecided) {
        if (!p.isSet(QStringLiteral("profile")))
            return usage(QStringLiteral("--until-decided needs --profile NAME|FILE: the criteria that decide "
                                        "(built-in: %1)")
                             .arg(builtinDecisionProfileNames().join(QStringLiteral(", "))));
        if (p.isSet(QStringLiteral("prompts-per-category")))
            return usage(QStringLiteral("--until-decided draws the prompts itself, round by round: drop "
                                        "--prompts-per-category (cap it with --max-prompts instead)"));
        if (judgeOptions)
            err << "note: the judge grades once the last round is saved: its criteria do not steer when the "
                   "rounds stop, and are read afterwards at the level of the looks the run took\n";
        try {
            profile = loadDecisionProfile(p.value(QStringLiteral("profile")));
        } catch (const ProfileError& e) {
            return usage(QString::fromUtf8(e.what()));
        }
        rounds.profile = p.value(QStringLiteral("profile"));
        if (!intOption(p, "max-prompts", 1, 1000000, rounds.maxPrompts, error))
            return usage(error);
        if (p.isSet(QStringLiteral("budget-minutes"))) {
            bool ok = false;
            rounds.budgetMinutes = p.value(QStringLiteral("budget-minutes")).toDouble(&ok);
            if (!ok || !(rounds.budgetMinutes > 0) || rounds.budgetMinutes > 100000)
                return usage(QStringLiteral("--budget-minutes must be a number of minutes above 0"));
        }
    }

    RunRequest request;
    request.settings = settings;
    try {
        request.suite = like && !p.isSet(QStringLiteral("suite"))
            ? like->suite
            : loadSuite(p.value(QStringLiteral("suite")));
    } catch (const SuiteError& e) {
        err << "quantscope run: bad suite: " << QString::fromUtf8(e.what()) << '\n';
        return 2;
    }

    std::vector<EndpointSpec> specs;
    for (const QString& text : p.values(QStringLiteral("endpoint"))) {
        const auto spec = parseEndpointSpec(text, error);
        if (!spec)
            return usage(QStringLiteral("--endpoint \"%1\": %2").arg(text, error));
        specs.push_back(*spec);
    }
    if (p.isSet(QStringLiteral("endpoints"))) {
        const auto more = readEndpointsFile(p.value(QStringLiteral("endpoints")), error);
        if (!more)
            return usage(error);
        specs.insert(specs.end(), more->begin(), more->end());
    }
    // The earlier file's endpoints, unless given here: named like one of them, a spec replaces it.
    bool endpointsLike = like && specs.empty();
    if (like && !specs.empty())
        specs = likeEndpoints(like->specs, specs, endpointsLike);
    else if (endpointsLike)
        specs = like->specs;
    EndpointResolver resolver;
    for (const EndpointSpec& spec : specs) {
        const auto endpoint = resolver.resolve(spec, settings.seed, error);
        if (!endpoint)
            return usage(QStringLiteral("endpoint \"%1\": %2").arg(spec.url, error));
        request.endpoints.push_back(*endpoint);
    }
    if (const QString problem = markReference(p, specs, request); !problem.isEmpty())
        return usage(problem);
    if (endpointsLike && !p.isSet(QStringLiteral("reference")) && like->reference >= 0)
        request.endpoints[std::size_t(like->reference)].reference = true;
    if (untilDecided && request.endpoints.size() < 2)
        return usage(QStringLiteral("--until-decided compares a candidate with a baseline: give at least two "
                                    "endpoints (the first is the baseline)"));

    const QString outPath = p.value(QStringLiteral("out"));
    if (const QString problem = outPathProblem(outPath); !problem.isEmpty())
        return usage(problem);
    request.journalPath = RunJournal::journalPathFor(outPath);
    request.userNote = p.value(QStringLiteral("note")).trimmed();
    if (QFileInfo::exists(request.journalPath))
        return usage(QStringLiteral("%1 exists: an earlier run into %2 was interrupted. Recover it with\n  "
                                    "quantscope recover %1 --out RECOVERED.json\nor delete it to start over.")
                         .arg(request.journalPath, outPath));

    const Suite pool = request.suite;
    if (untilDecided) {
        rounds.schedule = roundSchedule(pool, rounds.maxPrompts);
        request.rounds = rounds.schedule;
        request.untilDecided = toJson(rounds);
    }
    // What is planned, counted as the evidence counts it: the runner draws the same prompts.
    const Suite planned = drawPrompts(
        request.suite, untilDecided ? rounds.schedule.front() : settings.promptsPerCategory, settings.seed);
    const RunPlan plan = makePlan(planned, int(request.endpoints.size()), settings);
    const bool quiet = p.isSet(QStringLiteral("quiet"));
    const bool tty = stderrIsTty();
    if (!quiet)
        err << QStringLiteral(
            "Running suite \"%1\" (%2 tests) on %3 endpoint(s), %4 order: %5 requests planned\n  %6\n")
                   .arg(planned.name.isEmpty() ? planned.id : planned.name)
                   .arg(planned.tests.size())
                   .arg(request.endpoints.size())
                   .arg(runOrderId(settings.order))
                   .arg(plan.totalRequests)
                   .arg(compositionText(suiteComposition(planned, settings)));
    if (!quiet && untilDecided) {
        QStringList steps;
        for (std::size_t i = 0; i < rounds.schedule.size(); ++i)
            steps << QStringLiteral("%1 (%2)")
                         .arg(promptsDrawn(pool, rounds.schedule[i], settings.seed))
                         .arg(lookLevelText(int(i + 1)));
        err << "Until decided by profile \"" << profile->id
            << "\" (baseline: " << request.endpoints.front().endpoint.displayName()
            << "): the first round is the one planned above; looks after " << steps.join(QStringLiteral(", "))
            << " distinct prompts (each look's interval level in brackets: looking never spends the error)\n";
    }
    err.flush();

    RunController controller;
    QElapsedTimer clock;
    clock.start();
    RoundVerdict lastRound;
    QObject::connect(&controller, &RunController::roundFinished,
        [&](const std::shared_ptr<const RunResult>& soFar, int round) {
            if (tty && !quiet)
                err << "\r\033[K";
            lastRound = judgeRound(
                *soFar, rounds, *profile, pool, 0, round, double(clock.elapsed()), settings.seed);
            if (!quiet) {
                for (const QString& line : lookLines(rounds.looks.back()))
                    err << line << '\n';
                if (lastRound.more)
                    for (const QString& need : lastRound.needs)
                        err << "  open: " << need << '\n';
            }
            if (lastRound.more) {
                controller.nextRound(toJson(rounds));
                return;
            }
            err << "Until decided: " << rounds.stopText << '\n';
            err.flush();
            controller.endRounds(toJson(rounds));
        });
    int exitCode = 0;
    std::optional<RunResult> saved; // for --judge, once the run is safely on disk
    RunProgress last;
    QObject::connect(&controller, &RunController::warning, [&](const QString& w) {
        if (tty)
            err << "\r\033[K";
        err << "warning: " << w << '\n';
        err.flush();
    });
    QObject::connect(&controller, &RunController::progress, [&](const RunProgress& pr) {
        last = pr;
        if (quiet || !tty)
            return;
        err << "\r\033[K" << progressBar(pr.done, pr.total);
        if (pr.failed)
            err << " (" << pr.failed << " failed)";
        if (!pr.test.isEmpty())
            err << "  " << pr.endpointLabel << " · " << pr.test << " · turn " << pr.turn << " · "
                << (pr.warmup ? QStringLiteral("warm-up ") : QStringLiteral("run ")) << pr.iteration;
        if (pr.etaMs)
            err << "  ETA " << durationText(*pr.etaMs);
        err.flush();
    });
    QObject::connect(&controller, &RunController::recordFinished, [&](const SharedRecord& shared) {
        const RunRecord& r = *shared;
        if (quiet || tty)
            return;
        const RequestMetrics& m = r.request.metrics;
        err << '[' << last.done + 1 << '/' << last.total << "] "
            << request.endpoints[std::size_t(r.endpoint)].endpoint.displayName() << ' ' << r.test << " turn "
            << r.turn << (r.warmup ? " warm-up " : " run ") << r.iteration << ": ";
        if (r.request.ok())
            err << "ok, ttft_visible "
                << (m.ttftVisibleMs ? QString::number(*m.ttftVisibleMs, 'f', 1) : QStringLiteral("-"))
                << " ms, decode "
                << (m.decodeTps ? QString::number(*m.decodeTps, 'f', 1) : QStringLiteral("-")) << " tok/s\n";
        else
            err << "FAILED " << failureKindId(r.request.failure.kind) << ": " << r.request.failure.summary
                << '\n';
        err.flush();
    });
    QObject::connect(&controller, &RunController::failed, [&](const QString& message) {
        if (tty)
            err << "\r\033[K";
        err << "quantscope run: " << message << '\n';
        exitCode = 1;
        QCoreApplication::exit(exitCode);
    });
    QObject::connect(&controller, &RunController::finished,
        [&](const std::shared_ptr<const RunResult>& finished, const RunStats&) {
            if (tty && !quiet)
                err << "\r\033[K";
            std::optional<RunResult> stopped; // an until-decided run cut short: saved saying so
            if (untilDecided && rounds.stop == StopReason::Running) {
                rounds.stop = StopReason::Cancelled;
                rounds.stopText
                    = QStringLiteral("stopped by the user after %1 look(s); every verdict of this "
                                     "file accounts for all %2 looks its schedule allowed")
                          .arg(rounds.looks.size())
                          .arg(rounds.schedule.size());
                stopped = *finished;
                stopped->untilDecided = toJson(rounds);
            }
            const RunResult& result = stopped ? *stopped : *finished;
            const SaveOutcome outcome = saveOrRescue(result, outPath);
            if (!outcome.error.isEmpty()) {
                err << "quantscope run: could not save " << outPath << ": " << outcome.error << '\n';
                if (!outcome.savedTo.isEmpty()) {
                    // The journal stays: it is the only copy where the user looks for the run.
                    err << "The " << result.records.size() << " requests were saved instead to "
                        << outcome.savedTo << "; move it where it belongs (the journal "
                        << request.journalPath << " is kept)\n";
                } else {
                    err << "The rescue copy failed too: " << outcome.rescueError << '\n'
                        << "What the journal could write is in " << request.journalPath
                        << " (the warnings above say whether it missed any); free some space and recover it"
                           " with quantscope recover "
                        << request.journalPath << " --out FILE\n";
                }
                exitCode = 1;
            } else {
                QFile::remove(request.journalPath);
                saved = result;
                int failed = 0;
                for (const RunRecord& r : result.records)
                    failed += r.request.ok() ? 0 : 1;
                err << (result.complete ? "Done: " : "Stopped: ") << result.records.size() << " requests ("
                    << failed << " failed) saved to " << outPath << '\n';
                if (!result.note.isEmpty())
                    err << "note: " << result.note << '\n';
                if (untilDecided && !lastRound.recommendations.empty()
                    && rounds.stop != StopReason::Cancelled) {
                    for (const Recommendation& r : lastRound.recommendations)
                        err << r.headline << '\n';
                    err << "Read it with: quantscope summary " << outPath << " --profile " << rounds.profile
                        << '\n';
                } else {
                    err << "Read it with: quantscope summary " << outPath << '\n';
                }
            }
            QCoreApplication::exit(exitCode);
        });

    const InterruptWatch interrupts([&] {
        if (!controller.running())
            return;
        err << "\nStopping: finishing the record of every request in flight (Ctrl+C again to quit "
               "now)…\n";
        err.flush();
        controller.cancel();
    });
    controller.start(request); // a copy: the handlers above read request.endpoints and journalPath
    const int rc = QCoreApplication::exec();
    if (rc != 0 || exitCode != 0)
        return rc != 0 ? rc : exitCode;
    err.flush(); // the run's last lines before the judge's first
    if (judgeOptions && saved) {
        judgeOptions->quiet = quiet;
        return judgeAndSave(*saved, *judgeOptions, outPath, "run");
    }
    return 0;
}

} // namespace qs::app

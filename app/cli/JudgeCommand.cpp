// SPDX-License-Identifier: MIT
#include "app/cli/CommandLine.h"
#include "app/cli/Commands.h"
#include "app/cli/Terminal.h"
#include "app/common/EndpointSpec.h"
#include "app/common/JudgeSteps.h"
#include "model/run/JudgeRunner.h"
#include "model/store/ResultFile.h"
#include "model/wire/EndpointProbe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

namespace qs::app {

namespace {

QString endpointList(const RunResult& result)
{
    QStringList names;
    for (std::size_t i = 0; i < result.endpoints.size(); ++i)
        names << QStringLiteral("%1 \"%2\"").arg(i).arg(result.endpoints[i].endpoint.displayName());
    return names.join(QStringLiteral(", "));
}

} // namespace

JudgeIdentity judgeIdentity(
    const QString& spec, const RunEndpoint& resolved, const ProbeResult& probe, qint64 seed)
{
    JudgeIdentity id;
    id.spec = spec;
    id.url = resolved.endpoint.baseUrl.toString();
    id.model = !probe.model.isEmpty() ? probe.model : resolved.endpoint.model;
    id.runtime = runtimeName(probe.runtime);
    id.endpointLabel = resolved.endpoint.displayName();
    id.simulated = resolved.simulated;
    id.probe = toJson(probe);
    id.temperature = 0;
    id.seed = seed;
    return id;
}

void addJudgeOptions(QCommandLineParser& p)
{
    const auto opt = [&](const char* name, const char* help, const char* value) {
        p.addOption({QString::fromLatin1(name), QString::fromUtf8(help), QString::fromLatin1(value)});
    };
    opt("judge",
        "The judge: an OpenAI-compatible endpoint, SPEC as for run --endpoint (url=sim:judge is a "
        "built-in simulated judge).",
        "SPEC");
    opt("rubric",
        "Grade every answer 1-5 on a rubric: a built-in name (voice-assistant, general) or a rubric "
        "file (docs/judging.md).",
        "NAME|FILE");
    opt("pairwise", "Compare every other endpoint with this one, answer by answer, blind and in both orders.",
        "BASELINE");
    opt("judge-concurrency", "Judgements in flight at once, 1 to 16 (default 2).", "N");
    opt("judge-timeout-ms", "Time allowed per judgement (default 120000).", "MS");
    opt("judge-max-tokens", "max_tokens per judgement (default 1024; a thinking judge needs room).", "N");
    opt("judge-seed", "Seed sent with every judgement, where the server honours one (default 1).", "N");
}

std::optional<JudgeCliOptions> judgeOptionsFrom(const QCommandLineParser& p, QString& error)
{
    error.clear();
    const bool any = p.isSet(QStringLiteral("rubric")) || p.isSet(QStringLiteral("pairwise"));
    if (!p.isSet(QStringLiteral("judge"))) {
        if (any)
            error = QStringLiteral("--rubric and --pairwise need a judge: add --judge SPEC (e.g. --judge "
                                   "url=http://10.0.0.7:8000 or --judge url=sim:judge)");
        return std::nullopt;
    }
    JudgeCliOptions o;
    o.spec = p.value(QStringLiteral("judge"));
    if (!any) {
        error = QStringLiteral("say what the judge should do: --rubric NAME|FILE (built-in: %1) and/or "
                               "--pairwise BASELINE")
                    .arg(builtinRubricNames().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("rubric"))) {
        try {
            o.rubric = loadRubric(p.value(QStringLiteral("rubric")));
        } catch (const RubricError& e) {
            error = QStringLiteral("bad rubric: %1").arg(QString::fromUtf8(e.what()));
            return std::nullopt;
        }
    }
    o.pairwiseBaseline = p.value(QStringLiteral("pairwise"));
    int seed = 1;
    if (!intOption(p, "judge-concurrency", 1, 16, o.concurrency, error)
        || !intOption(p, "judge-timeout-ms", 1000, 3600000, o.timeoutMs, error)
        || !intOption(p, "judge-max-tokens", 16, 1000000, o.maxTokens, error)
        || !intOption(p, "judge-seed", 0, 2147483647, seed, error))
        return std::nullopt;
    o.seed = seed;
    return o;
}

int judgeAndSave(
    RunResult& result, const JudgeCliOptions& options, const QString& outPath, const char* command)
{
    QTextStream err(stderr);
    const QString name = QStringLiteral("quantscope ") + QString::fromLatin1(command);
    QString error;
    const auto spec = parseEndpointSpec(options.spec, error);
    if (!spec) {
        err << name << ": --judge \"" << options.spec << "\": " << error << '\n';
        return 2;
    }

    JudgeRequest request;
    request.plan.rubric = options.rubric;
    if (!options.pairwiseBaseline.isEmpty()) {
        const int baseline = findEndpoint(result, options.pairwiseBaseline);
        if (baseline < 0) {
            err << name << ": --pairwise \"" << options.pairwiseBaseline
                << "\" names no endpoint of the file; give an index or a label: " << endpointList(result)
                << '\n';
            return 2;
        }
        if (result.endpoints.size() < 2) {
            err << name << ": --pairwise needs at least two endpoints; the file has one\n";
            return 2;
        }
        request.plan.pairwiseBaseline = baseline;
    }

    EndpointResolver resolver; // keeps a simulated judge alive while judging
    const auto resolved = resolver.resolve(*spec, quint64(options.seed), error);
    if (!resolved) {
        err << name << ": judge \"" << spec->url << "\": " << error << '\n';
        return 2;
    }
    if (!options.quiet)
        err << "Probing the judge at " << resolved->endpoint.baseUrl.toString() << "…\n";
    const ProbeResult probe = probeBlocking(resolved->endpoint, 1);
    if (probe.failure.isFailure()) {
        err << name << ": the judge at " << resolved->endpoint.baseUrl.toString()
            << " cannot be used: " << probe.failure.summary;
        if (!probe.failure.advice.isEmpty())
            err << "\n  " << probe.failure.advice;
        err << "\nNothing was changed.\n";
        return 1;
    }
    request.identity = judgeIdentity(options.spec, *resolved, probe, options.seed);
    request.judge = probe.endpoint;
    request.concurrency = options.concurrency;
    request.timeoutMs = options.timeoutMs;
    request.maxTokens = options.maxTokens;

    // What has been judged so far, in the file's form: resumed verdicts plus this session's.
    Judging sofar;
    if (!result.judging.empty() && canResume(result.judging, request.identity, options.rubric)) {
        sofar = result.judging;
        if (!options.quiet)
            err << "Resuming the judging in the file (" << sofar.rubricVerdicts.size() << " rubric and "
                << sofar.pairVerdicts.size() << " pairwise verdicts kept; failed ones are asked again)\n";
    } else {
        sofar.judge = request.identity;
        sofar.rubric = options.rubric;
        sofar.startedAt = QDateTime::currentDateTimeUtc();
    }
    request.result = result;

    const bool tty = stderrIsTty();
    JudgeController controller;
    int exitCode = 0;
    QElapsedTimer sinceSave;
    sinceSave.start();
    bool saveFailed = false;
    const auto save = [&](const Judging& judging) {
        RunResult copy = result;
        copy.judging = judging;
        const QString saveError = saveResults(copy, outPath);
        if (!saveError.isEmpty() && !saveFailed) {
            saveFailed = true;
            err << (tty ? "\r\033[K" : "") << name << ": could not save " << outPath << ": " << saveError
                << '\n';
        }
        sinceSave.restart();
    };
    QObject::connect(&controller, &JudgeController::progress, [&](const JudgeProgress& pr) {
        if (options.quiet)
            return;
        if (tty) {
            err << "\r\033[K" << progressBar(pr.done, pr.total);
            if (pr.failed)
                err << " (" << pr.failed << " judge failures)";
        } else if (pr.done == pr.total || pr.done % 10 == 0) {
            err << "judged " << pr.done << '/' << pr.total << " (" << pr.failed << " failed)\n";
        }
        err.flush();
    });
    const auto landed = [&] {
        if (sinceSave.elapsed() >= 2000)
            save(sofar);
    };
    QObject::connect(&controller, &JudgeController::rubricVerdict, [&](const RubricVerdict& v) {
        putVerdict(sofar, v);
        landed();
    });
    QObject::connect(&controller, &JudgeController::pairVerdict, [&](const PairVerdict& v) {
        putVerdict(sofar, v);
        landed();
    });
    QObject::connect(&controller, &JudgeController::failed, [&](const QString& message) {
        err << (tty ? "\r\033[K" : "") << name << ": " << message << '\n';
        exitCode = 1;
        QCoreApplication::exit(exitCode);
    });
    QObject::connect(
        &controller, &JudgeController::finished, [&](const Judging& judging, const JudgeProgress& pr) {
            if (tty && !options.quiet)
                err << "\r\033[K";
            save(judging);
            result.judging = judging;
            if (saveFailed)
                exitCode = 1;
            err << (judging.complete ? "Judged: " : "Stopped: ") << pr.done << " judgements (" << pr.failed
                << " judge failures)";
            if (pr.resumed)
                err << ", " << pr.resumed << " kept from before";
            err << (saveFailed ? QStringLiteral(", NOT saved") : QStringLiteral(", saved to ") + outPath)
                << '\n';
            for (const QString& note : judging.notes)
                err << "note: " << note << '\n';
            if (!judging.complete)
                err << "Run the same command on " << outPath << " to resume.\n";
            QCoreApplication::exit(exitCode);
        });
    const InterruptWatch interrupts([&] {
        if (!controller.running())
            return;
        err << "\nStopping the judge: what was judged is kept (Ctrl+C again to quit now)…\n";
        err.flush();
        controller.cancel();
    });
    if (!options.quiet)
        err << "Judging with " << request.identity.model << " (" << request.identity.runtime << ") at "
            << request.identity.url << ", " << options.concurrency << " at a time\n";
    err.flush();
    controller.start(request);
    const int rc = QCoreApplication::exec();
    return rc != 0 ? rc : exitCode;
}

int runJudge(const QStringList& args)
{
    QTextStream err(stderr);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Judge the answers of saved results with an LLM judge (docs/judging.md): grade each answer on a "
        "rubric, and/or compare each endpoint with a baseline pair by pair, blind, in both orders. The judge "
        "sees the system prompt, the conversation and the answers, never an endpoint's name or timings. "
        "Every prompt and raw reply is saved with the results. Several FILEs are combined as in the "
        "dashboard. Interrupted, the same command resumes where it stopped."));
    p.addHelpOption();
    p.addPositionalArgument(
        QStringLiteral("FILE"), QStringLiteral("Results files (one or more)."), QStringLiteral("FILE…"));
    addJudgeOptions(p);
    p.addOption({QStringLiteral("out"),
        QStringLiteral("Results file to write, with the verdicts (may be FILE itself)."),
        QStringLiteral("FILE")});
    p.addOption({QStringLiteral("quiet"), QStringLiteral("No progress output.")});
    if (const int rc = parseSubcommand(p, "judge", args); rc >= 0)
        return rc;
    const auto usage = [&](const QString& message) {
        err << "quantscope judge: " << message << '\n';
        return 2;
    };
    if (p.positionalArguments().isEmpty())
        return usage(QStringLiteral("give the results file(s) to judge"));
    if (!p.isSet(QStringLiteral("judge")))
        return usage(QStringLiteral("--judge SPEC is required, e.g. --judge url=http://10.0.0.7:8000 "
                                    "(a larger model on the LAN) or --judge url=sim:judge"));
    if (!p.isSet(QStringLiteral("out")))
        return usage(QStringLiteral("--out FILE is required: where to save the judged results"));
    QString error;
    auto options = judgeOptionsFrom(p, error);
    if (!options)
        return usage(error);
    options->quiet = p.isSet(QStringLiteral("quiet"));
    const QString outPath = p.value(QStringLiteral("out"));
    if (const QString problem = outPathProblem(outPath); !problem.isEmpty())
        return usage(problem);
    const auto loaded = loadResultsFor("judge", p.positionalArguments());
    if (!loaded)
        return 1;
    RunResult result = *loaded;
    return judgeAndSave(result, *options, outPath, "judge");
}

} // namespace qs::app

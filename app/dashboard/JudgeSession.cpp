// SPDX-License-Identifier: MIT
#include "app/dashboard/JudgeSession.h"

#include "app/common/JudgeSteps.h"

#include <QFutureWatcher>
#include <QtConcurrent>

namespace qs::app {

JudgeSession::JudgeSession(QObject* parent)
    : QObject(parent)
    , m_resolver(std::make_unique<EndpointResolver>())
    , m_controller(new JudgeController(this))
{
    connect(m_controller, &JudgeController::progress, this, &JudgeSession::progress);
    connect(m_controller, &JudgeController::rubricVerdict, this, [this](const RubricVerdict& v) {
        putVerdict(m_sofar, v);
        publish(false);
    });
    connect(m_controller, &JudgeController::pairVerdict, this, [this](const PairVerdict& v) {
        putVerdict(m_sofar, v);
        publish(false);
    });
    connect(m_controller, &JudgeController::failed, this, [this](const QString& message) {
        m_running = false;
        Q_EMIT failed(message);
    });
    connect(m_controller, &JudgeController::finished, this,
        [this](const Judging& judging, const JudgeProgress& p) {
            m_sofar = judging;
            QString message
                = QStringLiteral("%1 %2 judgements (%3 judge failures)")
                      .arg(judging.complete ? QStringLiteral("Judged") : QStringLiteral("Stopped after"))
                      .arg(p.done)
                      .arg(p.failed);
            if (!judging.complete)
                message += QStringLiteral("; judge again with the same judge to resume");
            withVerdicts([this, message](std::shared_ptr<const RunResult> judged) {
                m_running = false;
                Q_EMIT finished(std::move(judged), message);
            });
        });
}

JudgeSession::~JudgeSession() = default;

void JudgeSession::start(std::shared_ptr<const RunResult> result, JudgeSetup setup)
{
    if (m_running || !result)
        return;
    QString error;
    const auto spec = parseEndpointSpec(setup.spec, error);
    if (!spec) {
        Q_EMIT failed(QStringLiteral("The judge \"%1\": %2").arg(setup.spec, error));
        return;
    }
    const auto judge = m_resolver->resolve(*spec, 1, error);
    if (!judge) {
        Q_EMIT failed(QStringLiteral("The judge \"%1\": %2").arg(spec->url, error));
        return;
    }
    m_result = std::move(result);
    m_setup = std::move(setup);
    m_judge = *judge;
    m_running = true;
    m_cancelled = false;
    Q_EMIT started(QStringLiteral("Probing the judge at %1…").arg(m_judge.endpoint.baseUrl.toString()));
    auto* watcher = new QFutureWatcher<ProbeResult>(this);
    connect(watcher, &QFutureWatcher<ProbeResult>::finished, this, [this, watcher] {
        onProbed(watcher->result());
        watcher->deleteLater();
    });
    // probeBlocking runs its own event loop on a pool thread; the GUI thread only gets the value.
    watcher->setFuture(
        QtConcurrent::run([endpoint = m_judge.endpoint] { return probeBlocking(endpoint, 1); }));
}

void JudgeSession::onProbed(const ProbeResult& probe)
{
    if (m_cancelled) {
        m_running = false;
        Q_EMIT failed(QStringLiteral("Judging cancelled before it began"));
        return;
    }
    if (probe.failure.isFailure()) {
        m_running = false;
        Q_EMIT failed(
            QStringLiteral("The judge at %1 cannot be used: %2 %3")
                .arg(m_judge.endpoint.baseUrl.toString(), probe.failure.summary, probe.failure.advice));
        return;
    }
    JudgeRequest request;
    request.result = *m_result;
    request.judge = probe.endpoint;
    request.identity = judgeIdentity(m_setup.spec, m_judge, probe, 1);
    request.plan.rubric = m_setup.rubric;
    if (m_setup.pairwiseBaseline >= 0)
        request.plan.pairwiseBaseline = m_setup.pairwiseBaseline;
    request.concurrency = m_setup.concurrency;
    if (!m_result->judging.empty() && canResume(m_result->judging, request.identity, m_setup.rubric)) {
        m_sofar = m_result->judging;
    } else {
        m_sofar = Judging {};
        m_sofar.judge = request.identity;
        m_sofar.rubric = m_setup.rubric;
    }
    Q_EMIT started(QStringLiteral("Judging with %1 (%2) at %3")
                       .arg(request.identity.model, request.identity.runtime, request.identity.url));
    m_sincePublish.start();
    m_controller->start(std::move(request));
}

void JudgeSession::cancel()
{
    m_cancelled = true;
    if (m_controller->running())
        m_controller->cancel();
}

void JudgeSession::publish(bool force)
{
    if (!force && m_sincePublish.isValid() && m_sincePublish.elapsed() < 1000)
        return;
    m_sincePublish.restart();
    withVerdicts([this](std::shared_ptr<const RunResult> judged) {
        if (m_running)
            Q_EMIT updated(std::move(judged));
    });
}

void JudgeSession::withVerdicts(std::function<void(std::shared_ptr<const RunResult>)> then)
{
    // A copy of a big run takes long enough to be felt: it is made on the pool.
    auto* watcher = new QFutureWatcher<std::shared_ptr<const RunResult>>(this);
    connect(watcher, &QFutureWatcher<std::shared_ptr<const RunResult>>::finished, this,
        [watcher, then = std::move(then)] {
            then(watcher->result());
            watcher->deleteLater();
        });
    watcher->setFuture(
        QtConcurrent::run([base = m_result, judging = m_sofar]() -> std::shared_ptr<const RunResult> {
            auto judged = std::make_shared<RunResult>(*base);
            judged->judging = judging;
            return judged;
        }));
}

} // namespace qs::app

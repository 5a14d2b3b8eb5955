// SPDX-License-Identifier: MIT
#include "model/run/JudgeRunner.h"

#include "model/core/Clock.h"
#include "model/wire/JudgeReply.h"
#include "model/wire/StreamingClient.h"

#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

namespace qs {

namespace {

/// Judgements in a row that could not reach the judge before judging stops: a dead judge should
/// cost three failures, not one per planned judgement.
constexpr int UnreachableInARow = 3;

bool unreachable(FailureKind kind)
{
    switch (kind) {
    case FailureKind::InvalidUrl:
    case FailureKind::ConnectionRefused:
    case FailureKind::HostNotFound:
    case FailureKind::NetworkUnreachable:
    case FailureKind::ConnectTimeout:
        return true;
    default:
        return false;
    }
}

QStringList criteriaIds(const Rubric& rubric, const QString& test)
{
    QStringList ids;
    for (const RubricCriterion* c : rubric.criteriaFor(test))
        ids << c->id;
    return ids;
}

/// Where a judging session starts: the verdicts kept from the file and what is left to judge.
struct SessionStart {
    Judging judging;
    std::vector<JudgeTask> tasks;
    int resumed = 0;
    QString error; ///< nothing can be judged
};

SessionStart prepare(const JudgeRequest& request)
{
    SessionStart s;
    const JudgePlanOptions& plan = request.plan;
    if (!plan.rubric && !plan.pairwiseBaseline) {
        s.error = QStringLiteral("nothing to judge: choose a rubric, a pairwise baseline or both");
        return s;
    }
    const int endpoints = int(request.result.endpoints.size());
    if (plan.pairwiseBaseline && (*plan.pairwiseBaseline < 0 || *plan.pairwiseBaseline >= endpoints)) {
        s.error
            = QStringLiteral("the pairwise baseline %1 is not an endpoint of the run (it has %2): give an "
                             "index from 0 to %3 or an endpoint's label")
                  .arg(*plan.pairwiseBaseline)
                  .arg(endpoints)
                  .arg(endpoints - 1);
        return s;
    }
    if (plan.pairwiseBaseline && endpoints < 2) {
        s.error = QStringLiteral("nothing to compare: the run has one endpoint, pairwise judging needs two");
        return s;
    }

    const Judging& existing = request.result.judging;
    const bool resume = !existing.empty() && canResume(existing, request.identity, plan.rubric);
    QStringList notes;
    if (resume) {
        s.judging = existing;
    } else if (!existing.empty()) {
        notes << QStringLiteral("the file's earlier judging (by %1, %2) was replaced: it was made by another "
                                "judge or with another rubric")
                     .arg(existing.judge.model.isEmpty() ? existing.judge.spec : existing.judge.model,
                         existing.rubric ? QStringLiteral("rubric %1").arg(existing.rubric->id)
                                         : QStringLiteral("no rubric"));
    }
    s.judging.judge = request.identity;
    if (plan.rubric)
        s.judging.rubric = plan.rubric;
    if (!s.judging.startedAt.isValid())
        s.judging.startedAt = QDateTime::currentDateTimeUtc();
    s.judging.endedAt = QDateTime();
    s.judging.complete = false;
    s.judging.notes = notes; // earlier sessions' notes described a state this session changes

    JudgePlanOptions options = plan;
    options.resume = resume ? &existing : nullptr;
    s.tasks = planJudging(request.result, options);

    // A failed verdict that is planned again is replaced by this session's.
    std::set<std::tuple<int, QString, int, int>> graded;
    std::set<std::tuple<int, int, QString, int, int, bool>> paired;
    for (const JudgeTask& t : s.tasks) {
        if (t.kind == JudgeTask::Kind::Rubric)
            graded.emplace(t.answer.endpoint, t.answer.test, t.answer.turn, t.answer.iteration);
        else
            paired.emplace(t.answer.endpoint, t.baseline, t.answer.test, t.answer.turn, t.answer.iteration,
                t.candidateFirst);
    }
    std::erase_if(s.judging.rubricVerdicts, [&](const RubricVerdict& v) {
        return v.failed()
            && graded.count({v.answer.endpoint, v.answer.test, v.answer.turn, v.answer.iteration});
    });
    std::erase_if(s.judging.pairVerdicts, [&](const PairVerdict& v) {
        return v.exchange.failed()
            && paired.count({v.candidate, v.baseline, v.test, v.turn, v.iteration, v.candidateFirst});
    });
    s.resumed = int(std::count_if(s.judging.rubricVerdicts.begin(), s.judging.rubricVerdicts.end(),
                        [](const RubricVerdict& v) { return !v.failed(); })
        + std::count_if(s.judging.pairVerdicts.begin(), s.judging.pairVerdicts.end(),
            [](const PairVerdict& v) { return !v.exchange.failed(); }));
    if (s.tasks.empty() && s.resumed == 0)
        s.error = QStringLiteral("nothing to judge: the run has no successful measured answers%1")
                      .arg(plan.rubric && !plan.pairwiseBaseline
                              ? QStringLiteral(" of a test the rubric's criteria apply to")
                              : QString());
    return s;
}

} // namespace

bool canResume(const Judging& existing, const JudgeIdentity& judge, const std::optional<Rubric>& rubric)
{
    if (!sameJudge(existing.judge, judge))
        return false;
    // Judging with only one of rubric grading and pairwise adds to the other's verdicts.
    return !existing.rubric || !rubric
        || (existing.rubric->id == rubric->id && existing.rubric->raw == rubric->raw);
}

/// Runs one judging session in its thread: `concurrency` slots, each a StreamingClient with a
/// per-judgement timer. Reports through callbacks called in its own thread (the controller
/// forwards them queued; runJudgingBlocking calls them directly).
class JudgingWork : public QObject {
public:
    struct Callbacks {
        std::function<void(const JudgeProgress&)> progress;
        std::function<void(const RubricVerdict&)> rubricVerdict;
        std::function<void(const PairVerdict&)> pairVerdict;
        std::function<void(const Judging&, const JudgeProgress&)> finished;
        std::function<void(const QString&)> failed;
    };

    explicit JudgingWork(Callbacks callbacks)
        : m_callbacks(std::move(callbacks))
    {
    }

    void start(JudgeRequest request);
    /// Stops sending and drops what is in flight; finished() follows.
    void cancel() { stop(QString(), true); }
    /// Like cancel(), with no report after it (the owner is going away).
    void abortNow()
    {
        m_silent = true;
        cancel();
    }
    const Judging& judging() const { return m_judging; }

private:
    struct Slot {
        StreamingClient* client = nullptr;
        QTimer* timer = nullptr;
        std::optional<std::size_t> task;
        bool timedOut = false;
        QDateTime at;
        qint64 startNs = 0;
    };

    void pump();
    void schedulePump();
    void launch(Slot& slot, std::size_t task);
    void onFinished(Slot& slot, const RequestRecord& record);
    QString replyProblem(const QString& problem, const RequestRecord& record) const;
    void addVerdict(const JudgeTask& task, JudgeExchange exchange, const RequestRecord& request);
    void stop(const QString& note, bool cancelled);
    void finish();

    Callbacks m_callbacks;
    JudgeRequest m_request;
    Judging m_judging;
    std::vector<JudgeTask> m_tasks;
    std::size_t m_next = 0;
    std::vector<std::unique_ptr<Slot>> m_slots;
    JudgeProgress m_progress;
    QString m_firstFailure;
    QString m_stopNote;
    int m_unreachableInRow = 0;
    bool m_running = false;
    bool m_stopping = false;
    bool m_cancelled = false;
    bool m_pumpPending = false;
    bool m_silent = false;
};

class JudgeController::Worker : public JudgingWork {
public:
    using JudgingWork::JudgingWork;
};

void JudgingWork::start(JudgeRequest request)
{
    if (m_running)
        return;
    m_request = std::move(request);
    m_request.concurrency = std::clamp(m_request.concurrency, 1, 16);
    SessionStart s = prepare(m_request);
    if (!s.error.isEmpty()) {
        if (m_callbacks.failed && !m_silent)
            m_callbacks.failed(s.error);
        return;
    }
    m_running = true;
    m_judging = std::move(s.judging);
    m_tasks = std::move(s.tasks);
    m_next = 0;
    m_progress = JudgeProgress();
    m_progress.total = int(m_tasks.size());
    m_progress.resumed = s.resumed;
    m_firstFailure.clear();
    m_stopNote.clear();
    m_unreachableInRow = 0;
    m_stopping = false;
    m_cancelled = false;

    // Fresh clients per session: the judge may differ from the last one's.
    for (auto& slot : m_slots) {
        slot->client->disconnect(this);
        slot->timer->disconnect(this);
        slot->client->deleteLater();
        slot->timer->deleteLater();
    }
    m_slots.clear();
    for (int i = 0; i < m_request.concurrency; ++i) {
        auto slot = std::make_unique<Slot>();
        Slot* raw = slot.get();
        raw->client = new StreamingClient(this);
        raw->timer = new QTimer(this);
        raw->timer->setSingleShot(true);
        connect(raw->client, &StreamingClient::finished, this,
            [this, raw](const RequestRecord& record) { onFinished(*raw, record); });
        connect(raw->timer, &QTimer::timeout, this, [raw] {
            raw->timedOut = true;
            raw->client->cancel(); // finished() follows at once, recorded as timed out
        });
        m_slots.push_back(std::move(slot));
    }
    if (m_callbacks.progress && !m_silent)
        m_callbacks.progress(m_progress);
    pump();
}

void JudgingWork::schedulePump()
{
    // Never re-entered from a client's finished(): the next launch waits for the event loop.
    if (m_pumpPending)
        return;
    m_pumpPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_pumpPending = false;
            pump();
        },
        Qt::QueuedConnection);
}

void JudgingWork::pump()
{
    if (!m_running)
        return;
    for (auto& slot : m_slots) {
        if (m_stopping || m_next >= m_tasks.size())
            break;
        if (!slot->task)
            launch(*slot, m_next++);
    }
    const bool busy
        = std::any_of(m_slots.begin(), m_slots.end(), [](const auto& s) { return s->task.has_value(); });
    if (!busy && (m_stopping || m_next >= m_tasks.size()))
        finish();
}

void JudgingWork::launch(Slot& slot, std::size_t task)
{
    ChatRequest chat;
    chat.messages = m_tasks[task].messages;
    chat.temperature = 0.0; // a judge must be as repeatable as the server allows
    chat.seed = m_request.identity.seed;
    chat.maxTokens = m_request.maxTokens;
    chat.stream = true;
    slot.task = task;
    slot.timedOut = false;
    slot.at = QDateTime::currentDateTimeUtc();
    slot.startNs = monotonicNs();
    if (m_request.timeoutMs > 0)
        slot.timer->start(m_request.timeoutMs);
    slot.client->start(m_request.judge, chat);
}

QString JudgingWork::replyProblem(const QString& problem, const RequestRecord& record) const
{
    QString advice
        = QStringLiteral("use a judge model that follows JSON instructions (the raw reply is kept)");
    if (record.response.finishReason == u"length")
        advice
            = QStringLiteral("the judge stopped at its token limit (%1): allow it more tokens, a reasoning "
                             "judge needs room for its thinking")
                  .arg(m_request.maxTokens);
    return QStringLiteral("the reply could not be read: %1 — %2").arg(problem, advice);
}

void JudgingWork::onFinished(Slot& slot, const RequestRecord& record)
{
    slot.timer->stop();
    if (!slot.task)
        return;
    const std::size_t index = *slot.task;
    slot.task.reset();
    if (record.failure.kind == FailureKind::Cancelled && !slot.timedOut) {
        // Cancelled by us: not judged, so a resume plans it again.
        schedulePump();
        return;
    }
    JudgeExchange exchange;
    exchange.messages = m_tasks[index].messages;
    exchange.reply = record.response.content;
    exchange.reasoning = record.response.reasoning;
    exchange.at = slot.at;
    exchange.durationMs = double(monotonicNs() - slot.startNs) / 1e6;
    if (slot.timedOut)
        exchange.error
            = QStringLiteral("timed out after %1 s: the judge did not finish its reply in time; allow "
                             "it longer or use a faster judge")
                  .arg(m_request.timeoutMs / 1000.0);
    else if (!record.ok())
        exchange.error = QStringLiteral("the judge request failed: %1").arg(record.failure.text());
    m_unreachableInRow = !record.ok() && unreachable(record.failure.kind) ? m_unreachableInRow + 1 : 0;
    addVerdict(m_tasks[index], std::move(exchange), record);
    if (m_unreachableInRow >= UnreachableInARow && !m_stopping) {
        stop(
            QStringLiteral("stopped after %1 judgements in a row could not reach the judge at %2 (%3): start "
                           "the judge and run the command again to resume")
                .arg(m_unreachableInRow)
                .arg(m_request.judge.baseUrl.toString(), record.failure.summary),
            false);
        return;
    }
    schedulePump();
}

void JudgingWork::addVerdict(const JudgeTask& task, JudgeExchange exchange, const RequestRecord& request)
{
    const bool silent = m_silent;
    if (task.kind == JudgeTask::Kind::Rubric) {
        RubricVerdict v;
        v.answer = task.answer;
        if (!exchange.failed()) {
            const QStringList ids = m_request.plan.rubric
                ? criteriaIds(*m_request.plan.rubric, task.answer.test)
                : QStringList();
            auto read = readRubricReply(exchange.reply, ids);
            if (auto* reply = std::get_if<RubricReply>(&read)) {
                v.scores = reply->scores;
                v.reason = reply->reason;
            } else {
                exchange.error = replyProblem(std::get<QString>(read), request);
            }
        }
        v.exchange = std::move(exchange);
        m_judging.rubricVerdicts.push_back(v);
        if (m_callbacks.rubricVerdict && !silent)
            m_callbacks.rubricVerdict(v);
    } else {
        PairVerdict v;
        v.candidate = task.answer.endpoint;
        v.baseline = task.baseline;
        v.test = task.answer.test;
        v.turn = task.answer.turn;
        v.iteration = task.answer.iteration;
        v.candidateFirst = task.candidateFirst;
        if (!exchange.failed()) {
            auto read = readPairReply(exchange.reply);
            if (auto* reply = std::get_if<PairReply>(&read)) {
                v.pick = reply->better == PairReply::Better::First ? PairPick::First
                    : reply->better == PairReply::Better::Second   ? PairPick::Second
                                                                   : PairPick::Tie;
                v.reason = reply->reason;
            } else {
                exchange.error = replyProblem(std::get<QString>(read), request);
            }
        }
        if (!exchange.error.isEmpty())
            v.pick = PairPick::Failed;
        v.exchange = std::move(exchange);
        m_judging.pairVerdicts.push_back(v);
        if (m_callbacks.pairVerdict && !silent)
            m_callbacks.pairVerdict(v);
    }
    const QString& error = task.kind == JudgeTask::Kind::Rubric
        ? m_judging.rubricVerdicts.back().exchange.error
        : m_judging.pairVerdicts.back().exchange.error;
    ++m_progress.done;
    if (!error.isEmpty()) {
        ++m_progress.failed;
        if (m_firstFailure.isEmpty())
            m_firstFailure = error;
    }
    if (m_callbacks.progress && !silent)
        m_callbacks.progress(m_progress);
}

void JudgingWork::stop(const QString& note, bool cancelled)
{
    if (!m_running)
        return;
    m_stopping = true;
    m_cancelled = m_cancelled || cancelled;
    if (!note.isEmpty())
        m_stopNote = note;
    for (auto& slot : m_slots)
        if (slot->task)
            slot->client->cancel(); // finished() follows at once and drops the judgement
    if (m_silent) {
        m_running = false;
        return;
    }
    schedulePump();
}

void JudgingWork::finish()
{
    m_running = false;
    m_judging.endedAt = QDateTime::currentDateTimeUtc();
    m_judging.complete = m_progress.done == m_progress.total;
    if (m_cancelled)
        m_judging.notes << QStringLiteral(
            "cancelled after %1 of %2 judgements: run the command again to resume")
                               .arg(m_progress.done)
                               .arg(m_progress.total);
    if (!m_stopNote.isEmpty())
        m_judging.notes << m_stopNote;
    if (m_progress.failed > 0)
        m_judging.notes << QStringLiteral(
            "the judge failed on %1 of %2 judgements (first: %3); run the command "
            "again to retry them")
                               .arg(m_progress.failed)
                               .arg(m_progress.done)
                               .arg(m_firstFailure);
    if (m_callbacks.finished && !m_silent)
        m_callbacks.finished(m_judging, m_progress);
}

JudgeController::JudgeController(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<qs::JudgeProgress>();
    qRegisterMetaType<qs::RubricVerdict>();
    qRegisterMetaType<qs::PairVerdict>();
    qRegisterMetaType<qs::Judging>();
    // Called in the worker's thread; each posts a copy of its values to this object's thread.
    Worker::Callbacks callbacks;
    callbacks.progress = [this](const JudgeProgress& p) {
        QMetaObject::invokeMethod(
            this, [this, p] { Q_EMIT progress(p); }, Qt::QueuedConnection);
    };
    callbacks.rubricVerdict = [this](const RubricVerdict& v) {
        QMetaObject::invokeMethod(
            this, [this, v] { Q_EMIT rubricVerdict(v); }, Qt::QueuedConnection);
    };
    callbacks.pairVerdict = [this](const PairVerdict& v) {
        QMetaObject::invokeMethod(
            this, [this, v] { Q_EMIT pairVerdict(v); }, Qt::QueuedConnection);
    };
    callbacks.finished = [this](const Judging& j, const JudgeProgress& p) {
        QMetaObject::invokeMethod(
            this,
            [this, j, p] {
                m_running = false;
                Q_EMIT finished(j, p);
            },
            Qt::QueuedConnection);
    };
    callbacks.failed = [this](const QString& message) {
        QMetaObject::invokeMethod(
            this,
            [this, message] {
                m_running = false;
                Q_EMIT failed(message);
            },
            Qt::QueuedConnection);
    };
    m_worker = new Worker(std::move(callbacks));
    m_thread.setObjectName(QStringLiteral("quantscope-judge"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();
}

JudgeController::~JudgeController()
{
    if (m_running) {
        // Blocking is safe: the worker never waits on this thread.
        Worker* worker = m_worker;
        QMetaObject::invokeMethod(
            worker, [worker] { worker->abortNow(); }, Qt::BlockingQueuedConnection);
    }
    m_thread.quit();
    m_thread.wait();
}

void JudgeController::start(JudgeRequest request)
{
    if (m_running)
        return;
    m_running = true;
    Worker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker, r = std::move(request)]() mutable { worker->start(std::move(r)); },
        Qt::QueuedConnection);
}

void JudgeController::cancel()
{
    if (!m_running)
        return;
    Worker* worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->cancel(); }, Qt::QueuedConnection);
}

Judging runJudgingBlocking(
    JudgeRequest request, const std::function<void(const JudgeProgress&, const Judging&)>& onProgress)
{
    QEventLoop loop;
    std::optional<Judging> result;
    JudgingWork* worker = nullptr;
    JudgingWork::Callbacks callbacks;
    callbacks.progress = [&](const JudgeProgress& p) {
        if (onProgress && worker)
            onProgress(p, worker->judging());
    };
    callbacks.finished = [&](const Judging& j, const JudgeProgress&) {
        result = j;
        loop.quit();
    };
    JudgeIdentity identity = request.identity;
    std::optional<Rubric> rubric = request.plan.rubric;
    callbacks.failed = [&](const QString& message) {
        Judging j;
        j.judge = identity;
        j.rubric = rubric;
        j.notes << message;
        result = j;
        loop.quit();
    };
    JudgingWork session(std::move(callbacks));
    worker = &session;
    session.start(std::move(request));
    if (!result)
        loop.exec();
    return *result;
}

} // namespace qs

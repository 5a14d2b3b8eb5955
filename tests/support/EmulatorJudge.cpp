// SPDX-License-Identifier: MIT
#include "tests/support/EmulatorJudge.h"

#include "tests/support/EmulatorJson.h"
#include "tests/support/SimulatedModel.h"

#include <QRegularExpression>
#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <optional>

namespace qs::emu {

namespace {

using detail::ojson;
using Mode = JudgeBehaviour::Mode;

// ---- reading the prompt ------------------------------------------------------------------

/// The lines between the line `start` and the line `end` (each compared trimmed), or nullopt
/// when either is missing.
std::optional<QString> block(const QStringList& lines, QLatin1String start, QLatin1String end)
{
    qsizetype from = -1;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = lines.at(i).trimmed();
        if (from < 0 && line == start) {
            from = i + 1;
        } else if (from >= 0 && line == end) {
            return lines.mid(from, i - from).join(u'\n');
        }
    }
    return std::nullopt;
}

/// "- ID: TITLE. DESCRIPTION …" lines of the criteria block.
QStringList criterionIds(const QString& criteria)
{
    QStringList ids;
    for (const QString& raw : criteria.split(u'\n')) {
        const QString line = raw.trimmed();
        if (!line.startsWith(QLatin1String("- ")))
            continue;
        const qsizetype colon = line.indexOf(u':');
        const QString id = line.mid(2, colon < 0 ? -1 : colon - 2).trimmed();
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    return ids;
}

// ---- the heuristic judge ------------------------------------------------------------------

/// What the heuristic judge sees in an answer.
struct Features {
    int words = 0;
    bool markdown = false;
    bool leakedThinking = false;
    bool garbled = false;
    bool empty = false;
};

Features featuresOf(const QString& answer)
{
    static const QRegularExpression markdown(
        QStringLiteral(R"((\*\*|__|```|^\s{0,3}#{1,6}\s|^\s*[-*+]\s|^\s*\d+\.\s))"),
        QRegularExpression::MultilineOption);
    static const QRegularExpression thinking(
        QStringLiteral(R"((</?think>|Thinking Process:|Analyze the Request))"),
        QRegularExpression::CaseInsensitiveOption);
    Features f;
    const QString text = answer.trimmed();
    f.empty = text.isEmpty();
    f.words = int(text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts).size());
    f.markdown = markdown.match(text).hasMatch();
    f.leakedThinking = thinking.match(text).hasMatch();
    // Mixed scripts inside one word ("M刘邦opIS"), or mostly non-Latin letters: not a real answer.
    int letters = 0;
    int nonLatin = 0;
    for (const QString& word : text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
        bool latin = false;
        bool other = false;
        for (const QChar ch : word) {
            if (!ch.isLetter())
                continue;
            ++letters;
            if (ch.script() == QChar::Script_Latin) {
                latin = true;
            } else {
                other = true;
                ++nonLatin;
            }
        }
        if (latin && other)
            f.garbled = true;
    }
    if (letters > 0 && nonLatin * 4 > letters)
        f.garbled = true;
    return f;
}

/// 1-5 overall: plain, short and free of thinking is best.
int overallScore(const Features& f)
{
    if (f.empty || f.garbled)
        return 1;
    int score = 5 - (f.leakedThinking ? 2 : 0) - (f.markdown ? 1 : 0) - (f.words > 60 ? 1 : 0)
        - (f.words > 120 ? 1 : 0);
    return std::clamp(score, 1, 5);
}

/// A criterion's score: length-like criteria follow the length, persona-like ones the manners,
/// the rest the overall score.
int criterionScore(const QString& id, const Features& f)
{
    if (f.empty || f.garbled)
        return 1;
    const QString key = id.toLower();
    if (key.contains(QLatin1String("length")) || key.contains(QLatin1String("speech"))
        || key.contains(QLatin1String("concise"))) {
        const int byLength = f.words <= 40 ? 5 : f.words <= 80 ? 4 : f.words <= 120 ? 3 : 2;
        return std::clamp(byLength - (f.markdown ? 1 : 0), 1, 5);
    }
    if (key.contains(QLatin1String("persona")) || key.contains(QLatin1String("warm")))
        return std::clamp(5 - (f.markdown ? 1 : 0) - (f.leakedThinking ? 2 : 0), 1, 5);
    return overallScore(f);
}

QString describe(const Features& f)
{
    if (f.empty)
        return QStringLiteral("is empty");
    if (f.garbled)
        return QStringLiteral("is garbled");
    QStringList faults;
    if (f.leakedThinking)
        faults << QStringLiteral("leaks its thinking");
    if (f.markdown)
        faults << QStringLiteral("uses markdown a voice would read aloud");
    if (f.words > 60)
        faults << QStringLiteral("is long for speech (%1 words)").arg(f.words);
    return faults.isEmpty() ? QStringLiteral("is plain and short (%1 words)").arg(f.words)
                            : faults.join(QStringLiteral(", "));
}

/// -1: `a` is better, 1: `b` is better, 0: a tie. Symmetric, so the judge is position-consistent.
int heuristicCompare(const Features& a, const Features& b)
{
    const auto badness = [](const Features& f) {
        return std::array<int, 3> {
            f.empty || f.garbled ? 1 : 0, f.leakedThinking ? 1 : 0, f.markdown ? 1 : 0};
    };
    if (badness(a) != badness(b))
        return badness(a) < badness(b) ? -1 : 1;
    // Shorter wins only by a clear margin (15 % and 3 words); otherwise the length is a wash.
    const int shorter = std::min(a.words, b.words);
    const int longer = std::max(a.words, b.words);
    if (longer - shorter < 3 || longer * 100 < shorter * 115)
        return 0;
    return a.words < b.words ? -1 : 1;
}

// ---- the verdicts ---------------------------------------------------------------------------

struct PairVerdictText {
    QString better; ///< "1", "2", "tie"
    QString reason;
};

PairVerdictText pairVerdict(const JudgePromptView& p, const JudgeBehaviour& b)
{
    switch (b.mode) {
    case Mode::AlwaysFirst:
        return {QStringLiteral("1"), QStringLiteral("Answer 1 is better.")};
    case Mode::AlwaysTie:
        return {QStringLiteral("tie"), QStringLiteral("Both answers are equally good.")};
    case Mode::Heuristic: {
        const Features first = featuresOf(p.first);
        const Features second = featuresOf(p.second);
        const int order = heuristicCompare(first, second);
        const QString reason
            = QStringLiteral("Answer 1 %1; answer 2 %2.").arg(describe(first), describe(second));
        return {order < 0   ? QStringLiteral("1")
                : order > 0 ? QStringLiteral("2")
                            : QStringLiteral("tie"),
            reason};
    }
    default: { // PreferWord and everything that answers like it
        const bool in1 = !b.word.isEmpty() && p.first.contains(b.word, Qt::CaseInsensitive);
        const bool in2 = !b.word.isEmpty() && p.second.contains(b.word, Qt::CaseInsensitive);
        if (in1 != in2)
            return {in1 ? QStringLiteral("1") : QStringLiteral("2"),
                QStringLiteral("Answer %1 mentions \"%2\".").arg(in1 ? 1 : 2).arg(b.word)};
        return {QStringLiteral("tie"),
            in1 ? QStringLiteral("Both answers mention \"%1\".").arg(b.word)
                : QStringLiteral("Neither answer mentions \"%1\".").arg(b.word)};
    }
    }
}

ojson rubricScores(const JudgePromptView& p, const JudgeBehaviour& b, QString& reason)
{
    ojson scores = ojson::object();
    const Features f = featuresOf(p.answer);
    const bool hasWord = !b.word.isEmpty() && p.answer.contains(b.word, Qt::CaseInsensitive);
    for (const QString& id : p.criteria) {
        int score = 3;
        if (b.mode == Mode::Heuristic)
            score = criterionScore(id, f);
        else if (b.mode != Mode::AlwaysFirst && b.mode != Mode::AlwaysTie)
            score = hasWord ? 5 : 2;
        scores[detail::str(id)] = score;
    }
    if (b.mode == Mode::Heuristic)
        reason = QStringLiteral("The answer %1.").arg(describe(f));
    else if (b.mode == Mode::AlwaysFirst || b.mode == Mode::AlwaysTie)
        reason = QStringLiteral("An average answer.");
    else
        reason = hasWord ? QStringLiteral("The answer mentions \"%1\".").arg(b.word)
                         : QStringLiteral("The answer does not mention \"%1\".").arg(b.word);
    return scores;
}

/// A judge's JSON as a model writes it: one line, ", " and ": " between items.
QString verdictJson(const ojson& verdict)
{
    return QString::fromUtf8(detail::pythonJsonDumps(verdict));
}

QString verdictFor(const JudgePromptView& p, const JudgeBehaviour& b)
{
    if (p.kind == JudgePromptView::Kind::Pair) {
        const PairVerdictText v = pairVerdict(p, b);
        return verdictJson(ojson {{"better", detail::str(v.better)}, {"reason", detail::str(v.reason)}});
    }
    QString reason;
    ojson scores = rubricScores(p, b, reason);
    return verdictJson(ojson {{"scores", std::move(scores)}, {"reason", detail::str(reason)}});
}

QString brokenJson(const JudgePromptView& p)
{
    if (p.kind == JudgePromptView::Kind::Pair)
        return QStringLiteral(R"({"better": "1", "reason": "cut of)");
    QString text = QStringLiteral(R"({"scores": {)");
    if (!p.criteria.isEmpty())
        text += QStringLiteral(R"("%1": 4, ")").arg(p.criteria.first());
    return text;
}

QStringList reasoningTokens(const JudgePromptView& p)
{
    if (p.kind == JudgePromptView::Kind::Pair)
        return {QStringLiteral("I compare "), QStringLiteral("both answers "),
            QStringLiteral("with the question, "), QStringLiteral("then decide.")};
    return {QStringLiteral("I read "), QStringLiteral("the answer "), QStringLiteral("against each "),
        QStringLiteral("criterion.")};
}

/// `text` in `chunks` pieces of about equal length (never splitting a surrogate pair).
QStringList chunked(const QString& text, int chunks)
{
    if (chunks <= 0)
        return detail::wordTokens(text);
    QStringList out;
    const qsizetype size = std::max<qsizetype>(1, (text.size() + chunks - 1) / chunks);
    qsizetype at = 0;
    while (at < text.size()) {
        qsizetype end = std::min(text.size(), at + size);
        if (end < text.size() && text.at(end - 1).isHighSurrogate())
            ++end;
        out << text.mid(at, end - at);
        at = end;
    }
    return out;
}

} // namespace

JudgePromptView readJudgePrompt(const QJsonObject& body)
{
    const QStringList lines = detail::readConversation(body).lastUser.split(u'\n');
    JudgePromptView view;
    const auto first
        = block(lines, QLatin1String("[The Start of Answer 1]"), QLatin1String("[The End of Answer 1]"));
    const auto second
        = block(lines, QLatin1String("[The Start of Answer 2]"), QLatin1String("[The End of Answer 2]"));
    if (first && second) {
        view.kind = JudgePromptView::Kind::Pair;
        view.first = *first;
        view.second = *second;
        return view;
    }
    const auto answer
        = block(lines, QLatin1String("[The Start of Answer]"), QLatin1String("[The End of Answer]"));
    if (answer) {
        view.kind = JudgePromptView::Kind::Rubric;
        view.answer = *answer;
        view.criteria
            = criterionIds(block(lines, QLatin1String("[Criteria]"), QLatin1String("[End of criteria]"))
                               .value_or(QString()));
    }
    return view;
}

QString judgeReplyText(const JudgePromptView& prompt, const JudgeBehaviour& behaviour)
{
    if (prompt.kind == JudgePromptView::Kind::None)
        return QStringLiteral("I am a judge: send me a rubric or pairwise judge prompt "
                              "(docs/judging.md) and I will answer with a JSON verdict.");
    if (behaviour.mode == Mode::Garbage)
        return QStringLiteral("Both answers have their merits. The first one is friendly, while the second "
                              "goes into more detail; overall I would call them comparable.");
    const QString json
        = behaviour.mode == Mode::BrokenJson ? brokenJson(prompt) : verdictFor(prompt, behaviour);
    if (!behaviour.fenced)
        return json;
    return QStringLiteral("Here is my verdict:\n```json\n") + json
        + QStringLiteral("\n```\nI weighed correctness first, then tone.");
}

Script judgeScript(const RequestInfo& info, const JudgeBehaviour& behaviour, int judgementIndex)
{
    const JudgePromptView prompt = readJudgePrompt(info.body);
    Script s;
    s.ttftMs = behaviour.ttftMs;
    s.tokensPerSecond = behaviour.tokensPerSecond;
    s.content = chunked(judgeReplyText(prompt, behaviour), behaviour.chunks);
    if (behaviour.reasoning && prompt.kind != JudgePromptView::Kind::None) {
        s.reasoning = reasoningTokens(prompt);
        s.reasoningMode = behaviour.reasoningMode;
    }
    if (behaviour.mode == Mode::Timeout) {
        s.fault = Fault::Stall;
        s.faultAfterTokens = 0;
        s.stallMs = behaviour.stallMs;
    } else if (behaviour.mode == Mode::DieAfter && judgementIndex >= behaviour.dieAfter) {
        if (behaviour.death == JudgeBehaviour::Death::Http503) {
            s.fault = Fault::HttpError;
            s.httpError = HttpErrorKind::Loading;
        } else {
            s.fault = Fault::DisconnectMidStream;
            s.faultAfterTokens = 0;
        }
    }
    return s;
}

ServerConfig judgeServerConfig(const JudgeBehaviour& behaviour, Dialect dialect)
{
    ServerConfig config;
    config.dialect = dialect;
    config.modelId = QStringLiteral("judge-emulated");
    auto judged = std::make_shared<std::atomic<int>>(0); // scriptFor may run on any thread
    config.scriptFor = [behaviour, judged](const RequestInfo& info) {
        // Only judge prompts count towards DieAfter; once dead, every request dies.
        const bool judgement = readJudgePrompt(info.body).kind != JudgePromptView::Kind::None;
        const int index = judgement ? judged->fetch_add(1) : judged->load();
        return judgeScript(info, behaviour, index);
    };
    return config;
}

} // namespace qs::emu

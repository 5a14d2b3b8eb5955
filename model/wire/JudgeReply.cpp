// SPDX-License-Identifier: MIT
#include "model/wire/JudgeReply.h"

#include "model/core/JsonText.h"

#include <QStringView>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

namespace qs {

namespace {

using json = nlohmann::json;
using json_text::describe;
using json_text::fromStd;

// Bounds that keep reading a reply linear and shallow whatever a model (or a fuzzer) sends.
constexpr qsizetype MaxScanChars = qsizetype(1) << 20; ///< only the last MiB of a reply is read
constexpr qsizetype MaxCandidateBytes = 64 * 1024;
constexpr int MaxNesting = 32; ///< a verdict is 2 levels deep
constexpr int MaxParseAttempts = 64;
constexpr int ExcerptChars = 80;

const QString ThinkOpen = QStringLiteral("<think>");
const QString ThinkClose = QStringLiteral("</think>");
const QString Fence = QStringLiteral("```");

QString excerpt(QStringView text)
{
    return u'"' + json_text::shortened(text.trimmed().toString(), ExcerptChars) + u'"';
}

/// The reply without its thinking: <think>…</think> blocks removed, everything before a bare
/// "</think>" that has no opening tag (a Qwen chat template leak) dropped, and an unclosed
/// <think> taken to run to the end.
QString outsideThinking(QStringView reply)
{
    qsizetype pos = 0;
    const qsizetype firstOpen = reply.indexOf(ThinkOpen, 0, Qt::CaseInsensitive);
    const qsizetype firstClose = reply.indexOf(ThinkClose, 0, Qt::CaseInsensitive);
    if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen))
        pos = firstClose + ThinkClose.size();
    QString out;
    while (pos < reply.size()) {
        const qsizetype open = reply.indexOf(ThinkOpen, pos, Qt::CaseInsensitive);
        if (open < 0) {
            out += reply.mid(pos);
            break;
        }
        out += reply.mid(pos, open - pos);
        out += u'\n';
        const qsizetype close = reply.indexOf(ThinkClose, open + ThinkOpen.size(), Qt::CaseInsensitive);
        if (close < 0)
            break;
        pos = close + ThinkClose.size();
    }
    return out;
}

struct Candidate {
    qsizetype begin = 0;
    qsizetype end = 0; ///< one past the last character
};

/// The contents of every ``` fence, in text order. A fence's info string ("json") is skipped;
/// an inline ```{…}``` keeps its text.
std::vector<Candidate> fences(QStringView text)
{
    std::vector<Candidate> out;
    qsizetype pos = 0;
    while (true) {
        const qsizetype open = text.indexOf(Fence, pos);
        if (open < 0)
            break;
        qsizetype begin = open + Fence.size();
        // An info string is short: look for its line end nearby only (keeps this linear).
        const qsizetype near = text.mid(begin, 64).indexOf(u'\n');
        const qsizetype lineEnd = near < 0 ? -1 : begin + near;
        const QStringView info
            = text.mid(begin, (lineEnd < 0 ? std::min<qsizetype>(64, text.size() - begin) : near)).trimmed();
        const bool word = info.size() <= 20 && std::all_of(info.begin(), info.end(), [](QChar c) {
            return c.isLetterOrNumber() || c == u'-';
        });
        if (word && lineEnd >= 0)
            begin = lineEnd + 1;
        const qsizetype close = text.indexOf(Fence, begin);
        if (close < 0)
            break;
        out.push_back({begin, close});
        pos = close + Fence.size();
    }
    return out;
}

/// The outermost balanced {…} spans, in text order. With `strings`, braces inside JSON strings
/// are not counted (the usual case); without, every brace counts (for prose whose stray quotes
/// confuse the first pass). A stray unmatched "{" never encloses what follows it.
std::vector<Candidate> balancedObjects(QStringView text, bool strings)
{
    std::vector<Candidate> top; ///< closed spans not inside another closed span
    std::vector<qsizetype> open; ///< positions of unmatched "{"
    bool inString = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (inString) {
            if (c == u'\\')
                ++i;
            else if (c == u'"')
                inString = false;
            continue;
        }
        if (c == u'"' && strings && !open.empty()) {
            inString = true;
        } else if (c == u'{') {
            open.push_back(i);
        } else if (c == u'}' && !open.empty()) {
            const qsizetype begin = open.back();
            open.pop_back();
            while (!top.empty() && top.back().begin > begin)
                top.pop_back();
            top.push_back({begin, i + 1});
        }
    }
    return top;
}

struct Extracted {
    std::optional<json> object;
    QString text; ///< the object's text, for excerpts
    QString problem; ///< why there is none
};

class Extractor {
public:
    explicit Extractor(QStringView text)
        : m_text(text)
    {
    }

    /// Tries `spans` from the last to the first; true when one parsed as an object.
    bool tryLastFirst(const std::vector<Candidate>& spans, Extracted& out)
    {
        for (auto it = spans.rbegin(); it != spans.rend() && m_attempts < MaxParseAttempts; ++it) {
            const QStringView span = m_text.mid(it->begin, it->end - it->begin).trimmed();
            if (!span.startsWith(u'{') || span.size() > MaxCandidateBytes)
                continue;
            const QByteArray utf8 = span.toUtf8();
            if (utf8.size() > MaxCandidateBytes)
                continue;
            ++m_attempts;
            try {
                json v = json_text::parseStrict(utf8, MaxNesting);
                if (v.is_object()) {
                    out.object = std::move(v);
                    out.text = span.toString();
                    return true;
                }
            } catch (const json_text::ParseProblem& p) {
                if (m_firstProblem.isEmpty()) {
                    m_firstProblem = p.message;
                    m_firstSpan = span.toString();
                }
            } catch (const std::exception& e) {
                if (m_firstProblem.isEmpty()) {
                    m_firstProblem = json_text::exceptionText(e.what());
                    m_firstSpan = span.toString();
                }
            }
        }
        return false;
    }

    QString problem() const
    {
        if (m_firstProblem.isEmpty())
            return QStringLiteral("no JSON object in the reply: %1").arg(excerpt(m_text));
        return QStringLiteral("the reply's JSON object does not parse (%1): %2")
            .arg(m_firstProblem, excerpt(m_firstSpan));
    }

private:
    QStringView m_text;
    int m_attempts = 0;
    QString m_firstProblem; ///< of the candidate tried first (the last in the text)
    QString m_firstSpan;
};

Extracted extract(const QString& reply)
{
    Extracted out;
    if (reply.trimmed().isEmpty()) {
        out.problem = QStringLiteral("the reply is empty");
        return out;
    }
    const QStringView tail = QStringView(reply).right(MaxScanChars);
    const QString visible = outsideThinking(tail);
    if (visible.trimmed().isEmpty()) {
        out.problem
            = QStringLiteral("the reply is only thinking (<think>…</think>), no JSON object after it: %1")
                  .arg(excerpt(tail));
        return out;
    }
    Extractor extractor(visible);
    if (extractor.tryLastFirst(fences(visible), out)
        || extractor.tryLastFirst(balancedObjects(visible, true), out)
        || extractor.tryLastFirst(balancedObjects(visible, false), out))
        return out;
    out.problem = extractor.problem();
    return out;
}

QString withExcerpt(const QString& problem, const Extracted& e)
{
    return QStringLiteral("%1 (reply: %2)").arg(problem, excerpt(e.text));
}

QString numberText(const json& v)
{
    if (v.is_number_unsigned())
        return QString::number(v.get<quint64>());
    if (v.is_number_integer())
        return QString::number(v.get<qint64>());
    return QString::number(v.get<double>());
}

/// A whole number from a JSON number or a numeric string ("4", " 5 ", "4.0"); nullopt for
/// anything else, including 4.5.
std::optional<qint64> wholeNumber(const json& v, QString* shown)
{
    double d = 0;
    if (v.is_number_unsigned()) {
        *shown = numberText(v);
        // Only compared with 1..5: a huge value just has to stay out of range.
        return qint64(std::min<quint64>(v.get<quint64>(), 1000000));
    }
    if (v.is_number_integer()) {
        *shown = numberText(v);
        return v.get<qint64>();
    }
    if (v.is_number_float()) {
        *shown = numberText(v);
        d = v.get<double>();
    } else if (v.is_string()) {
        const QString s = fromStd(v.get_ref<const std::string&>()).trimmed();
        *shown = json_text::quote(s);
        bool ok = false;
        d = s.toDouble(&ok);
        if (!ok)
            return std::nullopt;
    } else {
        *shown = describe(v);
        return std::nullopt;
    }
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 1e12)
        return std::nullopt;
    return qint64(d);
}

/// The reply's "reason": a string, or empty when absent or null.
std::optional<QString> readReason(const json& object, QString* reason)
{
    const auto it = object.find("reason");
    if (it == object.end() || it->is_null())
        return std::nullopt;
    if (!it->is_string())
        return QStringLiteral("\"reason\" must be a string, found %1").arg(describe(*it));
    *reason = fromStd(it->get_ref<const std::string&>());
    return std::nullopt;
}

} // namespace

std::optional<QString> extractJsonObject(const QString& reply)
{
    Extracted e = extract(reply);
    if (!e.object)
        return std::nullopt;
    return e.text;
}

JudgeReplyResult<RubricReply> readRubricReply(const QString& reply, const QStringList& criteria)
{
    const Extracted e = extract(reply);
    if (!e.object)
        return e.problem;
    const json& object = *e.object;
    RubricReply out;
    if (auto problem = readReason(object, &out.reason))
        return withExcerpt(*problem, e);
    const auto scores = object.find("scores");
    if (scores == object.end())
        return withExcerpt(QStringLiteral("the reply has no \"scores\" object"), e);
    if (!scores->is_object())
        return withExcerpt(QStringLiteral("\"scores\" must be an object of criterion scores, found %1")
                               .arg(describe(*scores)),
            e);
    for (const auto& [key, value] : scores->items()) {
        const QString id = fromStd(key);
        if (!criteria.contains(id))
            return withExcerpt(QStringLiteral("score for unknown criterion %1 (%2the criteria are %3)")
                                   .arg(json_text::quote(id), json_text::didYouMeanHint(id, criteria),
                                       criteria.join(QStringLiteral(", "))),
                e);
        QString shown;
        const std::optional<qint64> n = wholeNumber(value, &shown);
        if (!n || *n < 1 || *n > 5)
            return withExcerpt(QStringLiteral("score for %1 is %2, not %3")
                                   .arg(json_text::quote(id), shown,
                                       n ? QStringLiteral("1-5") : QStringLiteral("a whole number 1-5")),
                e);
        out.scores[id] = int(*n);
    }
    for (const QString& id : criteria)
        if (!out.scores.count(id))
            return withExcerpt(QStringLiteral("missing score for %1").arg(json_text::quote(id)), e);
    return out;
}

JudgeReplyResult<PairReply> readPairReply(const QString& reply)
{
    const Extracted e = extract(reply);
    if (!e.object)
        return e.problem;
    const json& object = *e.object;
    PairReply out;
    if (auto problem = readReason(object, &out.reason))
        return withExcerpt(*problem, e);
    const auto better = object.find("better");
    if (better == object.end())
        return withExcerpt(QStringLiteral("the reply has no \"better\""), e);
    const auto bad = [&](const QString& shown) {
        return withExcerpt(QStringLiteral("\"better\" is %1, not \"1\", \"2\" or \"tie\"").arg(shown), e);
    };
    if (better->is_string()) {
        const QString s = fromStd(better->get_ref<const std::string&>()).trimmed();
        if (s.compare(u"tie", Qt::CaseInsensitive) == 0) {
            out.better = PairReply::Better::Tie;
            return out;
        }
    }
    QString shown = describe(*better);
    // 0 = not a whole number (booleans are not numbers here).
    const qint64 n = better->is_boolean() ? 0 : wholeNumber(*better, &shown).value_or(0);
    if (n == 1)
        out.better = PairReply::Better::First;
    else if (n == 2)
        out.better = PairReply::Better::Second;
    else
        return bad(shown);
    return out;
}

} // namespace qs

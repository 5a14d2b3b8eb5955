// SPDX-License-Identifier: MIT
#include "model/gates/GateText.h"

#include <QStringList>
#include <algorithm>

namespace qs::gates {

bool hasNonSpace(QStringView text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) { return !c.isSpace(); });
}

// A bare URL is not markdown and not a garbled word: blank it with maskChar (same length, offsets
// unchanged), keeping its scheme so that "<https://…>" and "[x](https://…)" are still recognised.
QString maskUrls(const QString& text, const QRegularExpression& url)
{
    QString out = text;
    auto it = url.globalMatch(text);
    while (it.hasNext()) {
        const auto m = it.next();
        const QString found = m.captured();
        qsizetype keep = found.indexOf(QStringLiteral("://"));
        keep = keep >= 0 ? keep + 3 : (found.startsWith(QStringLiteral("www."), Qt::CaseInsensitive) ? 4 : 0);
        for (qsizetype i = m.capturedStart() + keep; i < m.capturedEnd(); ++i)
            out[i] = QChar(maskChar);
    }
    return out;
}

std::vector<Hit> findAll(const Pattern& p, const QString& text, int offset)
{
    std::vector<Hit> hits;
    auto it = p.regex.globalMatch(text);
    while (it.hasNext() && int(hits.size()) < maxGateHitsPerPattern) {
        const auto m = it.next();
        if (m.capturedLength() > 0)
            hits.push_back({offset + int(m.capturedStart()), offset + int(m.capturedEnd()), p.name});
    }
    if (int(hits.size()) < p.minMatches)
        hits.clear();
    return hits;
}

std::vector<Hit> findAll(const std::vector<Pattern>& patterns, const QString& text, int offset)
{
    std::vector<Hit> hits;
    for (const Pattern& p : patterns) {
        auto found = findAll(p, text, offset);
        hits.insert(hits.end(), found.begin(), found.end());
    }
    std::sort(hits.begin(), hits.end(),
        [](const Hit& a, const Hit& b) { return a.begin != b.begin ? a.begin < b.begin : a.end > b.end; });
    return hits;
}

QString excerpt(QStringView text, int limit)
{
    QString t = text.toString();
    t.replace(u'\n', QStringLiteral("⏎"));
    t.replace(u'\t', u' ');
    if (t.size() > limit) {
        qsizetype keep = limit - 1;
        if (t.at(keep - 1).isHighSurrogate())
            --keep; // never split a character
        t = t.left(keep) + QStringLiteral("…");
    }
    return t;
}

QString span(int begin, int end)
{
    return QStringLiteral("%1–%2").arg(begin).arg(end);
}

QString describeHit(const Hit& h, const QString& field)
{
    const int begin = std::clamp(h.begin, 0, int(field.size()));
    const int end = std::clamp(h.end, begin, int(field.size()));
    return h.what + QStringLiteral(" \"") + excerpt(QStringView(field).sliced(begin, end - begin))
        + QStringLiteral("\" at ") + span(h.begin, h.end);
}

QString describeHits(const std::vector<Hit>& hits, const QString& field)
{
    QStringList parts;
    for (std::size_t i = 0; i < hits.size() && int(i) < reasonExamples; ++i)
        parts << describeHit(hits[i], field);
    QString out = parts.join(QStringLiteral("; "));
    if (int(hits.size()) > reasonExamples)
        out += QStringLiteral(" (+%1 more)").arg(hits.size() - std::size_t(reasonExamples));
    return out;
}

std::vector<TextRange> toRanges(const std::vector<Hit>& hits, const QString& field)
{
    std::vector<TextRange> out;
    out.reserve(hits.size());
    for (const Hit& h : hits)
        out.push_back({h.begin, h.end, field, h.what});
    return out;
}

GateResult result(const QString& gate, GateVerdict verdict, const QString& reason)
{
    GateResult r;
    r.gate = gate;
    r.verdict = verdict;
    r.reason = reason;
    return r;
}

} // namespace qs::gates

// SPDX-License-Identifier: MIT
// Two answers' tokens walked side by side for the fidelity measure: clean entries compared pair
// by pair; around an entry that is not one position's own (a character written in byte pieces,
// merged, held back or spelt U+FFFD by the server) both sides skip to where their bytes line up
// again, and go on only where they provably wrote the same text in as many tokens
// (docs/methodology.md, "Alignment").
#include "model/evaluate/FidelityAlignment.h"

#include <algorithm>

namespace qs::fidelity {

namespace {

/// The reference token (0-based) holding byte `byte` of its token stream; the token count past
/// the end.
int tokenAtByte(const AlignedAnswer& a, qsizetype byte)
{
    if (byte >= a.bytes.size())
        return int(a.tokens.size());
    const auto it = std::upper_bound(a.offsets.begin(), a.offsets.end(), byte);
    return int(it - a.offsets.begin()) - 1;
}

/// Units [from, to) of one answer inside a gap, and the byte offset where they end.
struct Segment {
    int from = 0;
    int to = 0;
    qsizetype end = 0;
};

/// Widens a gap on both sides, from entries that start at the same byte offset, until the two
/// sides end at one byte offset again with a clean entry (or the end) next on both; or until the
/// side that is behind has nothing left.
void spanGap(const AlignedAnswer& a, const AlignedAnswer& b, Segment& sa, Segment& sb)
{
    const auto take = [](const AlignedAnswer& x, Segment& s) {
        s.end = x.offsets[std::size_t(s.to)] + x.tokens[std::size_t(s.to)]->bytes.size();
        ++s.to;
    };
    const auto opaqueNext = [](const AlignedAnswer& x, const Segment& s) {
        return s.to < int(x.tokens.size()) && x.opaque(std::size_t(s.to));
    };
    take(a, sa);
    take(b, sb);
    for (;;) {
        if (sa.end == sb.end) {
            const bool moreA = opaqueNext(a, sa);
            const bool moreB = opaqueNext(b, sb);
            if (!moreA && !moreB)
                return;
            if (moreA)
                take(a, sa);
            if (moreB)
                take(b, sb);
        } else if (sa.end < sb.end) {
            if (sa.to == int(a.tokens.size()))
                return;
            take(a, sa);
        } else {
            if (sb.to == int(b.tokens.size()))
                return;
            take(b, sb);
        }
    }
}

/// The positions a segment stands for; 0 when any of its entries' count is unknown.
int segmentPositions(const AlignedAnswer& x, const Segment& s)
{
    int n = 0;
    for (int k = s.from; k < s.to; ++k) {
        if (x.positions[std::size_t(k)] == 0)
            return 0;
        n += x.positions[std::size_t(k)];
    }
    return n;
}

/// Entry for entry the same: bytes, ids where both have one, positions.
bool sameEntries(const AlignedAnswer& a, const Segment& sa, const AlignedAnswer& b, const Segment& sb)
{
    if (sa.to - sa.from != sb.to - sb.from)
        return false;
    for (int k = 0; k < sa.to - sa.from; ++k) {
        const std::size_t x = std::size_t(sa.from + k), y = std::size_t(sb.from + k);
        const TokenLogprob& s = *a.tokens[x];
        const TokenLogprob& t = *b.tokens[y];
        if (s.bytes != t.bytes || (s.id && t.id && *s.id != *t.id) || a.positions[x] != b.positions[y])
            return false;
    }
    return true;
}

/// The two sides' walk, with the responses' texts at hand for the gaps whose bytes are not the
/// text (read only when such a gap comes).
class Walker {
public:
    Walker(const AlignedAnswer& a, const AlignedAnswer& b, const RunRecord& reference,
        const RunRecord& candidate)
        : m_a(a)
        , m_b(b)
        , m_reference(reference)
        , m_candidate(candidate)
    {
    }

    Walk run()
    {
        Walk w;
        const int na = int(m_a.tokens.size());
        const int nb = int(m_b.tokens.size());
        int i = 0, j = 0;
        while (i < na && j < nb) {
            if (m_a.opaque(std::size_t(i)) || m_b.opaque(std::size_t(j))) {
                if (!gap(i, j, w))
                    return w;
                continue;
            }
            const TokenLogprob& x = *m_a.tokens[std::size_t(i)];
            const TokenLogprob& y = *m_b.tokens[std::size_t(j)];
            if (x.bytes == y.bytes) {
                // The same text under another id: another vocabulary.
                if (x.id && y.id && *x.id != *y.id) {
                    w.why = QStringLiteral("tokenizers differ");
                    return w;
                }
                w.shared.emplace_back(i++, j++);
                continue;
            }
            // Same text cut differently (both streams agree over the longer token): another
            // tokenizer, not another choice. Both sides are at the same byte offset here.
            const qsizetype offset = m_a.offsets[std::size_t(i)];
            const qsizetype span = std::max(x.bytes.size(), y.bytes.size());
            if (offset + span <= m_a.bytes.size() && offset + span <= m_b.bytes.size()
                && m_a.bytes.mid(offset, span) == m_b.bytes.mid(offset, span)) {
                w.why = QStringLiteral("tokenizers differ");
                return w;
            }
            w.parted = std::pair {i, j};
            w.end = WalkEnd::Diverged;
            w.at = i;
            return w;
        }
        w.end = i == na && j == nb ? WalkEnd::Identical : WalkEnd::Diverged;
        w.at = i;
        return w;
    }

private:
    const QString& referenceText()
    {
        if (!m_referenceText)
            m_referenceText = responseText(m_reference.request.response);
        return *m_referenceText;
    }
    const QString& candidateText()
    {
        if (!m_candidateText)
            m_candidateText = responseText(m_candidate.request.response);
        return *m_candidateText;
    }

    /// The segment's bytes are the answer's text: every entry emitted its own text (clean,
    /// merged, invalid bytes as llama-server sends them), or the entries after held-back ones
    /// spell what the response's text shows there. Never with a U+FFFD.
    bool faithful(const AlignedAnswer& x, const Segment& s, const QString& text) const
    {
        bool heldBack = false;
        for (int k = s.from; k < s.to; ++k) {
            const EntryKind kind = x.kinds[std::size_t(k)];
            if (kind == EntryKind::Replacement)
                return false;
            heldBack = heldBack || kind == EntryKind::AfterHeldBack;
        }
        return !heldBack || text.startsWith(QString::fromUtf8(x.bytes.left(s.end)));
    }

    /// Two segments with the same bytes but U+FFFD or lost text in them name the same text: the
    /// whole texts are equal, or (only U+FFFD hides it) both texts agree from the gap's start over
    /// as many characters as the entries spell — each partial token adds at most the characters
    /// its own replacement text has, so the real text of either gap lies inside that window.
    bool sameHiddenText(const Segment& sa, qsizetype offset)
    {
        const QString& x = referenceText();
        const QString& y = candidateText();
        if (x == y)
            return true;
        for (int k = sa.from; k < sa.to; ++k)
            if (m_a.kinds[std::size_t(k)] == EntryKind::AfterHeldBack)
                return false; // the held-back text may be lost: no window bounds it
        const QString prefix = QString::fromUtf8(m_a.bytes.left(offset));
        if (!x.startsWith(prefix) || !y.startsWith(prefix))
            return false;
        const qsizetype window = QString::fromUtf8(m_a.bytes.mid(offset, sa.end - offset)).size();
        return x.mid(prefix.size(), window) == y.mid(prefix.size(), window);
    }

    /// A gap from (i, j): crossed (i, j moved past it, true), or the walk ends in it (false).
    bool gap(int& i, int& j, Walk& w)
    {
        Segment sa {i, i, 0};
        Segment sb {j, j, 0};
        spanGap(m_a, m_b, sa, sb);
        const qsizetype offset = m_a.offsets[std::size_t(i)];
        const QByteArray x = m_a.bytes.mid(offset, sa.end - offset);
        const QByteArray y = m_b.bytes.mid(offset, sb.end - offset);
        const bool sameText = sa.end == sb.end && x == y;
        const bool identicalEntries = sameText && sameEntries(m_a, sa, m_b, sb);
        if (faithful(m_a, sa, referenceText()) && faithful(m_b, sb, candidateText())) {
            if (sameText) {
                const int positions = segmentPositions(m_a, sa);
                if ((positions > 0 && positions == segmentPositions(m_b, sb)) || identicalEntries)
                    return crossed(sa, sb, i, j, w);
                return stopped(i, w,
                    QStringLiteral("the same text in another number of tokens (a character written in "
                                   "pieces on one side only)"));
            }
            // Real text on both sides that differs: the answers part inside the gap, where neither
            // side shows the distribution of the position that chose the first differing byte.
            const qsizetype n = std::min(sa.end, sb.end);
            qsizetype f = offset;
            while (f < n && m_a.bytes[f] == m_b.bytes[f])
                ++f;
            w.end = WalkEnd::Diverged;
            w.at = tokenAtByte(m_a, f);
            w.inGap = true;
            return false;
        }
        if (identicalEntries && sameHiddenText(sa, offset))
            return crossed(sa, sb, i, j, w);
        return stopped(i, w,
            QStringLiteral("partial characters (U+FFFD, or pieces held back as \"\" entries) hide the "
                           "text there"));
    }

    static bool crossed(const Segment& sa, const Segment& sb, int& i, int& j, Walk& w)
    {
        w.partial += sa.to - sa.from;
        i = sa.to;
        j = sb.to;
        return true;
    }

    static bool stopped(int i, Walk& w, const QString& why)
    {
        w.end = WalkEnd::Stopped;
        w.at = i;
        w.stop = why;
        return false;
    }

    const AlignedAnswer& m_a;
    const AlignedAnswer& m_b;
    const RunRecord& m_reference;
    const RunRecord& m_candidate;
    std::optional<QString> m_referenceText;
    std::optional<QString> m_candidateText;
};

} // namespace

Walk walkAnswers(const AlignedAnswer& reference, const AlignedAnswer& candidate,
    const RunRecord& referenceRecord, const RunRecord& candidateRecord)
{
    return Walker(reference, candidate, referenceRecord, candidateRecord).run();
}

} // namespace qs::fidelity

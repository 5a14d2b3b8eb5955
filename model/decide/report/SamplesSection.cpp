// SPDX-License-Identifier: MIT
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"
#include "model/gates/QualityGates.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

/// `text` cut into plain and failing pieces; overlapping or touching ranges become one piece.
std::vector<std::pair<QString, bool>> segmentsOf(const QString& text, std::vector<std::pair<int, int>> ranges)
{
    const int size = int(text.size());
    for (auto& [b, e] : ranges) {
        b = std::clamp(b, 0, size);
        e = std::clamp(e, 0, size);
    }
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::pair<QString, bool>> out;
    int pos = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        int b = std::max(ranges[i].first, pos);
        int e = ranges[i].second;
        if (e <= b)
            continue;
        while (i + 1 < ranges.size() && ranges[i + 1].first <= e) {
            e = std::max(e, ranges[i + 1].second);
            ++i;
        }
        if (b > pos)
            out.emplace_back(text.mid(pos, b - pos), false);
        out.emplace_back(text.mid(b, e - b), true);
        pos = e;
    }
    if (pos < size)
        out.emplace_back(text.mid(pos), false);
    return out;
}

namespace {

constexpr int MaxSampleChars = 1500;

int failedGates(const RunRecord& r)
{
    int n = 0;
    if (r.gates->is_object())
        for (const auto& [name, v] : r.gates->items())
            n += v.is_boolean() && !v.get<bool>() ? 1 : 0;
    return n + (r.request.ok() ? 0 : 1);
}

SampleSide sampleSide(const Context& cx, const RunRecord& r)
{
    SampleSide s;
    s.heading = cx.label(r.endpoint);
    s.where = (cx.multiTurn.contains(r.test) ? u"turn "_s + QString::number(r.turn) + u", "_s : QString())
        + u"run "_s + QString::number(r.iteration);
    QStringList failed;
    std::vector<std::pair<int, int>> ranges;
    if (r.gateDetails->is_object()) {
        for (const QString& gate : gateNames()) {
            const auto it = r.gateDetails->find(gate.toStdString());
            if (it == r.gateDetails->end() || it->value("verdict", std::string()) != "fail")
                continue;
            failed << gate;
            s.notes << gate + u": "_s + QString::fromStdString(it->value("reason", std::string()));
            // A length target is about the whole answer: marking all of it would hide the spans that matter.
            if (gate == u"within_length")
                continue;
            if (const auto rs = it->find("ranges"); rs != it->end() && rs->is_array())
                for (const nlohmann::json& range : *rs)
                    if (range.value("field", std::string()) == "content")
                        ranges.emplace_back(range.value("begin", 0), range.value("end", 0));
        }
    }
    if (!r.request.ok())
        s.notes.prepend(u"the request failed: "_s + failureKindId(r.request.failure.kind));
    s.verdict = failed.isEmpty() ? Line {{Style::Good, u"All gates passed"_s}}
                                 : Line {{Style::Bad, u"Failed: "_s + failed.join(u", "_s)}};
    QString text = r.request.response.content;
    if (text.size() > MaxSampleChars) {
        s.notes << u"shortened: "_s + QString::number(text.size() - MaxSampleChars)
                + u" more characters in the results file"_s;
        text = text.left(MaxSampleChars) + u"…"_s;
    }
    // Split into plain and failing spans on the raw text; each renderer escapes the pieces.
    s.segments = segmentsOf(text, std::move(ranges));
    if (text.isEmpty())
        s.notes.prepend(u"no visible text"_s);
    for (const ToolCall& call : r.request.response.toolCalls)
        s.toolCalls << call.name + u"("_s + call.arguments + u")"_s;
    if (!r.request.response.reasoning.isEmpty())
        s.notes << QString::number(r.request.response.reasoning.size())
                + u" characters of thinking in the reasoning field (not shown)"_s;
    return s;
}

} // namespace

void samplesSection(Doc& d, const Context& cx)
{
    if (cx.ev.comparison.arms.empty() || cx.in.maxSamples <= 0)
        return;
    heading(d, 2, u"Sample responses"_s);
    paragraph(d,
        line(u"The tests where the arms differ most in the quality gates, one pair of answers each (the "
             "same prompt, turn and run on both arms; the pair with the most failed gates). Failing "
             "spans are marked «…»; the text is the model's, quoted verbatim and never interpreted."_s));
    for (const ArmComparison& arm : cx.ev.comparison.arms) {
        // Score every test by how differently the two arms pass its gates.
        std::vector<std::pair<int, QString>> scored;
        for (const QString& test : cx.tests) {
            const CellStatistics* b = cx.cell(arm.baseline, test);
            const CellStatistics* c = cx.cell(arm.candidate, test);
            if (!b || !c)
                continue;
            int score = 0;
            for (const QString& gate : gateNames()) {
                const auto fails = [&](const CellStatistics* x) {
                    const auto it = x->gates.find(gate);
                    return it == x->gates.end() ? 0 : it->second.second - it->second.first;
                };
                score += std::abs(fails(b) - fails(c));
            }
            score += std::abs(b->failed - c->failed);
            scored.emplace_back(score, test);
        }
        std::stable_sort(
            scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        std::vector<QString> chosen;
        for (const auto& [score, test] : scored)
            if (score > 0 && int(chosen.size()) < cx.in.maxSamples)
                chosen.push_back(test);
        if (chosen.empty() && !scored.empty()) {
            paragraph(d, line(u"The arms pass the same gates on every test; a representative pair:"_s));
            chosen.push_back(scored.front().second);
        }
        for (const QString& test : chosen) {
            std::map<std::tuple<int, int>, const RunRecord*> base;
            for (const RunRecord& r : cx.run.records)
                if (!r.warmup && r.endpoint == arm.baseline && r.test == test)
                    base.try_emplace({r.turn, r.iteration}, &r);
            const RunRecord* bestB = nullptr;
            const RunRecord* bestC = nullptr;
            int best = -1;
            for (const RunRecord& r : cx.run.records) {
                if (r.warmup || r.endpoint != arm.candidate || r.test != test)
                    continue;
                const auto it = base.find({r.turn, r.iteration});
                if (it == base.end())
                    continue;
                const int score = failedGates(r) + failedGates(*it->second);
                if (score > best) {
                    best = score;
                    bestB = it->second;
                    bestC = &r;
                }
            }
            if (!bestB)
                continue;
            heading(d, 3, cx.testName(test));
            if (const SuiteTest* st = cx.test(test)) {
                const int turn = bestC->turn;
                const QString prompt
                    = turn >= 1 && turn <= st->turns.size() ? st->turns[turn - 1] : QString();
                if (!prompt.isEmpty())
                    paragraph(d,
                        {italic(u"Prompt"_s
                             + (cx.multiTurn.contains(test) ? u" (turn "_s + QString::number(turn) + u")"_s
                                                            : QString())
                             + u": "_s),
                            plain(prompt)});
            }
            Block b;
            b.kind = Block::Kind::Samples;
            b.sides[0] = sampleSide(cx, *bestB);
            b.sides[1] = sampleSide(cx, *bestC);
            d.push_back(std::move(b));
        }
    }
}

} // namespace qs::report

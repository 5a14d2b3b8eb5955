// SPDX-License-Identifier: MIT
// The Judged quality section: what an LLM judge said about the answers (Evaluation::judged) — who
// judged, the rubric scores per test and endpoint, the blind pairwise comparison with its
// interval, consistency and position bias, the judge guardrails that fired, and a few of the
// judge's reasons quoted verbatim. A judge is a model: its words are quoted like model output,
// in fenced code blocks (Markdown) or escaped (HTML), never interpreted.
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

constexpr int MaxQuotes = 6;
constexpr int MaxQuoteChars = 600;

QString scoreText(double v)
{
    return QString::number(v, 'g', 3);
}

void identity(Doc& d, const Context& cx)
{
    const JudgedQuality& q = cx.ev.judged;
    const JudgeIdentity& j = q.judge;
    Line who {bold(u"Judge: "_s), plain(j.model.isEmpty() ? u"model unknown"_s : j.model)};
    if (!j.runtime.isEmpty())
        who.push_back(plain(u" on "_s + j.runtime));
    if (!j.url.isEmpty())
        who.push_back(plain(u" at "_s + j.url));
    who.push_back(plain(u" · temperature "_s + QString::number(j.temperature, 'g', 3) + u" · seed "_s
        + QString::number(j.seed) + (j.simulated ? u" · simulated"_s : QString())));
    paragraph(d, who);
    if (q.rubric)
        paragraph(d,
            {bold(u"Rubric: "_s),
                plain((q.rubric->name.isEmpty() ? q.rubric->id : q.rubric->name)
                    + (q.rubric->source.isEmpty() ? QString() : u" ("_s + q.rubric->source + u")"_s))});
    paragraph(d,
        {italic(u"A judge is an LLM: its verdicts are evidence about the answers, not ground truth. "_s),
            plain(u"It saw the system prompt, the conversation so far and the answer — never the endpoint's "
                  "name, quantization or timings. Each pair was judged twice, once in each order."_s)});
    std::vector<Line> notes;
    for (const QString& n : q.notes)
        notes.push_back(line(n));
    bullets(d, std::move(notes));
}

QString criterionTitle(const JudgedQuality& q, const QString& id)
{
    if (q.rubric)
        for (const RubricCriterion& c : q.rubric->criteria)
            if (c.id == id && !c.title.isEmpty())
                return c.title + u" ("_s + id + u")"_s;
    return id;
}

void rubricTables(Doc& d, const Context& cx)
{
    const JudgedQuality& q = cx.ev.judged;
    if (!q.rubric && q.rubricScores.empty())
        return;
    heading(d, 3, u"Rubric scores"_s);
    paragraph(d,
        line(u"The median of the judge's 1–5 scores, with the number of answers graded (n). A judge "
             "failure (an unreadable reply, a timeout) is never a score: it is counted apart."_s));
    Block arms = table({line(u"Endpoint"_s), line(u"Graded"_s), line(u"Judge failed"_s), line(u"Answers"_s)},
        {false, true, true, true});
    for (const RubricArm& a : q.rubricArms)
        arms.rows.push_back({line(cx.label(a.endpoint)), line(QString::number(a.graded)),
            a.failed > 0 ? Line {{Style::Warn, QString::number(a.failed)}} : line(u"0"_s),
            line(QString::number(a.eligible))});
    if (!arms.rows.empty())
        d.push_back(std::move(arms));

    std::vector<int> endpoints;
    for (int e = 0; e < int(cx.run.endpoints.size()); ++e)
        endpoints.push_back(e);
    std::vector<Line> header {line(u"Test"_s), line(u"Criterion"_s)};
    for (int e : endpoints)
        header.push_back(line(cx.label(e)));
    std::vector<bool> numeric(header.size(), true);
    numeric[0] = numeric[1] = false;
    Block t = table(header, numeric);
    // All tests pooled first, then each test in the order it ran; criteria in rubric order.
    QStringList tests {QString()};
    for (const QString& test : cx.tests)
        tests << test;
    for (const RubricScore& s : q.rubricScores)
        if (!tests.contains(s.test))
            tests << s.test;
    QStringList criteria;
    if (q.rubric)
        for (const RubricCriterion& c : q.rubric->criteria)
            criteria << c.id;
    for (const RubricScore& s : q.rubricScores)
        if (!criteria.contains(s.criterion))
            criteria << s.criterion;
    for (const QString& test : tests)
        for (const QString& criterion : criteria) {
            std::vector<Line> row {test.isEmpty() ? Line {bold(cx.testName(test))} : line(cx.testName(test)),
                line(criterionTitle(q, criterion))};
            bool any = false;
            for (int e : endpoints) {
                const RubricScore* found = nullptr;
                for (const RubricScore& s : q.rubricScores)
                    if (s.endpoint == e && s.test == test && s.criterion == criterion)
                        found = &s;
                any |= found && found->n > 0;
                row.push_back(found && found->n > 0
                        ? line(scoreText(found->median) + u" (n "_s + QString::number(found->n) + u")"_s)
                        : line(u"—"_s));
            }
            if (any)
                t.rows.push_back(std::move(row));
        }
    if (!t.rows.empty())
        d.push_back(std::move(t));
}

QString verdictText(const Context& cx, const PairwiseResult& p)
{
    if (p.verdict == u"candidate_better")
        return cx.label(p.candidate) + u" better"_s;
    if (p.verdict == u"baseline_better")
        return cx.label(p.baseline) + u" better"_s;
    if (p.verdict == u"too_few_pairs")
        return u"too few pairs"_s;
    return u"no clear difference"_s;
}

QString optionalPercent(const std::optional<double>& v)
{
    return v ? fmtPercent(*v) : u"—"_s;
}

void pairwiseTables(Doc& d, const Context& cx)
{
    const JudgedQuality& q = cx.ev.judged;
    if (q.pairwise.empty())
        return;
    heading(d, 3, u"Blind pairwise comparison"_s);
    paragraph(d,
        line(u"Each candidate's answer against the baseline's to the same test, turn and run, judged in both "
             "orders. Both orders agree → a win or a loss; they disagree → a tie, counted as inconsistent. "
             "Win rate: wins / (wins + losses) with its exact 95 % interval; a winner is named only when "
             "the interval excludes an even split. The sign test tests wins against losses."_s));
    Block t = table({line(u"Candidate vs baseline"_s), line(u"Pairs"_s), line(u"Wins"_s), line(u"Ties"_s),
                        line(u"Losses"_s), line(u"Win rate"_s), line(u"95 % CI"_s), line(u"Sign test p"_s),
                        line(u"Verdict"_s)},
        {false, true, true, true, true, true, true, true, false});
    for (const PairwiseResult& p : q.pairwise) {
        const Style style = p.winner < 0 ? Style::Plain : p.winner == p.baseline ? Style::Bad : Style::Good;
        t.rows.push_back({line(cx.label(p.candidate) + u" vs "_s + cx.label(p.baseline)),
            line(QString::number(p.pairs)), line(QString::number(p.wins)),
            line(QString::number(p.ties)
                + (p.inconsistent > 0 ? u" ("_s + QString::number(p.inconsistent) + u" inconsistent)"_s
                                      : QString())),
            line(QString::number(p.losses)), line(optionalPercent(p.winRate)),
            line(fmtRange(p.winRateCi, fmtPercent)), line(p.winRate ? fmtP(p.signTestP) : u"—"_s),
            {{style, verdictText(cx, p)}}});
    }
    d.push_back(std::move(t));
    paragraph(d,
        line(u"How the judge behaved. Consistency: the pairs judged the same in both orders (below 70 % the "
             "judge cannot be trusted). Picked first: of the judgements that picked an answer, the share "
             "that picked the one shown first (50 % is no position bias). Picked longer: the share that "
             "picked the longer answer — judges prefer longer answers, a voice assistant wants shorter "
             "ones."_s));
    Block b = table({line(u"Candidate vs baseline"_s), line(u"Consistency"_s), line(u"Picked first"_s),
                        line(u"Picked longer"_s), line(u"Length difference (median)"_s),
                        line(u"Failed pairs"_s), line(u"Win or tie rate"_s)},
        {false, true, true, true, true, true, true});
    for (const PairwiseResult& p : q.pairwise) {
        const bool unreliable = p.consistency && *p.consistency < 0.7;
        b.rows.push_back({line(cx.label(p.candidate) + u" vs "_s + cx.label(p.baseline)),
            unreliable ? Line {{Style::Bad, fmtPercent(*p.consistency)}}
                       : line(optionalPercent(p.consistency)),
            line(optionalPercent(p.firstPositionRate)
                + (p.positionPicks > 0 ? u" of "_s + QString::number(p.positionPicks) : QString())),
            line(optionalPercent(p.longerPickedRate)),
            line(p.medianLengthDifference ? (*p.medianLengthDifference > 0 ? u"+"_s : QString())
                        + QString::number(std::llround(*p.medianLengthDifference)) + u" characters"_s
                                          : u"—"_s),
            line(QString::number(p.failedPairs)), line(optionalPercent(p.winOrTieRate))});
    }
    d.push_back(std::move(b));
}

void judgeGuardrails(Doc& d, const Context& cx)
{
    std::vector<Line> items;
    for (const Guardrail& g : cx.ev.guardrails)
        if (g.id.startsWith(u"judge_"))
            items.push_back(guardrailLine(g));
    if (items.empty())
        return;
    heading(d, 3, u"Judge warnings"_s);
    bullets(d, std::move(items));
}

void quotes(Doc& d, const Context& cx)
{
    const JudgedQuality& q = cx.ev.judged;
    if (q.quotes.empty())
        return;
    heading(d, 3, u"In the judge's words"_s);
    paragraph(d,
        line(u"A few of the judge's reasons (the lowest rubric scores, decided pairs), quoted verbatim: they "
             "are a model's words, not Quantscope's."_s));
    int shown = 0;
    for (const JudgedQuality::Quote& quote : q.quotes) {
        if (shown++ == MaxQuotes)
            break;
        const QString where = cx.testName(quote.test)
            + (cx.multiTurn.contains(quote.test) ? u", turn "_s + QString::number(quote.turn) : QString())
            + u", run "_s + QString::number(quote.iteration);
        paragraph(
            d, {bold(cx.label(quote.endpoint)), plain(u" — "_s + where + u" — "_s), italic(quote.what)});
        QString reason = quote.reason;
        if (reason.size() > MaxQuoteChars)
            reason = reason.left(MaxQuoteChars) + u"…"_s;
        codeBlock(d, reason.isEmpty() ? u"(no reason given)"_s : reason, u"text"_s);
    }
}

} // namespace

void judgedQualitySection(Doc& d, const Context& cx)
{
    if (!cx.ev.judged.judged)
        return;
    heading(d, 2, u"Judged quality"_s);
    identity(d, cx);
    rubricTables(d, cx);
    pairwiseTables(d, cx);
    judgeGuardrails(d, cx);
    quotes(d, cx);
}

} // namespace qs::report

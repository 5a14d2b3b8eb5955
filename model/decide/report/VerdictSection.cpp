// SPDX-License-Identifier: MIT
#include "model/decide/Sequential.h"
#include "model/decide/recommend/CriterionText.h"
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

namespace {

/// An until-decided run: why it stopped, and each criterion's interval at every look — the
/// narrowing that made (or did not make) the decision.
void looksOf(Doc& d, const UntilDecided& run, const Recommendation& r)
{
    paragraph(d,
        {bold(u"Run until decided: "_s),
            plain(run.stopText.isEmpty() ? stopReasonId(run.stop) : run.stopText),
            plain(u" (profile "_s + run.profile
                + u"; each look reads its intervals at its own stricter level, "
                  u"so looking after every round spends no extra error)."_s)});
    std::vector<Line> header {line(u"Criterion"_s)};
    for (const DecisionLook& look : run.looks)
        header.push_back(line(
            u"Look %1: %2 prompts (%3)"_s.arg(look.look).arg(look.prompts).arg(lookLevelText(look.look))));
    Block t = table(header, std::vector<bool>(header.size(), false));
    for (const CriterionResult& c : r.criteria) {
        std::vector<Line> row {line(c.criterion.title.isEmpty() ? c.criterion.id : c.criterion.title)};
        bool anyInterval = false;
        for (const DecisionLook& look : run.looks) {
            QString cell;
            for (const LookVerdict& v : look.verdicts)
                if (v.candidate == r.candidate)
                    for (const LookCriterion& lc : v.criteria)
                        if (lc.id == c.criterion.id) {
                            cell = outcomeId(lc.outcome);
                            if (lc.estimate && lc.interval) {
                                anyInterval = true;
                                cell += u" %1 [%2–%3]"_s.arg(criteria::number(*lc.estimate),
                                    criteria::number(lc.interval->lo), criteria::number(lc.interval->hi));
                            }
                        }
            row.push_back(line(cell));
        }
        if (anyInterval)
            t.rows.push_back(std::move(row));
    }
    if (!t.rows.empty())
        d.push_back(std::move(t));
}

} // namespace

void verdictSection(Doc& d, const Context& cx)
{
    heading(d, 2, u"Verdict"_s);
    const DecisionProfile& p = cx.in.profile;
    paragraph(d,
        {bold(u"Decision profile: "_s), plain(p.name.isEmpty() ? p.id : p.name),
            plain(p.source.isEmpty() ? QString() : u" ("_s + p.source + u")"_s),
            plain(p.description.isEmpty() ? QString() : u". "_s + p.description)});
    if (cx.in.recommendations.empty()) {
        paragraph(d, line(u"Nothing to decide: the run has no candidate endpoint."_s));
        return;
    }
    for (const Recommendation& r : cx.in.recommendations) {
        if (cx.in.recommendations.size() > 1)
            heading(d, 3, r.candidateLabel + u" vs "_s + r.baselineLabel);
        paragraph(d, decisionLine(r));
        if (const std::optional<UntilDecided> run = untilDecidedOf(cx.run); run && !run->looks.empty())
            looksOf(d, *run, r);
        Block t = table({line(u"Criterion"_s), line(u"Required"_s), line(u"Measured"_s), line(u"Result"_s)},
            {false, false, false, false});
        std::vector<Line> why;
        for (const CriterionResult& c : r.criteria) {
            const QString title = c.criterion.title.isEmpty() ? c.criterion.id : c.criterion.title;
            Line name {plain(title)};
            if (!c.criterion.test.isEmpty())
                name.push_back(italic(u" ("_s + cx.testName(c.criterion.test) + u")"_s));
            t.rows.push_back({name, line(c.required), line(c.measured), {outcomeCell(c.outcome)}});
            if (c.outcome != CriterionResult::Outcome::Pass && !c.explanation.isEmpty()) {
                Line w {bold(title + u": "_s), plain(c.explanation)};
                if (!c.criterion.rationale.isEmpty())
                    w.push_back(italic(u" Why it matters: "_s + c.criterion.rationale));
                why.push_back(std::move(w));
            }
        }
        if (!t.rows.empty())
            d.push_back(std::move(t));
        // The verdict's own strength, stated where it is read (docs/decision-profiles.md, "Margins
        // and error rates").
        paragraph(d, {italic(errorRateStatement(r))});
        if (!why.empty()) {
            const bool unmeasured = std::any_of(r.criteria.begin(), r.criteria.end(),
                [](const CriterionResult& c) { return c.outcome == CriterionResult::Outcome::NotMeasured; });
            heading(d, 4, unmeasured ? u"Criteria not met or not measured"_s : u"Criteria not met"_s);
            bullets(d, why);
        }
        if (!r.caveats.isEmpty()) {
            heading(d, 4, u"Caveats"_s);
            std::vector<Line> items;
            for (const QString& c : r.caveats)
                items.push_back(line(c));
            bullets(d, items);
        }
        heading(d, 4, u"What would change this recommendation"_s);
        std::vector<Line> items;
        for (const QString& w : r.whatWouldChange)
            items.push_back(line(w));
        if (items.empty())
            items.push_back(line(r.decision == Recommendation::Decision::Switch
                    ? u"A failed criterion on real servers, or a methodology warning that makes the "
                      u"comparison "
                      "unfair, would turn this into keep or inconclusive."_s
                    : u"Nothing specific was derived; re-run after addressing the criteria above."_s));
        bullets(d, items);
    }
}

} // namespace qs::report

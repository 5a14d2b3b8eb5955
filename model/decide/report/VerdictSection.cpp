// SPDX-License-Identifier: MIT
#include "model/decide/report/ReportText.h"
#include "model/decide/report/Sections.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace qs::report {

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

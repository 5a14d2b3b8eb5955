// SPDX-License-Identifier: MIT
#include "model/decide/CampaignDocument.h"

#include "model/decide/report/Document.h"
#include "model/decide/report/Renderers.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace qs {

using namespace report;
using Outcome = CriterionResult::Outcome;

namespace {

QString number(double v)
{
    const double a = std::abs(v);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 0.1 || a == 0 ? 2 : 3;
    return QString::number(v, 'f', decimals);
}

Inline decisionInline(Recommendation::Decision d)
{
    switch (d) {
    case Recommendation::Decision::Switch:
        return {Style::Good, u"switch"_s};
    case Recommendation::Decision::KeepBaseline:
        return {Style::Bad, u"keep baseline"_s};
    case Recommendation::Decision::Inconclusive:
        break;
    }
    return {Style::Warn, u"inconclusive"_s};
}

Inline outcomeInline(Outcome o, const QString& text)
{
    switch (o) {
    case Outcome::Pass:
        return {Style::Good, u"✓ "_s + text};
    case Outcome::Fail:
        return {Style::Bad, u"✗ "_s + text};
    case Outcome::Inconclusive:
        return {Style::Warn, u"? "_s + text};
    case Outcome::NotMeasured:
        break;
    }
    return {Style::Italic, u"not measured"_s};
}

QString when(const QDateTime& t)
{
    return t.isValid() ? t.toUTC().toString(u"yyyy-MM-dd HH:mm 'UTC'"_s) : u"unknown"_s;
}

QString fileName(const QString& path)
{
    return QFileInfo(path).fileName();
}

Doc buildDocument(const CampaignDocumentInput& input)
{
    const Campaign& c = *input.campaign;
    Doc d;
    heading(d, 1, campaignTitle(c));
    paragraph(d,
        {italic(u"Generated %1 by %2 with the decision profile %3 (%4)."_s.arg(
            when(input.generatedAt), input.generator, c.profileId, c.profileSource))});
    if (c.best >= 0) {
        const CampaignAttempt& b = c.attempts[std::size_t(c.best)];
        paragraph(d,
            {bold(u"Best so far: "_s + attemptName(c, c.best) + u". "_s), plain(c.bestSentence + u' '),
                plain(b.recommendation.headline)});
    } else {
        paragraph(d, {bold(u"No attempt stands out yet. "_s), plain(c.bestSentence)});
    }
    int moved = 0;
    for (const CampaignDrift& drift : c.drift)
        moved += drift.significant ? 1 : 0;
    if (moved > 0) {
        Block b;
        b.kind = Block::Kind::Callout;
        b.level = 1;
        b.text = {bold(u"The baseline moved. "_s),
            plain(u"%1 moved between files (see “Baseline drift”): a candidate's gain against a slower "
                  u"baseline "
                  "may be the baseline's loss."_s.arg(c.baselineLabel))};
        for (const CampaignDrift& drift : c.drift)
            if (drift.significant)
                b.items.push_back(line(drift.sentence));
        d.push_back(std::move(b));
    }

    heading(d, 2, u"Attempts"_s);
    Block attempts = table({line(u"#"_s), line(u"Started"_s), line(u"File"_s), line(u"Candidate"_s),
                               line(u"Decision"_s), line(u"Best so far"_s)},
        {true, false, false, false, false, false});
    for (std::size_t i = 0; i < c.attempts.size(); ++i) {
        const CampaignAttempt& a = c.attempts[i];
        attempts.rows.push_back({line(QString::number(i + 1)), line(when(a.startedAt)),
            {code(fileName(a.file))}, line(a.candidateLabel), {decisionInline(a.recommendation.decision)},
            line(c.bestSoFar[i] >= 0 ? u"#%1"_s.arg(c.bestSoFar[i] + 1) : u"none separated"_s)});
    }
    d.push_back(std::move(attempts));

    heading(d, 2, u"The story"_s);
    for (std::size_t i = 0; i < c.attempts.size(); ++i) {
        const CampaignAttempt& a = c.attempts[i];
        heading(d, 3, u"%1. %2 — %3"_s.arg(i + 1).arg(attemptName(c, int(i)), when(a.startedAt)));
        paragraph(d, {decisionInline(a.recommendation.decision), plain(u": "_s + a.recommendation.headline)});
        std::vector<Line> items;
        for (const QString& n : a.notes)
            items.push_back({italic(u"Note: "_s), plain(n)});
        if (i == 0)
            items.push_back({italic(u"First attempt."_s)});
        else if (a.changes.empty())
            items.push_back({italic(u"Nothing the files record changed since #%1."_s.arg(i))});
        for (const CampaignChange& ch : a.changes)
            items.push_back({italic(u"Changed: "_s), plain(ch.text())});
        for (const CriterionResult& r : a.recommendation.criteria)
            if (r.outcome == Outcome::Fail || r.outcome == Outcome::Inconclusive)
                items.push_back({outcomeInline(r.outcome, r.criterion.title), plain(u": "_s + r.measured)});
        for (const QString& caveat : a.recommendation.caveats)
            items.push_back({bold(u"Caveat: "_s), plain(caveat)});
        bullets(d, std::move(items));
    }

    heading(d, 2, u"Every criterion across attempts"_s);
    paragraph(d,
        line(u"Each cell is the figure the verdict was decided on — an estimate with its 95 % interval, or "
             "the count — and its outcome. Ratios are against each attempt's own baseline."_s));
    std::vector<Line> header {line(u"Criterion"_s)};
    for (std::size_t i = 0; i < c.attempts.size(); ++i)
        header.push_back(line(u"#%1"_s.arg(i + 1)));
    header.push_back(line(u"Best"_s));
    Block trend = table(header, std::vector<bool>(header.size(), false));
    for (std::size_t k = 0; k < c.standings.size(); ++k) {
        std::vector<Line> row {line(c.standings[k].title)};
        for (const CampaignAttempt& a : c.attempts) {
            if (k < a.recommendation.criteria.size()) {
                const CriterionResult& r = a.recommendation.criteria[k];
                row.push_back({outcomeInline(r.outcome, criterionFigure(r))});
            } else {
                row.push_back(line(u"—"_s));
            }
        }
        row.push_back(line(c.standings[k].sentence));
        trend.rows.push_back(std::move(row));
    }
    d.push_back(std::move(trend));

    heading(d, 2, u"Baseline drift"_s);
    if (c.files.size() < 2) {
        paragraph(d, line(u"One file: the baseline was measured once, so it cannot have drifted yet."_s));
    } else {
        paragraph(d,
            line(u"The baseline is re-measured in every file. Each file's baseline arm is paired by prompt "
                 u"with "
                 "the previous file's; a figure “moved” when its 95 % interval lies wholly outside ±%1 % of "
                 "no "
                 "change (a pass rate: %1 points; answers: more than %1 % of prompts differ), a fact when it "
                 "differs."_s.arg(DriftTolerance * 100)));
        // Five columns at most: the PDF's page is A4.
        Block drift = table({line(u"Files"_s), line(u"Measure"_s), line(u"Before → after"_s),
                                line(u"Estimate [95 %]"_s), line(u"Moved"_s)},
            {false, false, false, true, false});
        for (int pass = 0; pass < 2; ++pass)
            for (const CampaignDrift& r : c.drift) {
                // A fact neither file knows says nothing; the JSON keeps the row.
                if (r.significant != (pass == 0)
                    || (!r.estimate && r.fromText.isEmpty() && r.toText.isEmpty()
                        && !r.sentence.contains(u"cannot be compared")))
                    continue;
                QString estimate = u"—"_s;
                if (r.estimate && r.interval)
                    estimate = u"%1 [%2–%3]"_s.arg(
                        number(*r.estimate), number(r.interval->lo), number(r.interval->hi));
                // A share (answers that changed) has no "before": its one text says it all.
                const QString change = r.fromText.isEmpty()
                    ? (r.toText.isEmpty() ? u"—"_s : r.toText)
                    : r.fromText + u" → "_s + (r.toText.isEmpty() ? u"—"_s : r.toText);
                drift.rows.push_back({line(fileName(c.files[std::size_t(r.fromFile)].path) + u" → "_s
                                          + fileName(c.files[std::size_t(r.toFile)].path)),
                    {code(r.metric)}, line(change), line(estimate),
                    {r.significant ? Inline {Style::Bad, u"moved"_s} : plain(u"no"_s)}});
            }
        d.push_back(std::move(drift));
    }

    if (!c.notes.isEmpty()) {
        heading(d, 2, u"Notes"_s);
        std::vector<Line> items;
        for (const QString& n : c.notes)
            items.push_back(line(n));
        bullets(d, std::move(items));
    }
    heading(d, 2, u"How the campaign decides"_s);
    bullets(d,
        {line(u"Each attempt is judged with the profile exactly as its own report judges it: its file's "
              "baseline, its margins, its error rates."_s),
            line(u"An attempt is best on a criterion only when its interval is clear of every other "
                 u"attempt's on "
                 "the better side (or, for a criterion decided on a count, it passed where the others "
                 "failed); "
                 "overlapping intervals are not separated."_s),
            line(u"The best overall has the best verdict (switch, then inconclusive, then keep) and, among "
                 "attempts with that verdict, beats each of the others somewhere and loses nowhere."_s),
            line(u"Files: "_s + [&] {
                QStringList names;
                for (const CampaignFile& f : c.files)
                    names << f.path;
                return names.join(u", "_s);
            }())});
    return d;
}

} // namespace

QString criterionFigure(const CriterionResult& r)
{
    if (r.outcome == Outcome::NotMeasured)
        return u"not measured"_s;
    if (r.estimate && r.interval)
        return u"%1 [%2–%3]"_s.arg(number(*r.estimate), number(r.interval->lo), number(r.interval->hi));
    return r.measured;
}

QString campaignTitle(const Campaign& c)
{
    return u"Campaign: replacing %1 (%2 attempt%3)"_s.arg(c.baselineLabel)
        .arg(c.attempts.size())
        .arg(c.attempts.size() == 1 ? QString() : u"s"_s);
}

QString campaignMarkdown(const CampaignDocumentInput& input)
{
    return renderMarkdown(buildDocument(input));
}

QString campaignHtml(const CampaignDocumentInput& input, HtmlFlavor flavor)
{
    return renderHtml(buildDocument(input), campaignTitle(*input.campaign), flavor);
}

} // namespace qs

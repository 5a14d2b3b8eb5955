// SPDX-License-Identifier: MIT
#include "model/decide/VerdictSummary.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace qs {

namespace {

using Outcome = CriterionResult::Outcome;

/// How far a pass's interval stays inside its limit, relative to the limit: the smaller, the
/// nearer the criterion came to failing. A pass decided on counts (no interval) sorts last.
double headroom(const CriterionResult& c)
{
    if (!c.interval || !c.limit)
        return std::numeric_limits<double>::infinity();
    const double nearEnd = c.worseAbove ? c.interval->hi : c.interval->lo;
    const double gap = c.worseAbove ? *c.limit - nearEnd : nearEnd - *c.limit;
    return gap / std::max(std::abs(*c.limit), 1e-9);
}

} // namespace

QString VerdictSummary::counts() const
{
    QStringList parts;
    const auto add = [&](int n, const QString& word) {
        if (n > 0)
            parts << u"%1 %2"_s.arg(n).arg(word);
    };
    add(failed, u"failed"_s);
    add(undecided, u"undecided"_s);
    add(passed, u"passed"_s);
    add(notMeasured, u"not measured"_s);
    return parts.join(u" · "_s);
}

VerdictSummary summarizeVerdict(const Recommendation& r, int shown)
{
    VerdictSummary s;
    std::vector<int> failed, undecided, passed;
    for (int i = 0; i < int(r.criteria.size()); ++i) {
        switch (r.criteria[std::size_t(i)].outcome) {
        case Outcome::Pass:
            passed.push_back(i);
            break;
        case Outcome::Fail:
            failed.push_back(i);
            break;
        case Outcome::Inconclusive:
            undecided.push_back(i);
            break;
        case Outcome::NotMeasured:
            ++s.notMeasured;
            break;
        }
    }
    s.passed = int(passed.size());
    s.failed = int(failed.size());
    s.undecided = int(undecided.size());
    const int total = int(r.criteria.size());

    std::vector<int> deciding;
    switch (r.decision) {
    case Recommendation::Decision::KeepBaseline:
        s.sentence = u"Keep %1: %2 fails %3 of %4 criteria."_s.arg(r.baselineLabel, r.candidateLabel)
                         .arg(s.failed)
                         .arg(total);
        s.decidingTitle = u"Failed"_s;
        deciding = failed;
        break;
    case Recommendation::Decision::Inconclusive:
        if (s.undecided > 0) {
            s.sentence = u"No verdict yet between %1 and %2: %3 of %4 criteria could not be decided%5."_s
                             .arg(r.baselineLabel, r.candidateLabel)
                             .arg(s.undecided)
                             .arg(total)
                             .arg(r.caveats.isEmpty() ? QString() : u", and the comparison is not fair"_s);
            s.decidingTitle = u"Could not be decided"_s;
            // The nearest to being settled first: what one more run is most likely to decide.
            deciding = undecided;
            std::stable_sort(deciding.begin(), deciding.end(), [&](int a, int b) {
                const auto settle = [&](int i) {
                    return r.criteria[std::size_t(i)].promptsToSettle.value_or(
                        std::numeric_limits<int>::max());
                };
                return settle(a) < settle(b);
            });
        } else {
            s.sentence = u"No verdict between %1 and %2: the comparison is not fair."_s.arg(
                r.baselineLabel, r.candidateLabel);
        }
        break;
    case Recommendation::Decision::Switch:
        s.sentence = u"Switch to %1: it meets all %2 criteria measured%3."_s.arg(r.candidateLabel)
                         .arg(s.passed)
                         .arg(s.notMeasured > 0 ? u" (%1 not measured)"_s.arg(s.notMeasured) : QString());
        s.decidingTitle = u"Passed closest to their limits"_s;
        deciding = passed;
        std::stable_sort(deciding.begin(), deciding.end(), [&](int a, int b) {
            return headroom(r.criteria[std::size_t(a)]) < headroom(r.criteria[std::size_t(b)]);
        });
        break;
    }
    const int keep = std::min(int(deciding.size()), std::max(shown, 0));
    s.moreDeciding = int(deciding.size()) - keep;
    s.deciding.assign(deciding.begin(), deciding.begin() + keep);
    return s;
}

} // namespace qs

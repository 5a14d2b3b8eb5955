// SPDX-License-Identifier: MIT
#pragma once

#include "model/decide/Recommendation.h"
#include "widgets/Theme.h"

#include <QFrame>

class QLabel;

namespace qs {

/// The verdict as a reader meets it first (model/decide/VerdictSummary.h): the decision in a
/// coloured chip with "provisional" beside it while it may change, one short sentence, how the
/// profile's criteria came out ("2 failed · 7 undecided · 2 passed"), and the few criteria that
/// decided it with their figures. The full headline is its tooltip; every criterion is in the
/// table under it.
class VerdictBanner : public QFrame {
    Q_OBJECT
public:
    explicit VerdictBanner(QWidget* parent = nullptr);

    /// Shows `rec` (nothing when null); `provisional` is the "may change" line, empty when final.
    void setRecommendation(const Recommendation* rec, const QString& provisional, Theme theme);

    QString decisionText() const; ///< "Keep baseline"
    QString sentence() const; ///< "Keep Q4_K_M: NVFP4 fails 2 of 20 criteria."
    QString counts() const; ///< "2 failed · 7 undecided · 2 passed · 9 not measured"
    QString deciding() const; ///< the deciding criteria, one per line
    QString provisionalText() const;

private:
    QLabel* m_decision;
    QLabel* m_provisional;
    QLabel* m_sentence;
    QLabel* m_counts;
    QLabel* m_deciding;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#pragma once
// How the dashboard words fidelity numbers (docs/methodology.md, "Fidelity"): flip rates and
// probabilities as percentages, KL in nats with enough significant digits for values near 0, an
// arm whose KL is not comparable said so with the reason, and the buckets of the first-divergence
// histogram. Free functions over values, testable without a widget. Never "nan" or "inf": a
// number that is not finite reads "—".

#include "model/evaluate/Fidelity.h"
#include "widgets/DashboardData.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace qs {

/// How the views name a compared arm: endpointTitle() of the run shown, else the arm's label.
QString fidelityArmTitle(const DashboardData& data, const FidelityArm& arm);

/// "12.5 %" (one decimal); "—" when not finite.
QString fidelityPercent(double fraction);
/// "12.5 % [4.2 – 27.8 %]" with the interval when there is one.
QString flipRateText(const FidelityArm& arm);
/// A KL value in nats as klText writes it ("0.0123", "1.2e-05", "0"); "—" when not finite.
QString klNumber(double nats);
/// "0.0123 nats [0.008 – 0.017]"; "0.0123 nats over 12 of 40 prompts" when only some prompts were
/// comparable; "not comparable — REASON" when there is no KL at all (klMissingWhy).
QString klMeanText(const FidelityArm& arm);
/// "14 tokens (mean 78.0 %)": the median shared prefix in tokens, and the mean of the shared
/// prefix as a fraction of the reference's answer.
QString sharedPrefixText(const FidelityArm& arm);
/// "1 of 12 graded"; "— (no graded prompts)" when none was graded.
QString gradeFlipsText(const FidelityArm& arm);
/// "3 near-ties / 1 confident".
QString divergenceKindsText(const FidelityArm& arm);

/// Who the reference is and why: "BF16 vLLM — marked as the fidelity reference" or "… — the
/// baseline (no endpoint is marked as the reference)".
QString referenceText(const Fidelity& fidelity);

/// One prompt's first divergence: "token 7", "identical", or "token 7 (by characters)" when the
/// tokens were not comparable.
QString firstDivergenceText(const FidelityPrompt& prompt);
/// The candidate's rank of the reference's token: "2", "unlisted (> 20)", "—".
QString referenceRankText(const FidelityPrompt& prompt);
/// A probability: "0.312"; "—" when unknown.
QString probabilityText(const std::optional<double>& p);
/// What a divergence mark in the responses says: "Diverges from the reference at token 7
/// (the reference's token: rank 2 here, p = 0.312)".
QString divergenceMarkText(const FidelityPrompt& prompt);

/// The histogram of first-divergence token indexes: bucket labels ("0", "1–3", "4–7", "8–15",
/// "16–31", "32–63", "64+"), and the bucket of an index.
const QStringList& divergenceBuckets();
int divergenceBucket(int tokenIndex);

} // namespace qs

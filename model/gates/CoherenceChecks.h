// SPDX-License-Identifier: MIT
#pragma once

#include "model/gates/GateText.h"

#include <QSet>
#include <QString>
#include <vector>

// Internal to model/gates: the checks of the coherent gate that look at words (CoherenceWords.cpp)
// and at repetition (CoherenceRepetition.cpp); CoherentGate.cpp adds the script checks and judges.

namespace qs::gates {

/// Something incoherent: where, and the reason it gives (empty when an earlier finding of the
/// same kind already says it).
struct Finding {
    Hit hit;
    QString reason;
};

struct Token {
    int begin = 0;
    int end = 0;
    QString text; ///< without surrounding punctuation
};

// Whitespace-separated tokens with leading and trailing punctuation stripped.
std::vector<Token> wordTokens(const QString& text);

bool isLatinLetter(QChar ch);

// Suffix stripping, enough to find "helps", "making", "stopped", "cities" in a base-form list.
bool isKnownWord(const QString& lower, const QSet<QString>& words);

// How much a Latin word looks like a non-word: 0 (fine), 0.5 (a stray single letter), 1 (junk).
double junkScore(const QString& token, const QSet<QString>& words, int maxConsonantRun);

/// How often a token flips between letters and digits ("a3f9k2": 5).
int letterDigitSwitches(const QString& token);

/// Adds at most one finding of each kind: a character run, a repeated n-gram, a repeated sentence.
void checkRepetition(const QString& text, int offset, const Rules::Repeat& rep, std::vector<Finding>& out);

} // namespace qs::gates

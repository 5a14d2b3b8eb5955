// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/GatePatterns.h"

#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <map>
#include <optional>
#include <vector>

namespace qs {

// The compiled form of a gate pattern document, for the gates (model/gates/) to read. Only
// GatePatterns builds it.

/// The compiled pattern document. Built once by GatePatterns::fromJson, never changed after.
struct GatePatterns::Rules {
    struct Pattern {
        QString name;
        QRegularExpression regex;
        int minMatches = 1; ///< the pattern only counts when it matches at least this often
    };
    struct AnswerPattern {
        QString text; ///< as written in the suite
        std::optional<QRegularExpression> regex; ///< "/…/" patterns; else a substring
    };
    // Thresholds: always filled from the pattern file (docs/quality-gates.md).
    struct Repeat {
        int unigram = 0;
        int shortNgram = 0;
        int longNgram = 0;
        int maxPeriod = 0;
        int charRun = 0;
        int sentence = 0;
        int sentenceMinWords = 0;
    };
    struct Coherence {
        int minLetters = 0;
        int mixedScriptWords = 0;
        int mixedScriptMinLetters = 0;
        int minWordsForShare = 0;
        double junkWordShare = 0;
        int minLowercaseWords = 0;
        double knownWordShare = 0;
        double scriptSwitchShare = 0;
        int minScriptSwitches = 0;
        QString weirdSymbols;
        double weirdSymbolShare = 0;
        int replacementChars = 0;
        int maxConsonantRun = 0;
        Repeat repeat;
        std::vector<Pattern> patterns;
        QSet<QString> commonWords;
    };

    nlohmann::json document;
    QRegularExpression url;
    std::vector<Pattern> markdown;
    std::vector<Pattern> thinking;
    std::vector<Pattern> toolText;
    Coherence coherent;
    QSet<QString> abbreviations;
    std::map<QString, std::vector<AnswerPattern>> answers; ///< test id → its compiled answer patterns
};

/// A pattern counts at most this many matches: enough to highlight, and it bounds the work on
/// hostile output. A pattern's min_matches cannot ask for more.
inline constexpr int maxGateHitsPerPattern = 64;

/// Compiles a test's answer patterns: "/…/" is a regular expression, anything else a substring.
std::vector<GatePatterns::Rules::AnswerPattern> compileAnswers(const QStringList& patterns);

} // namespace qs

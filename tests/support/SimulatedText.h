// SPDX-License-Identifier: MIT
#pragma once

// Word handling shared by the simulated model's parts (SimulatedModel.h): keyword tests, the
// content words of a message (what a question is about), and the user's words said back in the
// second person. Internal to qs_emulator.

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <initializer_list>

namespace qs::emu::detail {

using Needles = std::initializer_list<const char*>;

bool hasAny(const QString& lowerText, Needles needles);
bool startsWithAny(const QString& lowerText, Needles needles);

QString capitalized(QString text);
/// One of equivalent phrasings, chosen by the request's variant.
QString pick(const QStringList& options, quint64 variant);
QString stripEndPunctuation(QString text);
QString sentenceCase(const QString& text);
/// `content` of an OpenAI message: a string, or a list of parts of which the text parts count.
QString contentText(const QJsonValue& content);

/// The lower-case words that say what a message is about: question words, pronouns, auxiliaries
/// and other glue removed, a possessive "'s" dropped ("Leo's" → "leo"), hyphenated words kept
/// whole ("wi-fi"). In order of appearance, without repeats.
QStringList contentWords(const QString& text);

/// "visit" and "visiting", "glass" and "glasses", "thursday" and "thursdays": equal, or the
/// shorter (of at least four letters) starts the longer. A stemmer's poor relation, enough here.
bool sameWord(const QString& a, const QString& b);

/// How many of `words` have a sameWord() in `in`.
int overlap(const QStringList& words, const QStringList& in);

/// The user's words said back to them: "I'm" → "you're", "my" → "your", "we" → "you",
/// "I was" → "you were". Other words are kept as written.
QString secondPerson(const QString& text);

/// Asks something: ends with a question mark or starts with a question word.
bool isQuestion(const QString& text);

} // namespace qs::emu::detail

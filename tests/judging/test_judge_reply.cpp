// SPDX-License-Identifier: MIT
// Reading what a judge answered: tolerant of the wrapping, strict about the meaning, bounded.
#include "model/wire/JudgeReply.h"

#include <QElapsedTimer>
#include <gtest/gtest.h>

using namespace qs;

namespace {

const QStringList Criteria {QStringLiteral("correct"), QStringLiteral("warm")};

RubricReply rubricOk(const QString& reply)
{
    auto r = readRubricReply(reply, Criteria);
    if (auto* error = std::get_if<QString>(&r)) {
        ADD_FAILURE() << "not read: " << error->toStdString() << "\nreply: " << reply.toStdString();
        return {};
    }
    return std::get<RubricReply>(r);
}

QString rubricError(const QString& reply, const QStringList& criteria = Criteria)
{
    auto r = readRubricReply(reply, criteria);
    if (!std::holds_alternative<QString>(r)) {
        ADD_FAILURE() << "read, but should not be: " << reply.toStdString();
        return {};
    }
    return std::get<QString>(r);
}

std::optional<PairReply::Better> pick(const QString& reply)
{
    auto r = readPairReply(reply);
    if (auto* p = std::get_if<PairReply>(&r))
        return p->better;
    return std::nullopt;
}

QString pairError(const QString& reply)
{
    auto r = readPairReply(reply);
    return std::holds_alternative<QString>(r) ? std::get<QString>(r) : QString();
}

} // namespace

TEST(JudgeReply, PlainObject)
{
    const RubricReply r
        = rubricOk(QStringLiteral(R"({"scores": {"correct": 4, "warm": 2}, "reason": "cold"})"));
    EXPECT_EQ(r.scores.at(QStringLiteral("correct")), 4);
    EXPECT_EQ(r.scores.at(QStringLiteral("warm")), 2);
    EXPECT_EQ(r.reason, QStringLiteral("cold"));
}

TEST(JudgeReply, FencedWithProseAround)
{
    const RubricReply r = rubricOk(QStringLiteral("Sure! Here is my verdict:\n```json\n{\"scores\": "
                                                  "{\"correct\": 5, \"warm\": 3}, \"reason\": \"ok\"}\n```\n"
                                                  "Let me know if you need more {detail}."));
    EXPECT_EQ(r.scores.at(QStringLiteral("correct")), 5);
    EXPECT_EQ(r.scores.at(QStringLiteral("warm")), 3);
    // A bare ``` fence and an inline one.
    EXPECT_EQ(pick(QStringLiteral("```\n{\"better\": \"2\"}\n```")), PairReply::Better::Second);
    EXPECT_EQ(pick(QStringLiteral("verdict: ```{\"better\": \"1\"}```")), PairReply::Better::First);
}

TEST(JudgeReply, TrailingTextAndBracesInStrings)
{
    const RubricReply r = rubricOk(QStringLiteral("{\"scores\": {\"correct\": 3, \"warm\": 4}, \"reason\": "
                                                  "\"uses } and { in prose\"}\nI hope this helps!"));
    EXPECT_EQ(r.scores.at(QStringLiteral("warm")), 4);
    EXPECT_EQ(r.reason, QStringLiteral("uses } and { in prose"));
    // A stray "{" in the prose before the verdict does not swallow it.
    EXPECT_EQ(pick(QStringLiteral("Comparing {the two: \"answer 1 {\" is longer.\n{\"better\": \"tie\"}")),
        PairReply::Better::Tie);
}

TEST(JudgeReply, ThinkBlocksAreSkipped)
{
    const RubricReply r = rubricOk(
        QStringLiteral("<think>Draft: {\"scores\": {\"correct\": 1, \"warm\": 1}}. Hmm, no.</think>\n"
                       "{\"scores\": {\"correct\": 5, \"warm\": 5}, \"reason\": \"fine\"}"));
    EXPECT_EQ(r.scores.at(QStringLiteral("correct")), 5);
    // A bare </think> (Qwen template leak): what comes before it is thinking.
    EXPECT_EQ(pick(QStringLiteral("draft {\"better\": \"2\"}</think>\n{\"better\": \"1\"}")),
        PairReply::Better::First);
    // A verdict only inside the thinking is no verdict.
    const QString e = pairError(QStringLiteral("<think>I'd say {\"better\": \"1\"} but"));
    EXPECT_TRUE(e.contains(QStringLiteral("thinking"))) << e.toStdString();
    EXPECT_EQ(
        extractJsonObject(QStringLiteral("<think>{\"better\": \"1\"}</think>no verdict")), std::nullopt);
}

TEST(JudgeReply, LastValidObjectWins)
{
    EXPECT_EQ(pick(QStringLiteral("{\"better\": \"1\"} on reflection {\"better\": \"2\"}")),
        PairReply::Better::Second);
    EXPECT_EQ(pick(QStringLiteral(
                  "```json\n{\"better\": \"1\"}\n```\nno, wait:\n```json\n{\"better\": \"2\"}\n```")),
        PairReply::Better::Second);
    // The last object is broken: the last one that parses is read.
    EXPECT_EQ(pick(QStringLiteral("{\"better\": \"2\"} and then {\"better\": }")), PairReply::Better::Second);
    EXPECT_EQ(
        extractJsonObject(QStringLiteral("a {\"x\": {\"y\": 1}} b")), QStringLiteral("{\"x\": {\"y\": 1}}"));
}

TEST(JudgeReply, BrokenJsonIsAnErrorWithAnExcerpt)
{
    const QString e = rubricError(QStringLiteral("{\"scores\": {\"correct\": 4, \"warm\": 5},}"));
    EXPECT_TRUE(e.contains(QStringLiteral("does not parse"))) << e.toStdString();
    EXPECT_TRUE(e.contains(QStringLiteral("\"correct\": 4"))) << e.toStdString();
    const QString none = rubricError(QStringLiteral("Answer 1 is clearly better."));
    EXPECT_TRUE(none.startsWith(QStringLiteral("no JSON object in the reply"))) << none.toStdString();
    EXPECT_TRUE(none.contains(QStringLiteral("Answer 1 is clearly"))) << none.toStdString();
    EXPECT_EQ(rubricError(QStringLiteral("  \n")), QStringLiteral("the reply is empty"));
    EXPECT_EQ(rubricError(QString()), QStringLiteral("the reply is empty"));
}

TEST(JudgeReply, ScoresMustBeWholeNumbersOneToFive)
{
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": 7, "warm": 3}})"))
                    .startsWith(QStringLiteral("score for \"correct\" is 7, not 1-5")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": 0, "warm": 3}})"))
                    .startsWith(QStringLiteral("score for \"correct\" is 0, not 1-5")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": 4.5, "warm": 3}})"))
                    .startsWith(QStringLiteral("score for \"correct\" is 4.5, not a whole number 1-5")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": "four", "warm": 3}})"))
                    .contains(QStringLiteral("not a whole number 1-5")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": null, "warm": 3}})"))
                    .contains(QStringLiteral("is null")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": true, "warm": 3}})"))
                    .contains(QStringLiteral("boolean")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": -3, "warm": 3}})"))
                    .contains(QStringLiteral("-3")));
    EXPECT_FALSE(
        rubricError(QStringLiteral(R"({"scores": {"correct": 18446744073709551615, "warm": 3}})")).isEmpty());
    EXPECT_FALSE(rubricError(QStringLiteral(R"({"scores": {"correct": 1e308, "warm": 3}})")).isEmpty());
    // Accepted spellings of a whole number.
    const RubricReply r = rubricOk(QStringLiteral(R"({"scores": {"correct": "4", "warm": 5.0}})"));
    EXPECT_EQ(r.scores.at(QStringLiteral("correct")), 4);
    EXPECT_EQ(r.scores.at(QStringLiteral("warm")), 5);
    EXPECT_TRUE(r.reason.isEmpty()); // "reason" is optional
}

TEST(JudgeReply, EveryCriterionExactlyOnce)
{
    const QString missing = rubricError(QStringLiteral(R"({"scores": {"correct": 4}, "reason": "x"})"));
    EXPECT_TRUE(missing.startsWith(QStringLiteral("missing score for \"warm\""))) << missing.toStdString();
    const QString unknown = rubricError(QStringLiteral(R"({"scores": {"correct": 4, "warm": 3, "wrm": 2}})"));
    EXPECT_TRUE(unknown.contains(QStringLiteral("unknown criterion \"wrm\""))) << unknown.toStdString();
    EXPECT_TRUE(unknown.contains(QStringLiteral("did you mean \"warm\""))) << unknown.toStdString();
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"correct": 4, "warm": 3})"))
                    .contains(QStringLiteral("no \"scores\"")));
    EXPECT_TRUE(
        rubricError(QStringLiteral(R"({"scores": [4, 3]})")).contains(QStringLiteral("must be an object")));
    EXPECT_TRUE(rubricError(QStringLiteral(R"({"scores": {"correct": 4, "warm": 3}, "reason": 5})"))
                    .contains(QStringLiteral("\"reason\" must be a string")));
    // Keys given twice are ambiguous: not a verdict.
    EXPECT_FALSE(
        rubricError(QStringLiteral(R"({"scores": {"correct": 4, "warm": 3, "warm": 5}})")).isEmpty());
}

TEST(JudgeReply, PairBetter)
{
    EXPECT_EQ(pick(QStringLiteral(R"({"better": "1", "reason": "r"})")), PairReply::Better::First);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": "2"})")), PairReply::Better::Second);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": 1})")), PairReply::Better::First);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": 2})")), PairReply::Better::Second);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": 2.0})")), PairReply::Better::Second);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": "tie"})")), PairReply::Better::Tie);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": "TIE"})")), PairReply::Better::Tie);
    EXPECT_EQ(pick(QStringLiteral(R"({"better": " Tie "})")), PairReply::Better::Tie);
    auto r = readPairReply(QStringLiteral(R"({"better": "2", "reason": "warmer"})"));
    ASSERT_TRUE(std::holds_alternative<PairReply>(r));
    EXPECT_EQ(std::get<PairReply>(r).reason, QStringLiteral("warmer"));

    EXPECT_TRUE(pairError(QStringLiteral(R"({"better": "3"})"))
                    .startsWith(QStringLiteral("\"better\" is \"3\", not \"1\", \"2\" or \"tie\"")));
    EXPECT_FALSE(pairError(QStringLiteral(R"({"better": 1.5})")).isEmpty());
    EXPECT_FALSE(pairError(QStringLiteral(R"({"better": true})")).isEmpty());
    EXPECT_FALSE(pairError(QStringLiteral(R"({"better": "A"})")).isEmpty());
    EXPECT_FALSE(pairError(QStringLiteral(R"({"better": null})")).isEmpty());
    EXPECT_TRUE(pairError(QStringLiteral(R"({"winner": "1"})")).contains(QStringLiteral("no \"better\"")));
}

TEST(JudgeReply, BoundedOnHostileInput)
{
    QElapsedTimer timer;
    timer.start();
    // Deep nesting: refused, not recursed into.
    const QString deep = QString(200000, u'{') + QString(200000, u'}');
    EXPECT_FALSE(pairError(deep).isEmpty());
    const QString deepArrays
        = QStringLiteral("{\"better\": ") + QString(100000, u'[') + QString(100000, u']') + u'}';
    EXPECT_FALSE(pairError(deepArrays).isEmpty());
    // Many small objects, unbalanced braces, stray quotes, a huge reply.
    QString many;
    for (int i = 0; i < 50000; ++i)
        many += QStringLiteral("{\"x\": } ");
    EXPECT_FALSE(pairError(many).isEmpty());
    EXPECT_FALSE(pairError(QString(300000, u'{')).isEmpty());
    EXPECT_FALSE(pairError(QString(300000, u'"')).isEmpty());
    EXPECT_FALSE(pairError(QString(300000, u'`')).isEmpty());
    EXPECT_FALSE(pairError(QStringLiteral("<think>").repeated(50000)).isEmpty());
    const QString huge = QString(3 << 20, u'x') + QStringLiteral("{\"better\": \"2\"}");
    EXPECT_EQ(pick(huge), PairReply::Better::Second); // the verdict at the end of a long reply is read
    // A candidate larger than 64 KiB is not parsed.
    const QString big
        = QStringLiteral("{\"better\": \"1\", \"reason\": \"") + QString(70000, u'a') + QStringLiteral("\"}");
    EXPECT_FALSE(pairError(big).isEmpty());
    // Lone surrogates and NULs.
    QString odd = QStringLiteral("{\"better\": \"1\", \"reason\": \"");
    odd += QChar(0xD800);
    odd += QChar(u'\0');
    odd += QStringLiteral("\"}");
    (void)readPairReply(odd);
    EXPECT_LT(timer.elapsed(), 20000);
}

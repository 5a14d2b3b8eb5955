// SPDX-License-Identifier: MIT
#pragma once

// Hand-built runs and rubrics for the judging tests: answers with known text, from endpoints
// whose names, models and URLs must never reach a judge.

#include "model/core/Rubric.h"
#include "model/core/RunRecord.h"

#include <QStringList>
#include <nlohmann/json.hpp>

namespace qs::test {

/// Every identifying string of the endpoints below: none may appear in a prompt.
inline const QStringList SecretWords {QStringLiteral("SECRET-LABEL"), QStringLiteral("secret-model"),
    QStringLiteral("10.9.9.9"), QStringLiteral("NVFP4"), QStringLiteral("1234.5")};

inline RunEndpoint secretEndpoint(int index)
{
    RunEndpoint e;
    e.endpoint.label = QStringLiteral("SECRET-LABEL-%1").arg(index);
    e.endpoint.baseUrl = QUrl(QStringLiteral("http://10.9.9.9:800%1").arg(index));
    e.endpoint.model = QStringLiteral("secret-model-%1").arg(index);
    e.endpoint.quantization = QStringLiteral("NVFP4");
    e.spec = e.endpoint.baseUrl.toString();
    return e;
}

inline nlohmann::json message(const char* role, const QString& content)
{
    return {{"role", role}, {"content", content.toStdString()}};
}

/// A measured, successful record answering `question` (after `history`) with `answer`.
inline RunRecord answerRecord(int endpoint, const QString& test, int turn, int iteration,
    const QString& answer, const QString& question = QStringLiteral("What is the capital of France?"),
    nlohmann::json history = nlohmann::json::array())
{
    RunRecord r;
    r.endpoint = endpoint;
    r.test = test;
    r.turn = turn;
    r.iteration = iteration;
    nlohmann::json messages = nlohmann::json::array();
    messages.push_back(message("system", QStringLiteral("You are Annie, a warm voice assistant.")));
    for (const auto& m : history)
        messages.push_back(m);
    messages.push_back(message("user", question));
    r.request.requestBody = {{"model", QStringLiteral("secret-model-%1").arg(endpoint).toStdString()},
        {"messages", messages}, {"max_tokens", 200}};
    r.request.endpointLabel = QStringLiteral("SECRET-LABEL-%1").arg(endpoint);
    r.request.url = QUrl(QStringLiteral("http://10.9.9.9:800%1/v1/chat/completions").arg(endpoint));
    r.request.response.content = answer;
    r.request.response.model = QStringLiteral("secret-model-%1").arg(endpoint);
    r.request.metrics.notes << QStringLiteral("ttft 1234.5 ms");
    r.startOffsetMs = 1234.5;
    return r;
}

inline RunRecord failedRecord(int endpoint, const QString& test, int turn, int iteration)
{
    RunRecord r = answerRecord(endpoint, test, turn, iteration, QStringLiteral("partial"));
    r.request.failure
        = makeFailure(FailureKind::ServerError, QStringLiteral("HTTP 500"), QStringLiteral("retry"), 500);
    return r;
}

/// Two criteria: "correct" for every test, "warm" only for test "chat".
inline Rubric handRubric()
{
    Rubric rubric;
    rubric.id = QStringLiteral("hand");
    rubric.name = QStringLiteral("Hand-made");
    rubric.instructions = QStringLiteral("The assistant's answers are spoken aloud.");
    RubricCriterion correct;
    correct.id = QStringLiteral("correct");
    correct.title = QStringLiteral("Correct in substance");
    correct.description = QStringLiteral("Says true things.");
    correct.anchors
        = {{1, QStringLiteral("wrong")}, {3, QStringLiteral("partly right")}, {5, QStringLiteral("right")}};
    RubricCriterion warm;
    warm.id = QStringLiteral("warm");
    warm.title = QStringLiteral("Warm and personal.");
    warm.description = QStringLiteral("Not generic.");
    warm.anchors = {{1, QStringLiteral("cold")}, {5, QStringLiteral("warm")}};
    warm.tests = QStringList {QStringLiteral("chat")};
    rubric.criteria = {correct, warm};
    rubric.source = QStringLiteral("test");
    rubric.raw = {{"id", "hand"}};
    return rubric;
}

/// Two endpoints, tests "fact" and "chat", two iterations each, plus a warm-up per endpoint.
inline RunResult twoArmRun()
{
    RunResult result;
    result.endpoints = {secretEndpoint(0), secretEndpoint(1)};
    for (const QString& test : {QStringLiteral("fact"), QStringLiteral("chat")}) {
        for (int endpoint = 0; endpoint < 2; ++endpoint) {
            RunRecord warm = answerRecord(endpoint, test, 1, 1, QStringLiteral("warm-up answer"));
            warm.warmup = true;
            result.records.push_back(warm);
        }
        for (int iteration = 1; iteration <= 2; ++iteration)
            for (int endpoint = 1; endpoint >= 0; --endpoint)
                result.records.push_back(answerRecord(endpoint, test, 1, iteration,
                    QStringLiteral("Paris, says arm %1 on %2 #%3").arg(endpoint).arg(test).arg(iteration)));
    }
    return result;
}

} // namespace qs::test

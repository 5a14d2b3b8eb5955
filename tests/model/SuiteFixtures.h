// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Suite.h"

namespace qs::test {

/// A small suite built in code (independent of the suite parser): a single-prompt test, a
/// tool test and a 3-turn conversation.
inline Suite smallSuite(int warmup = 1, int runs = 2)
{
    Suite s;
    s.id = QStringLiteral("small");
    s.name = QStringLiteral("Small");
    s.system = QStringLiteral("You are a concise voice assistant.");
    s.tools = nlohmann::json::array({{{"type", "function"},
        {"function",
            {{"name", "web_search"},
                {"parameters", {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}}}}}}});
    s.defaults.warmup = warmup;
    s.defaults.runs = runs;
    s.defaults.maxTokens = 64;
    s.defaults.thinking = false;
    SuiteTest factual;
    factual.id = QStringLiteral("factual");
    factual.turns = {QStringLiteral("What is the capital of Japan?")};
    factual.expect.answerPatterns = {QStringLiteral("Tokyo")};
    SuiteTest tool;
    tool.id = QStringLiteral("weather");
    tool.turns = {QStringLiteral("Weather in Paris?")};
    tool.useTools = true;
    tool.expect.tool = ExpectedTool {QStringLiteral("web_search"), {QStringLiteral("query")}};
    SuiteTest chat;
    chat.id = QStringLiteral("chat");
    chat.turns = {
        QStringLiteral("Hi, I'm Sam."), QStringLiteral("I like sailing."), QStringLiteral("What's my name?")};
    s.tests = {factual, tool, chat};
    s.raw = {{"id", "small"}};
    s.source = QStringLiteral("test");
    return s;
}

} // namespace qs::test

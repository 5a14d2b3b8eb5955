// SPDX-License-Identifier: MIT
#pragma once
// Scripted loopback servers (HostileServer scripts, not the project's emulator) for the verdict's
// end-to-end tests. Each server answers prompt N after base(N) × its own factor(N) milliseconds, so
// per-prompt ratios scatter around the true one as real servers' do, and may answer chosen prompts
// wrongly. A suite of N one-question prompts and a two-criterion profile go with them.
#include "tests/support/HostileServer.h"

#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

namespace qs::test {

using qs::emu::HostileConnection;
using qs::emu::HostileServer;

/// How an arm writes its (right) answers.
enum class AnswerStyle {
    Clean, ///< "The answer is 21."
    ThinkingLeak, ///< its thinking in the answer: "<think>…</think>The answer is 21."
    Markdown, ///< "**The answer is 21.**"
};

struct Arm {
    double factor = 1; ///< the true ratio to the prompts' base latency
    double scatter = 0; ///< log-sd of this arm's own fixed factor per prompt
    std::uint64_t seed = 1; ///< which per-prompt factors (two arms with one seed move together)
    std::set<int> wrong {}; ///< prompts answered wrongly, every time
    AnswerStyle style = AnswerStyle::Clean;
};

// A standard normal draw fixed by (seed, prompt): the same prompt gets the same factor every time.
inline double normalFor(std::uint64_t seed, int prompt)
{
    std::mt19937_64 rng(seed * 1000003ULL + std::uint64_t(prompt));
    return std::normal_distribution<double>(0, 1)(rng);
}

inline QByteArray chunk(const QByteArray& delta, const char* finish = nullptr)
{
    return "data: "
           "{\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"model\":\"scripted\",\"choices\":[{"
           "\"index\":0,"
           "\"delta\":"
        + delta + ",\"finish_reason\":" + (finish ? QByteArray("\"") + finish + "\"" : QByteArray("null"))
        + "}]}\n\n";
}

inline std::unique_ptr<HostileServer> serve(const Arm& arm)
{
    return std::make_unique<HostileServer>([arm](HostileConnection& c, int) {
        const nlohmann::json body = nlohmann::json::parse(c.requestBody().toStdString(), nullptr, false);
        int prompt = 0;
        if (body.is_object() && body.contains("messages") && !body["messages"].empty()) {
            const std::string text = body["messages"].back().value("content", std::string());
            const auto at = text.find("Question ");
            if (at != std::string::npos)
                prompt = std::atoi(text.c_str() + at + 9);
        }
        // 120 ms × a prompt's own length (log-sd 0.3) × this arm's factor for it.
        const double ms = 120 * std::exp(0.3 * normalFor(999, prompt)) * arm.factor
            * std::exp(arm.scatter * normalFor(arm.seed, prompt));
        std::this_thread::sleep_for(std::chrono::microseconds(qint64(ms * 1000)));
        QByteArray answer = arm.wrong.count(prompt) ? QByteArray("I do not know.")
                                                    : "The answer is " + QByteArray::number(prompt * 7) + ".";
        if (arm.style == AnswerStyle::ThinkingLeak)
            answer = "<think>Seven times the number.</think>" + answer;
        else if (arm.style == AnswerStyle::Markdown)
            answer = "**" + answer + "**";
        QByteArray stream = chunk(R"({"role":"assistant","content":""})");
        stream += chunk(R"({"content":")" + answer + R"("})");
        stream += chunk("{}", "stop");
        stream
            += R"(data: {"id":"s","object":"chat.completion.chunk","model":"scripted","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":6,"total_tokens":36}})"
               "\n\n";
        stream += "data: [DONE]\n\n";
        c.send(
            qs::emu::httpHead("200 OK", "Content-Type: text/event-stream\r\nConnection: close\r\n") + stream);
        return false; // close: the body ends with the connection
    });
}

/// Writes `json` to `name` in `dir`; returns the path.
inline QString writeJsonFile(const QTemporaryDir& dir, const QString& name, const nlohmann::json& json)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(QByteArray::fromStdString(json.dump(1)));
    return path;
}

inline QString writeSuite(const QTemporaryDir& dir, int prompts)
{
    nlohmann::json tests = nlohmann::json::array();
    for (int i = 1; i <= prompts; ++i)
        tests.push_back({{"id", "q" + std::to_string(i)}, {"category", "factual"},
            {"prompt", "Question " + std::to_string(i) + ": what is " + std::to_string(i) + " times 7?"},
            {"expect", {std::to_string(i * 7)}}});
    const nlohmann::json suite = {{"id", "scripted"}, {"name", "Scripted"}, {"prefix_cache", "cold"},
        {"defaults", {{"max_tokens", 16}, {"temperature", 0}, {"warmup", 0}, {"runs", 2}}}, {"tests", tests}};
    return writeJsonFile(dir, QStringLiteral("suite-%1.json").arg(prompts), suite);
}

inline QString writeProfile(const QTemporaryDir& dir)
{
    const nlohmann::json profile = {{"id", "scripted"},
        {"criteria",
            {{{"id", "ttft"}, {"metric", "ttft_visible_ms"}, {"not_worse_than_baseline", true}},
                {{"id", "answers"}, {"gate", "expected_answer"}, {"not_worse_than_baseline", true},
                    {"margin", 0.3}}}}};
    return writeJsonFile(dir, QStringLiteral("profile.json"), profile);
}

} // namespace qs::test

// SPDX-License-Identifier: MIT
// What the fidelity measure costs Quantscope: one KL over two
// 20-entry top lists, and computeFidelity over a run of a reference and several arms, each
// answering every prompt with 128 tokens of 20 alternatives, with and without the bootstrap.
//   bench_fidelity [--arms N] [--prompts N] [--tokens N] [--top N]

#include "model/core/Clock.h"
#include "model/evaluate/Fidelity.h"

#include <QCoreApplication>
#include <QStringList>
#include <QTextStream>
#include <cmath>
#include <random>

using namespace qs;

namespace {

template <typename F> double msFor(F f)
{
    const qint64 t0 = monotonicNs();
    f();
    return double(monotonicNs() - t0) / 1e6;
}

/// A top list of `top` tokens over a vocabulary of 64, its probabilities drawn around a clear
/// first choice.
std::vector<TokenCandidate> topList(std::mt19937_64& rng, int top, int first)
{
    std::vector<TokenCandidate> list;
    double mass = 0.6;
    for (int k = 0; k < top; ++k) {
        TokenCandidate c;
        const int id = (first + k * 7) % 64;
        c.token = QStringLiteral(" w%1").arg(id);
        c.bytes = c.token.toUtf8();
        c.logprob = std::log(mass * (0.9 + 0.2 * double(rng() % 1000) / 1000.0));
        list.push_back(std::move(c));
        mass *= 0.5;
    }
    return list;
}

RunRecord answer(std::mt19937_64& rng, int endpoint, int prompt, int tokens, int top, int divergeAt)
{
    RunRecord r;
    r.endpoint = endpoint;
    r.test = QStringLiteral("p%1").arg(prompt);
    r.request.requestBody = {{"logprobs", true}, {"top_logprobs", top}, {"temperature", 0}};
    r.request.httpStatus = 200;
    LogprobStream& lp = r.request.response.logprobs;
    for (int i = 0; i < tokens; ++i) {
        const int first = (prompt * 31 + i * 13 + (i >= divergeAt ? endpoint : 0)) % 64;
        TokenLogprob t;
        t.top = topList(rng, top, first);
        // The candidate's own choice comes first in its list (vLLM's order).
        t.token = t.top.front().token;
        t.bytes = t.top.front().bytes;
        t.logprob = t.top.front().logprob;
        t.hasTop = true;
        lp.tokens.push_back(std::move(t));
        r.request.response.content += lp.tokens.back().token;
    }
    lp.chunks = tokens;
    r.request.response.finishReason = QStringLiteral("length");
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    int arms = 3, prompts = 200, tokens = 128, top = 20;
    const QStringList args = app.arguments();
    const auto intArg = [&args](const char* name, int& v) {
        if (const auto i = args.indexOf(QString::fromLatin1(name)); i > 0 && i + 1 < args.size())
            v = args[i + 1].toInt();
    };
    intArg("--arms", arms);
    intArg("--prompts", prompts);
    intArg("--tokens", tokens);
    intArg("--top", top);
    QTextStream out(stdout);

    std::mt19937_64 rng(7);
    const auto a = topList(rng, top, 1);
    const auto b = topList(rng, top, 3);
    const int reps = 20000;
    double sink = 0;
    const double klUs = msFor([&] {
        for (int i = 0; i < reps; ++i)
            sink += topListKl(a, b).value_or(0);
    }) * 1e3
        / reps;
    out << "topListKl, two lists of " << top << ": " << klUs << " µs per position\n";

    RunResult run;
    for (int e = 0; e <= arms; ++e) {
        RunEndpoint ep;
        ep.endpoint.label = e == 0 ? QStringLiteral("BF16") : QStringLiteral("arm %1").arg(e);
        ep.reference = e == 0;
        run.endpoints.push_back(ep);
    }
    for (int p = 0; p < prompts; ++p)
        for (int e = 0; e <= arms; ++e) // half of the prompts identical, half diverging midway
            run.records.push_back(answer(rng, e, p, tokens, top, p % 2 == 0 ? tokens : tokens / 2));
    out << arms << " arms × " << prompts << " prompts × " << tokens << " tokens × " << top
        << " alternatives:\n";
    Fidelity f;
    const double fast = msFor([&] { f = computeFidelity(run, 0, -1, false); });
    out << "  computeFidelity, point values     " << fast << " ms\n";
    const double full = msFor([&] { f = computeFidelity(run, 0); });
    out << "  computeFidelity, with bootstrap   " << full << " ms\n";
    const double json = msFor([&] { sink += double(toJson(f).dump().size()); });
    out << "  toJson + dump                     " << json << " ms\n";
    if (!f.arms.empty())
        out << "  (arm 1: flip rate " << f.arms[0].flipRate << ", KL " << f.arms[0].klMean.value_or(-1)
            << ")\n";
    return sink > 0 ? 0 : 1;
}

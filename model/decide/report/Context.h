// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/Suite.h"
#include "model/decide/Report.h"
#include "model/decide/report/Document.h"

#include <optional>
#include <set>

// What every section of the report needs: the run, its evaluation and the suite, derived once per
// document, and the words the report uses for gates, decisions and outcomes.
namespace qs::report {

/// "Non-empty answer", "No thinking leak"…; an unknown gate as it is.
QString gateTitle(const QString& gate);
QString decisionWord(Recommendation::Decision d); ///< "SWITCH", "KEEP BASELINE", "INCONCLUSIVE"
QString decisionTitle(const Recommendation& r); ///< "Switch to NVFP4", "Keep Q4_K_M", "Inconclusive"
Style decisionStyle(Recommendation::Decision d);
/// "Recommendation: KEEP BASELINE — Keep Q4_K_M: NVFP4 fails 3 of 7 criteria (…)"
Line decisionLine(const Recommendation& r);
Inline outcomeCell(CriterionResult::Outcome o); ///< PASS, FAIL, INCONCLUSIVE coloured; "not measured"
/// Quantization as the endpoint states it, else as the model's name shows it.
QString quantizationOf(const RunEndpoint& e);
QString probeString(const RunEndpoint& e, const char* key); ///< a string the server's probe reported

struct Context {
    const ReportInput& in;
    const RunResult& run;
    const Evaluation& ev;
    std::optional<Suite> suite;
    QStringList tests; ///< in the order they ran
    std::set<QString> multiTurn;

    explicit Context(const ReportInput& input)
        : in(input)
        , run(*input.result)
        , ev(*input.evaluation)
    {
        try {
            suite = parseSuite(run.suite, QStringLiteral("the results file's suite"));
        } catch (const std::exception&) {
            suite.reset(); // described from the raw JSON where needed
        }
        for (const CellStatistics& c : ev.cells) {
            if (!tests.contains(c.test))
                tests << c.test;
            if (c.turn > 0)
                multiTurn.insert(c.test);
        }
    }

    QString label(int endpoint) const
    {
        if (endpoint < 0 || endpoint >= int(run.endpoints.size()))
            return QStringLiteral("?");
        return run.endpoints[std::size_t(endpoint)].endpoint.displayName();
    }

    const SuiteTest* test(const QString& id) const
    {
        if (!suite)
            return nullptr;
        for (const SuiteTest& t : suite->tests)
            if (t.id == id)
                return &t;
        return nullptr;
    }

    QString testName(const QString& id) const
    {
        if (id.isEmpty())
            return QStringLiteral("All tests");
        const SuiteTest* t = test(id);
        return t && !t->name.isEmpty() ? t->name : id;
    }

    const CellStatistics* cell(int endpoint, const QString& testId, int turn = 0) const
    {
        for (const CellStatistics& c : ev.cells)
            if (c.endpoint == endpoint && c.test == testId && c.turn == turn)
                return &c;
        return nullptr;
    }

    /// What `endpoint`'s server spent (Evaluation::resources), or null when nothing was measured.
    const EndpointResources* resources(int endpoint) const { return findResources(ev.resources, endpoint); }

    /// passed/judged of `gate` over every test (all turns) of `endpoint`.
    std::pair<int, int> gateTotal(int endpoint, const QString& gate) const
    {
        std::pair<int, int> total {0, 0};
        for (const CellStatistics& c : ev.cells) {
            if (c.endpoint != endpoint || c.turn != 0)
                continue;
            const auto it = c.gates.find(gate);
            if (it != c.gates.end()) {
                total.first += it->second.first;
                total.second += it->second.second;
            }
        }
        return total;
    }
};

/// A guardrail as one bullet of a section's warnings: "Title: evidence — advice", the title marked
/// as a warning unless the guardrail is only information.
Line guardrailLine(const Guardrail& g);

/// The "Winner" cell of a comparison row: the winner's label, or why there is none.
Line winnerCell(const Context& cx, Verdict verdict, int winner, int pairs, int minPairs);

} // namespace qs::report

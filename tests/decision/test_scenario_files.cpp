// SPDX-License-Identifier: MIT
// The committed scenario results files (made by test_decision_replay with QS_WRITE_SCENARIOS) still
// lead to the seed authors' conclusions: they are what the report and the docs are built from.
#include "ScenarioSupport.h"
#include "model/store/ResultFile.h"

#include <cstdio>
#include <gtest/gtest.h>

using namespace qs;
using namespace qs::test;

TEST(ScenarioFiles, CommittedResultsReachTheSeedsConclusions)
{
    for (const Scenario& s : scenarios) {
        SCOPED_TRACE(s.name);
        const QString path = QStringLiteral(QS_TEST_DATA_DIR "/results/scenario-") + QString::fromUtf8(s.name)
            + QStringLiteral(".json");
        const RunResult result = loadResults(path);
        ASSERT_EQ(result.endpoints.size(), 2u);
        EXPECT_EQ(result.endpoints[0].spec, QStringLiteral("sim:q4km-like"));
        EXPECT_EQ(result.endpoints[1].spec, QStringLiteral("sim:") + QString::fromUtf8(s.candidateProfile));
        EXPECT_EQ(result.endpoints[1].endpoint.label, QString::fromUtf8(s.candidateLabel));
        const Judgement j = judgeScenario(result);
        expectScenario(QString::fromUtf8(s.name), j);
        if (qEnvironmentVariableIsSet("QS_PRINT_RECOMMENDATIONS"))
            std::printf("%s\n%s\n", s.name, dump(j.recommendation).c_str());
    }
}

// SPDX-License-Identifier: MIT
// The corpus (tests/data/gates): no false positives on clean voice answers, and a detection rate
// on the bad ones that must not regress. bench_gates prints the same numbers with every miss.
#include "GateCorpus.h"
#include "GateTestSupport.h"

using namespace qs;
using namespace qs::test;

namespace {

const QString dataDir = QStringLiteral(QS_TEST_DATA_DIR "/gates/");

struct Corpus {
    std::vector<CorpusSample> clean;
    std::vector<CorpusSample> bad;
    CorpusReport report;
};

const Corpus& corpus()
{
    static const Corpus c = [] {
        Corpus out;
        out.clean = loadCorpus(dataDir + QStringLiteral("clean.jsonl"));
        out.bad = loadCorpus(dataDir + QStringLiteral("bad.jsonl"));
        out.report = measureCorpus(out.clean, out.bad, voiceSuite(), voicePatterns());
        return out;
    }();
    return c;
}

std::string list(const std::vector<Misclassified>& items, const QString& gate)
{
    std::string out;
    for (const Misclassified& m : items)
        if (m.gate == gate)
            out += "\n  " + m.sample->id.toStdString() + ": " + m.sample->text.left(80).toStdString() + " — "
                + m.reason.toStdString();
    return out;
}

} // namespace

TEST(GateCorpus, IsLargeEnoughAndWellFormed)
{
    const Corpus& c = corpus();
    EXPECT_GE(c.clean.size(), std::size_t(200));
    EXPECT_GE(c.bad.size(), std::size_t(100));
    for (const CorpusSample& s : c.bad) {
        EXPECT_FALSE(s.gates.isEmpty()) << s.id.toStdString();
        for (const QString& g : s.gates)
            EXPECT_TRUE(gateNames().contains(g)) << s.id.toStdString() << ": " << g.toStdString();
    }
    for (const QString& gate : corpusGates())
        EXPECT_GE(c.report.rates.at(gate).bad, gate == u"tool_call" ? 10 : 30) << gate.toStdString();
}

// Zero, not "small": every clean answer in the corpus is one a voice assistant should be allowed
// to say, so any flag is a bug in a pattern (or a corpus entry to discuss).
TEST(GateCorpus, NoFalsePositivesOnCleanAnswers)
{
    const Corpus& c = corpus();
    for (const QString& gate : corpusGates())
        EXPECT_EQ(c.report.rates.at(gate).falsePositives, 0)
            << gate.toStdString() << list(c.report.falsePositives, gate);
}

TEST(GateCorpus, DetectsAtLeastNinetyPercentOfBadAnswers)
{
    const Corpus& c = corpus();
    for (const QString& gate : corpusGates()) {
        const GateRate& r = c.report.rates.at(gate);
        EXPECT_GE(r.detectionRate(), 0.90)
            << gate.toStdString() << ": " << r.detected << "/" << r.bad << list(c.report.misses, gate);
    }
}

// The seeds' examples are in the corpus and must always be caught, whatever the rates.
TEST(GateCorpus, SeedExamplesAreAlwaysCaught)
{
    const Corpus& c = corpus();
    for (const char* kind :
        {"seed", "thinking_process", "analyze_request", "hermes", "bold", "bullets", "heading"}) {
        bool found = false;
        for (const CorpusSample& s : c.bad)
            if (s.kind == QString::fromUtf8(kind)) {
                found = true;
                for (const Misclassified& m : c.report.misses)
                    EXPECT_NE(m.sample, &s) << "missed " << s.id.toStdString() << " (" << kind << ")";
            }
        EXPECT_TRUE(found) << kind;
    }
}

// SPDX-License-Identifier: MIT
// Quality-gate accuracy on the corpus: false positives on clean voice answers, detection on bad
// ones, every misclassified sample, and the cost per response.
//
//   bench_gates [DATA_DIR]      (default: the source tree's tests/data)
#include "../gates/GateCorpus.h"
#include "model/core/Clock.h"

#include <QCoreApplication>
#include <cstdio>

using namespace qs;
using namespace qs::test;

namespace {

QString oneLine(const QString& text, int limit = 90)
{
    QString t = text;
    t.replace(u'\n', QStringLiteral("⏎"));
    return t.size() > limit ? t.left(limit - 1) + QStringLiteral("…") : t;
}

void print(const QString& line)
{
    std::printf("%s\n", line.toUtf8().constData());
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QString dir = (argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral(QS_TEST_DATA_DIR))
        + QStringLiteral("/gates/");
    std::vector<CorpusSample> clean, bad;
    try {
        clean = loadCorpus(dir + QStringLiteral("clean.jsonl"));
        bad = loadCorpus(dir + QStringLiteral("bad.jsonl"));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_gates: %s\n", e.what());
        return 2;
    }
    const Suite suite = corpusSuite();
    const GatePatterns patterns = gatePatternsFor(suite);

    const qint64 t0 = monotonicNs();
    const CorpusReport report = measureCorpus(clean, bad, suite, patterns);
    const double perResponseUs = double(monotonicNs() - t0) / 1000.0 / double(clean.size() + bad.size());

    print(QStringLiteral("Quality gates on %1: %2 clean answers, %3 bad ones")
              .arg(dir)
              .arg(clean.size())
              .arg(bad.size()));
    print(QString());
    print(QStringLiteral("%1  %2  %3")
              .arg(QStringLiteral("gate"), -18)
              .arg(QStringLiteral("false positives (clean)"), -26)
              .arg(QStringLiteral("detection (bad, labelled for the gate)")));
    for (const QString& gate : corpusGates()) {
        const GateRate& r = report.rates.at(gate);
        print(QStringLiteral("%1  %2  %3")
                  .arg(gate, -18)
                  .arg(QStringLiteral("%1/%2 (%3%)")
                           .arg(r.falsePositives)
                           .arg(r.clean)
                           .arg(100.0 * r.fpRate(), 0, 'f', 1),
                      -26)
                  .arg(QStringLiteral("%1/%2 (%3%)")
                           .arg(r.detected)
                           .arg(r.bad)
                           .arg(100.0 * r.detectionRate(), 0, 'f', 1)));
    }
    print(QString());
    print(QStringLiteral("false positives: %1").arg(report.falsePositives.size()));
    for (const Misclassified& m : report.falsePositives)
        print(QStringLiteral("  %1 %2: \"%3\" — %4")
                  .arg(m.gate, m.sample->id, oneLine(m.sample->text), m.reason));
    print(QStringLiteral("missed: %1").arg(report.misses.size()));
    for (const Misclassified& m : report.misses)
        print(QStringLiteral("  %1 %2 (%3): \"%4\" — %5")
                  .arg(m.gate, m.sample->id, m.sample->kind, oneLine(m.sample->text), m.reason));
    print(QString());
    print(QStringLiteral("all seven gates: %1 µs per response").arg(perResponseUs, 0, 'f', 1));
    return 0;
}

// SPDX-License-Identifier: MIT
#pragma once
// Fixtures for the view tests: a real results file written by `quantscope run` on the two
// simulated endpoints (voice-assistant suite, 3 runs, 1 warm-up; q4km-like clean, nvfp4-like with
// markdown, thinking leaks and broken tool calls), loaded and evaluated the way the app does.

#include "model/store/ResultFile.h"
#include "widgets/DashboardData.h"

#include <QImage>
#include <QSet>
#include <QString>
#include <memory>

namespace qs::test {

inline QString fixturePath(const QString& name = QStringLiteral("voice-sim.json"))
{
    return QStringLiteral(QS_TEST_DATA "/results/") + name;
}

inline std::shared_ptr<const RunResult> loadFixture(const QString& name = QStringLiteral("voice-sim.json"))
{
    return std::make_shared<const RunResult>(loadResults(fixturePath(name)));
}

/// The fixture as every view receives it.
inline DashboardData fixtureData(const QString& name = QStringLiteral("voice-sim.json"))
{
    DashboardData d = prepareDashboard(loadFixture(name), 0);
    d.sources = QStringList {fixturePath(name)};
    return d;
}

/// Distinct colours on a grid of every `step`-th pixel: a rendered view has dozens, a blank or
/// failed render a handful.
inline int distinctColours(const QImage& image, int step = 3)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += step)
        for (int x = 0; x < image.width(); x += step)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace qs::test

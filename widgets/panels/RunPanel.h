// SPDX-License-Identifier: MIT
#pragma once

#include "model/BenchmarkRunner.h"
#include "model/RunRecord.h"

#include <QList>
#include <QWidget>

namespace qs {

/// What the run panel asks for.
struct RunPanelSettings {
    QString suite = QStringLiteral("voice-assistant"); ///< a built-in name or a suite file path
    RunSettings settings; ///< warmup/runs −1 = the suite's; maxTokens unset = the suite's
};

/// Starts and follows a run: suite picker (built-ins and "Open suite file…"), warm-up, runs,
/// order, concurrency, max tokens (each with "suite default"), Run and Stop, a progress bar
/// with the current endpoint, test, turn, iteration and ETA, and the live text of the request in
/// flight on each endpoint (reasoning greyed, appended once per tick, never re-set whole).
class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    void setBuiltinSuites(const QStringList& names);
    RunPanelSettings settings() const;
    void setSettings(const RunPanelSettings& settings);
    /// An inline error under the suite picker (e.g. a suite file that does not parse); empty clears.
    void setSuiteError(const QString& message);

    /// Run disabled / Stop enabled while running; settings locked.
    void setRunning(bool running);
    bool running() const;
    /// One line under the progress bar: "Probing endpoints…", "Cancelled: 12 records kept", …
    void setStatusText(const QString& text);
    /// Clears the live text and makes one column per endpoint.
    void beginLive(const QStringList& endpointLabels);
    void setProgress(const RunProgress& progress);
    void addDeltas(const QList<LiveDelta>& deltas);

Q_SIGNALS:
    void runRequested();
    void stopRequested();
    void settingsChanged();
};

} // namespace qs

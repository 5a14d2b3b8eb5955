// SPDX-License-Identifier: MIT
#pragma once

#include "model/core/RunRecord.h"
#include "model/run/BenchmarkRunner.h"

#include <QList>
#include <QTextCharFormat>
#include <QWidget>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace qs {

/// What the run panel asks for.
struct RunPanelSettings {
    QString suite = QStringLiteral("voice-assistant"); ///< a built-in name or a suite file path
    RunSettings settings; ///< warmup/runs −1 = the suite's; maxTokens unset = the suite's
    /// Judge the answers with an LLM judge once the run has ended and been saved (the window
    /// asks which judge when Run is pressed, so the choice is made before the run).
    bool judgeAfterRun = false;
    /// The warm-up, runs and prompts are the demo's short run on the simulated endpoints, not a
    /// choice of the user's: the window swaps them for the suite's own once a real endpoint is
    /// listed. Editing warm-up, runs or prompts in the panel clears it.
    bool demoDefaults = false;
    /// Run until the verdict is made (`run --until-decided`): rounds of prompts drawn from the
    /// suite's pools, judged after each by the Decision tab's profile; stop when every verdict is
    /// made or before a round would pass `maxPrompts` distinct prompts or `budgetMinutes`.
    bool untilDecided = false;
    int maxPrompts = 0; ///< 0: the whole suite
    int budgetMinutes = 0; ///< 0: no limit
    /// What the user says of this run (`run --note`), saved in its file: e.g. "v3: MLP-only
    /// calibration"; a campaign shows it beside the attempt.
    QString note;
};

/// Starts and follows a run: suite picker (built-ins and "Open suite file…"), warm-up, runs,
/// prompts per category, order, concurrency, max tokens (each with "suite default"), a line
/// saying what Run will do under them ("Settings in force"), Run and Stop, a progress bar
/// with the current endpoint, test, turn, iteration and ETA, and the live text of the request in
/// flight on each endpoint (reasoning greyed, appended once per tick, never re-set whole).
class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);

    void setBuiltinSuites(const QStringList& names);
    /// The chosen suite's own warm-up and runs per test (−1 = unknown): shown as "suite default
    /// (5)" and as the N of "run 2/N" while the runs are the suite's.
    void setSuiteDefaults(int warmup, int runs);
    /// The chosen suite as parsed (null: it could not be read). Sets its defaults as
    /// setSuiteDefaults() does, and the "Settings in force" line counts its prompts and requests.
    void setSuite(std::shared_ptr<const Suite> suite);
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

    /// What Run will do, as the "Settings in force" line says it, one line each: the prompts and
    /// requests, the order, whose numbers they are (the suite's or overridden). Empty until setSuite().
    QString inForceText() const;
    /// The progress line, e.g. "q4km-like · multi-turn-5 · turn 3 · run 2/3 · ETA 1 min 05 s".
    QString progressText() const;
    /// The live text shown for endpoint `index` (empty when there is no such column).
    QString liveText(int index) const;
    /// The most characters a live column keeps (older text is dropped from the top).
    static constexpr int liveCharacterCap = 20000;

Q_SIGNALS:
    void runRequested();
    void stopRequested();
    void settingsChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    struct LiveColumn {
        QWidget* box = nullptr;
        QLabel* header = nullptr;
        QPlainTextEdit* text = nullptr;
        QString title; ///< first line of the header (rich text: colour mark and label)
        int slot = -1; ///< the stream this column follows (the newest request of its endpoint)
        bool toolCallShown = false;
    };
    void onSuiteActivated(int index);
    void rebuildSuites(const QString& select);
    void selectSuite(const QString& suite);
    void addColumn(const QString& label);
    void updateSpinTexts();
    void updateInForce();
    void applyColors();
    void emitChanged();
    void append(LiveColumn& column, const LiveDelta& delta);

    QComboBox* m_suite;
    QLabel* m_suiteError;
    QSpinBox* m_warmup;
    QSpinBox* m_runs;
    QSpinBox* m_prompts;
    QCheckBox* m_judgeAfter = nullptr;
    QCheckBox* m_untilDecided = nullptr;
    QSpinBox* m_maxPrompts = nullptr;
    QSpinBox* m_budget = nullptr;
    QLineEdit* m_note = nullptr;
    QSpinBox* m_maxTokens;
    QComboBox* m_order;
    QSpinBox* m_concurrency;
    QPushButton* m_run;
    QPushButton* m_stop;
    QProgressBar* m_progress;
    QLabel* m_progressLine;
    QLabel* m_inForce;
    QLabel* m_status;
    QWidget* m_liveArea;
    std::vector<LiveColumn> m_columns;
    QStringList m_builtins;
    QStringList m_files; ///< suite files chosen before, newest first
    RunSettings m_base; ///< what the panel does not edit (seed, request timeout) survives a round trip
    int m_suiteWarmup = -1;
    int m_suiteRuns = -1;
    std::shared_ptr<const Suite> m_suiteParsed;
    bool m_suiteGiven = false; ///< setSuite() was called: the in-force line has something to say
    bool m_demoDefaults = false; ///< RunPanelSettings::demoDefaults, until a number is edited
    int m_lastSuiteIndex = 0;
    bool m_running = false;
    bool m_quiet = false; ///< setting values programmatically: no settingsChanged()
    QString m_progressText;
    QTextCharFormat m_contentFormat;
    QTextCharFormat m_reasoningFormat;
    QTextCharFormat m_toolFormat;
};

} // namespace qs

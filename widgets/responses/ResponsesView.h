// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QWidget>
#include <map>
#include <set>
#include <tuple>
#include <vector>

class QComboBox;
class QSpinBox;
class QCheckBox;
class QLabel;
class QHBoxLayout;
class QToolButton;
class QUrl;

namespace qs {

struct FidelityPrompt;
class PairwiseVerdictPanel;
class ResponseColumn;

/// Side-by-side responses: pick a test, turn and iteration; one column per endpoint with the
/// response, TTFT (visible and any), tokens (with their source), tok/s and gate badges. Spans
/// from the gates' character ranges are highlighted (markdown, leaked thinking, tool call as
/// text, incoherent text, the expected answer) with a legend; reasoning is shown folded, apart
/// from the answer; tool calls as formatted calls; a Raw / Rendered toggle. Model output is
/// untrusted: shown through SafeTextView only. When an LLM judge ran (RunResult::judging), each
/// column shows its answer's rubric scores and the judge's reason, and a panel above the columns
/// the blind pairwise verdict of each candidate against the baseline for the shown cell. Where
/// fidelity was measured (Evaluation::fidelity), each compared answer says where it diverges from
/// the reference's, and the raw text is underlined from there.
class ResponsesView : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit ResponsesView(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    /// Selects a test, turn and iteration (measured runs); false when that cell does not exist.
    bool select(const QString& test, int turn, int iteration);
    /// Selects the first cell where the endpoints' gate verdicts differ most (used on open and by
    /// screenshots: the most telling comparison), among the first 50 runs of each test and turn.
    void selectMostDifferent();
    QString currentTest() const;
    int currentTurn() const;
    int currentIteration() const;
    void setRendered(bool rendered); ///< false = raw text (markdown symbols as sent)
    bool rendered() const;

    int columnCount() const; ///< one per endpoint shown
    ResponseColumn* column(int index) const;

    /// The prompt of the selected turn, as sent (the last user message of the request).
    QString currentPrompt() const;
    PairwiseVerdictPanel* pairwisePanel() const { return m_pairwise; }

private:
    struct TestEntry {
        QString id;
        QString name; ///< the suite's name for the test, else its id
        int turns = 1;
        int iterations = 0; ///< measured runs seen
    };
    /// (test index in run order, turn, iteration) → record index per endpoint (-1: none yet).
    using CellKey = std::tuple<int, int, int>;
    /// The judge's verdicts on one cell: RubricVerdict index per endpoint (-1: none), PairVerdict
    /// indices (both orders of every candidate), into RunResult::judging.
    struct CellJudging {
        std::vector<int> rubric;
        std::vector<int> pairs;
    };

    void buildIndex();
    void buildFidelityIndex(); ///< which records fidelity compared, from the evaluation
    void syncColumns();
    void syncTestCombo();
    int testIndex(const QString& test) const;
    /// Selects the nearest existing cell of test `testIdx`, updates the controls, shows it.
    void applySelection(int testIdx, int turn, int iteration);
    void showCell();
    void showJudging(const std::map<CellKey, CellJudging>::const_iterator& judged);
    void offerLink(const QUrl& url);
    void styleLegend();

    DashboardData m_data;
    Theme m_theme = Theme::Light;
    bool m_rendered = false;
    std::vector<TestEntry> m_tests;
    std::map<CellKey, std::vector<int>> m_cells;
    std::map<CellKey, CellJudging> m_judged;
    /// Record index → its comparison with the reference (pointers into m_data.evaluation).
    std::map<int, const FidelityPrompt*> m_fidelity;
    std::set<int> m_fidelityReferences; ///< record indices the candidates were compared with
    QString m_test; ///< empty until something was selected
    int m_turn = 1;
    int m_iteration = 1;
    QString m_promptText;
    bool m_syncing = false; ///< controls are being set by code, not by the user

    QWidget* m_controlsBox = nullptr;
    QComboBox* m_testCombo = nullptr;
    QLabel* m_turnLabel = nullptr;
    QSpinBox* m_turnSpin = nullptr;
    QSpinBox* m_iterationSpin = nullptr;
    QToolButton* m_mostDifferent = nullptr;
    QToolButton* m_rawButton = nullptr;
    QToolButton* m_renderedButton = nullptr;
    QLabel* m_prompt = nullptr;
    QWidget* m_legend = nullptr;
    PairwiseVerdictPanel* m_pairwise = nullptr;
    QLabel* m_legendTitle = nullptr;
    std::vector<QLabel*> m_swatches;
    QLabel* m_empty = nullptr;
    QWidget* m_columnsBox = nullptr;
    QHBoxLayout* m_columnsLayout = nullptr;
    std::vector<ResponseColumn*> m_columns;
};

} // namespace qs

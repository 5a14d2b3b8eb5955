// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/DashboardView.h"

#include <QString>
#include <QWidget>
#include <map>
#include <vector>

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace qs {

class SafeTextView;

/// How the gates judged one endpoint's answers to one test, over every measured run (a
/// multi-turn test's runs are whole conversations).
struct AnswerCell {
    int runs = 0; ///< measured runs with at least one record
    int failedRuns = 0; ///< runs with a failed gate or a failed request
    int requestFailures = 0; ///< records whose request failed
    std::map<QString, int> gateFailures; ///< gate → runs in which it failed
    QString excerpt; ///< the start of the first run's (last turn's) answer, on one line
    int firstIteration = 0; ///< the run the excerpt is from
    bool passed() const { return runs > 0 && failedRuns == 0; }
    /// "✓ passed every check · 3 runs", "✗ failed: No markdown 2/3, request failed 1/3", "no
    /// answer yet" (n/m: runs that failed of the runs measured).
    QString verdictText() const;
};

/// One test of the grid: its id, its name, its turns, and a cell per endpoint.
struct AnswerRow {
    QString test;
    QString name;
    int turns = 1;
    std::vector<AnswerCell> cells; ///< per endpoint
    /// The endpoints were judged differently: some passed every run, others did not.
    bool differs() const;
};

/// Every row of the grid from `data`'s records: the tests in run order, one linear pass.
std::vector<AnswerRow> answerRows(const DashboardData& data);

/// Every test's answers at a glance, as promptfoo's viewer shows them: one row per test (a
/// multi-turn test is one conversation), one column per endpoint; each cell says in words how the
/// gates judged that endpoint's answers to it over every measured run — "✓ passed every check ·
/// 3 runs", "✗ failed: No markdown 2/3" — coloured, with the start of the answer under it. "Only where the
/// endpoints differ" keeps the rows that tell them apart. Below the grid, the selected test's
/// whole conversation — every turn of one run, prompt and answer, highlighted as the side-by-side
/// view highlights it — for every endpoint side by side. Double-click or Enter opens that test in
/// the side-by-side view (openRequested). Model output is untrusted: SafeTextView only.
class AnswerGrid : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit AnswerGrid(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    QTableWidget* table() const { return m_table; }
    const std::vector<AnswerRow>& rows() const { return m_rows; } ///< every test, filter or not
    /// Keeps only the rows where the endpoints were judged differently.
    void setOnlyDiffering(bool only);
    /// Selects the row of `test` (false when it is not shown) and shows its conversation.
    bool selectTest(const QString& test);
    QString currentTest() const; ///< empty when no row is selected
    void setRun(int iteration); ///< which run's conversation is shown
    /// The conversation shown for endpoint `endpoint`, as plain text.
    QString conversationText(int endpoint) const;

Q_SIGNALS:
    /// Open `test` in the side-by-side view at `turn` of run `iteration`.
    void openRequested(const QString& test, int turn, int iteration);

private:
    void fillTable();
    void showConversation();
    void syncConversationColumns();

    DashboardData m_data;
    Theme m_theme = Theme::Light;
    std::vector<AnswerRow> m_rows;
    QString m_selected; ///< the test selected, kept across refreshes and filtering
    bool m_onlyDiffering = false;

    QCheckBox* m_differingBox;
    QLabel* m_summary;
    QTableWidget* m_table;
    QLabel* m_conversationTitle;
    QSpinBox* m_runSpin;
    QWidget* m_conversationBox;
    QHBoxLayout* m_conversationLayout;
    std::vector<SafeTextView*> m_conversations;
    /// What the conversation shown was built from (test, run, theme and each record's size): a
    /// live refresh that brings nothing new for it leaves it, and the reader's scroll, alone.
    QString m_conversationKey;
};

} // namespace qs

// SPDX-License-Identifier: MIT
#include "app/dashboard/JudgeDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

namespace qs::app {

namespace {
constexpr int NoRubric = -1;
constexpr int FileRubric = -2;
} // namespace

JudgeDialog::JudgeDialog(
    const QStringList& endpointSpecs, const QString& baselineLabel, int baseline, QWidget* parent)
    : QDialog(parent)
    , m_judge(new QComboBox(this))
    , m_rubric(new QComboBox(this))
    , m_pairwise(new QCheckBox(this))
    , m_concurrency(new QSpinBox(this))
    , m_problem(new QLabel(this))
    , m_endpointSpecs(endpointSpecs)
    , m_baseline(baseline)
{
    setWindowTitle(QStringLiteral("Judge the answers"));
    m_judge->setEditable(true);
    m_judge->addItem(QStringLiteral("url=sim:judge"));
    for (const QString& spec : endpointSpecs)
        m_judge->addItem(spec);
    m_judge->setToolTip(QStringLiteral(
        "An OpenAI-compatible endpoint, written as for quantscope run --endpoint, e.g. "
        "url=http://10.0.0.7:8000,model=qwen3-32b. A larger model than the ones compared judges best; "
        "one of the compared endpoints judging itself prefers its own answers."));
    const QStringList rubrics = builtinRubricNames();
    for (int i = 0; i < rubrics.size(); ++i)
        m_rubric->addItem(rubrics[i], i);
    m_rubric->addItem(QStringLiteral("No rubric grading"), NoRubric);
    m_rubric->addItem(QStringLiteral("Rubric file…"), FileRubric);
    m_pairwise->setText(
        QStringLiteral("Compare every endpoint with %1, answer by answer (blind, both orders)")
            .arg(baselineLabel));
    m_pairwise->setChecked(!baselineLabel.isEmpty());
    m_pairwise->setEnabled(!baselineLabel.isEmpty());
    m_concurrency->setRange(1, 16);
    m_concurrency->setValue(2);
    m_concurrency->setToolTip(QStringLiteral("Judgements in flight at once"));
    m_problem->setWordWrap(true);
    m_problem->setTextFormat(Qt::PlainText);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Judge"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_rubric, &QComboBox::activated, this, [this] {
        if (m_rubric->currentData().toInt() == FileRubric)
            chooseRubricFile();
        validate();
    });
    connect(m_pairwise, &QCheckBox::toggled, this, &JudgeDialog::validate);
    connect(m_judge, &QComboBox::currentTextChanged, this, &JudgeDialog::validate);

    auto* form = new QFormLayout(this);
    form->addRow(QStringLiteral("Judge"), m_judge);
    form->addRow(QStringLiteral("Rubric"), m_rubric);
    form->addRow(QString(), m_pairwise);
    form->addRow(QStringLiteral("In flight"), m_concurrency);
    form->addRow(m_problem);
    form->addRow(buttons);
    validate();
}

void JudgeDialog::chooseRubricFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Rubric file"), QString(), QStringLiteral("Rubrics (*.json);;All files (*)"));
    if (path.isEmpty()) {
        m_rubric->setCurrentIndex(0);
        return;
    }
    try {
        m_fileRubric = loadRubricFile(path);
        m_rubric->setItemText(
            m_rubric->currentIndex(), QStringLiteral("Rubric file: %1").arg(m_fileRubric->id));
        m_problem->clear();
    } catch (const RubricError& e) {
        m_fileRubric.reset();
        m_rubric->setCurrentIndex(0);
        m_problem->setText(QStringLiteral("That rubric cannot be used: %1").arg(QString::fromUtf8(e.what())));
    }
}

void JudgeDialog::validate()
{
    const bool rubric = m_rubric->currentData().toInt() != NoRubric;
    QPushButton* ok = findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QString problem;
    if (!rubric && !m_pairwise->isChecked())
        problem = QStringLiteral("Choose a rubric, the pairwise comparison, or both.");
    else if (m_judge->currentText().trimmed().isEmpty())
        problem = QStringLiteral("Name the judge: an endpoint SPEC such as url=http://10.0.0.7:8000.");
    else if (m_endpointSpecs.contains(m_judge->currentText()))
        problem = QStringLiteral("Note: this judge is one of the compared endpoints; judges prefer their own "
                                 "answers (the comparison will carry a warning).");
    if (!problem.isEmpty() || !m_problem->text().startsWith(QStringLiteral("That rubric")))
        m_problem->setText(problem);
    ok->setEnabled(problem.isEmpty() || problem.startsWith(QStringLiteral("Note:")));
}

JudgeSetup JudgeDialog::setup() const
{
    JudgeSetup s;
    s.spec = m_judge->currentText().trimmed();
    const int r = m_rubric->currentData().toInt();
    if (r == FileRubric)
        s.rubric = m_fileRubric;
    else if (r >= 0)
        s.rubric = loadBuiltinRubric(builtinRubricNames().at(r));
    s.pairwiseBaseline = m_pairwise->isChecked() ? m_baseline : -1;
    s.concurrency = m_concurrency->value();
    return s;
}

} // namespace qs::app

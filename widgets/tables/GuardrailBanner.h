// SPDX-License-Identifier: MIT
#pragma once

#include "model/Guardrails.h"
#include "widgets/DashboardView.h"

#include <QWidget>

class QVBoxLayout;
class QToolButton;
class QLabel;

namespace qs {

/// Methodology warnings (Evaluation::guardrails) in a banner above the dashboard: a coloured
/// line per warning (critical, warning, info), its title in words a reader understands, and —
/// expanded on click — the evidence and the advice. Hidden when there is nothing to say. The
/// headline counts them: "2 critical, 1 warning: this comparison may mislead".
class GuardrailBanner : public QWidget, public DashboardView {
    Q_OBJECT
public:
    explicit GuardrailBanner(QWidget* parent = nullptr);
    void setData(const DashboardData& data) override;
    void setTheme(Theme theme) override;

    int warningCount() const;
    void setExpanded(bool expanded); ///< every warning's evidence and advice shown

private:
    void rebuild();
    std::vector<Guardrail> m_guardrails;
    Theme m_theme = Theme::Light;
    bool m_expanded = false;
};

} // namespace qs

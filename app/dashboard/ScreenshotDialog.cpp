// SPDX-License-Identifier: MIT
#include "app/dashboard/ScreenshotDialog.h"

#include "app/common/DashboardViews.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace qs::app {

ScreenshotDialog::ScreenshotDialog(QWidget* parent)
    : QDialog(parent)
    , m_view(new QComboBox)
    , m_scale(new QComboBox)
    , m_theme(new QComboBox)
{
    setWindowTitle(QStringLiteral("Export screenshot"));
    for (const ViewInfo& v : dashboardViews())
        m_view->addItem(v.title, v.name);
    for (int s = 1; s <= 3; ++s)
        m_scale->addItem(QStringLiteral("%1× (pixel density)").arg(s), s);
    m_scale->setCurrentIndex(1);
    m_theme->addItem(QStringLiteral("Light (for a white page)"), themeId(Theme::Light));
    m_theme->addItem(QStringLiteral("Dark"), themeId(Theme::Dark));

    auto* form = new QFormLayout;
    form->addRow(QStringLiteral("View"), m_view);
    form->addRow(QStringLiteral("Scale"), m_scale);
    form->addRow(QStringLiteral("Theme"), m_theme);
    auto* hint = new QLabel(QStringLiteral("Charts and tables are rendered at a fixed size without their "
                                           "toggles, exactly as `quantscope screenshot` does."));
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    QPushButton* save = buttons->addButton(QStringLiteral("Save PNG…"), QDialogButtonBox::AcceptRole);
    QPushButton* copy = buttons->addButton(QStringLiteral("Copy to clipboard"), QDialogButtonBox::AcceptRole);
    save->setDefault(true);
    connect(save, &QPushButton::clicked, this, [this] { m_toClipboard = false; });
    connect(copy, &QPushButton::clicked, this, [this] { m_toClipboard = true; });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addWidget(buttons);
}

void ScreenshotDialog::setTheme(Theme theme)
{
    m_theme->setCurrentIndex(theme == Theme::Light ? 0 : 1);
}

ScreenshotRequest ScreenshotDialog::request() const
{
    ScreenshotRequest r;
    r.view = m_view->currentData().toString();
    r.scale = m_scale->currentData().toInt();
    r.theme = themeFromId(m_theme->currentData().toString()).value_or(Theme::Light);
    r.toClipboard = m_toClipboard;
    return r;
}

} // namespace qs::app

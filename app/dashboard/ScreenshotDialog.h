// SPDX-License-Identifier: MIT
#pragma once

#include "widgets/Theme.h"

#include <QDialog>

class QComboBox;

namespace qs::app {

struct ScreenshotRequest {
    QString view = QStringLiteral("window"); ///< a dashboardViews() name
    qreal scale = 2;
    Theme theme = Theme::Light;
    bool toClipboard = false;
};

/// Export Screenshot: which view, at 1×/2×/3×, light or dark; then Save PNG… or Copy.
class ScreenshotDialog : public QDialog {
    Q_OBJECT
public:
    explicit ScreenshotDialog(QWidget* parent = nullptr);
    void setTheme(Theme theme);
    ScreenshotRequest request() const;

private:
    QComboBox* m_view;
    QComboBox* m_scale;
    QComboBox* m_theme;
    bool m_toClipboard = false;
};

} // namespace qs::app

// SPDX-License-Identifier: MIT
#include "app/common/Offscreen.h"

#include <QString>
#include <QtGlobal>

namespace qs::app {

namespace {

QtMessageHandler previous = nullptr;

void filter(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    // What the offscreen plugin cannot do, and the runtime folder a headless session (CI, a
    // server over ssh) has no need of: nothing to act on.
    if (type == QtWarningMsg
        && (message.startsWith(QLatin1String("This plugin does not support"))
            || message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"))))
        return;
    if (previous)
        previous(type, context, message);
}

} // namespace

void prepareOffscreen()
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    if (!previous)
        previous = qInstallMessageHandler(filter);
}

} // namespace qs::app

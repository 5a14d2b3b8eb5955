// SPDX-License-Identifier: MIT
#include "widgets/panels/ProbeMetricsText.h"

#include <QStringList>

namespace qs {

namespace {

QString text(const nlohmann::json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key) || !j[key].is_string())
        return {};
    return QString::fromStdString(j[key].get<std::string>());
}

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

/// The flag that turns a runtime's /metrics on, when the probe gave no hint of its own.
QString flagHint(const QString& runtime)
{
    if (runtime == u"llama-server")
        return QStringLiteral("start llama-server with --metrics");
    if (runtime == u"sglang")
        return QStringLiteral("start SGLang with --enable-metrics");
    return {};
}

/// One page: "✓ answered (vllm, prometheus-0.0.4): vllm:num_requests_running, …" or
/// "✗ HTTP 404" and the flag that enables it.
QString pageHtml(const nlohmann::json& page, const ThemeColors& c, const QString& fallbackHint = {})
{
    const QString muted = c.mutedText.name();
    const bool answered
        = page.contains("answered") && page["answered"].is_boolean() && page["answered"].get<bool>();
    const int status
        = page.contains("status") && page["status"].is_number_integer() ? page["status"].get<int>() : 0;
    QString html = QStringLiteral("<span style='color:%1'>%2</span>").arg(muted, esc(text(page, "url")));
    if (answered) {
        QStringList about;
        for (const char* key : {"flavour", "format"})
            if (const QString t = text(page, key); !t.isEmpty())
                about << esc(t);
        QStringList families;
        if (page.contains("families") && page["families"].is_array())
            for (const auto& f : page["families"])
                if (f.is_string())
                    families << esc(QString::fromStdString(f.get<std::string>()));
        html += QStringLiteral("<br><span style='color:%1'>✓ answered</span>").arg(c.pass.name());
        if (!about.isEmpty())
            html += QStringLiteral(" (") + about.join(QStringLiteral(", ")) + u')';
        html += families.isEmpty()
            ? QStringLiteral(": <span style='color:%1'>no family Quantscope knows</span>")
                  .arg(c.warningAccent.name())
            : QStringLiteral(": %1 known famil%2 — %3")
                  .arg(families.size())
                  .arg(families.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies"))
                  .arg(families.join(QStringLiteral(", ")));
    } else {
        QString why = status > 0 ? QStringLiteral("HTTP %1").arg(status) : QStringLiteral("no answer");
        if (const QString error = text(page, "error"); !error.isEmpty())
            why += QStringLiteral(": ") + esc(error);
        html += QStringLiteral("<br><span style='color:%1'>✗ %2</span>").arg(c.warningAccent.name(), why);
    }
    const QString hint = text(page, "hint").isEmpty() ? fallbackHint : text(page, "hint");
    if (!hint.isEmpty() && !answered)
        html += QStringLiteral("<br><span style='color:%1'>%2</span>").arg(muted, esc(hint));
    return html;
}

QString row(const QString& name, const QString& valueHtml, const ThemeColors& c)
{
    return QStringLiteral("<tr><td style='color:%1; padding-right:12px' valign='top'>%2</td><td>%3</td></tr>")
        .arg(c.mutedText.name(), name, valueHtml);
}

} // namespace

QString probeMetricsHtml(const nlohmann::json& probe, const ThemeColors& colors)
{
    if (!probe.is_object())
        return {};
    QString html;
    if (probe.contains("metrics") && probe["metrics"].is_object())
        html += row(QStringLiteral("/metrics"),
            pageHtml(probe["metrics"], colors, flagHint(text(probe, "runtime"))), colors);
    if (probe.contains("exporters") && probe["exporters"].is_array())
        for (const auto& exporter : probe["exporters"])
            if (exporter.is_object())
                html += row(QStringLiteral("Exporter"), pageHtml(exporter, colors), colors);
    return html;
}

} // namespace qs

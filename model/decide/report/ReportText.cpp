// SPDX-License-Identifier: MIT
#include "model/decide/report/ReportText.h"

#include "model/evaluate/MetricText.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace qs::report {

QString number(double v, int decimals)
{
    return QString::number(v, 'f', decimals);
}

QString fmtMetric(Metric metric, double v)
{
    return metricNumber(v, metric) + u' ' + metricUnit(metric);
}

QString fmtSigned(Metric metric, double v)
{
    const QString s = fmtMetric(metric, v);
    return v > 0 ? u"+"_s + s : s;
}

QString fmtRatioNumber(double r)
{
    return number(r, r >= 10 ? 1 : 2);
}
QString fmtRatio(double r)
{
    return fmtRatioNumber(r) + u"×"_s;
}

QString fmtPercent(double fraction)
{
    return number(100.0 * fraction, 0) + u" %"_s;
}

QString fmtP(double p)
{
    if (p < 0.001)
        return u"< 0.001"_s;
    return QString::number(p, 'g', 2);
}

QString fmtInterval(const std::optional<Interval>& ci, const std::function<QString(double)>& f)
{
    if (!ci)
        return QString();
    return u" ["_s + f(ci->lo) + u" – "_s + f(ci->hi) + u"]"_s;
}

/// "0.21–0.27", or "—" without an interval.
QString fmtRange(const std::optional<Interval>& ci, const std::function<QString(double)>& f)
{
    return ci ? f(ci->lo) + u" – "_s + f(ci->hi) : u"—"_s;
}

QString plural(int n, const QString& one, const QString& many)
{
    return QString::number(n) + u' ' + (n == 1 ? one : many);
}

QString jsonText(const nlohmann::json& j)
{
    return QString::fromStdString(j.dump(2));
}

/// A string field of a JSON object, or `fallback`.
QString field(const nlohmann::json& j, const char* key, const QString& fallback)
{
    if (!j.is_object())
        return fallback;
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : fallback;
}

/// Long strings (a chat template, a system prompt) shortened so an appendix stays readable.
nlohmann::json shortened(const nlohmann::json& j, std::size_t limit)
{
    if (j.is_string()) {
        const std::string s = j.get<std::string>();
        if (s.size() <= limit)
            return j;
        const QString q = QString::fromStdString(s);
        const QString cut
            = q.left(int(limit)) + u"… ("_s + QString::number(q.size() - int(limit)) + u" more characters)"_s;
        return cut.toStdString();
    }
    if (j.is_object() || j.is_array()) {
        nlohmann::json out = j;
        for (auto it = out.begin(); it != out.end(); ++it)
            *it = shortened(*it, limit);
        return out;
    }
    return j;
}

} // namespace qs::report

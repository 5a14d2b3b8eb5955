// SPDX-License-Identifier: MIT
#include "model/evaluate/GateFailures.h"

namespace qs {

QString gateFailureKind(const nlohmann::json& detail)
{
    if (const auto c = detail.find("failure_class"); c != detail.end() && c->is_string() && !c->empty())
        return QString::fromStdString(c->get<std::string>());
    if (const auto r = detail.find("ranges"); r != detail.end() && r->is_array() && !r->empty()) {
        const nlohmann::json& first = r->front();
        if (first.is_object())
            if (const auto w = first.find("what"); w != first.end() && w->is_string())
                return QString::fromStdString(w->get<std::string>());
    }
    if (const auto r = detail.find("reason"); r != detail.end() && r->is_string())
        return QString::fromStdString(r->get<std::string>());
    return QStringLiteral("unknown");
}

GateFailures tallyGateFailures(const RunResult& result)
{
    GateFailures out;
    const int endpoints = int(result.endpoints.size());
    for (const RunRecord& r : result.records) {
        if (r.warmup || r.endpoint < 0 || r.endpoint >= endpoints || !r.gateDetails->is_object())
            continue;
        for (auto it = r.gateDetails->begin(); it != r.gateDetails->end(); ++it) {
            const nlohmann::json& detail = it.value();
            if (!detail.is_object())
                continue;
            const auto verdict = detail.find("verdict");
            if (verdict == detail.end() || !verdict->is_string()
                || verdict->get_ref<const std::string&>() != "fail")
                continue;
            const QString gate = QString::fromStdString(it.key());
            const QString kind = gateFailureKind(detail);
            for (const QString& test : {r.test, QString()}) {
                GateFailureTally& tally = out[GateFailureKey {r.endpoint, test, gate}];
                ++tally.failures;
                auto& [count, example] = tally.reasons[kind];
                if (count++ == 0) {
                    const auto reason = detail.find("reason");
                    if (reason != detail.end() && reason->is_string())
                        example = QString::fromStdString(reason->get<std::string>());
                }
            }
        }
    }
    return out;
}

} // namespace qs

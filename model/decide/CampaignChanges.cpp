// SPDX-License-Identifier: MIT
// What changed from one attempt of a campaign to the next, from what the results files hold.
#include "model/decide/Campaign.h"

#include <QCryptographicHash>
#include <map>

namespace qs {

QString probeFact(const RunEndpoint& e, const char* key)
{
    if (!e.probe.is_object())
        return QString();
    const auto it = e.probe.find(key);
    if (it == e.probe.end() || it->is_null())
        return QString();
    const QString text = it->is_string() ? QString::fromStdString(it->get<std::string>())
                                         : QString::fromStdString(it->dump());
    return text == u"unknown" ? QString() : text;
}

QString modelOf(const RunEndpoint& e)
{
    return e.endpoint.model.isEmpty() ? probeFact(e, "model") : e.endpoint.model;
}

QString runtimeOf(const RunEndpoint& e)
{
    return e.endpoint.runtime != Runtime::Unknown ? runtimeName(e.endpoint.runtime) : probeFact(e, "runtime");
}

namespace {

/// "scripted v2 (tests 3f9a1c02)": a suite's id, its version when it has one, and a digest of its
/// tests, so an edited suite that kept its id still shows as changed.
QString suiteText(const nlohmann::json& suite)
{
    if (!suite.is_object())
        return QString();
    QString text = QString::fromStdString(suite.value("id", std::string()));
    if (const auto v = suite.find("version"); v != suite.end() && !v->is_null())
        text += QStringLiteral(" v")
            + QString::fromStdString(v->is_string() ? v->get<std::string>() : v->dump());
    if (const auto t = suite.find("tests"); t != suite.end()) {
        const QByteArray digest
            = QCryptographicHash::hash(QByteArray::fromStdString(t->dump()), QCryptographicHash::Sha256)
                  .toHex();
        text += QStringLiteral(" (tests %1)").arg(QString::fromLatin1(digest.left(8)));
    }
    return text;
}

QString number(int value)
{
    return value < 0 ? QStringLiteral("the suite's") : QString::number(value);
}

} // namespace

std::vector<CampaignChange> attemptChanges(
    const RunResult& before, int beforeCandidate, const RunResult& after, int afterCandidate)
{
    std::vector<CampaignChange> changes;
    const auto add = [&](const QString& field, const QString& from, const QString& to) {
        if (from != to)
            changes.push_back({field, from, to});
    };
    const RunEndpoint& x = before.endpoints.at(std::size_t(beforeCandidate));
    const RunEndpoint& y = after.endpoints.at(std::size_t(afterCandidate));
    add(QStringLiteral("label"), x.endpoint.displayName(), y.endpoint.displayName());
    add(QStringLiteral("quantization"), x.endpoint.quantization, y.endpoint.quantization);
    add(QStringLiteral("model"), modelOf(x), modelOf(y));
    add(QStringLiteral("runtime"), runtimeOf(x), runtimeOf(y));
    for (const char* fact : {"server_version", "model_path", "context_size", "total_slots",
             "tool_call_parser", "reasoning_parser"})
        add(QString::fromLatin1(fact), probeFact(x, fact), probeFact(y, fact));
    add(QStringLiteral("request_body"),
        x.endpoint.extraBody.empty() ? QString() : QString::fromStdString(x.endpoint.extraBody.dump()),
        y.endpoint.extraBody.empty() ? QString() : QString::fromStdString(y.endpoint.extraBody.dump()));
    std::map<QString, std::pair<QString, QString>> meta;
    for (const auto& [k, v] : x.endpoint.meta)
        meta[k].first = v;
    for (const auto& [k, v] : y.endpoint.meta)
        meta[k].second = v;
    for (const auto& [k, v] : meta)
        add(QStringLiteral("meta.") + k, v.first, v.second);
    add(QStringLiteral("simulated"), x.simulated ? QStringLiteral("yes") : QString(),
        y.simulated ? QStringLiteral("yes") : QString());

    const RunSettings& s = before.settings;
    const RunSettings& t = after.settings;
    add(QStringLiteral("settings.warmup"), number(s.warmup), number(t.warmup));
    add(QStringLiteral("settings.runs"), number(s.runs), number(t.runs));
    add(QStringLiteral("settings.order"), runOrderId(s.order), runOrderId(t.order));
    add(QStringLiteral("settings.concurrency"), QString::number(s.concurrency),
        QString::number(t.concurrency));
    add(QStringLiteral("settings.max_tokens"),
        s.maxTokens ? QString::number(*s.maxTokens) : QStringLiteral("the suite's"),
        t.maxTokens ? QString::number(*t.maxTokens) : QStringLiteral("the suite's"));
    add(QStringLiteral("settings.seed"), QString::number(s.seed), QString::number(t.seed));
    const auto perCategory = [](int n) { return n == 0 ? QStringLiteral("every test") : QString::number(n); };
    add(QStringLiteral("settings.prompts_per_category"), perCategory(s.promptsPerCategory),
        perCategory(t.promptsPerCategory));
    add(QStringLiteral("until_decided"), before.untilDecided.is_null() ? QString() : QStringLiteral("yes"),
        after.untilDecided.is_null() ? QString() : QStringLiteral("yes"));
    add(QStringLiteral("suite"), suiteText(before.suite), suiteText(after.suite));
    add(QStringLiteral("tool_version"), before.toolVersion, after.toolVersion);
    add(QStringLiteral("host"), before.host, after.host);
    return changes;
}

} // namespace qs

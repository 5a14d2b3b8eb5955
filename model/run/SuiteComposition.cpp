// SPDX-License-Identifier: MIT
#include "model/run/SuiteComposition.h"

#include "model/run/RunPlan.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <algorithm>
#include <random>

namespace qs {

namespace {

// What makes two tests the same prompt: what the user says (a thinking pair differs only in the
// thinking switch, and is one prompt asked two ways).
QString promptKey(const SuiteTest& test)
{
    if (test.messages.is_array())
        return QString::fromStdString(test.messages.dump());
    if (test.promptTokens)
        return test.id; // a synthetic prompt is new every iteration; each test is its own
    return test.turns.join(QChar(0x1F));
}

CategoryComposition& categoryOf(SuiteComposition& c, const QString& category)
{
    for (CategoryComposition& k : c.categories)
        if (k.category == category)
            return k;
    c.categories.push_back({});
    c.categories.back().category = category;
    return c.categories.back();
}

} // namespace

SuiteComposition suiteComposition(const Suite& suite, const RunSettings& settings)
{
    SuiteComposition c;
    c.prefixCache = suite.prefixCache;
    int levelSum = 1;
    if (!suite.defaults.concurrency.empty()) {
        levelSum = 0;
        for (int level : suite.defaults.concurrency)
            levelSum += level;
        c.concurrencyLevels = int(suite.defaults.concurrency.size());
    }
    QHash<QString, QSet<QString>> seen; // category → prompt keys counted
    for (const SuiteTest& test : suite.tests) {
        CategoryComposition& k = categoryOf(c, test.category);
        const int repeats = runCount(suite, test, settings);
        const int warmups = warmupCount(suite, test, settings);
        k.requestsPerRepeat += test.turnCount();
        k.warmups += warmups;
        k.minRepeats = k.prompts == 0 && k.maxRepeats == 0 ? repeats : std::min(k.minRepeats, repeats);
        k.maxRepeats = std::max(k.maxRepeats, repeats);
        c.requestsPerEndpoint += warmups + repeats * levelSum * test.turnCount();
        QSet<QString>& keys = seen[test.category];
        const QString key = promptKey(test);
        if (keys.contains(key))
            continue;
        keys.insert(key);
        ++k.prompts;
        ++c.prompts;
        if (test.turnCount() > 1)
            ++k.conversations;
    }
    return c;
}

QString compositionText(const SuiteComposition& c)
{
    QStringList parts;
    int minRepeats = 0;
    int maxRepeats = 0;
    int warmups = 0;
    for (const CategoryComposition& k : c.categories) {
        const QString name = k.category.isEmpty() ? QStringLiteral("uncategorised") : k.category;
        parts << QStringLiteral("%1 %2").arg(name).arg(k.prompts);
        minRepeats = minRepeats == 0 ? k.minRepeats : std::min(minRepeats, k.minRepeats);
        maxRepeats = std::max(maxRepeats, k.maxRepeats);
        warmups += k.warmups;
    }
    const QString repeats = minRepeats == maxRepeats
        ? QString::number(maxRepeats)
        : QStringLiteral("%1 to %2").arg(minRepeats).arg(maxRepeats);
    QString text
        = QStringLiteral("%1 distinct prompt%2 (%3); %4 timing repeat%5 per prompt (repeats steady the "
                         "clock, they are not more evidence)")
              .arg(c.prompts)
              .arg(c.prompts == 1 ? QString() : QStringLiteral("s"))
              .arg(parts.join(QStringLiteral(", ")))
              .arg(repeats)
              .arg(maxRepeats == 1 ? QString() : QStringLiteral("s"));
    if (c.concurrencyLevels > 1)
        text += QStringLiteral(" at each of %1 concurrency levels").arg(c.concurrencyLevels);
    text += QStringLiteral("; %1 warm-up request%2 and %3 requests in all per endpoint")
                .arg(warmups)
                .arg(warmups == 1 ? QString() : QStringLiteral("s"))
                .arg(c.requestsPerEndpoint);
    switch (c.prefixCache) {
    case PrefixCacheMode::Warm:
        text += QStringLiteral("; prefix cache warm (production's pattern: the system prompt is cached, each "
                               "user turn is new)");
        break;
    case PrefixCacheMode::Cold:
        text += QStringLiteral("; prefix cache cold (every prompt salted: the whole prefill is measured)");
        break;
    case PrefixCacheMode::Unstated:
        text += QStringLiteral("; the suite does not say what it measures of the prefix cache");
        break;
    }
    return text + u'.';
}

nlohmann::json toJson(const SuiteComposition& c)
{
    nlohmann::json categories = nlohmann::json::array();
    for (const CategoryComposition& k : c.categories)
        categories.push_back({{"category", k.category.toStdString()}, {"prompts", k.prompts},
            {"conversations", k.conversations}, {"requests_per_repeat", k.requestsPerRepeat},
            {"repeats", {k.minRepeats, k.maxRepeats}}, {"warmups", k.warmups}});
    const QString cache = prefixCacheId(c.prefixCache);
    return {{"prompts", c.prompts}, {"requests_per_endpoint", c.requestsPerEndpoint},
        {"concurrency_levels", c.concurrencyLevels},
        {"prefix_cache", cache.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(cache.toStdString())},
        {"categories", categories}};
}

Suite drawPrompts(const Suite& suite, int perCategory, quint64 seed)
{
    if (perCategory <= 0)
        return suite;
    // Group the tests by category and prompt, in the suite's order.
    QStringList categories; // in the suite's order: the draw must not depend on hash order
    QHash<QString, QStringList> groupsOf; // category → prompt keys, first seen first
    QHash<QString, QString> keyOf; // test id → prompt key
    for (const SuiteTest& test : suite.tests) {
        const QString key = promptKey(test);
        keyOf.insert(test.id, key);
        if (!categories.contains(test.category))
            categories << test.category;
        QStringList& keys = groupsOf[test.category];
        if (!keys.contains(key))
            keys << key;
    }
    QSet<QString> chosen; // "category\x1fkey"
    std::mt19937_64 rng(seed);
    for (const QString& category : categories) {
        QStringList keys = groupsOf.value(category);
        std::shuffle(keys.begin(), keys.end(), rng);
        for (qsizetype i = 0; i < std::min<qsizetype>(perCategory, keys.size()); ++i)
            chosen.insert(category + QChar(0x1F) + keys[i]);
    }
    Suite drawn = suite;
    drawn.tests.clear();
    nlohmann::json rawTests = nlohmann::json::array();
    const bool rawParallel = suite.raw.is_object() && suite.raw.contains("tests")
        && suite.raw["tests"].is_array() && suite.raw["tests"].size() == suite.tests.size();
    for (std::size_t i = 0; i < suite.tests.size(); ++i) {
        const SuiteTest& test = suite.tests[i];
        if (!chosen.contains(test.category + QChar(0x1F) + keyOf.value(test.id)))
            continue;
        drawn.tests.push_back(test);
        if (rawParallel)
            rawTests.push_back(suite.raw["tests"][i]);
    }
    if (rawParallel)
        drawn.raw["tests"] = rawTests;
    return drawn;
}

} // namespace qs

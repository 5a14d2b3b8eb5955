// SPDX-License-Identifier: MIT
#include "model/core/SuiteReading.h"

#include <QHash>

namespace qs::suite_parse {

using json = nlohmann::json;
using namespace json_text;

namespace {

QString normalizedPrompt(const QString& text)
{
    return text.simplified().toCaseFolded();
}

} // namespace

QStringList parseWarmupPrompts(
    const DocumentContext& ctx, const json& suite, const std::vector<SuiteTest>& tests)
{
    QHash<QString, QString> measured; // normalised prompt -> where it is used
    for (std::size_t i = 0; i < tests.size(); ++i)
        for (qsizetype k = 0; k < tests[i].turns.size(); ++k)
            measured.insert(normalizedPrompt(tests[i].turns[k]),
                QStringLiteral("tests[%1] (%2)").arg(i).arg(tests[i].id));

    const json* v = member(suite, "warmup_prompts");
    if (!v) {
        QStringList prompts;
        for (const QString& p : builtinWarmupPrompts())
            if (!measured.contains(normalizedPrompt(p)))
                prompts << p;
        return prompts;
    }
    const QString path = QStringLiteral("warmup_prompts");
    const QStringList prompts = stringList(ctx, *v, path, false);
    for (qsizetype i = 0; i < prompts.size(); ++i)
        if (const auto it = measured.constFind(normalizedPrompt(prompts[i])); it != measured.cend())
            ctx.fail(indexPath(path, std::size_t(i)),
                QStringLiteral("is also a measured prompt of ") + *it
                    + QStringLiteral("; warm-up prompts must differ from measured ones, or the warm-up puts "
                                     "them in the server's prefix cache"));
    return prompts;
}

} // namespace qs::suite_parse

namespace qs {

// Short, neutral and unlike any measured prompt, so a warm-up never seeds the prefix cache with
// the text a measured request is about to send.
const QStringList& builtinWarmupPrompts()
{
    static const QStringList prompts = {
        QStringLiteral("Say good morning in one short sentence."),
        QStringLiteral("Name a colour you might see in a sunset."),
        QStringLiteral("Give me one word that rhymes with light."),
        QStringLiteral("What sound does a cat make?"),
        QStringLiteral("Suggest a name for a goldfish."),
        QStringLiteral("Reply with a short friendly hello."),
        QStringLiteral("Name one fruit that is yellow."),
        QStringLiteral("Tell me a calm word for the evening."),
        QStringLiteral("Which season comes after spring?"),
        QStringLiteral("Say thank you in a cheerful way."),
    };
    return prompts;
}

} // namespace qs

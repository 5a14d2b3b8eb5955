// SPDX-License-Identifier: MIT
#include "model/core/Rubric.h"

#include "model/core/JsonText.h"

namespace qs {

namespace {

using json = nlohmann::json;
using namespace json_text;

// A rubric is a page of criteria; anything near this size is not one.
constexpr qint64 maxRubricFileBytes = 1024 * 1024;
constexpr int maxNestingDepth = 32;

DocumentContext rubricContext(const QString& source)
{
    return {source, [](const QString& message) { throw RubricError(message.toStdString()); }};
}

const std::vector<std::string_view> rubricKeys = {"id", "name", "description", "instructions", "criteria"};
const std::vector<std::string_view> criterionKeys = {"id", "title", "description", "anchors", "tests"};

// Keys of a criterion written at the top level, or the other way round, say where they belong.
QString misplacedHint(std::string_view key)
{
    if (key == "title" || key == "anchors" || key == "tests")
        return QStringLiteral("it belongs in a criterion, inside \"criteria\"");
    if (key == "instructions" || key == "criteria" || key == "name")
        return QStringLiteral("it belongs at the top level of the rubric");
    return QString();
}

// {"1": "…", "3": "…", "5": "…"}: what a score means, for any of 1..5.
std::map<int, QString> parseAnchors(const DocumentContext& ctx, const json& v, const QString& path)
{
    if (!v.is_object())
        ctx.fail(path,
            QStringLiteral("must be an object like {\"1\": \"…\", \"3\": \"…\", \"5\": \"…\"}, found ")
                + describe(v));
    if (v.empty())
        ctx.fail(path, QStringLiteral("is empty; say what 1, 3 and 5 mean, or leave \"anchors\" out"));
    std::map<int, QString> anchors;
    for (const auto& item : v.items()) {
        const std::string& key = item.key();
        const QString at = keyPath(path, key);
        if (key.size() != 1 || key[0] < '1' || key[0] > '5')
            ctx.fail(at, QStringLiteral("unknown score; anchors are keyed \"1\" to \"5\""));
        anchors[key[0] - '0'] = stringValue(ctx, item.value(), at, false);
    }
    return anchors;
}

QStringList parseTestIds(const DocumentContext& ctx, const json& v, const QString& path)
{
    const QStringList tests = stringList(ctx, v, path, false);
    for (qsizetype i = 0; i < tests.size(); ++i) {
        const QString at = indexPath(path, std::size_t(i));
        identifierValue(ctx, v[std::size_t(i)], at);
        if (tests.indexOf(tests[i]) < i)
            ctx.fail(at, quote(tests[i]) + QStringLiteral(" is listed twice"));
    }
    return tests;
}

RubricCriterion parseCriterion(const DocumentContext& ctx, const json& c, const QString& path)
{
    if (!c.is_object())
        ctx.fail(path,
            QStringLiteral("must be an object like {\"id\": \"correct\", \"description\": \"…\"}, found ")
                + describe(c));
    checkKeys(ctx, c, path, criterionKeys, misplacedHint);
    RubricCriterion out;
    out.id = identifier(ctx, c, path);
    out.title = optionalString(ctx, c, "title", path, false).value_or(out.id);
    const json* description = member(c, "description");
    if (!description)
        ctx.fail(path, QStringLiteral("\"description\" is missing; say what the judge should look for"));
    out.description = stringValue(ctx, *description, keyPath(path, "description"), false);
    if (const json* anchors = member(c, "anchors"))
        out.anchors = parseAnchors(ctx, *anchors, keyPath(path, "anchors"));
    if (const json* tests = member(c, "tests"))
        out.tests = parseTestIds(ctx, *tests, keyPath(path, "tests"));
    return out;
}

json parseRubricDocument(const QByteArray& data, const QString& source)
{
    return parseDocument(rubricContext(source), data, maxNestingDepth,
        QStringLiteral("the file is empty; a rubric is a JSON object with \"id\" and \"criteria\""));
}

const QStringList& builtinNames()
{
    static const QStringList names = {QStringLiteral("voice-assistant"), QStringLiteral("general")};
    return names;
}

} // namespace

std::vector<const RubricCriterion*> Rubric::criteriaFor(const QString& test) const
{
    std::vector<const RubricCriterion*> out;
    for (const RubricCriterion& c : criteria)
        if (c.appliesTo(test))
            out.push_back(&c);
    return out;
}

const RubricCriterion* Rubric::criterion(const QString& criterionId) const
{
    for (const RubricCriterion& c : criteria)
        if (c.id == criterionId)
            return &c;
    return nullptr;
}

Rubric parseRubric(const nlohmann::json& root, const QString& sourceName)
{
    const DocumentContext ctx = rubricContext(sourceName);
    if (!root.is_object())
        ctx.fail(QString(),
            QStringLiteral("a rubric must be a JSON object with \"id\" and \"criteria\", found ")
                + describe(root));
    checkEncodable(ctx, root); // stored in results files
    checkKeys(ctx, root, QString(), rubricKeys, misplacedHint);

    Rubric r;
    r.id = identifier(ctx, root, QString());
    r.name = optionalString(ctx, root, "name", QString(), false).value_or(r.id);
    r.description = optionalString(ctx, root, "description", QString(), true).value_or(QString());
    r.instructions = optionalString(ctx, root, "instructions", QString(), true).value_or(QString());

    const json* criteria = member(root, "criteria");
    if (!criteria)
        ctx.fail(QString(),
            QStringLiteral("\"criteria\" is missing; give a list like [{\"id\": \"correct\", "
                           "\"description\": \"…\"}]"));
    const QString path = QStringLiteral("criteria");
    if (!criteria->is_array())
        ctx.fail(path, QStringLiteral("must be a list of criteria, found ") + describe(*criteria));
    if (criteria->empty())
        ctx.fail(path, QStringLiteral("is empty; a rubric needs at least one criterion"));
    for (std::size_t i = 0; i < criteria->size(); ++i) {
        const QString at = indexPath(path, i);
        RubricCriterion c = parseCriterion(ctx, (*criteria)[i], at);
        if (const RubricCriterion* same = r.criterion(c.id))
            ctx.fail(keyPath(at, "id"),
                quote(c.id)
                    + QStringLiteral(" is already the id of criteria[%1]; criterion ids must be unique")
                          .arg(same - r.criteria.data()));
        r.criteria.push_back(std::move(c));
    }
    r.source = sourceName;
    r.raw = root;
    return r;
}

Rubric loadRubricFile(const QString& path)
{
    const QByteArray data
        = readFileLimited(rubricContext(path), path, maxRubricFileBytes, QStringLiteral("rubric"));
    return parseRubric(parseRubricDocument(data, path), path);
}

QStringList builtinRubricNames()
{
    return builtinNames();
}

Rubric loadBuiltinRubric(const QString& name)
{
    const QString source = QStringLiteral("builtin:") + name;
    const QByteArray data = readBuiltin(rubricContext(source), QStringLiteral("judges"), name, builtinNames(),
        QStringLiteral("rubric"), QStringLiteral(" (or give the path of a rubric file)"));
    return parseRubric(parseRubricDocument(data, source), source);
}

Rubric loadRubric(const QString& nameOrPath)
{
    // A bare word that is neither a file nor a built-in was most likely a mistyped rubric name:
    // loading it throws with the list of built-in names.
    if (const auto name = builtinNameOf(nameOrPath, builtinNames()))
        return loadBuiltinRubric(*name);
    return loadRubricFile(nameOrPath);
}

} // namespace qs

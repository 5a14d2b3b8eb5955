// SPDX-License-Identifier: MIT
// Judge rubrics (model/core/Rubric): the built-ins load, and a malformed rubric is refused like a
// suite, with "SOURCE: PATH: PROBLEM" naming the right place and the closest key for a typo.
#include "SuiteTestSupport.h"
#include "model/core/Rubric.h"

#include <QFile>
#include <QTemporaryDir>

using namespace qs;
using namespace qs::test;

namespace {

std::string rubricErrorOf(const nlohmann::json& json, const QString& source = QStringLiteral("bad.json"))
{
    try {
        parseRubric(json, source);
    } catch (const RubricError& e) {
        return e.what();
    }
    ADD_FAILURE() << "the rubric was accepted: " << json.dump();
    return {};
}

template <typename Load> std::string rubricLoadError(Load&& load)
{
    try {
        load();
    } catch (const RubricError& e) {
        return e.what();
    }
    ADD_FAILURE() << "the rubric was accepted";
    return {};
}

struct BadRubric {
    const char* name;
    const char* json;
    const char* message; ///< the whole message after "bad.json: "
};

void PrintTo(const BadRubric& b, std::ostream* os)
{
    *os << b.name;
}

#define CRIT R"({"id": "c", "description": "d"})"

const BadRubric badRubrics[] = {
    {"TopLevelList", R"([1])",
        "top level: a rubric must be a JSON object with \"id\" and \"criteria\", found a list"},
    {"MissingId", R"({"criteria": [)" CRIT R"(]})",
        "top level: \"id\" is missing; give a short name made of letters, digits, '.', '_', '-'"},
    {"IdWithSpace", R"({"id": "my rubric", "criteria": [)" CRIT R"(]})",
        "id: \"my rubric\" is not a valid id; use 1 to 128 letters, digits, '.', '_' or '-' (no spaces)"},
    {"TopLevelTypo", R"({"id": "r", "instructons": "x", "criteria": [)" CRIT R"(]})",
        "instructons: unknown key; did you mean \"instructions\"?"},
    {"TopLevelMisplacedAnchors", R"({"id": "r", "anchors": {}, "criteria": [)" CRIT R"(]})",
        "anchors: unknown key here; it belongs in a criterion, inside \"criteria\""},
    {"TopLevelUnknown", R"({"id": "r", "zzzzzzzzzz": 1, "criteria": [)" CRIT R"(]})",
        "zzzzzzzzzz: unknown key; expected one of: id, name, description, instructions, criteria"},
    {"InstructionsNumber", R"({"id": "r", "instructions": 3, "criteria": [)" CRIT R"(]})",
        "instructions: must be a string, found a number (3)"},
    {"MissingCriteria", R"({"id": "r"})",
        "top level: \"criteria\" is missing; give a list like [{\"id\": \"correct\", \"description\": "
        "\"…\"}]"},
    {"CriteriaObject", R"({"id": "r", "criteria": {}})",
        "criteria: must be a list of criteria, found an object"},
    {"CriteriaEmpty", R"({"id": "r", "criteria": []})",
        "criteria: is empty; a rubric needs at least one criterion"},
    {"CriterionString", R"({"id": "r", "criteria": ["correct"]})",
        "criteria[0]: must be an object like {\"id\": \"correct\", \"description\": \"…\"}, found a string "
        "(\"correct\")"},
    {"CriterionMissingId", R"({"id": "r", "criteria": [{"description": "d"}]})",
        "criteria[0]: \"id\" is missing; give a short name made of letters, digits, '.', '_', '-'"},
    {"CriterionBadId", R"({"id": "r", "criteria": [{"id": "warm personal", "description": "d"}]})",
        "criteria[0].id: \"warm personal\" is not a valid id; use 1 to 128 letters, digits, '.', '_' or '-' "
        "(no spaces)"},
    {"CriterionDuplicateId",
        R"({"id": "r", "criteria": [)" CRIT R"(, {"id": "x", "description": "d"}, )" CRIT R"(]})",
        "criteria[2].id: \"c\" is already the id of criteria[0]; criterion ids must be unique"},
    {"CriterionTypo", R"({"id": "r", "criteria": [{"id": "c", "descripton": "d"}]})",
        "criteria[0].descripton: unknown key; did you mean \"description\"?"},
    {"CriterionMisplacedInstructions",
        R"({"id": "r", "criteria": [{"id": "c", "description": "d", "instructions": "x"}]})",
        "criteria[0].instructions: unknown key here; it belongs at the top level of the rubric"},
    {"CriterionMissingDescription", R"({"id": "r", "criteria": [{"id": "c"}]})",
        "criteria[0]: \"description\" is missing; say what the judge should look for"},
    {"CriterionEmptyDescription", R"({"id": "r", "criteria": [{"id": "c", "description": " "}]})",
        "criteria[0].description: must not be empty"},
    {"CriterionTitleEmpty", R"({"id": "r", "criteria": [{"id": "c", "title": "", "description": "d"}]})",
        "criteria[0].title: must not be empty"},
    {"AnchorsList", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchors": ["a"]}]})",
        "criteria[0].anchors: must be an object like {\"1\": \"…\", \"3\": \"…\", \"5\": \"…\"}, found a "
        "list"},
    {"AnchorsEmpty", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchors": {}}]})",
        "criteria[0].anchors: is empty; say what 1, 3 and 5 mean, or leave \"anchors\" out"},
    {"AnchorSix", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchors": {"6": "x"}}]})",
        "criteria[0].anchors.6: unknown score; anchors are keyed \"1\" to \"5\""},
    {"AnchorZero", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchors": {"0": "x"}}]})",
        "criteria[0].anchors.0: unknown score; anchors are keyed \"1\" to \"5\""},
    {"AnchorWord", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchors": {"one": "x"}}]})",
        "criteria[0].anchors.one: unknown score; anchors are keyed \"1\" to \"5\""},
    {"AnchorNumberValue",
        R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchors": {"1": "x", "5": 5}}]})",
        "criteria[0].anchors.5: must be a string, found a number (5)"},
    {"TestsString", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "tests": "greeting"}]})",
        "criteria[0].tests: must be a list of strings, found a string (\"greeting\")"},
    {"TestsEmpty", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "tests": []}]})",
        "criteria[0].tests: must not be an empty list"},
    {"TestsNumber", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "tests": ["a", 2]}]})",
        "criteria[0].tests[1]: must be a string, found a number (2)"},
    {"TestsBadId", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "tests": ["a b"]}]})",
        "criteria[0].tests[0]: \"a b\" is not a valid id; use 1 to 128 letters, digits, '.', '_' or '-' (no "
        "spaces)"},
    {"TestsTwice", R"({"id": "r", "criteria": [{"id": "c", "description": "d", "tests": ["a", "b", "a"]}]})",
        "criteria[0].tests[2]: \"a\" is listed twice"},
};

class RubricErrors : public ::testing::TestWithParam<BadRubric> { };

TEST_P(RubricErrors, NamesThePathAndTheProblem)
{
    const BadRubric& b = GetParam();
    nlohmann::json json;
    ASSERT_NO_THROW(json = nlohmann::json::parse(b.json)) << "fixture is not JSON: " << b.json;
    EXPECT_EQ(rubricErrorOf(json), std::string("bad.json: ") + b.message);
}

INSTANTIATE_TEST_SUITE_P(Malformed, RubricErrors, ::testing::ValuesIn(badRubrics),
    [](const ::testing::TestParamInfo<BadRubric>& p) { return std::string(p.param.name); });

// "PATH: PROBLEM" for a file's error.
std::string fileMessage(const QString& path, const char* problem)
{
    return path.toStdString() + ": " + problem;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& data)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(data);
    return path;
}

} // namespace

TEST(Rubrics, AValidRubricReadsEveryField)
{
    const Rubric r = parseRubric(parseJson(R"({"id": "r", "name": "Mine", "description": "about",
        "instructions": "Spoken aloud.", "criteria": [
            {"id": "warm", "title": "Warm", "description": "is it warm",
             "anchors": {"1": "cold", "3": "polite", "5": "warm"}, "tests": ["greeting", "smalltalk"]},
            {"id": "correct", "description": "is it right"}]})"),
        QStringLiteral("mine.json"));
    EXPECT_EQ(r.id, QStringLiteral("r"));
    EXPECT_EQ(r.name, QStringLiteral("Mine"));
    EXPECT_EQ(r.description, QStringLiteral("about"));
    EXPECT_EQ(r.instructions, QStringLiteral("Spoken aloud."));
    EXPECT_EQ(r.source, QStringLiteral("mine.json"));
    EXPECT_EQ(r.raw["criteria"].size(), 2u);
    ASSERT_EQ(r.criteria.size(), 2u);
    const RubricCriterion& warm = r.criteria[0];
    EXPECT_EQ(warm.title, QStringLiteral("Warm"));
    EXPECT_EQ(warm.description, QStringLiteral("is it warm"));
    EXPECT_EQ(warm.anchors,
        (std::map<int, QString> {
            {1, QStringLiteral("cold")}, {3, QStringLiteral("polite")}, {5, QStringLiteral("warm")}}));
    EXPECT_EQ(warm.tests, (QStringList {QStringLiteral("greeting"), QStringLiteral("smalltalk")}));
    EXPECT_EQ(r.criteria[1].title, QStringLiteral("correct")) << "the title defaults to the id";
    EXPECT_TRUE(r.criteria[1].anchors.empty());

    // criteriaFor: rubric order, a criterion with tests only for those tests.
    const auto forGreeting = r.criteriaFor(QStringLiteral("greeting"));
    ASSERT_EQ(forGreeting.size(), 2u);
    EXPECT_EQ(forGreeting[0]->id, QStringLiteral("warm"));
    EXPECT_EQ(forGreeting[1]->id, QStringLiteral("correct"));
    const auto forMath = r.criteriaFor(QStringLiteral("math"));
    ASSERT_EQ(forMath.size(), 1u);
    EXPECT_EQ(forMath[0]->id, QStringLiteral("correct"));
    EXPECT_EQ(r.criterion(QStringLiteral("correct")), &r.criteria[1]);
    EXPECT_EQ(r.criterion(QStringLiteral("nope")), nullptr);
}

TEST(Rubrics, InvalidUtf8IsRefused)
{
    nlohmann::json j = parseJson(R"({"id": "r", "criteria": [{"id": "c", "description": "d"}]})");
    j["criteria"][0]["description"] = std::string("bad \xff text");
    EXPECT_EQ(rubricErrorOf(j).rfind("bad.json: top level: cannot be stored as JSON", 0), 0u);
}

TEST(BuiltinRubrics, EveryOneLoads)
{
    EXPECT_EQ(
        builtinRubricNames(), (QStringList {QStringLiteral("voice-assistant"), QStringLiteral("general")}));
    for (const QString& name : builtinRubricNames()) {
        Rubric r;
        ASSERT_NO_THROW(r = loadBuiltinRubric(name)) << name.toStdString();
        EXPECT_EQ(r.id, name);
        EXPECT_EQ(r.source, QStringLiteral("builtin:") + name);
        EXPECT_FALSE(r.instructions.isEmpty());
        for (const RubricCriterion& c : r.criteria) {
            EXPECT_NE(c.title, c.id) << "built-in criteria have a title: " << c.id.toStdString();
            EXPECT_EQ(c.anchors.size(), 3u) << c.id.toStdString();
            EXPECT_TRUE(c.anchors.count(1) && c.anchors.count(3) && c.anchors.count(5)) << c.id.toStdString();
        }
        EXPECT_EQ(loadRubric(name).raw, r.raw) << "a bare name loads the built-in";
        EXPECT_EQ(loadRubric(QStringLiteral("builtin:") + name).raw, r.raw);
    }
}

TEST(BuiltinRubrics, VoiceAssistantCoversTheIssue)
{
    const Rubric r = loadBuiltinRubric(QStringLiteral("voice-assistant"));
    QStringList ids;
    for (const RubricCriterion& c : r.criteria)
        ids << c.id;
    EXPECT_EQ(ids,
        (QStringList {QStringLiteral("answers_question"), QStringLiteral("correct"),
            QStringLiteral("warm_personal"), QStringLiteral("spoken_length"), QStringLiteral("persona")}));
    EXPECT_TRUE(r.instructions.contains(QStringLiteral("spoken aloud")));
    EXPECT_TRUE(
        r.criterion(QStringLiteral("warm_personal"))->description.contains(QStringLiteral("generic")));
    EXPECT_TRUE(
        r.criterion(QStringLiteral("spoken_length"))->description.contains(QStringLiteral("markdown")));
    const Rubric general = loadBuiltinRubric(QStringLiteral("general"));
    EXPECT_EQ(general.criteria.size(), 3u);
}

TEST(BuiltinRubrics, AMistypedNameSuggestsTheClosest)
{
    EXPECT_EQ(rubricLoadError([] { loadRubric(QStringLiteral("voice-assistent")); }),
        "no built-in rubric named \"voice-assistent\"; did you mean \"voice-assistant\"? the built-in "
        "rubrics "
        "are: voice-assistant, general (or give the path of a rubric file)");
    EXPECT_EQ(rubricLoadError([] { loadBuiltinRubric(QStringLiteral("zzz")); }),
        "no built-in rubric named \"zzz\"; the built-in rubrics are: voice-assistant, general (or give the "
        "path "
        "of a rubric file)");
}

TEST(RubricFiles, LoadsAFileAndRefusesBadOnes)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString good = writeFile(
        dir, QStringLiteral("mine.json"), R"({"id": "mine", "criteria": [{"id": "c", "description": "d"}]})");
    const Rubric r = loadRubric(good);
    EXPECT_EQ(r.id, QStringLiteral("mine"));
    EXPECT_EQ(r.source, good);

    const QString missing = dir.filePath(QStringLiteral("none.json"));
    EXPECT_EQ(rubricLoadError([&] { loadRubricFile(missing); }),
        fileMessage(missing, "cannot read the rubric: no such file"));
    EXPECT_EQ(rubricLoadError([&] { loadRubricFile(dir.path()); }),
        fileMessage(dir.path(), "cannot read the rubric: it is a directory"));

    const QString empty = writeFile(dir, QStringLiteral("empty.json"), "  \n");
    EXPECT_EQ(rubricLoadError([&] { loadRubric(empty); }),
        fileMessage(empty, "the file is empty; a rubric is a JSON object with \"id\" and \"criteria\""));

    const QString broken
        = writeFile(dir, QStringLiteral("broken.json"), "{\"id\": \"r\",\n  \"criteria\": [}");
    EXPECT_EQ(
        rubricLoadError([&] { loadRubric(broken); }).rfind(fileMessage(broken, "line 2, column "), 0), 0u);

    const QString twice = writeFile(dir, QStringLiteral("twice.json"),
        R"({"id": "r", "criteria": [{"id": "c", "description": "d", "description": "e"}]})");
    EXPECT_EQ(rubricLoadError([&] { loadRubric(twice); }),
        fileMessage(twice,
            "criteria[0].description: key given twice in the same object (JSON would keep only "
            "the last one)"));

    const QString typo = writeFile(dir, QStringLiteral("typo.json"),
        R"({"id": "r", "criteria": [{"id": "c", "description": "d", "anchor": {"1": "x"}}]})");
    EXPECT_EQ(rubricLoadError([&] { loadRubric(typo); }),
        fileMessage(typo, "criteria[0].anchor: unknown key; did you mean \"anchors\"?"));

    const QString big = writeFile(dir, QStringLiteral("big.json"), QByteArray(1024 * 1024 + 10, ' '));
    EXPECT_EQ(rubricLoadError([&] { loadRubric(big); }),
        fileMessage(big, "the file is 1.0 MiB; rubric files are limited to 1 MiB"));
}

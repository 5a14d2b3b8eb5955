// SPDX-License-Identifier: MIT
// Suite files: unreadable, not JSON (with line and column), hostile sizes and shapes.
#include "SuiteTestSupport.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <chrono>
#include <random>

using namespace qs;
using namespace qs::test;

namespace {

class SuiteFiles : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(m_dir.isValid()); }

    QString write(const QString& name, const QByteArray& data)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        EXPECT_EQ(f.write(data), data.size());
        return path;
    }

    std::string fileError(const QString& path)
    {
        return loadError([&] { loadSuiteFile(path); });
    }

    QTemporaryDir m_dir;
};

const QByteArray validSuite = QByteArrayLiteral(R"({
  "id": "file-suite",
  "tests": [{"id": "a", "prompt": "Hello?"}]
})");

} // namespace

TEST_F(SuiteFiles, LoadsAValidFile)
{
    const QString path = write(QStringLiteral("ok.json"), validSuite);
    const Suite s = loadSuiteFile(path);
    EXPECT_EQ(s.id, QStringLiteral("file-suite"));
    EXPECT_EQ(s.source, path);
    EXPECT_EQ(s.raw, nlohmann::json::parse(validSuite.constData()));
}

TEST_F(SuiteFiles, LoadsAFileWithAByteOrderMark)
{
    const QString path = write(QStringLiteral("bom.json"), QByteArrayLiteral("\xEF\xBB\xBF") + validSuite);
    EXPECT_EQ(loadSuiteFile(path).id, QStringLiteral("file-suite"));
}

TEST_F(SuiteFiles, MissingFile)
{
    const QString path = m_dir.filePath(QStringLiteral("nope.json"));
    EXPECT_EQ(fileError(path), path.toStdString() + ": cannot read the suite: no such file");
}

TEST_F(SuiteFiles, Directory)
{
    EXPECT_NE(fileError(m_dir.path()).find("it is a directory"), std::string::npos);
}

TEST_F(SuiteFiles, UnreadableFile)
{
    const QString path = write(QStringLiteral("locked.json"), validSuite);
    QFile::setPermissions(path, QFileDevice::Permissions());
    QFile probe(path);
    if (probe.open(QIODevice::ReadOnly))
        GTEST_SKIP() << "running with privileges that ignore file permissions";
    EXPECT_NE(fileError(path).find(": cannot read the suite: "), std::string::npos);
}

TEST_F(SuiteFiles, EmptyFile)
{
    const QString path = write(QStringLiteral("empty.json"), QByteArray("  \n"));
    EXPECT_EQ(fileError(path), path.toStdString() + ": the file is empty; a suite is a JSON object");
}

TEST_F(SuiteFiles, TruncatedFileReportsLineAndColumn)
{
    // Cut after `"tests": [` on line 3 (12 characters): the end of input is at column 13.
    const QByteArray text = "{\n  \"id\": \"x\",\n  \"tests\": [";
    const QString path = write(QStringLiteral("truncated.json"), text);
    const std::string message = fileError(path);
    const std::string expected = path.toStdString() + ": line 3, column 13: not valid JSON: ";
    EXPECT_EQ(message.rfind(expected, 0), 0u) << message;
    EXPECT_NE(message.find("unexpected end of input"), std::string::npos) << message;
}

TEST_F(SuiteFiles, TruncatedBuiltinShapedFile)
{
    QFile builtin(QStringLiteral(":/suites/voice-assistant.json"));
    ASSERT_TRUE(builtin.open(QIODevice::ReadOnly));
    const QByteArray full = builtin.readAll();
    const QByteArray cut = full.left(full.size() / 2);
    const QString path = write(QStringLiteral("half.json"), cut);
    const std::string message = fileError(path);
    const int lines = int(cut.count('\n')) + 1;
    const int column = int(cut.size() - cut.lastIndexOf('\n'));
    const std::string expected = path.toStdString()
        + QStringLiteral(": line %1, column %2: not valid JSON").arg(lines).arg(column).toStdString();
    EXPECT_EQ(message.rfind(expected, 0), 0u) << message;
}

TEST_F(SuiteFiles, SyntaxErrorReportsLineAndColumn)
{
    // The missing ':' is noticed at the '[' in column 11 of line 3.
    const QString path
        = write(QStringLiteral("syntax.json"), QByteArray("{\n  \"id\": \"x\",\n  \"tests\" [\n"));
    const std::string message = fileError(path);
    EXPECT_EQ(message.rfind(path.toStdString() + ": line 3, column 11: not valid JSON: ", 0), 0u) << message;
}

TEST_F(SuiteFiles, ColumnsCountCharactersNotBytes)
{
    // "é" is two bytes; the stray x is the 13th character of the line.
    const QString path = write(QStringLiteral("utf8.json"), QByteArray("{\"id\": \"\xC3\xA9\", x}"));
    const std::string message = fileError(path);
    EXPECT_EQ(message.rfind(path.toStdString() + ": line 1, column 13: ", 0), 0u) << message;
}

TEST_F(SuiteFiles, NotJsonAtAll)
{
    const QString path = write(QStringLiteral("yaml.json"), QByteArray("id: my-suite\ntests:\n  - id: a\n"));
    const std::string message = fileError(path);
    EXPECT_EQ(message.rfind(path.toStdString() + ": line 1, column 1: not valid JSON: ", 0), 0u) << message;
}

TEST_F(SuiteFiles, InvalidUtf8)
{
    const QString path
        = write(QStringLiteral("latin1.json"), QByteArray("{\"id\": \"caf\xE9\", \"tests\": []}"));
    EXPECT_NE(fileError(path).find(": line 1, column "), std::string::npos);
}

TEST_F(SuiteFiles, TrailingGarbage)
{
    const QString path = write(QStringLiteral("trailing.json"), validSuite + QByteArray("\n}"));
    EXPECT_NE(fileError(path).find(": line 5, column 1: not valid JSON"), std::string::npos)
        << fileError(path);
}

TEST_F(SuiteFiles, DuplicateKeysAreReportedWithTheirPath)
{
    const QString path = write(QStringLiteral("dup.json"),
        QByteArray(
            R"({"id": "x", "tests": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "x", "prompt": "y"}]})"));
    EXPECT_EQ(fileError(path),
        path.toStdString()
            + ": tests[1].prompt: key given twice in the same object (JSON would keep only "
              "the last one)");
}

TEST_F(SuiteFiles, ValidationErrorsNameTheFile)
{
    const QString path = write(
        QStringLiteral("bad.json"), QByteArray(R"({"id": "x", "tests": [{"id": "a", "promt": "Hello?"}]})"));
    EXPECT_EQ(
        fileError(path), path.toStdString() + ": tests[0].promt: unknown key; did you mean \"prompt\"?");
}

TEST_F(SuiteFiles, DeepNestingIsRefusedWithoutCrashing)
{
    const QString path = write(QStringLiteral("deep.json"), QByteArray(1'000'000, '['));
    EXPECT_NE(fileError(path).find("nested more than 100 levels deep"), std::string::npos);
    const QString nested = write(QStringLiteral("deep2.json"),
        QByteArray(R"({"id": "x", "defaults": {"extra_body": )") + QByteArray(200, '[') + QByteArray(200, ']')
            + QByteArray("}}"));
    const std::string message = fileError(nested);
    EXPECT_NE(message.find(": defaults.extra_body[0][0]"), std::string::npos) << message;
}

TEST_F(SuiteFiles, TwentyMegabytesOfJunkAreRefusedQuickly)
{
    QByteArray junk(20 * 1024 * 1024, '\0');
    std::mt19937 rng(42);
    for (char& c : junk)
        c = char(rng());
    const QString path = write(QStringLiteral("junk.json"), junk);
    const auto start = std::chrono::steady_clock::now();
    const std::string message = fileError(path);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_NE(message.find("the file is 20.0 MiB; suite files are limited to 16 MiB"), std::string::npos)
        << message;
    EXPECT_LT(elapsed, std::chrono::milliseconds(500));
}

TEST_F(SuiteFiles, JunkJustUnderTheLimitFailsCleanly)
{
    QByteArray junk(15 * 1024 * 1024, '\0');
    std::mt19937 rng(7);
    for (char& c : junk)
        c = char(rng());
    junk[0] = '{'; // get past the first byte so the parser has to look further
    const QString path = write(QStringLiteral("junk15.json"), junk);
    EXPECT_NE(fileError(path).find(": line "), std::string::npos);
}

TEST_F(SuiteFiles, LargeButValidSuiteLoads)
{
    // A 10 MiB description: big files under the limit are fine.
    nlohmann::json j = nlohmann::json::parse(validSuite.constData());
    j["description"] = std::string(10 * 1024 * 1024, 'a');
    const QString path = write(QStringLiteral("big.json"), QByteArray::fromStdString(j.dump()));
    EXPECT_EQ(loadSuiteFile(path).description.size(), 10 * 1024 * 1024);
}

TEST_F(SuiteFiles, LoadSuiteResolvesNamesAndPaths)
{
    EXPECT_EQ(loadSuite(QStringLiteral("quick-smoke")).source, QStringLiteral("builtin:quick-smoke"));
    EXPECT_EQ(loadSuite(QStringLiteral("builtin:throughput")).id, QStringLiteral("throughput"));
    const QString path = write(QStringLiteral("mine.json"), validSuite);
    EXPECT_EQ(loadSuite(path).source, path);

    const std::string typo = loadError([] { loadSuite(QStringLiteral("voice-assistent")); });
    EXPECT_NE(typo.find("no built-in suite named \"voice-assistent\"; did you mean \"voice-assistant\"?"),
        std::string::npos)
        << typo;
    const std::string missing
        = loadError([this] { loadSuite(m_dir.filePath(QStringLiteral("absent.json"))); });
    EXPECT_NE(missing.find("no such file"), std::string::npos) << missing;
    const std::string unknownBuiltin = loadError([] { loadBuiltinSuite(QStringLiteral("nothing")); });
    EXPECT_NE(
        unknownBuiltin.find("the built-in suites are: voice-assistant, context-sweep, quick-smoke, throughput, fidelity"),
        std::string::npos)
        << unknownBuiltin;
}

// SPDX-License-Identifier: MIT
#include "model/core/GatePatterns.h"

#include "model/core/GateRules.h"
#include "model/core/JsonText.h"

#include <QFile>

namespace qs {

using json = nlohmann::json;

namespace {

using Rules = GatePatterns::Rules;
using Pattern = Rules::Pattern;

using json_text::fromStd;

// ---------------------------------------------------------------------------------------------
// Pattern document: validation and compilation

[[noreturn]] void fail(const QString& path, const QString& problem)
{
    throw GatePatternError(path, problem);
}

QString child(const QString& path, const char* key)
{
    return path.isEmpty() ? QString::fromUtf8(key) : path + u'.' + QString::fromUtf8(key);
}

QString child(const QString& path, const std::string& key)
{
    return path.isEmpty() ? fromStd(key) : path + u'.' + fromStd(key);
}

// Every key of a checked object is known: a typo in a suite's override must not pass silently.
void checkKeys(const json& object, const QString& path, std::initializer_list<const char*> known)
{
    for (const auto& item : object.items()) {
        if (std::any_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; }))
            continue;
        QStringList names;
        for (const char* k : known)
            names << QString::fromUtf8(k);
        fail(child(path, item.key()),
            QStringLiteral("unknown key; expected one of: ") + names.join(QStringLiteral(", ")));
    }
}

const json& member(const json& object, const char* key, const QString& path)
{
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        fail(child(path, key),
            QStringLiteral(
                "is missing (a null in an override removes it; switch single patterns off instead)"));
    return *it;
}

/// The path of the document's top level, named: a temporary QString() passed to objectMember()
/// makes GCC 14 warn that the returned reference may dangle (-Wdangling-reference), though it
/// points into the document, not into the path.
const QString topLevel;

const json& objectMember(const json& object, const char* key, const QString& path)
{
    const json& v = member(object, key, path);
    if (!v.is_object())
        fail(child(path, key), QStringLiteral("must be an object"));
    return v;
}

double numberMember(const json& object, const char* key, const QString& path, double min, double max)
{
    const json& v = member(object, key, path);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        fail(child(path, key), QStringLiteral("must be a number"));
    const double d = v.get<double>();
    if (d < min || d > max)
        fail(child(path, key), QStringLiteral("must be from %1 to %2").arg(min).arg(max));
    return d;
}

int intMember(const json& object, const char* key, const QString& path, int min, int max)
{
    const double d = numberMember(object, key, path, min, max);
    if (std::floor(d) != d)
        fail(child(path, key), QStringLiteral("must be a whole number"));
    return int(d);
}

QString stringMember(const json& object, const char* key, const QString& path)
{
    const json& v = member(object, key, path);
    if (!v.is_string())
        fail(child(path, key), QStringLiteral("must be a string"));
    return fromStd(v.get_ref<const std::string&>());
}

QSet<QString> wordSet(const json& object, const char* key, const QString& path)
{
    const json& v = member(object, key, path);
    if (!v.is_array())
        fail(child(path, key), QStringLiteral("must be a list of strings"));
    QSet<QString> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string() || v[i].get_ref<const std::string&>().empty())
            fail(child(path, key) + QStringLiteral("[%1]").arg(i),
                QStringLiteral("must be a non-empty string"));
        out.insert(fromStd(v[i].get_ref<const std::string&>()).toLower());
    }
    return out;
}

QRegularExpression compile(const QString& source, const QString& path)
{
    if (source.isEmpty())
        fail(path, QStringLiteral("is an empty regular expression, which matches everywhere"));
    QRegularExpression re(
        source, QRegularExpression::MultilineOption | QRegularExpression::UseUnicodePropertiesOption);
    if (!re.isValid())
        fail(path,
            QStringLiteral("is not a valid regular expression: %1 at offset %2")
                .arg(re.errorString())
                .arg(re.patternErrorOffset()));
    if (re.match(QString()).hasMatch())
        fail(path, QStringLiteral("matches empty text, so it would fire on every answer"));
    re.optimize(); // compile now, once, rather than on the first match of some worker thread
    return re;
}

const QString toolsPlaceholder = QStringLiteral("{tools}");

// "{tools}" becomes an alternation of the suite's tool names.
QString expandTools(const QString& source, const QStringList& toolNames)
{
    QStringList escaped;
    for (const QString& name : toolNames)
        escaped << QRegularExpression::escape(name);
    QString out = source;
    out.replace(toolsPlaceholder, QStringLiteral("(?:") + escaped.join(u'|') + u')');
    return out;
}

// A pattern set: {"name": "regex"} or {"name": {"regex": "…", "min_matches": 2}}; null = off.
std::vector<Pattern> patternSet(const json& section, const QString& sectionPath, const QStringList& toolNames)
{
    const QString path = child(sectionPath, "patterns");
    const json& set = objectMember(section, "patterns", sectionPath);
    std::vector<Pattern> out;
    for (const auto& item : set.items()) {
        const QString itemPath = child(path, item.key());
        const json& v = item.value();
        if (v.is_null())
            continue;
        Pattern p;
        p.name = fromStd(item.key());
        QString source;
        if (v.is_string()) {
            source = fromStd(v.get_ref<const std::string&>());
        } else if (v.is_object()) {
            checkKeys(v, itemPath, {"regex", "min_matches"});
            source = stringMember(v, "regex", itemPath);
            if (v.contains("min_matches"))
                p.minMatches = intMember(v, "min_matches", itemPath, 1, maxGateHitsPerPattern);
        } else {
            fail(itemPath,
                QStringLiteral("must be a regular expression (a string), {\"regex\": …, \"min_matches\": N} "
                               "or null"));
        }
        if (source.contains(toolsPlaceholder) && toolNames.isEmpty()) {
            // Unused without tools, but still checked (with a stand-in name): an override must be
            // refused whichever suite it is in.
            compile(expandTools(source, {QStringLiteral("some_tool")}), itemPath);
            continue;
        }
        p.regex
            = compile(source.contains(toolsPlaceholder) ? expandTools(source, toolNames) : source, itemPath);
        out.push_back(std::move(p));
    }
    return out;
}

Rules::Repeat parseRepeat(const json& section, const QString& sectionPath)
{
    const QString path = child(sectionPath, "repeat");
    const json& r = objectMember(section, "repeat", sectionPath);
    checkKeys(r, path,
        {"unigram", "short_ngram", "long_ngram", "max_period", "char_run", "sentence", "sentence_min_words"});
    Rules::Repeat out;
    out.unigram = intMember(r, "unigram", path, 2, 1000);
    out.shortNgram = intMember(r, "short_ngram", path, 2, 1000);
    out.longNgram = intMember(r, "long_ngram", path, 2, 1000);
    out.maxPeriod = intMember(r, "max_period", path, 1, 200);
    out.charRun = intMember(r, "char_run", path, 2, 100000);
    out.sentence = intMember(r, "sentence", path, 2, 1000);
    out.sentenceMinWords = intMember(r, "sentence_min_words", path, 1, 1000);
    return out;
}

Rules::Coherence parseCoherence(const json& doc, const QStringList& toolNames)
{
    const QString path = QStringLiteral("coherent");
    const json& c = objectMember(doc, "coherent", topLevel);
    checkKeys(c, path,
        {"min_letters", "mixed_script_words", "mixed_script_min_letters", "min_words_for_share",
            "junk_word_share", "min_lowercase_words", "known_word_share", "script_switch_share",
            "min_script_switches", "weird_symbols", "weird_symbol_share", "replacement_chars",
            "max_consonant_run", "repeat", "patterns", "common_words", "extra_common_words"});
    Rules::Coherence out;
    out.minLetters = intMember(c, "min_letters", path, 0, 100000);
    out.mixedScriptWords = intMember(c, "mixed_script_words", path, 1, 100000);
    out.mixedScriptMinLetters = intMember(c, "mixed_script_min_letters", path, 1, 100);
    out.minWordsForShare = intMember(c, "min_words_for_share", path, 1, 100000);
    out.junkWordShare = numberMember(c, "junk_word_share", path, 0.01, 1.0);
    out.minLowercaseWords = intMember(c, "min_lowercase_words", path, 1, 100000);
    out.knownWordShare = numberMember(c, "known_word_share", path, 0.0, 1.0);
    out.scriptSwitchShare = numberMember(c, "script_switch_share", path, 0.01, 1.0);
    out.minScriptSwitches = intMember(c, "min_script_switches", path, 1, 100000);
    out.weirdSymbols = stringMember(c, "weird_symbols", path);
    out.weirdSymbolShare = numberMember(c, "weird_symbol_share", path, 0.01, 1.0);
    out.replacementChars = intMember(c, "replacement_chars", path, 1, 100000);
    out.maxConsonantRun = intMember(c, "max_consonant_run", path, 2, 100);
    out.repeat = parseRepeat(c, path);
    out.patterns = patternSet(c, path, toolNames);
    out.commonWords = wordSet(c, "common_words", path);
    // A separate list, so that a suite can add words without repeating the defaults (a merge
    // patch replaces arrays whole).
    out.commonWords.unite(wordSet(c, "extra_common_words", path));
    return out;
}

std::shared_ptr<Rules> compileDocument(const json& doc, const QStringList& toolNames)
{
    if (!doc.is_object())
        fail(QString(), QStringLiteral("a gate pattern document must be a JSON object"));
    checkKeys(doc, QString(),
        {"format", "version", "description", "url", "no_markdown", "no_thinking_leak", "tool_call",
            "coherent", "within_length"});
    if (stringMember(doc, "format", QString()) != u"quantscope-gate-patterns")
        fail(QStringLiteral("format"), QStringLiteral("must be \"quantscope-gate-patterns\""));
    if (intMember(doc, "version", QString(), 1, 1) != 1)
        fail(QStringLiteral("version"), QStringLiteral("must be 1"));

    auto rules = std::make_shared<Rules>();
    rules->document = doc;
    rules->url = compile(stringMember(doc, "url", QString()), QStringLiteral("url"));

    const auto section = [&](const char* key) -> const json& {
        const json& s = objectMember(doc, key, topLevel);
        checkKeys(s, QString::fromUtf8(key), {"patterns"});
        return s;
    };
    rules->markdown = patternSet(section("no_markdown"), QStringLiteral("no_markdown"), toolNames);
    rules->thinking = patternSet(section("no_thinking_leak"), QStringLiteral("no_thinking_leak"), toolNames);
    rules->toolText = patternSet(section("tool_call"), QStringLiteral("tool_call"), toolNames);
    rules->coherent = parseCoherence(doc, toolNames);

    const json& length = objectMember(doc, "within_length", topLevel);
    checkKeys(length, QStringLiteral("within_length"), {"abbreviations"});
    for (const QString& a : wordSet(length, "abbreviations", QStringLiteral("within_length")))
        rules->abbreviations.insert(a.endsWith(u'.') ? a.chopped(1) : a);
    return rules;
}

json loadDefaultDocument()
{
    QFile file(QStringLiteral(":/gates/default.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("quality gates: :/gates/default.json is missing from this build (resources not linked)");
    const QByteArray data = file.readAll();
    json doc = json::parse(data.cbegin(), data.cend(), nullptr, false);
    if (doc.is_discarded())
        qFatal("quality gates: :/gates/default.json is not valid JSON");
    return doc;
}

GatePatternError prefixed(const GatePatternError& e)
{
    return GatePatternError(
        e.path().isEmpty() ? QStringLiteral("gates") : QStringLiteral("gates.") + e.path(), e.problem());
}

json mergedDocument(const json& overrides)
{
    if (!overrides.is_object())
        throw GatePatternError(QStringLiteral("gates"), QStringLiteral("must be an object"));
    json doc = defaultGatePatternDocument();
    doc.merge_patch(overrides);
    return doc;
}

} // namespace

QStringList suiteToolNames(const Suite& suite)
{
    QStringList names;
    if (!suite.tools.is_array())
        return names;
    for (const json& tool : suite.tools) {
        const auto fn = tool.find("function");
        if (fn == tool.end() || !fn->is_object())
            continue;
        const auto n = fn->find("name");
        if (n != fn->end() && n->is_string())
            names << fromStd(n->get<std::string>());
    }
    return names;
}

std::vector<GatePatterns::Rules::AnswerPattern> compileAnswers(const QStringList& patterns)
{
    std::vector<Rules::AnswerPattern> out;
    for (const QString& p : patterns) {
        GatePatterns::Rules::AnswerPattern a;
        a.text = p;
        // Same reading as the suite loader: "/…/" is a regular expression (validated there).
        if (p.size() >= 2 && p.startsWith(u'/') && p.endsWith(u'/')) {
            QRegularExpression re(p.mid(1, p.size() - 2));
            if (re.isValid()) {
                re.optimize();
                a.regex = re;
            }
        }
        out.push_back(std::move(a));
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Public API

GatePatternError::GatePatternError(const QString& path, const QString& problem)
    : std::invalid_argument(
        QString((path.isEmpty() ? QStringLiteral("top level") : path) + QStringLiteral(": ") + problem)
            .toStdString())
    , m_path(path)
    , m_problem(problem)
{
}
const QStringList& gateNames()
{
    using namespace gate_names;
    static const QStringList names = {nonEmpty, expectedAnswer, toolCall, noMarkdown, noThinkingLeak,
        thinkingFollowsRequest, coherent, withinLength};
    return names;
}

GatePatterns GatePatterns::fromJson(const nlohmann::json& document, const QStringList& toolNames)
{
    GatePatterns p;
    p.m_rules = compileDocument(document, toolNames);
    return p;
}

const nlohmann::json& GatePatterns::document() const
{
    return m_rules->document;
}

const nlohmann::json& defaultGatePatternDocument()
{
    static const json doc = loadDefaultDocument();
    return doc;
}

GatePatterns defaultGatePatterns()
{
    static const GatePatterns patterns = [] {
        try {
            return GatePatterns::fromJson(defaultGatePatternDocument());
        } catch (const GatePatternError& e) {
            qFatal("quality gates: :/gates/default.json: %s", e.what());
        }
    }();
    return patterns;
}

void validateGateOverrides(const nlohmann::json& overrides)
{
    if (overrides.is_object() && overrides.empty())
        return;
    try {
        (void)GatePatterns::fromJson(mergedDocument(overrides));
    } catch (const GatePatternError& e) {
        if (e.path().startsWith(QStringLiteral("gates")))
            throw;
        throw prefixed(e);
    }
}

GatePatterns gatePatternsFor(const Suite& suite)
{
    GatePatterns patterns;
    try {
        patterns = GatePatterns::fromJson(mergedDocument(suite.gates), suiteToolNames(suite));
    } catch (const GatePatternError& e) {
        if (e.path().startsWith(QStringLiteral("gates")))
            throw;
        throw prefixed(e);
    }
    // Compile every test's answer patterns once, not per response.
    auto rules = std::make_shared<GatePatterns::Rules>(patterns.rules());
    for (const SuiteTest& t : suite.tests)
        rules->answers[t.id] = compileAnswers(t.expect.answerPatterns);
    GatePatterns out = patterns;
    out.m_rules = std::move(rules);
    return out;
}

} // namespace qs

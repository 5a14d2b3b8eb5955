// SPDX-License-Identifier: MIT
#include "model/core/JsonText.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <set>

namespace qs::json_text {

using json = nlohmann::json;

QString fromStd(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Keeps user text in messages short and on one line.
QString shortened(const QString& text, int limit)
{
    QString t = text;
    t.replace(u'\n', QStringLiteral("\\n"));
    if (t.size() > limit)
        t = t.left(limit) + QStringLiteral("…");
    return t;
}

QString quote(const QString& text)
{
    return u'"' + shortened(text) + u'"';
}

QString quote(std::string_view text)
{
    return quote(fromStd(text));
}

// "a number (3)", "a string ("abc")", … — never calls dump() on strings (invalid UTF-8 throws).
QString describe(const json& v)
{
    switch (v.type()) {
    case json::value_t::null:
        return QStringLiteral("null");
    case json::value_t::boolean:
        return v.get<bool>() ? QStringLiteral("a boolean (true)") : QStringLiteral("a boolean (false)");
    case json::value_t::number_float:
        if (!std::isfinite(v.get<double>()))
            return QStringLiteral("a number that is not finite");
        [[fallthrough]];
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return QStringLiteral("a number (") + fromStd(v.dump()) + u')';
    case json::value_t::string:
        return QStringLiteral("a string (") + quote(v.get_ref<const std::string&>()) + u')';
    case json::value_t::array:
        return v.empty() ? QStringLiteral("an empty list") : QStringLiteral("a list");
    case json::value_t::object:
        return QStringLiteral("an object");
    case json::value_t::binary:
    case json::value_t::discarded:
        break;
    }
    return QStringLiteral("an unsupported value");
}

QString keyPath(const QString& parent, std::string_view key)
{
    return parent.isEmpty() ? fromStd(key) : parent + u'.' + fromStd(key);
}

QString indexPath(const QString& parent, std::size_t index)
{
    return parent + u'[' + QString::number(index) + u']';
}

// Optimal string alignment distance: a transposition ("requried") counts as one edit.
int editDistance(const std::string& a, const std::string& b)
{
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
    for (std::size_t i = 0; i <= n; ++i)
        d[i][0] = int(i);
    for (std::size_t j = 0; j <= m; ++j)
        d[0][j] = int(j);
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

// "maxTokens", "Max-Tokens" and "max_tokens" are the same key to a human.
std::string normalizedKey(const std::string& key)
{
    std::string out;
    for (char c : key)
        if (c != '_' && c != '-' && c != ' ')
            out += char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<std::string> closestKey(const std::string& key, const std::vector<std::string_view>& known)
{
    if (key.size() > 64)
        return std::nullopt;
    const std::string norm = normalizedKey(key);
    std::optional<std::string> best;
    int bestDistance = std::numeric_limits<int>::max();
    for (std::string_view k : known) {
        const std::string candidate(k);
        const int dist = normalizedKey(candidate) == norm ? 0 : editDistance(key, candidate);
        if (dist < bestDistance) {
            bestDistance = dist;
            best = candidate;
        }
    }
    const int allowed = key.size() <= 4 ? 1 : key.size() <= 8 ? 2 : 3;
    if (best && bestDistance <= allowed)
        return best;
    return std::nullopt;
}

std::optional<QString> closestKey(const QString& key, const QStringList& known)
{
    std::vector<std::string> words;
    for (const QString& k : known)
        words.push_back(k.toStdString());
    const std::vector<std::string_view> views(words.begin(), words.end());
    if (const auto best = closestKey(key.toStdString(), views))
        return fromStd(*best);
    return std::nullopt;
}

QString exceptionText(const char* what)
{
    QString text = QString::fromUtf8(what);
    if (const qsizetype bracket = text.indexOf(QStringLiteral("] ")); text.startsWith(u'[') && bracket >= 0)
        text = text.mid(bracket + 2);
    if (text.startsWith(QStringLiteral("parse error"))) {
        if (const qsizetype colon = text.indexOf(QStringLiteral(": ")); colon >= 0)
            text = text.mid(colon + 2);
    }
    return text;
}

namespace {

// 1-based line and column (in characters, not UTF-8 bytes) of the byte nlohmann reports.
std::pair<int, int> lineAndColumn(const QByteArray& data, std::size_t bytePosition)
{
    const qsizetype end
        = qsizetype(std::min<std::size_t>(bytePosition > 0 ? bytePosition - 1 : 0, std::size_t(data.size())));
    int line = 1, column = 1;
    for (qsizetype i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (c == '\n') {
            ++line;
            column = 1;
        } else if ((c & 0xC0) != 0x80) { // count characters, not UTF-8 continuation bytes
            ++column;
        }
    }
    return {line, column};
}

// Follows the parse to know the path of the current value: reports duplicate keys and bounds
// nesting, before the document is built.
class ParseWatcher {
public:
    explicit ParseWatcher(int maxDepth)
        : m_maxDepth(maxDepth)
    {
    }

    bool operator()(json::parse_event_t event, json& parsed)
    {
        switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
            if (int(m_frames.size()) >= m_maxDepth)
                fail(QStringLiteral("nested more than %1 levels deep").arg(m_maxDepth));
            m_frames.push_back({event == json::parse_event_t::array_start, 0, {}, {}});
            break;
        case json::parse_event_t::key: {
            Frame& f = m_frames.back();
            f.key = parsed.is_string() ? parsed.get<std::string>() : std::string();
            if (!f.keys.insert(f.key).second)
                fail(
                    QStringLiteral("key given twice in the same object (JSON would keep only the last one)"));
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            m_frames.pop_back();
            elementDone();
            break;
        case json::parse_event_t::value:
            elementDone();
            break;
        }
        return true;
    }

private:
    struct Frame {
        bool array = false;
        std::size_t index = 0;
        std::string key;
        std::set<std::string> keys;
    };

    void elementDone()
    {
        if (!m_frames.empty() && m_frames.back().array)
            ++m_frames.back().index;
    }

    [[noreturn]] void fail(const QString& message) const
    {
        QString p;
        for (const Frame& f : m_frames)
            p = f.array ? indexPath(p, f.index) : keyPath(p, f.key);
        throw ParseProblem {(p.isEmpty() ? QStringLiteral("top level") : p) + QStringLiteral(": ") + message};
    }

    int m_maxDepth;
    std::vector<Frame> m_frames;
};

} // namespace

json parseStrict(const QByteArray& data, int maxNestingDepth)
{
    ParseWatcher watcher(maxNestingDepth);
    try {
        return json::parse(
            data.cbegin(), data.cend(), [&watcher](int /*depth*/, json::parse_event_t event, json& parsed) {
                return watcher(event, parsed);
            });
    } catch (const json::parse_error& e) {
        const auto [line, column] = lineAndColumn(data, e.byte);
        throw ParseProblem {QStringLiteral("line %1, column %2: not valid JSON: %3")
                                .arg(line)
                                .arg(column)
                                .arg(exceptionText(e.what()))};
    } catch (const json::exception& e) {
        throw ParseProblem {QStringLiteral("not valid JSON: ") + exceptionText(e.what())};
    }
}

void DocumentContext::fail(const QString& path, const QString& problem) const
{
    const QString where = path.isEmpty() ? QStringLiteral("top level") : path;
    raise(source + QStringLiteral(": ") + where + QStringLiteral(": ") + problem);
    std::abort(); // raise() throws
}

void DocumentContext::failFile(const QString& problem) const
{
    raise(source + QStringLiteral(": ") + problem);
    std::abort(); // raise() throws
}

nlohmann::json parseDocument(
    const DocumentContext& ctx, const QByteArray& data, int maxNestingDepth, const QString& emptyProblem)
{
    if (data.trimmed().isEmpty())
        ctx.failFile(emptyProblem);
    try {
        return parseStrict(data, maxNestingDepth);
    } catch (const ParseProblem& p) {
        ctx.failFile(p.message);
    }
}

const nlohmann::json* member(const nlohmann::json& object, std::string_view key)
{
    const auto it = object.find(std::string(key));
    return it == object.end() ? nullptr : &*it;
}

QString stringValue(const DocumentContext& ctx, const nlohmann::json& v, const QString& path, bool allowEmpty)
{
    if (!v.is_string())
        ctx.fail(path, QStringLiteral("must be a string, found ") + describe(v));
    QString s = fromStd(v.get_ref<const std::string&>());
    if (!allowEmpty && s.trimmed().isEmpty())
        ctx.fail(path, QStringLiteral("must not be empty"));
    return s;
}

std::optional<QString> optionalString(const DocumentContext& ctx, const nlohmann::json& object,
    std::string_view key, const QString& parent, bool allowEmpty)
{
    const nlohmann::json* v = member(object, key);
    if (!v)
        return std::nullopt;
    return stringValue(ctx, *v, keyPath(parent, key), allowEmpty);
}

bool isIdentifier(const QString& id)
{
    if (id.isEmpty() || id.size() > 128)
        return false;
    return std::all_of(id.begin(), id.end(), [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') || c == u'.'
            || c == u'_' || c == u'-';
    });
}

QString identifierValue(const DocumentContext& ctx, const nlohmann::json& v, const QString& path)
{
    const QString id = stringValue(ctx, v, path, false);
    if (!isIdentifier(id))
        ctx.fail(path,
            quote(id)
                + QStringLiteral(
                    " is not a valid id; use 1 to 128 letters, digits, '.', '_' or '-' (no spaces)"));
    return id;
}

QString identifier(const DocumentContext& ctx, const nlohmann::json& object, const QString& parent)
{
    const nlohmann::json* v = member(object, "id");
    if (!v)
        ctx.fail(parent,
            QStringLiteral("\"id\" is missing; give a short name made of letters, digits, '.', '_', '-'"));
    return identifierValue(ctx, *v, keyPath(parent, "id"));
}

QStringList stringList(
    const DocumentContext& ctx, const nlohmann::json& v, const QString& path, bool allowSingle)
{
    const QString expected = allowSingle ? QStringLiteral("must be a string or a list of strings, found ")
                                         : QStringLiteral("must be a list of strings, found ");
    if (allowSingle && v.is_string())
        return {stringValue(ctx, v, path, false)};
    if (!v.is_array())
        ctx.fail(path, expected + describe(v));
    if (v.empty())
        ctx.fail(path, QStringLiteral("must not be an empty list"));
    QStringList out;
    for (std::size_t i = 0; i < v.size(); ++i)
        out << stringValue(ctx, v[i], indexPath(path, i), false);
    return out;
}

void checkKeys(const DocumentContext& ctx, const nlohmann::json& object, const QString& path,
    const std::vector<std::string_view>& known, QString (*misplaced)(std::string_view key))
{
    for (const auto& item : object.items()) {
        const std::string& key = item.key();
        if (std::find(known.begin(), known.end(), key) != known.end())
            continue;
        const QString where = keyPath(path, key);
        if (const auto suggestion = closestKey(key, known))
            ctx.fail(where,
                QStringLiteral("unknown key; did you mean \"") + fromStd(*suggestion)
                    + QStringLiteral("\"?"));
        if (misplaced)
            if (const QString hint = misplaced(key); !hint.isEmpty())
                ctx.fail(where, QStringLiteral("unknown key here; ") + hint);
        QStringList names;
        for (std::string_view k : known)
            names << fromStd(k);
        ctx.fail(where, QStringLiteral("unknown key; expected one of: ") + names.join(QStringLiteral(", ")));
    }
}

void checkEncodable(const DocumentContext& ctx, const nlohmann::json& root)
{
    try {
        (void)root.dump();
    } catch (const json::exception& e) {
        ctx.fail(QString(), QStringLiteral("cannot be stored as JSON: ") + exceptionText(e.what()));
    }
}

QByteArray readFileLimited(
    const DocumentContext& ctx, const QString& path, qint64 maxBytes, const QString& noun)
{
    const QString cannotRead = QStringLiteral("cannot read the ") + noun + QStringLiteral(": ");
    const QString limit = QStringLiteral("; ") + noun
        + QStringLiteral(" files are limited to %1 MiB").arg(double(maxBytes) / (1024.0 * 1024.0), 0, 'g', 4);
    const QFileInfo info(path);
    if (!info.exists())
        ctx.failFile(cannotRead + QStringLiteral("no such file"));
    if (info.isDir())
        ctx.failFile(cannotRead + QStringLiteral("it is a directory"));
    // Refuse before reading: a huge file must not cost its size in memory.
    if (info.size() > maxBytes)
        ctx.failFile(
            QStringLiteral("the file is %1 MiB").arg(double(info.size()) / (1024.0 * 1024.0), 0, 'f', 1)
            + limit);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        ctx.failFile(cannotRead + file.errorString());
    // Read one byte past the limit: files that grow, pipes and devices report no honest size. In
    // pieces: QIODevice::read(n) allocates n bytes up front, the whole limit for a 2 KB file.
    QByteArray data;
    data.reserve(qsizetype(qMin(info.size(), maxBytes) + 1));
    char piece[64 * 1024];
    while (data.size() <= maxBytes) {
        const qint64 n = file.read(piece, qMin<qint64>(sizeof piece, maxBytes + 1 - data.size()));
        if (n <= 0)
            break;
        data.append(piece, qsizetype(n));
    }
    if (data.size() > maxBytes)
        ctx.failFile(QStringLiteral("the file is larger than %1 MiB")
                         .arg(double(maxBytes) / (1024.0 * 1024.0), 0, 'g', 4)
            + limit);
    if (file.error() != QFileDevice::NoError)
        ctx.failFile(cannotRead + file.errorString());
    return data;
}

QString didYouMeanHint(const QString& name, const QStringList& known)
{
    if (const auto close = closestKey(name, known))
        return QStringLiteral("did you mean \"") + *close + QStringLiteral("\"? ");
    return QString();
}

QByteArray readBuiltin(const DocumentContext& ctx, const QString& folder, const QString& name,
    const QStringList& builtins, const QString& noun, const QString& unknownSuffix)
{
    if (!builtins.contains(name)) {
        ctx.raise(QStringLiteral("no built-in ") + noun + QStringLiteral(" named ") + quote(name)
            + QStringLiteral("; ") + didYouMeanHint(name, builtins) + QStringLiteral("the built-in ") + noun
            + QStringLiteral("s are: ") + builtins.join(QStringLiteral(", ")) + unknownSuffix);
        std::abort(); // raise() throws
    }
    QFile file(QStringLiteral(":/") + folder + u'/' + name + QStringLiteral(".json"));
    if (!file.open(QIODevice::ReadOnly))
        ctx.failFile(QStringLiteral("the built-in ") + noun
            + QStringLiteral(" is missing from this build (its resources are not linked)"));
    return file.readAll();
}

std::optional<QString> builtinNameOf(const QString& nameOrPath, const QStringList& builtins)
{
    if (builtins.contains(nameOrPath))
        return nameOrPath;
    if (nameOrPath.startsWith(QStringLiteral("builtin:")))
        return nameOrPath.mid(8);
    const bool looksLikeName = !nameOrPath.contains(u'/') && !nameOrPath.contains(u'.');
    if (looksLikeName && !QFileInfo::exists(nameOrPath))
        return nameOrPath;
    return std::nullopt;
}

} // namespace qs::json_text

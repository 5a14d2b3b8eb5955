// SPDX-License-Identifier: MIT
#include "model/store/ResultFormat.h"

#include "model/store/ResultFields.h"

#include <QFileDevice>
#include <algorithm>
#include <cstring>

namespace qs::results {

const char* reasoningFieldId(ReasoningField f)
{
    switch (f) {
    case ReasoningField::Reasoning:
        return "reasoning";
    case ReasoningField::ReasoningContent:
        return "reasoning_content";
    case ReasoningField::Both:
        return "both";
    case ReasoningField::None:
        break;
    }
    return "none";
}

std::optional<ReasoningField> reasoningFieldFromId(const QString& id)
{
    for (ReasoningField f : {ReasoningField::None, ReasoningField::Reasoning,
             ReasoningField::ReasoningContent, ReasoningField::Both})
        if (id == QLatin1String(reasoningFieldId(f)))
            return f;
    return std::nullopt;
}

std::optional<CountSource> countSourceFromId(const QString& id)
{
    for (CountSource s :
        {CountSource::None, CountSource::ServerUsage, CountSource::ServerTimings, CountSource::Estimate})
        if (countSourceId(s) == id)
            return s;
    return std::nullopt;
}

std::optional<FailureKind> failureKindFromId(const QString& id)
{
    // failureKindId() names every kind and says "unknown" past the last one.
    for (int k = 0; k < 256; ++k) {
        const QString name = failureKindId(FailureKind(k));
        if (name == u"unknown")
            break;
        if (name == id)
            return FailureKind(k);
    }
    return std::nullopt;
}

std::string unknownId(const char* choices, const QString& id)
{
    return std::string("expected ") + choices + ", found \"" + u8(id.left(40)) + "\"";
}

std::string typeName(const json& j)
{
    switch (j.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "true/false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
        return "a number";
    case json::value_t::string:
        return "a string";
    case json::value_t::array:
        return "a list";
    case json::value_t::object:
        return "an object";
    case json::value_t::binary:
    case json::value_t::discarded:
        break;
    }
    return "nothing";
}

/// A short, printable excerpt of a value for an error message.
std::string excerpt(const json& j, std::size_t max)
{
    std::string s = dumpCompact(j);
    if (s.size() > max)
        s = s.substr(0, max) + "…";
    return s;
}

[[noreturn]] void badField(const Loc& loc, const std::string& what)
{
    throw ResultFileError(Kind::BadField, loc.str() + ": " + what);
}

[[noreturn]] void expected(const Loc& loc, const char* what, const json& found)
{
    badField(loc, std::string("expected ") + what + ", found " + typeName(found));
}

void checkFormat(const json& j, const std::string& where, bool looksLikeSuite)
{
    const Loc loc = Loc::root(where);
    const auto format = j.find("format");
    if (format == j.end()) {
        std::string msg
            = where + ": not a Quantscope results file (it has no \"format\": \"quantscope-results\")";
        if (looksLikeSuite || j.contains("tests"))
            msg += "; it looks like a suite: run it with `quantscope run --suite FILE`";
        throw ResultFileError(Kind::NotResults, msg);
    }
    if (!format->is_string() || format->get_ref<const std::string&>() != ResultsFormatName)
        throw ResultFileError(Kind::NotResults,
            where + ": not a Quantscope results file (its \"format\" is " + excerpt(*format)
                + ", not \"quantscope-results\")");
    const auto version = j.find("version");
    if (version == j.end())
        badField(loc.member("version"), "missing");
    const qint64 v = checkedInteger(*version, loc.member("version"), 1, std::numeric_limits<qint64>::max());
    if (v > ResultsFormatVersion)
        throw ResultFileError(Kind::NewerVersion,
            where + ": written by a newer Quantscope (results format version " + std::to_string(v)
                + "; this Quantscope reads version " + std::to_string(ResultsFormatVersion)
                + "): upgrade Quantscope to open it");
}

std::string printable(std::string s, std::size_t max)
{
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
            c = '?';
    if (s.size() > max)
        s = s.substr(0, max) + "...";
    return s;
}

bool onlyWhitespace(QByteArrayView bytes)
{
    return std::all_of(
        bytes.begin(), bytes.end(), [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
}

ResultFileError emptyFileError(const std::string& where, QByteArrayView bytes)
{
    return ResultFileError(
        Kind::Truncated, where + ": the file is empty (" + std::to_string(bytes.size()) + " bytes)");
}

ResultFileError syntaxError(const std::string& where, QByteArrayView bytes, const json::parse_error& e)
{
    if (onlyWhitespace(bytes))
        return emptyFileError(where, bytes);
    if (e.byte > std::size_t(bytes.size())) {
        const auto lines = std::count(bytes.begin(), bytes.end(), '\n');
        return ResultFileError(Kind::Truncated,
            where + ": the file is cut off: the JSON stops in the middle after "
                + std::to_string(bytes.size()) + " bytes (line " + std::to_string(lines + 1)
                + ") — the copy or the save did not finish, or the disk filled up");
    }
    std::string msg = e.what();
    if (const auto at = msg.find("parse error"); at != std::string::npos)
        msg = msg.substr(at);
    return ResultFileError(Kind::NotJson, where + ": not valid JSON (" + printable(msg) + ")");
}

ResultFileError jsonError(const std::string& where, const json::exception& e)
{
    return ResultFileError(Kind::NotJson, where + ": not valid JSON (" + printable(e.what()) + ")");
}

QString writeFailure(const QFileDevice& file, int savedErrno)
{
    if (file.error() != QFileDevice::NoError)
        return file.errorString();
    if (savedErrno != 0)
        return QString::fromLocal8Bit(std::strerror(savedErrno));
    return QStringLiteral("only part of the data was written");
}

} // namespace qs::results

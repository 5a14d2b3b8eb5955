// SPDX-License-Identifier: MIT
#include "model/wire/PrometheusText.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace qs {

namespace {

constexpr std::size_t MaxLineBytes = 64 * 1024;
constexpr std::size_t QuoteChars = 40;

bool isSpace(char c)
{
    return c == ' ' || c == '\t';
}
bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool isNameChar(char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9');
}
bool isLabelStart(char c)
{
    return isNameStart(c) && c != ':';
}
bool isLabelChar(char c)
{
    return isNameChar(c) && c != ':';
}

bool equalsNoCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = (a[i] >= 'A' && a[i] <= 'Z') ? char(a[i] - 'A' + 'a') : a[i];
        const char y = (b[i] >= 'A' && b[i] <= 'Z') ? char(b[i] - 'A' + 'a') : b[i];
        if (x != y)
            return false;
    }
    return true;
}

// `text` for an error message: at most QuoteChars bytes (cut on a UTF-8 boundary), control
// characters shown as '?', in single quotes; "the end of the line" when empty.
std::string quoted(std::string_view text)
{
    if (text.empty())
        return "the end of the line";
    std::size_t n = text.size();
    bool cut = false;
    if (n > QuoteChars) {
        n = QuoteChars;
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
            --n;
        cut = true;
    }
    std::string out = "'";
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        out += (c < 0x20 || c == 0x7f) ? '?' : char(c);
    }
    out += cut ? "…'" : "'";
    return out;
}

// Which sample-name suffixes a family of `type` owns (besides its own name).
bool typeOwnsSuffix(MetricType type, std::string_view suffix)
{
    switch (type) {
    case MetricType::Counter:
        return suffix == "_total" || suffix == "_created";
    case MetricType::Histogram:
        return suffix == "_bucket" || suffix == "_sum" || suffix == "_count" || suffix == "_created";
    case MetricType::GaugeHistogram:
        return suffix == "_bucket" || suffix == "_gsum" || suffix == "_gcount";
    case MetricType::Summary:
        return suffix == "_sum" || suffix == "_count" || suffix == "_created";
    case MetricType::Info:
        return suffix == "_info";
    default:
        return false;
    }
}

constexpr std::string_view kSuffixes[]
    = {"_bucket", "_sum", "_count", "_created", "_total", "_gsum", "_gcount", "_info"};

std::optional<MetricType> typeFromWord(std::string_view word)
{
    static constexpr std::pair<std::string_view, MetricType> words[] = {
        {"counter", MetricType::Counter},
        {"gauge", MetricType::Gauge},
        {"histogram", MetricType::Histogram},
        {"summary", MetricType::Summary},
        {"untyped", MetricType::Untyped},
        {"unknown", MetricType::Untyped},
        {"gaugehistogram", MetricType::GaugeHistogram},
        {"info", MetricType::Info},
        {"stateset", MetricType::StateSet},
    };
    for (const auto& [w, t] : words)
        if (w == word)
            return t;
    return std::nullopt;
}

std::string unescapeHelp(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
            const char next = text[i + 1];
            if (next == 'n' || next == '\\' || next == '"') {
                out += next == 'n' ? '\n' : next;
                ++i;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

struct FamilyState {
    bool typed = false; ///< a TYPE line named it
    bool helped = false;
    bool unitSet = false;
};

// One pass over the page. Iterative, bounds-checked at every index: the input may be anything.
class Parser {
public:
    Parser(std::string_view text, PromFormat format, std::size_t maxSeries)
        : m_text(text)
        , m_maxSeries(maxSeries)
    {
        m_page.format = format;
    }

    std::optional<PromPage> run(PromError* error)
    {
        std::size_t pos = 0;
        while (pos < m_text.size()) {
            const std::size_t nl = m_text.find('\n', pos);
            const std::size_t end = nl == std::string_view::npos ? m_text.size() : nl;
            std::string_view line = m_text.substr(pos, end - pos);
            pos = end + 1;
            ++m_lineNo;
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            if (line.size() > MaxLineBytes)
                return fail(error, m_lineNo,
                    "line longer than 64 KiB (" + std::to_string(line.size())
                        + " bytes): not a metrics page, or an exporter gone wrong");
            if (!parseLine(line))
                return fail(error, m_lineNo, std::move(m_message));
        }
        if (m_page.format == PromFormat::OpenMetrics && !m_page.sawEof)
            return fail(error, 0, "OpenMetrics page without # EOF: the scrape was cut off");
        return std::move(m_page);
    }

private:
    std::optional<PromPage> fail(PromError* error, int line, std::string message)
    {
        if (error) {
            error->line = line;
            error->message = std::move(message);
        }
        return std::nullopt;
    }

    bool bad(std::string message)
    {
        m_message = std::move(message);
        return false;
    }

    bool parseLine(std::string_view line)
    {
        std::size_t i = 0;
        while (i < line.size() && isSpace(line[i]))
            ++i;
        line.remove_prefix(i);
        if (m_afterEof) {
            if (line.empty())
                return true;
            return bad("expected nothing after # EOF, found " + quoted(line));
        }
        if (line.empty())
            return true;
        if (line[0] == '#')
            return parseComment(line);
        return parseSample(line);
    }

    // Splits the next blank-separated word off `rest`.
    static std::string_view word(std::string_view& rest)
    {
        std::size_t i = 0;
        while (i < rest.size() && isSpace(rest[i]))
            ++i;
        std::size_t j = i;
        while (j < rest.size() && !isSpace(rest[j]))
            ++j;
        const std::string_view w = rest.substr(i, j - i);
        rest.remove_prefix(j);
        return w;
    }

    static bool validName(std::string_view name)
    {
        if (name.empty() || !isNameStart(name[0]))
            return false;
        for (const char c : name)
            if (!isNameChar(c))
                return false;
        return true;
    }

    bool parseComment(std::string_view line)
    {
        std::string_view rest = line.substr(1);
        if (rest.empty() || !isSpace(rest[0]))
            return true; // "#foo": a comment
        const std::string_view keyword = word(rest);
        if (keyword == "EOF") {
            m_page.sawEof = true;
            if (m_page.format == PromFormat::OpenMetrics)
                m_afterEof = true;
            return true;
        }
        const bool help = keyword == "HELP";
        const bool type = keyword == "TYPE";
        const bool unit = keyword == "UNIT";
        if (!help && !type && !unit)
            return true;
        const std::string_view name = word(rest);
        if (!validName(name))
            return bad("expected a metric name after # " + std::string(keyword) + ", found " + quoted(name));
        // HELP's text runs to the end of the line, after one separating blank.
        if (!rest.empty() && isSpace(rest[0]))
            rest.remove_prefix(1);
        const std::size_t index = familyFor(name, false);
        PromFamily& family = m_page.families[index];
        FamilyState& state = m_states[index];
        if (help) {
            if (state.helped)
                return bad("a second HELP line for " + quoted(name) + " (at most one per family)");
            state.helped = true;
            family.help = unescapeHelp(rest);
        } else if (type) {
            const std::string_view what = word(rest);
            const auto t = typeFromWord(what);
            if (!t)
                return bad("expected a type (counter, gauge, histogram, summary, untyped…) after # TYPE "
                    + std::string(name) + ", found " + quoted(what));
            if (state.typed)
                return bad("a second TYPE line for " + quoted(name) + " (at most one per family)");
            if (!family.samples.empty())
                return bad("the TYPE line for " + quoted(name) + " comes after its samples");
            state.typed = true;
            family.type = *t;
        } else {
            if (state.unitSet)
                return bad("a second UNIT line for " + quoted(name) + " (at most one per family)");
            state.unitSet = true;
            family.unit = std::string(word(rest));
        }
        m_current = index;
        return true;
    }

    // The family named exactly `name`, created (untyped) when new.
    std::size_t familyFor(std::string_view name, bool fromSample)
    {
        if (const auto it = m_byName.find(name); it != m_byName.end())
            return it->second;
        PromFamily family;
        family.name = std::string(name);
        m_page.families.push_back(std::move(family));
        m_states.emplace_back();
        const std::size_t index = m_page.families.size() - 1;
        m_byName.emplace(name, index); // a view into m_text, which outlives the parse
        if (fromSample)
            m_page.warnings.push_back("line " + std::to_string(m_lineNo) + ": sample " + std::string(name)
                + " has no TYPE line (untyped)");
        return index;
    }

    bool ownsSample(std::size_t index, std::string_view sampleName) const
    {
        const PromFamily& f = m_page.families[index];
        if (sampleName.size() <= f.name.size() || sampleName.compare(0, f.name.size(), f.name) != 0)
            return false;
        return typeOwnsSuffix(f.type, sampleName.substr(f.name.size()));
    }

    // Which family a sample belongs to: the one named exactly so (DCGM's counters without
    // `_total`, client_python's separate `_created` gauges), the current one when the suffix
    // fits its type, or the one its suffix strips to.
    std::size_t resolve(std::string_view sampleName)
    {
        if (const auto it = m_byName.find(sampleName); it != m_byName.end())
            return it->second;
        if (m_current != npos && ownsSample(m_current, sampleName))
            return m_current;
        for (const std::string_view suffix : kSuffixes) {
            if (sampleName.size() <= suffix.size() || !sampleName.ends_with(suffix))
                continue;
            const auto it = m_byName.find(sampleName.substr(0, sampleName.size() - suffix.size()));
            if (it != m_byName.end() && typeOwnsSuffix(m_page.families[it->second].type, suffix))
                return it->second;
        }
        return familyFor(sampleName, true);
    }

    // `{a="b",…}` starting at line[i] == '{'; i ends after the '}'. `out` may be null (exemplars).
    bool parseLabels(
        std::string_view line, std::size_t& i, std::vector<std::pair<std::string, std::string>>* out)
    {
        ++i; // '{'
        if (out)
            out->reserve(4); // the servers write 2 to 7 labels: one allocation, not three
        while (true) {
            while (i < line.size() && isSpace(line[i]))
                ++i;
            if (i >= line.size())
                return bad("expected a label name or '}', found the end of the line");
            if (line[i] == '}') {
                ++i;
                return true;
            }
            if (line[i] == '"')
                return bad("quoted (UTF-8) names are not supported, found " + quoted(line.substr(i))
                    + "; ask the exporter for classic names (escaping=underscores)");
            if (!isLabelStart(line[i]))
                return bad("expected a label name, found " + quoted(line.substr(i)));
            const std::size_t nameStart = i;
            while (i < line.size() && isLabelChar(line[i]))
                ++i;
            const std::string_view name = line.substr(nameStart, i - nameStart);
            while (i < line.size() && isSpace(line[i]))
                ++i;
            if (i >= line.size() || line[i] != '=')
                return bad("expected '=' after label " + quoted(name) + ", found " + quoted(line.substr(i)));
            ++i;
            while (i < line.size() && isSpace(line[i]))
                ++i;
            if (i >= line.size() || line[i] != '"')
                return bad("expected '\"' to open the value of label " + quoted(name) + ", found "
                    + quoted(line.substr(i)));
            ++i;
            // Fast path: most values have no escapes and are copied whole.
            std::size_t plain = i;
            while (plain < line.size() && line[plain] != '"' && line[plain] != '\\')
                ++plain;
            std::string value(line.substr(i, plain - i));
            i = plain;
            bool closed = false;
            while (i < line.size()) {
                const char c = line[i];
                if (c == '"') {
                    closed = true;
                    ++i;
                    break;
                }
                if (c == '\\' && i + 1 < line.size()) {
                    const char next = line[i + 1];
                    if (next == 'n')
                        value += '\n';
                    else if (next == '\\' || next == '"')
                        value += next;
                    else { // not an escape Prometheus knows: kept as written
                        value += c;
                        value += next;
                    }
                    i += 2;
                    continue;
                }
                value += c;
                ++i;
            }
            if (!closed)
                return bad("unterminated value of label " + quoted(name) + ": expected a closing '\"'");
            if (out) {
                for (const auto& [n, v] : *out)
                    if (n == name)
                        return bad("label " + quoted(name) + " appears twice");
                out->emplace_back(std::string(name), std::move(value));
            }
            while (i < line.size() && isSpace(line[i]))
                ++i;
            if (i < line.size() && line[i] == ',') {
                ++i;
                continue; // a trailing comma before '}' is allowed
            }
            if (i < line.size() && line[i] == '}')
                continue;
            return bad("expected ',' or '}' after the value of label " + quoted(name) + ", found "
                + quoted(line.substr(i)));
        }
    }

    // A timestamp in ms: 0.0.4 writes int ms, OpenMetrics float seconds.
    bool parseTimestamp(std::string_view token, std::optional<double>& out)
    {
        if (m_page.format == PromFormat::OpenMetrics) {
            const auto s = parsePromValue(token);
            if (!s || !std::isfinite(*s))
                return bad("expected a timestamp in seconds, found " + quoted(token));
            out = *s * 1000.0;
            return true;
        }
        long long ms = 0;
        const char* first = token.data();
        const char* last = token.data() + token.size();
        if (first != last && *first == '+')
            ++first;
        const auto [ptr, ec] = std::from_chars(first, last, ms);
        if (ec != std::errc() || ptr != last || first == last)
            return bad("expected a timestamp in integer milliseconds, found " + quoted(token));
        out = double(ms);
        return true;
    }

    bool parseSample(std::string_view line)
    {
        if (line[0] == '<')
            return bad("expected a metric name, found " + quoted(line)
                + ": this is an HTML page, not Prometheus text (is the URL right?)");
        if (line[0] == '{') {
            if (line.size() > 1 && line[1] == '"')
                return bad("quoted (UTF-8) metric names are not supported, found " + quoted(line)
                    + "; ask the exporter for classic names (escaping=underscores)");
            return bad("expected a metric name, found " + quoted(line));
        }
        if (!isNameStart(line[0]))
            return bad("expected a metric name, found " + quoted(line));
        std::size_t i = 0;
        while (i < line.size() && isNameChar(line[i]))
            ++i;
        const std::string_view name = line.substr(0, i);
        PromSample sample;
        std::size_t brace = i; // Prometheus accepts blanks between the name and '{'
        while (brace < line.size() && isSpace(line[brace]))
            ++brace;
        if (brace < line.size() && line[brace] == '{') {
            i = brace;
            if (!parseLabels(line, i, &sample.labels))
                return false;
        } else if (i < line.size() && !isSpace(line[i])) {
            return bad("expected '{' or a blank after the name " + quoted(name) + ", found "
                + quoted(line.substr(i)));
        }
        std::string_view rest = line.substr(i);
        if (rest.empty() || !isSpace(rest[0]))
            return bad("expected a value after " + quoted(name) + ", found " + quoted(rest));
        const std::string_view valueText = word(rest);
        const auto value = parsePromValue(valueText);
        if (!value)
            return bad("expected a number, NaN or ±Inf as the value of " + quoted(name) + ", found "
                + quoted(valueText));
        sample.value = *value;
        std::string_view next = word(rest);
        if (!next.empty() && next != "#") {
            if (!parseTimestamp(next, sample.timestampMs))
                return false;
            next = word(rest);
        }
        if (next == "#") {
            if (!parseExemplar(rest))
                return false;
        } else if (!next.empty()) {
            return bad("expected the end of the line or ' # ' and an exemplar after the value of "
                + quoted(name) + ", found " + quoted(next));
        }
        if (++m_samples > m_maxSeries)
            return bad("more than " + std::to_string(m_maxSeries)
                + " series on one page: refused (an exporter gone wrong? a label with unbounded values?)");
        sample.name = std::string(name);
        const std::size_t index = resolve(name);
        PromFamily& family = m_page.families[index];
        if (index != m_current && !family.samples.empty() && !m_warnedInterleaved) {
            m_warnedInterleaved = true;
            m_page.warnings.push_back("line " + std::to_string(m_lineNo) + ": the samples of " + family.name
                + " are not contiguous");
        }
        m_current = index;
        family.samples.push_back(std::move(sample));
        return true;
    }

    // ` # {labels} value [timestamp]`: checked, then dropped (Quantscope keeps no exemplars).
    bool parseExemplar(std::string_view rest)
    {
        std::size_t i = 0;
        while (i < rest.size() && isSpace(rest[i]))
            ++i;
        if (i >= rest.size() || rest[i] != '{')
            return bad("expected an exemplar's '{' after ' # ', found " + quoted(rest.substr(i)));
        if (!parseLabels(rest, i, nullptr))
            return false;
        rest.remove_prefix(i);
        const std::string_view valueText = word(rest);
        if (!parsePromValue(valueText))
            return bad("expected an exemplar value, found " + quoted(valueText));
        const std::string_view ts = word(rest);
        if (!ts.empty() && !parsePromValue(ts))
            return bad("expected an exemplar timestamp, found " + quoted(ts));
        const std::string_view extra = word(rest);
        if (!extra.empty())
            return bad("expected the end of the line after the exemplar, found " + quoted(extra));
        return true;
    }

    static constexpr std::size_t npos = std::size_t(-1);

    std::string_view m_text;
    std::size_t m_maxSeries;
    PromPage m_page;
    std::vector<FamilyState> m_states; ///< parallel to m_page.families
    std::unordered_map<std::string_view, std::size_t> m_byName; ///< views into m_text
    std::size_t m_current = npos; ///< the family of the last TYPE/HELP/UNIT or sample
    std::size_t m_samples = 0;
    int m_lineNo = 0;
    bool m_afterEof = false;
    bool m_warnedInterleaved = false;
    std::string m_message;
};

} // namespace

PromFormat promFormatFromContentType(std::string_view contentType)
{
    constexpr std::string_view om = "application/openmetrics-text";
    std::size_t i = 0;
    while (i < contentType.size() && isSpace(contentType[i]))
        ++i;
    return contentType.size() - i >= om.size() && equalsNoCase(contentType.substr(i, om.size()), om)
        ? PromFormat::OpenMetrics
        : PromFormat::Text004;
}

QString promFormatId(PromFormat format)
{
    return format == PromFormat::OpenMetrics ? QStringLiteral("openmetrics-1.0.0")
                                             : QStringLiteral("prometheus-0.0.4");
}

const PromFamily* PromPage::family(std::string_view name) const
{
    for (const PromFamily& f : families)
        if (f.name == name)
            return &f;
    return nullptr;
}

std::string PromError::text() const
{
    return line > 0 ? "line " + std::to_string(line) + ": " + message : message;
}

std::optional<PromPage> parsePrometheusText(
    std::string_view text, PromFormat format, PromError* error, std::size_t maxSeries)
{
    return Parser(text, format, maxSeries).run(error);
}

std::optional<double> parsePromValue(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    std::string_view body = text;
    bool negative = false;
    if (body[0] == '+' || body[0] == '-') {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    if (equalsNoCase(body, "inf") || equalsNoCase(body, "infinity"))
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (equalsNoCase(body, "nan"))
        return std::numeric_limits<double>::quiet_NaN();
    // from_chars also takes "inf", "nan(…)" and hex without a prefix: only plain decimals here.
    if (body.empty() || !((body[0] >= '0' && body[0] <= '9') || body[0] == '.'))
        return std::nullopt;
    for (const char c : body)
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
            return std::nullopt;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    if (ec != std::errc() || ptr != body.data() + body.size())
        return std::nullopt;
    return negative ? -value : value;
}

std::vector<TelemetryFamily> familiesOf(const PromPage& page)
{
    std::vector<TelemetryFamily> out;
    out.reserve(page.families.size());
    for (const PromFamily& f : page.families)
        out.push_back({QString::fromStdString(f.name), f.type});
    return out;
}

} // namespace qs

// SPDX-License-Identifier: MIT
// Parsing a whole results file while it streams in, one record's DOM at a time.
#include "model/store/ResultFields.h"
#include "model/store/TelemetryFields.h"

#include <algorithm>

namespace qs {

namespace {

using namespace results;

/// Reads a results file while it is parsed: header members are kept, each record is converted
/// to a RunRecord the moment its object ends and its DOM dropped, so memory holds one record's
/// DOM at a time. Telemetry samples are streamed the same way. A file whose `records` come before `format`,
/// `version` or `endpoints` (hand edited) is read twice: header first, then the records.
class ResultsReader {
public:
    explicit ResultsReader(std::string source)
        : m_source(std::move(source))
    {
        m_limits.where = m_source;
    }

    RunResult read(QByteArrayView bytes)
    {
        json top = parse(bytes);
        if (m_isJournal)
            throwJournal();
        if (!top.is_object())
            throw ResultFileError(Kind::NotResults,
                m_source + ": not a Quantscope results file (the file holds " + m_topType
                    + ", not an object)");
        checkFormat(top, m_source, m_looksLikeSuite);
        RunResult result = headerFromJson(top, m_source);
        const Loc root = Loc::root(m_source);
        if (!m_samples.empty()) {
            // Streamed: checked against the sources now that all of them are known.
            const Loc telemetry = root.member("telemetry");
            const Loc samples = telemetry.member("samples");
            for (std::size_t i = 0; i < m_samples.size(); ++i)
                checkSample(m_samples[i], result.telemetry.sources, samples.element(i));
            result.telemetry.samples = std::move(m_samples);
        }
        if (!m_sawRecords)
            badField(root.member("records"), "missing");
        if (m_recordsDeferred) {
            m_endpoints = result.endpoints;
            m_secondPass = true;
            m_convert = true;
            m_next = 0;
            m_limits.values = 0;
            parse(bytes);
        }
        result.records = std::move(m_records);
        return result;
    }

private:
    using Event = json::parse_event_t;

    json parse(QByteArrayView bytes)
    {
        try {
            return json::parse(bytes.data(), bytes.data() + bytes.size(),
                [this](int depth, Event event, json& parsed) { return onEvent(depth, event, parsed); });
        } catch (const json::parse_error& e) {
            if (m_isJournal) // its second line is "unexpected '{'; expected end of input"
                throwJournal();
            throw syntaxError(m_source, bytes, e);
        } catch (const json::exception& e) {
            throw jsonError(m_source, e);
        }
    }

    [[noreturn]] void throwJournal() const
    {
        throw ResultFileError(Kind::NotResults,
            m_source
                + ": this is the journal of a run, not a results file: turn it into one with "
                  "`quantscope recover "
                + m_source + " --out FILE`");
    }

    bool onEvent(int depth, Event event, json& parsed)
    {
        m_limits.check(depth);
        if (depth == 0) {
            if (event == Event::object_start || event == Event::object_end)
                return true;
            // Not an object: skip it without storing anything, and say so once the text turned out
            // to be JSON at all ("[INFO] …" and "2026-03-01 …" are junk, not a list or a number).
            m_topType = event == Event::array_start ? std::string("a list") : typeName(parsed);
            return false;
        }
        if (depth == 1)
            return onTopLevel(event, parsed);
        if (m_inTelemetry && depth >= 2)
            return onTelemetry(depth, event, parsed);
        if (depth == 2 && m_topKey == "records")
            return onRecord(event, parsed);
        return true;
    }

    static bool isHeaderKey(const std::string& key)
    {
        static const char* const keys[] = {"format", "version", "tool_version", "host", "started_at",
            "ended_at", "complete", "note", "suite", "settings", "endpoints", "telemetry", "judging",
            "journal", "until_decided", "user_note"};
        return std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return key == k; });
    }

    bool onTopLevel(Event event, json& parsed)
    {
        const Loc root = Loc::root(m_source);
        switch (event) {
        case Event::key:
            m_topKey = parsed.get_ref<const std::string&>();
            m_limits.values = 0;
            if (m_topKey == "tests")
                m_looksLikeSuite = true;
            m_inTelemetry = m_topKey == "telemetry" && !m_secondPass;
            if (m_inTelemetry) {
                m_telemetryKey.clear();
                m_inSamples = false;
                m_samples.clear();
            }
            if (m_topKey == "records") {
                m_sawRecords = true;
                if (m_secondPass)
                    return true;
                m_convert = m_formatOk && m_versionOk && m_endpointsOk;
                m_recordsDeferred = !m_convert;
                return m_convert; // skipped now, read in a second pass once the header is known
            }
            // Unknown members are skipped without being stored (forward compatible, and junk
            // in them costs no memory).
            return !m_secondPass && isHeaderKey(m_topKey);
        case Event::value:
            if (m_secondPass)
                return true;
            if (m_topKey == "format") {
                // Fail fast on another tool's JSON; the full check comes with the header.
                if (!parsed.is_string() || parsed.get_ref<const std::string&>() != ResultsFormatName)
                    checkFormat(json {{"format", parsed}}, m_source, m_looksLikeSuite);
                m_formatOk = true;
            } else if (m_topKey == "version") {
                json probe = {{"format", ResultsFormatName}, {"version", parsed}};
                checkFormat(probe, m_source, false); // NewerVersion before any record is read
                m_versionOk = true;
            } else if (m_topKey == "journal") {
                m_isJournal = parsed.is_boolean() && parsed.get<bool>();
            } else if (m_topKey == "records") {
                expected(root.member("records"), "a list", parsed);
            }
            return true;
        case Event::object_start:
            if (m_topKey == "records")
                badField(root.member("records"), "expected a list, found an object");
            return true;
        case Event::array_end:
            if (m_topKey == "endpoints" && !m_secondPass) {
                m_endpoints = endpointsFromJson(parsed, root.member("endpoints"));
                m_endpointsOk = true;
            }
            return true;
        case Event::array_start:
        case Event::object_end:
            return true;
        }
        return true;
    }

    bool onRecord(Event event, json& parsed)
    {
        const Loc root = Loc::root(m_source);
        const Loc records = root.member("records");
        switch (event) {
        case Event::object_start:
            m_current = m_next++;
            m_limits.values = 0;
            return true;
        case Event::object_end:
            if (!m_convert)
                return true;
            // The DOM is dropped right after: its request body can be moved, not copied.
            m_records.push_back(readRecord(
                parsed, m_endpoints, m_source + ": records[" + std::to_string(m_current) + "]", &parsed));
            internJson(m_records.back(), m_sharedJson);
            return false; // converted: drop its DOM
        case Event::array_start:
            badField(records.element(m_next), "expected an object, found a list");
        case Event::value:
            expected(records.element(m_next), "an object", parsed);
        case Event::key:
        case Event::array_end:
            return true;
        }
        return true;
    }

    /// Inside "telemetry": each sample is read the moment its object ends and its DOM dropped,
    /// like a record; sources stay in the DOM for headerFromJson.
    bool onTelemetry(int depth, Event event, json& parsed)
    {
        if (depth == 2) {
            if (event == Event::key)
                m_telemetryKey = parsed.get_ref<const std::string&>();
            else if (m_telemetryKey == "samples"
                && (event == Event::array_start || event == Event::array_end))
                m_inSamples = event == Event::array_start;
            return true;
        }
        if (depth != 3)
            return true;
        if (event == Event::object_start) { // a source or a sample: limits count per item
            m_limits.values = 0;
            return true;
        }
        if (!m_inSamples)
            return true;
        const Loc root = Loc::root(m_source);
        const Loc telemetry = root.member("telemetry");
        const Loc samples = telemetry.member("samples");
        switch (event) {
        case Event::object_end:
            m_samples.push_back(readSample(parsed, samples.element(m_samples.size())));
            return false; // converted: drop its DOM
        case Event::array_start:
            badField(samples.element(m_samples.size()), "expected an object, found a list");
        case Event::value:
            expected(samples.element(m_samples.size()), "an object", parsed);
        case Event::key:
        case Event::array_end:
        case Event::object_start:
            return true;
        }
        return true;
    }

    std::string m_source;
    Limits m_limits;
    std::string m_topKey;
    std::string m_topType = "nothing";
    bool m_formatOk = false;
    bool m_versionOk = false;
    bool m_endpointsOk = false;
    bool m_convert = false;
    bool m_recordsDeferred = false;
    bool m_secondPass = false;
    bool m_sawRecords = false;
    bool m_isJournal = false;
    bool m_looksLikeSuite = false;
    std::size_t m_next = 0;
    std::size_t m_current = 0;
    std::vector<RunEndpoint> m_endpoints;
    RecordList m_records;
    JsonInterner m_sharedJson; ///< the file's distinct request bodies and gate verdicts, held once
    bool m_inTelemetry = false;
    bool m_inSamples = false;
    std::string m_telemetryKey;
    std::vector<TelemetrySample> m_samples;
};

} // namespace

RunResult results::readStrictly(QByteArrayView bytes, const std::string& source)
{
    return ResultsReader(source).read(bytes);
}

namespace {

RunResult parse(QByteArrayView bytes, const std::string& source, bool quick)
{
    if (onlyWhitespace(bytes))
        throw emptyFileError(source, bytes);
    try {
        if (quick) {
            if (std::optional<RunResult> result = readWriterLayout(bytes, source))
                return std::move(*result);
        }
        return readStrictly(bytes, source);
    } catch (const std::bad_alloc&) {
        throw ResultFileError(Kind::TooLarge, source + ": not enough memory to load this file");
    }
}

} // namespace

RunResult results::parseStrictly(QByteArrayView bytes, const std::string& source)
{
    return parse(bytes, source, false);
}

RunResult parseResults(QByteArrayView bytes, const QString& sourceName)
{
    return parse(bytes, sourceName.toStdString(), true);
}

} // namespace qs

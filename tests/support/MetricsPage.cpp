// SPDX-License-Identifier: MIT
#include "tests/support/MetricsPage.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace qs::emu::detail {

namespace {

// The shortest round-trip digits of a finite, non-zero |value| and its decimal exponent:
// 1234.5 → "12345", 3.
struct Digits {
    std::string digits;
    int exponent = 0;
};

Digits shortestDigits(double value)
{
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, std::fabs(value), std::chars_format::scientific);
    const std::string text(buf, result.ptr);
    const std::size_t e = text.find('e');
    Digits d;
    for (std::size_t i = 0; i < e; ++i)
        if (text[i] != '.')
            d.digits += text[i];
    d.exponent = std::stoi(text.substr(e + 1));
    return d;
}

// Built by appending to one string: GCC 12 at -O3 for aarch64 took the temporaries of
// `"." + substr` and `"e+" + digits` for overlapping copies (a -Wrestrict false positive).
std::string exponentText(int exponent, int minDigits)
{
    const std::string digits = std::to_string(std::abs(exponent));
    std::string out = exponent < 0 ? "e-" : "e+";
    out.append(std::size_t(std::max(0, minDigits - int(digits.size()))), '0');
    out += digits;
    return out;
}

std::string scientific(const Digits& d)
{
    std::string out(1, d.digits[0]);
    if (d.digits.size() > 1) {
        out += '.';
        out.append(d.digits, 1);
    }
    out += exponentText(d.exponent, 2);
    return out;
}

std::string fixed(const Digits& d, bool pointZero)
{
    std::string out;
    if (d.exponent >= 0) {
        std::string digits = d.digits;
        if (int(digits.size()) < d.exponent + 1)
            digits.append(std::size_t(d.exponent + 1) - digits.size(), '0');
        out = digits.substr(0, std::size_t(d.exponent + 1));
        const std::string frac = digits.substr(std::size_t(d.exponent + 1));
        if (!frac.empty())
            out += "." + frac;
        else if (pointZero)
            out += ".0";
    } else {
        out = "0." + std::string(std::size_t(-d.exponent - 1), '0') + d.digits;
    }
    return out;
}

// Python's repr(float): fixed between 1e-4 and 1e16, scientific outside.
std::string pythonRepr(double value)
{
    if (value == 0)
        return std::signbit(value) ? "-0.0" : "0.0";
    const Digits d = shortestDigits(value);
    const std::string body = d.exponent >= -4 && d.exponent < 16 ? fixed(d, true) : scientific(d);
    return value < 0 ? "-" + body : body;
}

// prometheus_client.utils.floatToGoString, bug for bug (`e+010` from 1e10 up).
std::string floatToGoString(double value)
{
    const std::string s = pythonRepr(value);
    const std::size_t dot = s.find('.');
    if (value > 0 && dot != std::string::npos && dot > 6) {
        std::string mantissa = s.substr(0, 1) + "." + s.substr(1, dot - 1) + s.substr(dot + 1);
        while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.'))
            mantissa.pop_back();
        return mantissa + "e+0" + std::to_string(dot - 1);
    }
    return s;
}

// Go strconv.FormatFloat(v, 'g', -1, 64).
std::string goFloat(double value)
{
    if (value == 0)
        return std::signbit(value) ? "-0" : "0";
    const Digits d = shortestDigits(value);
    const std::string body = d.exponent < -4 || d.exponent >= 6 ? scientific(d) : fixed(d, false);
    return value < 0 ? "-" + body : body;
}

std::string escapeHelp(const std::string& text)
{
    std::string out;
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

} // namespace

std::string formatNumber(double value, NumberStyle style)
{
    if (std::isnan(value))
        return style == NumberStyle::CppStream ? "nan" : "NaN";
    if (std::isinf(value))
        return style == NumberStyle::CppStream ? (value > 0 ? "inf" : "-inf") : (value > 0 ? "+Inf" : "-Inf");
    switch (style) {
    case NumberStyle::CppStream: {
        std::ostringstream out;
        out << value;
        return out.str();
    }
    case NumberStyle::Python:
        return floatToGoString(value);
    case NumberStyle::Go:
        return goFloat(value);
    }
    return {};
}

PromWriter::PromWriter(NumberStyle style, bool openMetrics)
    : m_style(style)
    , m_openMetrics(openMetrics)
{
    m_out.reserve(16384);
}

void PromWriter::meta(const std::string& name, const std::string& help, const char* type)
{
    m_out += "# HELP " + name + " " + escapeHelp(help) + "\n# TYPE " + name + " " + type + "\n";
}

void PromWriter::sample(const std::string& name, const PromLabels& labels, double value)
{
    m_out += name;
    if (!labels.empty()) {
        m_out += '{';
        for (std::size_t i = 0; i < labels.size(); ++i) {
            if (i > 0)
                m_out += ',';
            m_out += labels[i].first + "=\"";
            for (const char c : labels[i].second) {
                if (c == '\\' || c == '"')
                    m_out += '\\';
                if (c == '\n') {
                    m_out += "\\n";
                    continue;
                }
                m_out += c;
            }
            m_out += '"';
        }
        m_out += '}';
    }
    m_out += ' ' + formatNumber(value, m_style) + '\n';
}

void PromWriter::gauge(
    const std::string& name, const std::string& help, const PromLabels& labels, double value)
{
    meta(name, help, "gauge");
    sample(name, labels, value);
}

void PromWriter::counter(const std::string& name, const std::string& help,
    const std::vector<std::pair<PromLabels, double>>& series, double created)
{
    meta(m_openMetrics ? name : name + "_total", help, "counter");
    for (const auto& [labels, value] : series)
        sample(name + "_total", labels, value);
    if (created <= 0)
        return;
    if (!m_openMetrics)
        meta(name + "_created", help, "gauge");
    for (const auto& [labels, value] : series) {
        Q_UNUSED(value);
        sample(name + "_created", labels, created);
    }
}

void PromWriter::histogram(const std::string& name, const std::string& help, const PromLabels& labels,
    const HistogramCounts& h, double created)
{
    meta(name, help, "histogram");
    double cumulative = 0;
    for (std::size_t i = 0; i <= h.bounds.size(); ++i) {
        cumulative += h.counts[i];
        PromLabels withLe = labels;
        withLe.emplace_back("le", i < h.bounds.size() ? formatNumber(h.bounds[i], m_style) : "+Inf");
        sample(name + "_bucket", withLe, cumulative);
    }
    sample(name + "_count", labels, h.count);
    sample(name + "_sum", labels, h.sum);
    if (created <= 0)
        return;
    if (!m_openMetrics)
        meta(name + "_created", help, "gauge");
    sample(name + "_created", labels, created);
}

QByteArray PromWriter::finish()
{
    if (m_openMetrics)
        m_out += "# EOF\n";
    return QByteArray::fromStdString(m_out);
}

namespace {

const QByteArray kText004 = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
const QByteArray kOpenMetrics
    = QByteArrayLiteral("application/openmetrics-text; version=1.0.0; charset=utf-8");

// tools/server/server-task.cpp to_metrics(): one gauge or counter each, no labels.
MetricsPage llamaPage(const MetricsSnapshot& m)
{
    PromWriter w(NumberStyle::CppStream, false);
    const auto counter = [&](const char* name, const char* help, double value) {
        w.counter(name, help, {{{}, value}});
    };
    // Cache hits are not processed: 2026 builds count them apart.
    counter("llamacpp:prompt_tokens", "Number of prompt tokens processed.",
        m.promptTokensAtPrefill - m.cachedTokensAtPrefill);
    counter("llamacpp:prompt_tokens_cached", "Number of prompt tokens reused from the cache.",
        m.cachedTokensAtPrefill);
    counter("llamacpp:prompt_seconds", "Prompt process time", m.promptSeconds);
    counter("llamacpp:tokens_predicted", "Number of generation tokens processed.", m.generatedAtEnd);
    counter("llamacpp:tokens_predicted_seconds", "Predict process time", m.predictedSeconds);
    counter("llamacpp:n_decode", "Total number of llama_decode() calls", m.decodeCalls);
    const auto rate = [](double n, double s) { return s > 0 ? n / s : 0.0; };
    w.gauge("llamacpp:n_busy_slots_per_decode", "Average number of busy slots per llama_decode() call", {},
        rate(m.busySlotsSum, m.decodeCalls));
    w.gauge("llamacpp:prompt_tokens_seconds", "Average prompt throughput in tokens/s.", {},
        rate(m.windowPromptTokens, m.windowPromptSeconds));
    w.gauge("llamacpp:predicted_tokens_seconds", "Average generation throughput in tokens/s.", {},
        rate(m.windowPredictedTokens, m.windowPredictedSeconds));
    w.gauge("llamacpp:requests_processing", "Number of requests processing.", {}, m.running);
    w.gauge("llamacpp:requests_deferred", "Number of requests deferred.", {}, m.waiting);
    return {QByteArrayLiteral("text/plain; version=0.0.4"), w.finish()};
}

// What a single-process client_python registry carries besides the app's metrics.
void pythonProcessSeries(PromWriter& w, const MetricsSnapshot& m)
{
    w.counter("python_gc_objects_collected", "Objects collected during gc",
        {{{{"generation", "0"}}, 1234.0}, {{{"generation", "1"}}, 345.0}, {{{"generation", "2"}}, 12.0}});
    w.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", {}, 1.073741824e9);
    w.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", {},
        m.processStartUnix);
}

// vllm/v1/metrics/loggers.py: labels model_name and engine, counters with _created.
MetricsPage vllmPage(const MetricsSnapshot& m, const QString& modelId, bool openMetrics, bool engineStats)
{
    PromWriter w(NumberStyle::Python, openMetrics);
    pythonProcessSeries(w, m);
    if (engineStats) {
        const PromLabels labels {{"model_name", modelId.toStdString()}, {"engine", "0"}};
        const double created = m.processStartUnix;
        w.gauge(
            "vllm:num_requests_running", "Number of requests in model execution batches.", labels, m.running);
        w.gauge(
            "vllm:num_requests_waiting", "Number of requests waiting to be processed.", labels, m.waiting);
        w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", labels,
            m.kvCapacityTokens > 0 ? std::min(1.0, m.kvTokens / m.kvCapacityTokens) : 0.0);
        w.counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", {{labels, 0.0}},
            created);
        // Whole prompts, cache hits included; the cache's own counters beside them.
        w.counter("vllm:prompt_tokens", "Number of prefill tokens processed.",
            {{labels, m.promptTokensAtPrefill}}, created);
        w.counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).",
            {{labels, m.cachedTokensAtPrefill}}, created);
        w.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
            {{labels, m.prefixCacheQueries}}, created);
        w.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
            {{labels, m.prefixCacheHits}}, created);
        w.counter("vllm:generation_tokens", "Number of generation tokens processed.",
            {{labels, m.generatedLive}}, created);
        std::vector<std::pair<PromLabels, double>> finished;
        for (const char* reason : {"stop", "length", "abort"}) {
            const auto it = m.finishedByReason.find(QString::fromLatin1(reason));
            PromLabels l {
                {"model_name", modelId.toStdString()}, {"engine", "0"}, {"finished_reason", reason}};
            finished.emplace_back(std::move(l), it == m.finishedByReason.end() ? 0.0 : it->second);
        }
        w.counter("vllm:request_success", "Count of successfully processed requests.", finished, created);
        w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
            labels, m.ttft, created);
        w.histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
            labels, m.itl, created);
        w.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
            labels, m.e2e, created);
        w.histogram("vllm:request_queue_time_seconds",
            "Histogram of time spent in WAITING phase for request.", labels, m.queue, created);
        w.histogram("vllm:request_prefill_time_seconds",
            "Histogram of time spent in PREFILL phase for request.", labels, m.prefill, created);
        w.histogram("vllm:request_decode_time_seconds",
            "Histogram of time spent in DECODE phase for request.", labels, m.decode, created);
    }
    return {openMetrics ? kOpenMetrics : kText004, w.finish()};
}

// python/sglang/srt/metrics/collector.py, multiprocess mode: no _created, no process_*.
MetricsPage sglangPage(const MetricsSnapshot& m, const QString& modelId, bool openMetrics)
{
    PromWriter w(NumberStyle::Python, openMetrics);
    const std::string model = modelId.toStdString();
    const PromLabels scheduler {{"model_name", model}, {"engine_type", "unified"}, {"tp_rank", "0"},
        {"pp_rank", "0"}, {"moe_ep_rank", "0"}};
    const PromLabels tokenizer {{"model_name", model}};
    w.gauge("sglang:num_running_reqs", "The number of running requests.", scheduler, m.running);
    w.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", scheduler, m.waiting);
    w.gauge("sglang:num_used_tokens", "The number of used tokens.", scheduler, m.kvTokens);
    w.gauge("sglang:max_total_num_tokens", "Maximum total number of tokens in the KV cache pool.", scheduler,
        m.kvCapacityTokens);
    w.gauge("sglang:token_usage", "The token usage.", scheduler,
        m.kvCapacityTokens > 0 ? std::min(1.0, m.kvTokens / m.kvCapacityTokens) : 0.0);
    w.gauge(
        "sglang:gen_throughput", "The generation throughput (token/s).", scheduler, m.recentTokensPerSecond);
    PromLabels withPid = scheduler;
    withPid.emplace_back("pid", "4242");
    w.gauge("sglang:num_retracted_reqs", "The number of retracted requests.", withPid, 0);
    w.counter(
        "sglang:prompt_tokens", "Number of prefill tokens processed.", {{tokenizer, m.promptTokensAtEnd}});
    w.counter("sglang:generation_tokens", "Number of generation tokens processed.",
        {{tokenizer, m.generatedAtEnd}});
    w.counter("sglang:cached_tokens", "Number of cached prompt tokens.", {{tokenizer, m.cachedTokensAtEnd}});
    w.counter("sglang:num_requests", "Number of requests processed.", {{tokenizer, m.finishedRequests}});
    w.histogram("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
        tokenizer, m.sglangTtft);
    w.histogram("sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
        tokenizer, m.sglangItl);
    w.histogram("sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds",
        tokenizer, m.sglangE2e);
    w.histogram(
        "sglang:queue_time_seconds", "Histogram of queueing time in seconds.", scheduler, m.sglangQueue);
    return {openMetrics ? kOpenMetrics : kText004, w.finish()};
}

} // namespace

MetricsPage renderMetricsPage(
    const MetricsSnapshot& m, Dialect dialect, const QString& modelId, bool openMetrics, bool engineStats)
{
    switch (dialect) {
    case Dialect::LlamaServer:
        return llamaPage(m);
    case Dialect::Vllm:
        return vllmPage(m, modelId, openMetrics, engineStats);
    case Dialect::Sglang:
        return sglangPage(m, modelId, openMetrics);
    }
    return {};
}

bool acceptsOpenMetrics(const QByteArray& accept)
{
    for (const QByteArray& entry : accept.split(','))
        if (entry.trimmed().toLower().startsWith("application/openmetrics-text"))
            return true;
    return false;
}

} // namespace qs::emu::detail

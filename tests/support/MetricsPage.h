// SPDX-License-Identifier: MIT
#pragma once

// The text of an emulated /metrics page, written the way each server's library writes it:
// llama-server by hand with std::ostream (6 significant digits, no labels), vLLM and SGLang
// through prometheus_client (Python repr floats, `_created`, OpenMetrics on request), and the
// exporters through Go (strconv 'g'). Names and buckets: ../shared/reference/
// server-metrics-and-logprobs.md Part 1. Internal to qs_emulator.

#include "tests/support/Emulator.h"
#include "tests/support/EmulatorMetrics.h"

#include <QByteArray>
#include <string>
#include <utility>
#include <vector>

namespace qs::emu::detail {

/// How a library prints a double.
enum class NumberStyle {
    CppStream, ///< llama-server: std::ostringstream default, `1.23457e+06`
    Python, ///< prometheus_client floatToGoString: repr, `1.234567e+06` from 1e6, `3.0`
    Go, ///< client_golang: strconv 'g' shortest, `4e+06`
};
std::string formatNumber(double value, NumberStyle style);

using PromLabels = std::vector<std::pair<std::string, std::string>>;

/// Writes families in 0.0.4 or OpenMetrics form.
class PromWriter {
public:
    PromWriter(NumberStyle style, bool openMetrics);
    void gauge(const std::string& name, const std::string& help, const PromLabels& labels, double value);
    /// `name` without `_total`. `created` > 0: client_python's `_created` stamp (unix seconds):
    /// a gauge family of its own in 0.0.4, a sample of the family in OpenMetrics.
    void counter(const std::string& name, const std::string& help,
        const std::vector<std::pair<PromLabels, double>>& series, double created = 0);
    void histogram(const std::string& name, const std::string& help, const PromLabels& labels,
        const HistogramCounts& h, double created = 0);
    /// The page; OpenMetrics ends with `# EOF`.
    QByteArray finish();

private:
    void meta(const std::string& name, const std::string& help, const char* type);
    void sample(const std::string& name, const PromLabels& labels, double value);
    NumberStyle m_style;
    bool m_openMetrics;
    std::string m_out;
};

struct MetricsPage {
    QByteArray contentType;
    QByteArray body;
};

/// `engineStats` false: vLLM with --disable-log-stats (only its process series).
MetricsPage renderMetricsPage(
    const MetricsSnapshot& m, Dialect dialect, const QString& modelId, bool openMetrics, bool engineStats);

/// Whether an Accept header asks for OpenMetrics (client_python: any entry that starts with it).
bool acceptsOpenMetrics(const QByteArray& accept);

} // namespace qs::emu::detail

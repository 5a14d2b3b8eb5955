// SPDX-License-Identifier: MIT
// PrometheusText on an untrusted metrics page, in both formats (docs/fuzzing.md). Holds: no crash
// or sanitizer report, no exception; a page is either parsed or refused with a message; the series
// limit is kept (a small one here, so the fuzzer can reach it); reducing a page to telemetry
// families never crashes.

#include "fuzz/FuzzCheck.h"
#include "model/wire/PrometheusText.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

constexpr std::size_t fuzzMaxSeries = 64;

void check(std::string_view text, qs::PromFormat format)
{
    qs::PromError error;
    const auto page = qs::parsePrometheusText(text, format, &error, fuzzMaxSeries);
    if (!page) {
        QS_FUZZ_CHECK(!error.message.empty());
        (void)error.text();
        return;
    }
    std::size_t samples = 0;
    for (const qs::PromFamily& family : page->families) {
        samples += family.samples.size();
        QS_FUZZ_CHECK(page->family(family.name) != nullptr);
    }
    QS_FUZZ_CHECK(samples <= fuzzMaxSeries);
    (void)qs::familiesOf(*page);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check(text, qs::PromFormat::Text004);
    check(text, qs::PromFormat::OpenMetrics);
    (void)qs::parsePromValue(text);
    (void)qs::promFormatFromContentType(text);
    return 0;
}

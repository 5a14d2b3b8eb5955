// SPDX-License-Identifier: MIT
// The probe's readers of what a server answers (wire/ProbeReplies) on untrusted bodies
// (docs/fuzzing.md). The first byte picks the reader and what the probe knew before (the runtime
// configured, the `Server` header); the rest is the body. Holds: no crash or sanitizer report
// (UBSan: no overflow in the numbers a server sends), no exception; a reader that refuses a body
// changes nothing; a context size or slot count taken is plausible; model ids are never empty;
// and what the probe found still writes as the JSON a results file keeps.

#include "fuzz/FuzzCheck.h"
#include "model/wire/ProbeReplies.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 1)
        return 0;
    const std::uint8_t pick = data[0];
    const QByteArray body(reinterpret_cast<const char*>(data + 1), qsizetype(size - 1));

    qs::ProbeResult result;
    result.endpoint.runtime = static_cast<qs::Runtime>((pick >> 3) % 4); // Unknown, llama, vLLM, SGLang
    if (pick & 0x20)
        result.serverHeader = QStringLiteral("llama.cpp");
    else if (pick & 0x40)
        result.serverHeader = QStringLiteral("uvicorn");
    const qs::ProbeResult before = result;

    bool read = true;
    switch (pick % 5) {
    case 0:
        qs::probe::readHealthOk(body, result);
        break;
    case 1:
        read = qs::probe::readModelList(body, result);
        break;
    case 2:
        read = qs::probe::readLlamaProps(body, result);
        break;
    case 3:
        read = qs::probe::readVllmVersion(body, result);
        break;
    default:
        read = qs::probe::readSglangInfo(body, result);
        break;
    }
    if (!read) {
        QS_FUZZ_CHECK(result.models == before.models && result.runtime == before.runtime);
        QS_FUZZ_CHECK(result.warnings.isEmpty() && !result.contextSize && result.runtimeEvidence.isEmpty());
    }
    if (result.contextSize)
        QS_FUZZ_CHECK(*result.contextSize > 0 && *result.contextSize <= qs::probe::maxContextTokens);
    if (result.totalSlots)
        QS_FUZZ_CHECK(*result.totalSlots >= 1 && *result.totalSlots <= qs::probe::maxSlots);
    for (const QString& id : result.models)
        QS_FUZZ_CHECK(!id.isEmpty());
    // What goes into a results file must serialise (dump() throws on invalid UTF-8).
    (void)qs::toJson(result).dump();
    (void)result.properties.dump();
    return 0;
}

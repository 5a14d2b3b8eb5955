// SPDX-License-Identifier: MIT
// A results file read from untrusted bytes by parseResults, the reader loadResults uses
// (docs/fuzzing.md). Holds: no crash or sanitizer report; the only exception is ResultFileError;
// a file that loads round-trips: saved and read again it gives the same bytes when saved again.

#include "fuzz/FuzzCheck.h"
#include "model/store/ResultFile.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const QString source = QStringLiteral("fuzz.json");
    qs::RunResult loaded;
    try {
        loaded = qs::parseResults(bytes, source);
    } catch (const qs::ResultFileError& e) {
        QS_FUZZ_CHECK(e.what()[0] != '\0');
        return 0;
    }
    const QByteArray saved = qs::serializeResults(loaded);
    qs::RunResult reloaded;
    try {
        reloaded = qs::parseResults(saved, source);
    } catch (const qs::ResultFileError& e) {
        std::fprintf(stderr, "a loaded file saved and did not load again: %s\n", e.what());
        std::abort();
    }
    QS_FUZZ_CHECK(qs::serializeResults(reloaded) == saved);
    return 0;
}

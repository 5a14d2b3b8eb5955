// SPDX-License-Identifier: MIT
// A results file read from untrusted bytes by parseResults, the reader loadResults uses
// (docs/fuzzing.md). Holds: no crash or sanitizer report; the only exception is ResultFileError;
// a file that loads round-trips: saved and read again it gives the same bytes when saved again;
// and the quick reader of big files (readWriterLayout) gives exactly what the strict one gives:
// the same run or the same error, word for word.

#include "fuzz/FuzzCheck.h"
#include "model/store/ResultFile.h"
#include "model/store/ResultFormat.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const QString source = QStringLiteral("fuzz.json");
    std::string strictError;
    QByteArray strictSaved;
    try {
        strictSaved = qs::serializeResults(qs::results::parseStrictly(bytes, source.toStdString()));
    } catch (const qs::ResultFileError& e) {
        strictError = e.what();
    }
    qs::RunResult loaded;
    try {
        loaded = qs::parseResults(bytes, source);
    } catch (const qs::ResultFileError& e) {
        QS_FUZZ_CHECK(e.what()[0] != '\0');
        QS_FUZZ_CHECK(strictError == e.what()); // the same message as the strict reader's
        return 0;
    }
    QS_FUZZ_CHECK(strictError.empty()); // the quick reader took nothing the strict one refuses
    const QByteArray saved = qs::serializeResults(loaded);
    QS_FUZZ_CHECK(saved == strictSaved); // and read it alike
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

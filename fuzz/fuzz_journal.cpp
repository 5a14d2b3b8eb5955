// SPDX-License-Identifier: MIT
// A run journal read from untrusted bytes by parseJournal, the reader recoverJournal uses
// (docs/fuzzing.md). Holds: no crash or sanitizer report; the only exception is ResultFileError;
// a journal that recovers also recovers when cut after any of its lines, to a prefix of the same
// records (what a kill between two appends leaves); what it recovers saves as a results file that
// loads again.

#include "fuzz/FuzzCheck.h"
#include "model/core/Clock.h"
#include "model/store/ResultFile.h"
#include "model/store/RunJournal.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace {

const QDateTime kLastWritten = qs::utcFromMSecs(1'750'000'000'000);

std::optional<qs::RunResult> recover(QByteArrayView bytes)
{
    try {
        return qs::parseJournal(bytes, QStringLiteral("fuzz.journal"), kLastWritten);
    } catch (const qs::ResultFileError& e) {
        QS_FUZZ_CHECK(e.what()[0] != '\0');
        return std::nullopt;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArrayView bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const std::optional<qs::RunResult> whole = recover(bytes);
    if (!whole)
        return 0;
    QS_FUZZ_CHECK(!whole->complete);
    QS_FUZZ_CHECK(!whole->note.isEmpty());

    // Cut after each of the first lines: the records recovered never shrink and stay a prefix.
    const QByteArray wholeSaved = qs::serializeResults(*whole);
    std::size_t previous = 0;
    int cuts = 0;
    for (qsizetype at = bytes.indexOf('\n'); at >= 0 && cuts < 32; at = bytes.indexOf('\n', at + 1), ++cuts) {
        const std::optional<qs::RunResult> part = recover(bytes.first(at + 1));
        QS_FUZZ_CHECK(part.has_value()); // every earlier line was whole, so the prefix recovers
        QS_FUZZ_CHECK(part->records.size() >= previous);
        QS_FUZZ_CHECK(part->records.size() <= whole->records.size());
        previous = part->records.size();
    }

    // What recovery gives is what `recover` saves: it must load back.
    try {
        const qs::RunResult reloaded = qs::parseResults(wholeSaved, QStringLiteral("fuzz.json"));
        QS_FUZZ_CHECK(reloaded.records.size() == whole->records.size());
    } catch (const qs::ResultFileError& e) {
        std::fprintf(stderr, "a recovered journal saved and did not load: %s\n", e.what());
        std::abort();
    }
    return 0;
}

// SPDX-License-Identifier: MIT
#pragma once

// Reading one record's JSON text the quick way, for big files. Internal to model/store.

#include "model/core/RunRecord.h"

#include <memory>
#include <optional>
#include <string_view>

namespace qs::results {

/// Reads the records of a results file or journal, one record's text at a time, with simdjson's
/// On-Demand parser straight into RunRecords: no nlohmann tree per record, equal texts (request
/// bodies, verdicts, test ids, labels, answers) held once.
///
/// It gives exactly what recordFromJson() gives for the same text, or declines (nullopt): it never
/// reports an error itself. Anything it is not sure of — a value of the wrong type, a field it does
/// not know, an escape it leaves to nlohmann — it declines, and the caller reads that record, or
/// the whole file, the strict way, whose message names what is wrong. tests/results/
/// test_fast_reader.cpp and the fuzz target fuzz_results_file hold the two readers to that.
///
/// Not thread-safe; one reader per file being read. The endpoints must outlive it.
class FastRecordReader {
public:
    explicit FastRecordReader(const std::vector<RunEndpoint>& endpoints);
    ~FastRecordReader();
    FastRecordReader(const FastRecordReader&) = delete;
    FastRecordReader& operator=(const FastRecordReader&) = delete;

    /// Bytes that must be readable (any content) after a text handed to read() without a copy.
    static std::size_t padding();

    /// One record: `text` is exactly its JSON object. `readableAfter` says how many bytes after
    /// `text` may be read (not changed); with fewer than padding() the text is copied first.
    std::optional<RunRecord> read(std::string_view text, std::size_t readableAfter = 0);

private:
    struct State;
    std::unique_ptr<State> m;
};

} // namespace qs::results

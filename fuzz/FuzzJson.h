#pragma once
// Hand-written JSON documents (suites, profiles, gate patterns) from fuzz input, read as the
// loaders read them: strict JSON with a nesting limit. A parse problem must say what it is.

#include "fuzz/FuzzCheck.h"
#include "model/core/JsonText.h"

#include <QByteArray>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace qs::fuzz {

/// The document in `data`, or nothing when it is not strict JSON (after checking the problem
/// carries a message).
inline std::optional<nlohmann::json> strictDocument(const std::uint8_t* data, std::size_t size, int maxDepth)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    try {
        return json_text::parseStrict(bytes, maxDepth);
    } catch (const json_text::ParseProblem& p) {
        QS_FUZZ_CHECK(!p.message.isEmpty());
        return std::nullopt;
    }
}

} // namespace qs::fuzz

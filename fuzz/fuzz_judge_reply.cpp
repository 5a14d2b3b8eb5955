// SPDX-License-Identifier: MIT
// JudgeReply on an untrusted reply from an LLM judge (docs/fuzzing.md). Holds: no crash or
// sanitizer report, no exception; a rubric reply read as valid scores exactly the criteria asked,
// each 1..5; a refused reply says why; an extracted JSON object is a part of the reply.

#include "fuzz/FuzzCheck.h"
#include "model/wire/JudgeReply.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QString reply = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const QStringList criteria = {QStringLiteral("accurate"), QStringLiteral("warm_personal")};

    const auto rubric = qs::readRubricReply(reply, criteria);
    if (const auto* read = std::get_if<qs::RubricReply>(&rubric)) {
        QS_FUZZ_CHECK(read->scores.size() == std::size_t(criteria.size()));
        for (const auto& [id, score] : read->scores) {
            QS_FUZZ_CHECK(criteria.contains(id));
            QS_FUZZ_CHECK(score >= 1 && score <= 5);
        }
    } else {
        QS_FUZZ_CHECK(!std::get<QString>(rubric).isEmpty());
    }

    const auto pair = qs::readPairReply(reply);
    if (const auto* why = std::get_if<QString>(&pair))
        QS_FUZZ_CHECK(!why->isEmpty());

    if (const auto object = qs::extractJsonObject(reply))
        QS_FUZZ_CHECK(object->size() <= reply.size());
    return 0;
}

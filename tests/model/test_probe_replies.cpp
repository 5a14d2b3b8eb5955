// SPDX-License-Identifier: MIT
// The probe's readers of what servers answer (wire/ProbeReplies): what they take, and the numbers
// they refuse to believe.
#include "model/wire/ProbeReplies.h"

#include <gtest/gtest.h>

using namespace qs;

TEST(ProbeReplies, AModelListGivesModelsContextAndRuntime)
{
    ProbeResult r;
    ASSERT_TRUE(probe::readModelList(R"({"object":"list","data":[{"id":"qwen","owned_by":"vllm",
        "max_model_len":32768,"root":"/models/qwen"},{"id":"other","max_model_len":5}]})",
        r));
    EXPECT_EQ(r.models, (QStringList {QStringLiteral("qwen"), QStringLiteral("other")}));
    EXPECT_EQ(r.contextSize, 32768); // the first model's
    EXPECT_EQ(r.contextSource, QStringLiteral("/v1/models max_model_len"));
    EXPECT_EQ(r.modelPath, QStringLiteral("/models/qwen"));
    EXPECT_EQ(r.runtime, Runtime::Vllm);
    EXPECT_EQ(r.runtimeEvidence, QStringLiteral(R"(/v1/models owned_by "vllm")"));
}

TEST(ProbeReplies, WhatIsNotAModelListChangesNothing)
{
    for (const char* body :
        {"", "[]", "{}", R"({"data":{}})", "not json", R"({"data":[1,"x",null,{"id":5}]})"}) {
        ProbeResult r;
        const bool list = probe::readModelList(body, r);
        EXPECT_TRUE(r.models.isEmpty()) << body;
        EXPECT_EQ(r.runtime, Runtime::Unknown) << body;
        if (!list) {
            EXPECT_TRUE(r.warnings.isEmpty()) << body;
        }
    }
}

TEST(ProbeReplies, ImplausibleContextSizesAreIgnoredWithAWarning)
{
    for (const char* n : {"0", "-5", "4611686018427387904", "18446744073709551615"}) {
        ProbeResult r;
        ASSERT_TRUE(
            probe::readModelList(QByteArray(R"({"data":[{"id":"m","meta":{"n_ctx":)") + n + "}}]}", r));
        EXPECT_FALSE(r.contextSize.has_value()) << n;
        ASSERT_EQ(r.warnings.size(), 1) << n;
        EXPECT_TRUE(r.warnings.first().contains(u"ignored")) << r.warnings.first().toStdString();
    }
}

TEST(ProbeReplies, LlamaPropsWithSlotsWarnsOfTheSplitContext)
{
    ProbeResult r;
    ASSERT_TRUE(probe::readLlamaProps(R"({"build_info":"b6000-abc","total_slots":4,
        "model_path":"/m.gguf","default_generation_settings":{"n_ctx":8192}})",
        r));
    EXPECT_EQ(r.runtime, Runtime::LlamaServer);
    EXPECT_EQ(r.serverVersion, QStringLiteral("b6000-abc"));
    EXPECT_EQ(r.totalSlots, 4);
    EXPECT_EQ(r.contextSize, 8192);
    ASSERT_EQ(r.warnings.size(), 1);
    EXPECT_TRUE(r.warnings.first().contains(u"-c 32768")) << r.warnings.first().toStdString();
}

TEST(ProbeReplies, AbsurdSlotsAndContextNeverOverflowTheWarning)
{
    // Before: 2^62 tokens × 4 slots overflowed a qint64 while writing the warning.
    ProbeResult r;
    ASSERT_TRUE(probe::readLlamaProps(R"({"build_info":"x","total_slots":4,
        "default_generation_settings":{"n_ctx":4611686018427387904}})",
        r));
    EXPECT_FALSE(r.contextSize.has_value());
    ProbeResult s;
    ASSERT_TRUE(probe::readLlamaProps(R"({"build_info":"x","total_slots":9999999999})", s));
    EXPECT_FALSE(s.totalSlots.has_value());
}

TEST(ProbeReplies, VllmVersionAndSglangInfo)
{
    ProbeResult v;
    v.serverHeader = QStringLiteral("uvicorn");
    ASSERT_TRUE(probe::readVllmVersion(R"({"version":"0.11.0"})", v));
    EXPECT_EQ(v.runtime, Runtime::Vllm);
    EXPECT_EQ(v.serverVersion, QStringLiteral("0.11.0"));
    EXPECT_FALSE(probe::readVllmVersion(R"({"version":""})", v));

    ProbeResult s;
    ASSERT_TRUE(probe::readSglangInfo(R"({"version":"0.5.4","context_length":131072,
        "tool_call_parser":"qwen25","reasoning_parser":"qwen3"})",
        s));
    EXPECT_EQ(s.runtime, Runtime::Sglang);
    EXPECT_EQ(s.contextSize, 131072);
    EXPECT_EQ(s.toolCallParser, QStringLiteral("qwen25"));
    EXPECT_EQ(s.reasoningParser, QStringLiteral("qwen3"));
    EXPECT_FALSE(probe::readSglangInfo("[1]", s));
}

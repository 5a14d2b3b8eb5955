// SPDX-License-Identifier: MIT
// SharedJson: a record's request body and gate verdicts are shared between copies of the record
// (the live snapshots copy every record twice a second), and a change never reaches another copy.
#include "model/core/RunRecord.h"
#include "model/core/SharedJson.h"

#include <gtest/gtest.h>
#include <thread>

using namespace qs;
using json = nlohmann::json;

TEST(SharedJson, CopiesShareUntilOneIsEdited)
{
    SharedJson a(json {{"model", "m"}, {"temperature", 0.7}});
    SharedJson b = a;
    EXPECT_TRUE(b.sharesWith(a));
    b.edit()["temperature"] = 0.0;
    EXPECT_FALSE(b.sharesWith(a));
    EXPECT_EQ((*a)["temperature"], 0.7);
    EXPECT_EQ((*b)["temperature"], 0.0);
    // Edited again while unshared: changed in place.
    const json* before = &*b;
    b.edit()["top_p"] = 0.8;
    EXPECT_EQ(&*b, before);
}

TEST(SharedJson, DefaultsAreANullAndAnEmptyObjectThatEditingNeverChanges)
{
    SharedJson none;
    EXPECT_TRUE(none->is_null());
    SharedJson first = SharedJson::emptyObject();
    SharedJson second = SharedJson::emptyObject();
    EXPECT_TRUE(first->is_object() && first->empty());
    first.edit()["x"] = 1;
    none.edit() = 5;
    EXPECT_TRUE(second->empty());
    EXPECT_TRUE(SharedJson::emptyObject()->empty());
    EXPECT_TRUE(SharedJson()->is_null());
}

TEST(SharedJson, BracesReadAsNlohmannReadsThem)
{
    SharedJson gates;
    gates = {{"no_markdown", true}, {"tool_call", nullptr}};
    ASSERT_TRUE(gates->is_object());
    EXPECT_EQ((*gates)["no_markdown"], true);
    EXPECT_EQ(gates, (json {{"tool_call", nullptr}, {"no_markdown", true}}));
    EXPECT_EQ(gates, SharedJson(json {{"tool_call", nullptr}, {"no_markdown", true}}));
    gates = {1, 2};
    EXPECT_TRUE(gates->is_array());
}

TEST(SharedJson, ARecordCopiedIntoASnapshotSharesItsJsonAndKeepsItsOwnWhenChanged)
{
    RunRecord live;
    live.request.requestBody = json {{"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
    live.gates = {{"non_empty", true}};
    live.gateDetails = {{"non_empty", {{"verdict", "pass"}}}};
    const RunRecord snapshot = live;
    EXPECT_TRUE(snapshot.request.requestBody.sharesWith(live.request.requestBody));
    EXPECT_TRUE(snapshot.gates.sharesWith(live.gates));
    EXPECT_TRUE(snapshot.gateDetails.sharesWith(live.gateDetails));

    live.gates.edit()["non_empty"] = false; // e.g. gates applied again
    EXPECT_EQ((*snapshot.gates)["non_empty"], true);
    EXPECT_EQ((*live.gates)["non_empty"], false);
    EXPECT_TRUE(snapshot.gateDetails.sharesWith(live.gateDetails));
}

TEST(SharedJson, CopiesReadAndDroppedOnOtherThreadsWhileTheOriginalIsEdited)
{
    SharedJson original(json {{"n", 0}});
    std::vector<SharedJson> copies(64, original);
    std::thread reader([copies = std::move(copies)]() mutable {
        long sum = 0;
        for (const SharedJson& c : copies)
            sum += (*c)["n"].get<int>();
        copies.clear();
        EXPECT_EQ(sum, 0);
    });
    for (int i = 1; i <= 1000; ++i)
        original.edit()["n"] = i; // the first edit detaches from the copies the reader holds
    reader.join();
    EXPECT_EQ((*original)["n"], 1000);
}

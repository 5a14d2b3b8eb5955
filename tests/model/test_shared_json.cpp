// SPDX-License-Identifier: MIT
// SharedJson: a record's request body and gate verdicts are shared between copies of the record
// (the live snapshots copy every record twice a second), and a change never reaches another copy.
#include "model/core/JsonInterner.h"
#include "model/core/RunRecord.h"
#include "model/core/SharedJson.h"
#include "model/core/TestNumbering.h"

#include <gtest/gtest.h>
#include <limits>
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

// JsonInterner: equal values built apart (every iteration's request body, the same verdicts) are
// held once, and a record that changes its copy never changes the pool's or another record's.
TEST(JsonInterner, EqualValuesBuiltApartAreHeldOnce)
{
    JsonInterner pool;
    const SharedJson first = pool.intern(SharedJson(json {{"model", "m"}, {"max_tokens", 64}}));
    const SharedJson second = pool.intern(SharedJson(json {{"max_tokens", 64}, {"model", "m"}}));
    const SharedJson other = pool.intern(SharedJson(json {{"model", "m"}, {"max_tokens", 65}}));
    EXPECT_TRUE(second.sharesWith(first));
    EXPECT_FALSE(other.sharesWith(first));
    EXPECT_EQ(pool.size(), 2u);
    // Equal to nlohmann's ==, but saved as other text: never one for the other.
    EXPECT_FALSE(pool.intern(SharedJson(json {{"model", "m"}, {"max_tokens", 64.0}})).sharesWith(first));
    const SharedJson zero = pool.intern(SharedJson(json {{"t", 0.0}}));
    EXPECT_FALSE(pool.intern(SharedJson(json {{"t", -0.0}})).sharesWith(zero));
    EXPECT_EQ(pool.size(), 5u);
}

TEST(JsonInterner, AnEditedCopyLeavesThePoolAndOtherRecordsAlone)
{
    JsonInterner pool;
    SharedJson a = pool.intern(SharedJson(json {{"non_empty", true}}));
    const SharedJson b = pool.intern(SharedJson(json {{"non_empty", true}}));
    a.edit()["non_empty"] = false;
    EXPECT_EQ((*b)["non_empty"], true);
    const SharedJson c = pool.intern(SharedJson(json {{"non_empty", true}}));
    EXPECT_TRUE(c.sharesWith(b));
    EXPECT_EQ((*c)["non_empty"], true);
    EXPECT_TRUE(pool.intern(a).sharesWith(a)); // the edited value is new to the pool
    EXPECT_EQ(pool.size(), 2u);
}

TEST(JsonInterner, TheSameNanIsSharedNotPiledUp)
{
    // NaN != NaN to ==; held apart, every record with one would add an entry under one hash.
    JsonInterner pool;
    const json nan = {{"x", std::numeric_limits<double>::quiet_NaN()}};
    const SharedJson a = pool.intern(SharedJson(nan));
    for (int i = 0; i < 3; ++i)
        EXPECT_TRUE(pool.intern(SharedJson(nan)).sharesWith(a));
    EXPECT_EQ(pool.size(), 1u);
}

TEST(JsonInterner, ARecordsBodyAndVerdictsAreShared)
{
    JsonInterner pool;
    std::vector<RunRecord> records(3);
    for (RunRecord& r : records) {
        r.request.requestBody = json {{"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
        r.gates = {{"non_empty", true}};
        r.gateDetails = {{"non_empty", {{"verdict", "pass"}, {"reason", "3 characters"}}}};
        r.test = QStringLiteral("factual-") + QString::number(1); // built apart, as a reader does
    }
    records[2].gateDetails = {{"non_empty", {{"verdict", "pass"}, {"reason", "4 characters"}}}};
    for (RunRecord& r : records)
        internJson(r, pool);
    EXPECT_TRUE(records[1].request.requestBody.sharesWith(records[0].request.requestBody));
    EXPECT_TRUE(records[2].gates.sharesWith(records[0].gates));
    EXPECT_TRUE(records[1].gateDetails.sharesWith(records[0].gateDetails));
    EXPECT_FALSE(records[2].gateDetails.sharesWith(records[0].gateDetails));
    EXPECT_EQ(pool.size(), 4u);
    EXPECT_EQ(records[2].test.constData(), records[0].test.constData());
}

// TestNumbering: first-seen order, the same number however the string was built, and find()
// never numbers.
TEST(TestNumbering, NumbersIdsInFirstSeenOrderWhateverTheirStorage)
{
    TestNumbering n;
    const QString a = QStringLiteral("factual");
    const QString b = QStringLiteral("tool-web");
    EXPECT_EQ(n.number(a), 0);
    EXPECT_EQ(n.number(a), 0); // the last one, by data
    EXPECT_EQ(n.number(b), 1);
    EXPECT_EQ(n.number(a), 0); // by data, not the last
    EXPECT_EQ(n.number(QString::fromUtf8("factual")), 0); // built apart: by text
    EXPECT_EQ(n.number(QString()), 2);
    EXPECT_EQ(n.number(QStringLiteral("")), 2);
    EXPECT_EQ(n.find(QStringLiteral("tool-") + QStringLiteral("web")), 1);
    EXPECT_EQ(n.find(QStringLiteral("unknown")), -1);
    EXPECT_EQ(n.size(), 3);
    EXPECT_EQ(n.ids(), QStringList({a, b, QString()}));
}

TEST(TestNumbering, AFreedStringsStorageIsNeverMistakenForItsOldId)
{
    TestNumbering n;
    for (int i = 0; i < 200; ++i) {
        // Each temporary is freed after the call; the allocator reuses its storage for the next.
        const int number = n.number(QStringLiteral("test-%1").arg(i % 7));
        EXPECT_EQ(number, i % 7) << i;
    }
    EXPECT_EQ(n.size(), 7);
}

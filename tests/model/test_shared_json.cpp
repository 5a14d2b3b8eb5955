// SPDX-License-Identifier: MIT
// SharedJson: a record's request body and gate verdicts are shared between copies of the record
// (the live snapshots copy every record twice a second), and a change never reaches another copy.
#include "model/core/JsonInterner.h"
#include "model/core/RunRecord.h"
#include "model/core/SharedJson.h"
#include "model/core/TestNumbering.h"

#include <algorithm>
#include <atomic>
#include <gtest/gtest.h>
#include <limits>
#include <thread>

using namespace qs;
using json = nlohmann::json;

namespace {
/// A record that says which it is.
RunRecord iterationRecord(int iteration)
{
    RunRecord r;
    r.test = QStringLiteral("t");
    r.iteration = iteration;
    return r;
}
} // namespace

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
        r.request.response.model = QStringLiteral("qwen3-") + QString::number(4);
        r.request.serverHeader = QStringLiteral("llama.cpp/") + QString::number(7);
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
    // The short texts every response repeats are held once too.
    EXPECT_EQ(records[2].request.response.model.constData(), records[0].request.response.model.constData());
    EXPECT_EQ(records[1].request.serverHeader.constData(), records[0].request.serverHeader.constData());
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

// SharedItems (RunResult::records): copies of a run share its records; a write copies only the
// record written, and only when another list holds it.
TEST(SharedItems, CopiesShareEveryRecordAndAWriteCopiesOnlyThatOne)
{
    RecordList a;
    for (int i = 0; i < 4; ++i)
        a.push_back(iterationRecord(i + 1));
    const RecordList b = a;
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_EQ(&b[i], &std::as_const(a)[i]); // the same objects
    a[2].iteration = 30; // a's own copy of record 2, the others still shared
    EXPECT_EQ(b[2].iteration, 3);
    EXPECT_EQ(std::as_const(a)[2].iteration, 30);
    EXPECT_NE(&b[2], &std::as_const(a)[2]);
    EXPECT_EQ(&b[1], &std::as_const(a)[1]);
    EXPECT_TRUE(a.unshared(2));
    EXPECT_FALSE(a.unshared(1));
    // Written while unshared: in place.
    const RunRecord* own = &std::as_const(a)[2];
    a[2].turn = 2;
    EXPECT_EQ(&std::as_const(a)[2], own);
    // Reading through a const list, or a const iteration, never copies.
    int sum = 0;
    for (const RunRecord& r : b)
        sum += r.iteration;
    EXPECT_EQ(sum, 10);
    EXPECT_FALSE(a.unshared(0));
    // A non-const iteration may write any record: every shared one becomes the list's own.
    for (RunRecord& r : a)
        r.concurrency = 8;
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(std::as_const(a)[i].concurrency, 8);
        EXPECT_EQ(b[i].concurrency, 1);
        EXPECT_TRUE(a.unshared(i));
    }
}

TEST(SharedItems, SharedRecordsAppendedKeepTheirAddressAndAlgorithmsWork)
{
    auto first = std::make_shared<RunRecord>();
    first->iteration = 9;
    RecordList list;
    list.push_back(SharedRecord(first));
    EXPECT_EQ(
        &std::as_const(list)[0], first.get()); // not copied: whoever handed it in still holds the same one
    RecordList more;
    for (int i = 0; i < 5; ++i)
        more.emplace_back().iteration = 5 - i;
    list.append(more);
    ASSERT_EQ(list.size(), 6u);
    const RunRecord* last = &std::as_const(list).back();
    for (int i = 0; i < 100; ++i) // growing never moves a record
        list.push_back(RunRecord {});
    EXPECT_EQ(&std::as_const(list)[5], last);
    list.resize(6);
    // Random-access iterators: sorting moves records, every shared one copied first.
    std::sort(list.begin(), list.end(),
        [](const RunRecord& x, const RunRecord& y) { return x.iteration < y.iteration; });
    std::vector<int> order;
    for (const RunRecord& r : std::as_const(list))
        order.push_back(r.iteration);
    EXPECT_EQ(order, (std::vector<int> {1, 2, 3, 4, 5, 9}));
    EXPECT_EQ(first->iteration, 9); // the original is untouched
    EXPECT_EQ(more[0].iteration, 5);
    list.erase(list.cbegin() + 1, list.cbegin() + 3);
    EXPECT_EQ(list.size(), 4u);
    EXPECT_EQ(std::as_const(list)[1].iteration, 4);
    EXPECT_EQ(std::as_const(list).end() - std::as_const(list).begin(), 4);
}

TEST(SharedItems, CopiesReadAndDroppedOnOtherThreadsWhileTheOriginalIsWritten)
{
    RecordList original;
    for (int i = 0; i < 200; ++i)
        original.push_back(iterationRecord(i));
    std::vector<std::thread> readers;
    std::atomic<long> seen {0};
    for (int t = 0; t < 4; ++t)
        readers.emplace_back([copy = RecordList(original), &seen]() mutable {
            long sum = 0;
            for (const RunRecord& r : std::as_const(copy))
                sum += r.iteration;
            seen += sum;
            copy = RecordList();
        });
    for (std::size_t i = 0; i < original.size(); ++i)
        original[i].iteration = -1;
    for (std::thread& t : readers)
        t.join();
    EXPECT_EQ(seen.load(), 4L * (199 * 200 / 2));
    for (const RunRecord& r : std::as_const(original))
        EXPECT_EQ(r.iteration, -1);
}

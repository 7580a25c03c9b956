// `slicelab report` on a recording folder, below the CLI: the comparison counted by hand (the
// latest decision per pod, a binding before the decision, the pending threshold, drops summed
// over the extender's restarts), and the folder reader's rules (segments in order, a torn last
// line ignored, a bad line refused with its file and line).
#include <gtest/gtest.h>

#include <string>

#include "reports/shadow_comparison.h"
#include "reports/shadow_record_reader.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

using slicelab::testing::message_of;
using ShadowRecordReaderTest = slicelab::testing::TempFilesTest;

TEST(ShadowComparison, CountsByHand) {
  ShadowComparisonInput in;
  in.policy = "fgd";
  in.first_s = 1000;
  in.last_s = 2000;
  in.decisions = {{"ns/a", "ua", "n1", 1000},  // decided again below: the latest counts
                  {"ns/b", "ub", "n2", 1010},  // bound on n2 at 1011: agrees
                  {"ns/c", "uc", "n1", 1020},  // bound on n3 at 1200: disagrees, and late
                  {"ns/d", "ud", "n1", 1030},  // never bound: pending 970 s at the end
                  {"ns/e", "ue", "n4", 1040},  // bound at 1035, before the decision: left out
                  {"ns/f", "", "n5", 1950},    // no UID, never bound: pending 50 s only
                  {"ns/a", "ua", "n2", 1100}};
  in.placements = {{"ns/a", "ua", "n2", 1105},
                   {"ns/b", "ub", "n2", 1011},
                   {"ns/c", "uc", "n3", 1200},
                   {"ns/e", "ue", "n4", 1035}};
  in.figures = {{1000, 4, 2, 3, false},
                {1500, 6, 2, 5, false},  // first run: 5 dropped
                {1600, 2, 1, 1, true},
                {2000, 2, 4, 2, false}};  // after a restart: 2
  const ShadowComparison c = compare_shadow(in, 60);
  EXPECT_EQ(c.decided, 5u);  // a, b, c, d, f
  EXPECT_EQ(c.bound, 3u);
  EXPECT_EQ(c.same_node, 2u);  // a (its second decision), b
  EXPECT_EQ(c.other_node, 1u);
  ASSERT_TRUE(c.agreement().has_value());
  EXPECT_DOUBLE_EQ(*c.agreement(), 2.0 / 3.0);
  EXPECT_EQ(c.placeable_pending, 2u);  // c (180 s), d (970 s)
  EXPECT_EQ(c.still_pending, 1u);
  ASSERT_TRUE(c.fragmented_actual.has_value());
  EXPECT_DOUBLE_EQ(c.fragmented_actual->mean, 3.5);
  EXPECT_DOUBLE_EQ(c.fragmented_actual->last, 2);
  EXPECT_DOUBLE_EQ(c.fragmented_slicelab->mean, 2.25);
  EXPECT_EQ(c.dropped, 7u);
  const auto j = shadow_comparison_json(c);
  EXPECT_EQ(j["from"], "1970-01-01T00:16:40Z");
  EXPECT_EQ(j["seconds"], 1000.0);
  EXPECT_EQ(compare_shadow(in, 1000).placeable_pending, 0u);
  EXPECT_FALSE(compare_shadow({}, 60).agreement().has_value());
}

TEST_F(ShadowRecordReaderTest, ReadsSegmentsInOrderAndRefusesBadLines) {
  write("recording.json", R"({"format": "slicelab-recording/1"})");
  write(
      "decisions-000002.jsonl",
      R"({"at":"2026-11-30T12:00:09.000Z","type":"DECISION","namespace":"ns","name":"a","uid":"u","node":"n2","gpus":[],"feasible":1})"
      "\n"
      R"({"at":"2026-11-30T12:00:10.000Z","type":"DECI)");  // torn
  write(
      "decisions-000001.jsonl",
      R"({"at":"2026-11-30T12:00:00.000Z","type":"START","resumed":false,"policy":"fgd"})"
      "\n"
      R"({"at":"2026-11-30T12:00:01.000Z","type":"DECISION","namespace":"ns","name":"a","uid":"u","node":"n1","gpus":[0],"feasible":2})"
      "\n");
  write(
      "events-000001.jsonl",
      R"({"seq":1,"at":"2026-11-30T12:00:20.000Z","kind":"Pod","type":"MODIFIED","uid":"u","rv":"5","object":{"metadata":{"name":"a","namespace":"ns","uid":"u"},"spec":{"nodeName":"n2"}}})"
      "\n"
      R"({"seq":2,"at":"2026-11-30T12:00:30.000Z","kind":"Pod","type":"MODIFIED","uid":"u","rv":"6","object":{"metadata":{"name":"a","namespace":"ns","uid":"u"},"spec":{"nodeName":"n3"}}})"
      "\n");
  ASSERT_TRUE(is_recording_folder(dir_));
  const ShadowComparisonInput in = read_shadow_record(dir_);
  ASSERT_EQ(in.decisions.size(), 1u);  // the latest decision of the pod, from segment 2
  EXPECT_EQ(in.decisions[0].node, "n2");
  ASSERT_EQ(in.placements.size(), 1u);  // the first binding recorded
  EXPECT_EQ(in.placements[0].node, "n2");
  EXPECT_EQ(in.policy, "fgd");
  EXPECT_DOUBLE_EQ(*in.last_s - *in.first_s, 30);
  const ShadowComparison c = compare_shadow(in, 60);
  EXPECT_EQ(c.same_node, 1u);

  write("events-000002.jsonl", "{\"kind\":\"Pod\",\"at\":\"yesterday\"}\n");
  EXPECT_NE(message_of([&] { read_shadow_record(dir_); }).find("events-000002.jsonl:1: \"at\""),
            std::string::npos);
  write("events-000002.jsonl", "{}\nnot json\n");
  EXPECT_NE(message_of([&] {
              read_shadow_record(dir_);
            }).find("events-000002.jsonl:2: expected a JSON object"),
            std::string::npos);
  write("events-000002.jsonl", std::string(kMaxRecordingLineBytes + 1, ' ') + "\n");
  EXPECT_NE(message_of([&] { read_shadow_record(dir_); }).find("a line longer than"),
            std::string::npos);
}

}  // namespace
}  // namespace slicelab

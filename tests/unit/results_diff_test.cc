// `slicelab diff`'s judgement on hand-made results folders: pairing policies across folders and
// names, the paired test when both sides ran the same seeds and Welch's when they did not (with
// hand-computed intervals), verdicts by the metric's direction, the scenario warnings, --seeds,
// --fail-if, and the errors for an unknown policy or none in common.
#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "reports/diff_fail_if.h"
#include "reports/metric_direction.h"
#include "reports/results_diff.h"
#include "sim/metrics/decide_spec.h"
#include "sim/metrics/welch_difference.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::message_of;

double t95(double df) {
  return boost::math::quantile(boost::math::students_t(df), 0.975);
}

// A policy object with a queue p99 and completed pods.
std::string policy(const std::string& name, double p99, int completed = 10) {
  return "{\"name\": \"" + name + "\", \"pods\": {\"completed\": " + std::to_string(completed) +
         "}, \"queue_delay_s\": {\"p99\": " + std::to_string(p99) + "}}";
}

class ResultsDiff_ : public testing::TempFilesTest {
 protected:
  // A compare folder with one policy `name` whose queue p99 is `p99[i]` in seed `seeds[i]`.
  fs::path seeded(const std::string& folder, const std::string& name,
                  const std::vector<uint64_t>& seeds, const std::vector<double>& p99,
                  const std::string& scenario = "s") {
    fs::create_directories(dir_ / folder);
    std::string list;
    double mean = 0;
    for (size_t i = 0; i < seeds.size(); ++i) {
      list += (i ? ", " : "") + std::to_string(seeds[i]);
      mean += p99[i] / static_cast<double>(seeds.size());
      fs::create_directories(dir_ / folder / ("seed-" + std::to_string(seeds[i])));
      write(folder + "/seed-" + std::to_string(seeds[i]) + "/summary.json",
            "{\"format\": \"slicelab.summary/1\", \"seed\": " + std::to_string(seeds[i]) +
                ", \"policies\": [" + policy(name, p99[i]) + "]}");
    }
    write(folder + "/summary.json", "{\"format\": \"slicelab.seeds/1\", \"scenario\": \"" +
                                        scenario + "\", \"seeds\": [" + list +
                                        "], \"policies\": [" + policy(name, mean) + "]}");
    return dir_ / folder;
  }
  fs::path single(const std::string& folder, const std::string& policies,
                  const std::string& extra = "") {
    fs::create_directories(dir_ / folder);
    write(folder + "/summary.json",
          "{\"format\": \"slicelab.summary/1\"" + extra + ", \"policies\": [" + policies + "]}");
    return dir_ / folder;
  }
  static const DiffRow& row(const ResultsDiff& d, std::string_view key) {
    for (const DiffRow& r : d.rows)
      if (r.metric->json == key) return r;
    throw std::runtime_error("no row " + std::string(key));
  }
};

TEST_F(ResultsDiff_, SameSeedsArePairedSeedBySeed) {
  // p99 10, 12, 14 against 11, 13, 15: every difference is +1, no spread, so beyond noise
  // however small; queue p99 is lower-better, so B is worse.
  const fs::path a = seeded("a", "fgd", {1, 2, 3}, {10, 12, 14});
  const fs::path b = seeded("b", "best-fit", {1, 2, 3}, {11, 13, 15});
  const ResultsDiff d = diff_results(DiffSide{a, "fgd"}, DiffSide{b, "best-fit"});
  EXPECT_EQ(d.test, NoiseTest::kPaired);
  EXPECT_FALSE(d.by_name);
  const DiffRow& r = row(d, "queue_delay_s.p99");
  EXPECT_EQ(r.pair(), "fgd -> best-fit");
  EXPECT_DOUBLE_EQ(*r.a, 12);
  EXPECT_DOUBLE_EQ(*r.b, 13);
  EXPECT_EQ(r.beyond_noise, true);
  EXPECT_DOUBLE_EQ(*r.noise, 0);
  EXPECT_EQ(r.verdict, Verdict::kWorse);
  EXPECT_EQ(row(d, "pods.completed").verdict, Verdict::kUnchanged);
  EXPECT_EQ(verdict_line(d), "B against A (3 seeds, paired): worse on queue_p99; unchanged on 1");

  // The same figures with B's runs labelled seeds 4-6: nothing pairs, and Welch's interval
  // (variances 4 and 4 over 3 seeds: se = sqrt(8/3), df = 4) holds the +1.
  const fs::path c = seeded("c", "best-fit", {4, 5, 6}, {11, 13, 15});
  const ResultsDiff u = diff_results(DiffSide{a, "fgd"}, DiffSide{c, "best-fit"});
  EXPECT_EQ(u.test, NoiseTest::kWelch);
  const DiffRow& w = row(u, "queue_delay_s.p99");
  EXPECT_NEAR(*w.noise, t95(4) * std::sqrt(8.0 / 3), 1e-9);
  EXPECT_NEAR(*w.noise, 4.533, 1e-3);
  EXPECT_EQ(w.beyond_noise, false);
  EXPECT_EQ(w.verdict, Verdict::kWithinNoise);
  ASSERT_EQ(u.warnings.size(), 1U);
  EXPECT_NE(u.warnings[0].find("different seeds: A 3 seeds (1-3), B 3 seeds (4-6);"),
            std::string::npos)
      << u.warnings[0];
}

TEST_F(ResultsDiff_, PairedDifferencesWithSpreadUseStudentT) {
  // Differences (B - A) 1, 1.5, 1: mean 7/6, sd 0.2887, half width t(2) sd / sqrt 3 = 0.717:
  // beyond noise. With 1, 2, 1: mean 4/3, sd 0.577, half width 1.434: within noise.
  const fs::path a = seeded("a", "p", {7, 8, 9}, {10, 12, 14});
  const fs::path b = seeded("b", "p", {7, 8, 9}, {11, 13.5, 15});
  const ResultsDiff d = diff_results(a, b);
  const DiffRow& r = row(d, "queue_delay_s.p99");
  EXPECT_NEAR(*r.noise, t95(2) * std::sqrt(1.0 / 12) / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(*r.noise, 0.717, 1e-3);
  EXPECT_EQ(r.verdict, Verdict::kWorse);
  const fs::path c = seeded("c", "p", {7, 8, 9}, {11, 14, 15});
  const DiffRow s =
      row(diff_results(a, c), "queue_delay_s.p99");  // a copy: the diff is a temporary
  EXPECT_NEAR(*s.noise, t95(2) * std::sqrt(1.0 / 3) / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(s.verdict, Verdict::kWithinNoise);
}

TEST_F(ResultsDiff_, TheSeedsAreMatchedBySeedNotByPosition) {
  // B lists the same seeds in another order: still paired, seed 1 against seed 1.
  const fs::path a = seeded("a", "p", {1, 2, 3}, {10, 20, 30});
  const fs::path b = seeded("b", "p", {3, 1, 2}, {29, 9, 19});
  const ResultsDiff d = diff_results(a, b);
  EXPECT_EQ(d.test, NoiseTest::kPaired);
  const DiffRow& r = row(d, "queue_delay_s.p99");
  EXPECT_DOUBLE_EQ(*r.noise, 0);  // every difference is -1
  EXPECT_EQ(r.verdict, Verdict::kBetter);
}

TEST_F(ResultsDiff_, SeedsOptionKeepsThoseSeedsAndRefusesMissingOnes) {
  const fs::path a = seeded("a", "p", {1, 2, 3}, {10, 12, 100});
  const fs::path b = seeded("b", "p", {1, 2, 3}, {11, 13, 0});
  std::string why;
  const auto two = parse_seeds_option("1,2", why);
  ASSERT_TRUE(two);
  const ResultsDiff d = diff_results(DiffSide{a, {}}, DiffSide{b, {}}, two);
  EXPECT_EQ(d.a.seeds, (std::vector<uint64_t>{1, 2}));
  const DiffRow& r = row(d, "queue_delay_s.p99");
  EXPECT_DOUBLE_EQ(*r.a, 11);
  EXPECT_DOUBLE_EQ(*r.b, 12);
  EXPECT_EQ(r.verdict, Verdict::kWorse);
  const auto other = parse_seeds_option("1,4", why);
  EXPECT_EQ(message_of([&] {
              diff_results(DiffSide{a, {}}, DiffSide{b, {}}, other);
            }),
            "--seeds: " + a.string() + " holds 3 seeds (1-3), not seed 4");
}

TEST_F(ResultsDiff_, OneSeedEachSideIsNoiseUnknown) {
  const fs::path a = single("a", policy("p", 100), ", \"seed\": 42");
  const fs::path b = single("b", policy("p", 150), ", \"seed\": 42");
  const ResultsDiff d = diff_results(a, b);
  EXPECT_EQ(d.test, NoiseTest::kNone);
  const DiffRow& r = row(d, "queue_delay_s.p99");
  EXPECT_FALSE(r.beyond_noise.has_value());
  EXPECT_EQ(r.verdict, Verdict::kChanged);
  EXPECT_EQ(verdict_line(d),
            "B against A (noise unknown): changed on queue_p99 (noise unknown); unchanged on 1");
  // --fail-if cannot fire without noise.
  std::string why;
  const auto c = parse_fail_if("worse:queue_p99", why);
  ASSERT_TRUE(c) << why;
  EXPECT_TRUE(failed_conditions(d, *c).empty());
}

TEST_F(ResultsDiff_, OneSeedAgainstSeveralBorrowsTheirSpread) {
  // A: 10, 12, 14 (variance 4); B one run at 20: se = sqrt(4/3 + 4/1), df = 2.
  const fs::path a = seeded("a", "p", {1, 2, 3}, {10, 12, 14});
  const fs::path b = single("b", policy("p", 20), ", \"seed\": 9");
  const DiffRow r =
      row(diff_results(a, b), "queue_delay_s.p99");  // a copy: the diff is a temporary
  EXPECT_NEAR(*r.noise, t95(2) * std::sqrt(4.0 / 3 + 4), 1e-9);
  EXPECT_EQ(r.beyond_noise, std::abs(20.0 - 12) > t95(2) * std::sqrt(4.0 / 3 + 4));
}

TEST_F(ResultsDiff_, WelchHasFractionalDegreesOfFreedom) {
  // a: 1, 2, 3, 4 (var 5/3, n 4); b: 10, 20 (var 50, n 2).
  const std::vector<double> a = {1, 2, 3, 4}, b = {10, 20};
  const UnpairedDifference u = welch_difference(a, b);
  const double qa = (5.0 / 3) / 4, qb = 50.0 / 2;
  const double df = (qa + qb) * (qa + qb) / (qa * qa / 3 + qb * qb / 1);
  EXPECT_DOUBLE_EQ(u.difference, 15 - 2.5);
  EXPECT_NEAR(*u.degrees_of_freedom, df, 1e-12);
  EXPECT_NEAR(*u.half_width, t95(df) * std::sqrt(qa + qb), 1e-9);
}

TEST_F(ResultsDiff_, PoliciesArePairedAsNamed) {
  const fs::path a = single("a", policy("fgd", 100) + ", " + policy("best-fit", 120));
  const fs::path b = single("b", policy("best-fit", 90));
  // One side named: the same name on the other.
  const ResultsDiff one = diff_results(DiffSide{a, "best-fit"}, DiffSide{b, {}});
  EXPECT_EQ(row(one, "queue_delay_s.p99").pair(), "best-fit");
  // Within one folder.
  const ResultsDiff same = diff_results(DiffSide{a, "fgd"}, DiffSide{a, "best-fit"});
  EXPECT_DOUBLE_EQ(*row(same, "queue_delay_s.p99").change(), 20);
  // By name: only best-fit is in both.
  const ResultsDiff all = diff_results(a, b);
  EXPECT_EQ(all.only_in_a, std::vector<std::string>{"fgd"});
  EXPECT_EQ(row(all, "queue_delay_s.p99").pair(), "best-fit");

  EXPECT_EQ(message_of([&] {
              diff_results(DiffSide{a, "fgd"}, DiffSide{b, {}});
            }),
            b.string() + ": no policy named 'fgd' (the folder holds: best-fit)");
  const fs::path c = single("c", policy("dot", 90));
  EXPECT_EQ(message_of([&] { diff_results(a, c); }),
            a.string() + " and " + c.string() +
                " hold no policy of the same name (A: fgd, best-fit; B: dot): name the two to "
                "compare as A:policy B:policy, e.g. slicelab diff " +
                a.string() + ":fgd " + c.string() + ":dot");
}

TEST_F(ResultsDiff_, DifferentScenariosAreWarnedAbout) {
  const fs::path a = single("a", policy("p", 1),
                            ", \"scenario\": \"x\", \"workload\": {\"source\": \"openb\", "
                            "\"pods\": 100}, \"cluster\": {\"nodes\": 4, \"gpus\": 32}");
  const fs::path b = single("b", policy("p", 1),
                            ", \"scenario\": \"y\", \"workload\": {\"source\": \"openb\", "
                            "\"pods\": 120}, \"cluster\": {\"nodes\": 4, \"gpus\": 32}");
  const ResultsDiff d = diff_results(a, b);
  ASSERT_EQ(d.warnings.size(), 1U);
  EXPECT_EQ(d.warnings[0],
            "the two sides ran different scenarios (scenario x against y; workload pods 100 "
            "against 120): a change is not the policy's alone");
  EXPECT_TRUE(diff_results(a, a).warnings.empty());
}

TEST_F(ResultsDiff_, AFolderAndPolicyAreSplitAtTheLastColon) {
  const fs::path a = single("a:b", policy("p", 1));
  single("a", policy("b", 1));
  // The folder "a:b" itself (though "a" is a folder too); "a:b:p" is that folder and policy p.
  EXPECT_EQ(parse_diff_side(a.string()).folder, a);
  EXPECT_FALSE(parse_diff_side(a.string()).policy);
  const DiffSide s = parse_diff_side(a.string() + ":p");
  EXPECT_EQ(s.folder, a);
  EXPECT_EQ(s.policy, "p");
  // A part after ':' with '/' is a path, not a policy; a missing folder is the whole text.
  EXPECT_FALSE(parse_diff_side((dir_ / "x:y/z").string()).policy);
  EXPECT_FALSE(parse_diff_side((dir_ / "nowhere:p").string()).policy);
}

TEST_F(ResultsDiff_, FailIfNamesDecideMetricsWithADirection) {
  std::string why;
  const auto c = parse_fail_if("worse:queue_p99,worse:completed", why);
  ASSERT_TRUE(c) << why;
  ASSERT_EQ(c->size(), 2U);
  EXPECT_EQ((*c)[1].metric, decide_metric("completed"));
  EXPECT_FALSE(parse_fail_if("better:queue_p99", why));
  EXPECT_EQ(why, "expected worse:METRIC (e.g. worse:queue_p99), found 'better:queue_p99'");
  EXPECT_FALSE(parse_fail_if("worse:allocation", why));
  EXPECT_EQ(why, "'allocation' has no better direction, so it cannot get worse");
  EXPECT_FALSE(parse_fail_if("worse:nope", why));

  const fs::path a = seeded("a", "p", {1, 2}, {10, 12});
  const fs::path b = seeded("b", "p", {1, 2}, {11, 13});
  const ResultsDiff d = diff_results(a, b);
  const auto held = failed_conditions(d, *c);
  ASSERT_EQ(held.size(), 1U);
  EXPECT_EQ(held[0],
            "worse:queue_p99 held: p queue_delay_s.p99 11s -> 12s (beyond noise, "
            "paired test)");
  // Within noise never fails.
  const fs::path n = seeded("n", "p", {1, 2}, {11, 12});  // differences +1, 0
  EXPECT_EQ(row(diff_results(a, n), "queue_delay_s.p99").verdict, Verdict::kWithinNoise);
  EXPECT_TRUE(failed_conditions(diff_results(a, n), *c).empty());
}

TEST_F(ResultsDiff_, DirectionsFollowWhatAPodWants) {
  EXPECT_EQ(better_direction(*decide_metric("completed")), Better::kHigher);
  EXPECT_EQ(better_direction(*decide_metric("slo")), Better::kHigher);
  for (const char* lower : {"queue_p99", "jct_p99", "cost", "failed", "cost_per_completed"})
    EXPECT_EQ(better_direction(*decide_metric(lower)), Better::kLower) << lower;
  EXPECT_FALSE(better_direction(*decide_metric("allocation")));
  EXPECT_FALSE(better_direction(*find_run_metric("queue_delay_s.count")));
}

}  // namespace
}  // namespace slicelab

// Pins down calibration: the fit recovers known coefficients from synthetic measurements
// (exactly without noise, within 1% with small noise), never goes below 0, and says what the
// data cannot support; bad CSVs fail with file:line; the shipped default equals the built-in.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "sim/calibration/calibration_fit.h"
#include "sim/interference/builtin_calibration.h"
#include "tests/support/temp_files.h"
#include "workloads/input_error.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

const std::map<std::string, InterferenceCoefficients> kTruth = {
    {"time-slice", {0.15, 0.01}}, {"mps", {0.8, 0.02}}, {"interposer", {0.3, 0.015}}};

// Every ordered pair of the built-in classes under every mode, at a few caps; slowdowns from
// the model itself with the true coefficients, times (1 + noise * N(0, 1)).
std::vector<Measurement> synthetic(double noise, int repeats) {
  const Calibration base = builtin_calibration();
  BaseRates rates;
  Rng rng(2026);
  std::vector<Measurement> rows;
  const std::vector<std::pair<double, double>> caps = {{0.5, 0.5}, {0.3, 0.7}};
  for (int rep = 0; rep < repeats; ++rep)
    for (const auto& [mode, k] : kTruth)
      for (const auto& a : base.classes.all())
        for (const auto& b : base.classes.all())
          for (const auto& [ca, cb] : caps) {
            Measurement m;
            m.line = rows.size() + 2;
            m.class_a = a.name;
            m.class_b = b.name;
            m.mode = mode;
            m.cap_a = ca;
            m.cap_b = cb;
            double s[2];
            predict_slowdowns(m, base.classes, k, rates, s);
            m.slowdown_a = s[0] * (1 + noise * rng.normal());
            m.slowdown_b = s[1] * (1 + noise * rng.normal());
            rows.push_back(m);
          }
  return rows;
}

TEST(Calibration, RecoversKnownCoefficientsWithoutNoise) {
  const auto rows = synthetic(0.0, 1);
  const Calibration c =
      fit_calibration(rows, builtin_calibration().classes, "synthetic", "test").calibration;
  for (const auto& [mode, k] : kTruth) {
    const InterferenceCoefficients got = c.for_mode(mode);
    EXPECT_NEAR(got.bandwidth, k.bandwidth, 1e-9 * k.bandwidth) << mode;
    EXPECT_NEAR(got.launch, k.launch, 1e-9 * k.launch) << mode;
    EXPECT_LT(c.fit.at(mode).rms, 1e-9) << mode;
    EXPECT_EQ(c.fit.at(mode).observations, 2U * 25U * 2U) << mode;
    EXPECT_EQ(c.fit.at(mode).rows, 25U * 2U) << mode;
    EXPECT_NEAR(c.fit.at(mode).explained, 1.0, 1e-9) << mode;
  }
}

TEST(Calibration, RecoversKnownCoefficientsWithinOnePercentUnderSmallNoise) {
  // 0.1% measurement noise (seeded), 20 repetitions of every pair.
  const auto rows = synthetic(0.001, 20);
  const Calibration c =
      fit_calibration(rows, builtin_calibration().classes, "synthetic", "test").calibration;
  for (const auto& [mode, k] : kTruth) {
    const InterferenceCoefficients got = c.for_mode(mode);
    RecordProperty(mode + "_bandwidth", std::to_string(got.bandwidth));
    RecordProperty(mode + "_launch", std::to_string(got.launch));
    EXPECT_NEAR(got.bandwidth, k.bandwidth, 0.01 * k.bandwidth) << mode;
    EXPECT_NEAR(got.launch, k.launch, 0.01 * k.launch) << mode;
    EXPECT_GT(c.fit.at(mode).rms, 0.0);
    EXPECT_GE(c.fit.at(mode).max, c.fit.at(mode).rms);
  }
}

// Slowdowns from the linear model itself, whatever the sign of `k` (no clamp of f at 1):
// (1 + a x_bw + b x_launch) / base, for every ordered pair of `classes` under mps at 0.5/0.5.
std::vector<Measurement> linear_mps(const WorkloadClasses& classes,
                                    const InterferenceCoefficients& k) {
  BaseRates rates;
  std::vector<Measurement> rows;
  for (const auto& a : classes.all())
    for (const auto& b : classes.all()) {
      Measurement m;
      m.line = rows.size() + 2;
      m.class_a = a.name;
      m.class_b = b.name;
      m.mode = "mps";
      m.cap_a = m.cap_b = 0.5;
      std::array<TenantLoad, 2> loads;
      std::array<double, 2> base{};
      rates.pair(m, classes, loads, base);
      double s[2];
      for (size_t i = 0; i < 2; ++i) {
        const InterferenceFeatures f = interference_features(loads, i);
        s[i] = (1 + k.bandwidth * f.bandwidth + k.launch * f.launch) / base[i];
      }
      m.slowdown_a = s[0];
      m.slowdown_b = s[1];
      rows.push_back(m);
    }
  return rows;
}

// The issues' texts, one per line, for failure messages and searches.
std::string issue_text(const CalibrationFit& f) {
  std::string all;
  for (const FitIssue& i : f.issues) all += (i.refuses ? "refuses: " : "warns: ") + i.text + "\n";
  return all;
}

bool mentions(const CalibrationFit& f, const std::string& what) {
  return issue_text(f).find(what) != std::string::npos;
}

TEST(CalibrationConstraints, NegativeBandwidthIsHeldAtZeroAndLaunchRefittedAlone) {
  const WorkloadClasses classes = builtin_calibration().classes;
  const auto rows = linear_mps(classes, {-0.1, 0.02});
  const CalibrationFit f = fit_calibration(rows, classes, "m.csv", "test");
  // With a = 0, the launch term alone by hand: per tenant, column x_launch / base and target
  // slowdown - 1/base; b = sum(col * target) / sum(col^2).
  BaseRates rates;
  double num = 0, den = 0;
  for (const Measurement& m : rows) {
    std::array<TenantLoad, 2> loads;
    std::array<double, 2> base{};
    rates.pair(m, classes, loads, base);
    const double s[2] = {m.slowdown_a, m.slowdown_b};
    for (size_t i = 0; i < 2; ++i) {
      const double col = interference_features(loads, i).launch / base[i];
      num += col * (s[i] - 1 / base[i]);
      den += col * col;
    }
  }
  const InterferenceCoefficients got = f.calibration.for_mode("mps");
  EXPECT_EQ(got.bandwidth, 0.0);
  EXPECT_NEAR(got.launch, num / den, 1e-12);
  EXPECT_GT(got.launch, 0.0);
  EXPECT_TRUE(mentions(f,
                       "mps: the unconstrained fit wanted a_bandwidth = -0.1, which would "
                       "make a neighbour speed a tenant up; held at 0 and b_launch refitted "
                       "alone"))
      << issue_text(f);
  EXPECT_FALSE(f.refused()) << issue_text(f);
  EXPECT_GT(f.calibration.fit.at("mps").rms, 0.0);
}

TEST(CalibrationConstraints, RowsOfOnePairCannotSeparateTheEffectsAndAreRefused) {
  // One class pair repeated: every row has the same x_bw and x_launch, so rank 1.
  std::vector<Measurement> rows(3);
  for (size_t r = 0; r < rows.size(); ++r)
    rows[r] = {.line = r + 2,
               .class_a = "training",
               .class_b = "training",
               .mode = "mps",
               .cap_a = 0.5,
               .cap_b = 0.5,
               .slowdown_a = 2.1,
               .slowdown_b = 2.2};
  const CalibrationFit f = fit_calibration(rows, builtin_calibration().classes, "m.csv", "test");
  EXPECT_TRUE(f.refused());
  EXPECT_TRUE(mentions(f,
                       "refuses: mps: the rows cannot tell the bandwidth and launch effects "
                       "apart"))
      << issue_text(f);
  EXPECT_GE(f.calibration.for_mode("mps").bandwidth, 0.0);
  EXPECT_GE(f.calibration.for_mode("mps").launch, 0.0);
}

TEST(CalibrationConstraints, NeighboursWithoutBandwidthOrLaunchesLeaveNothingToFit) {
  const WorkloadClasses quiet({WorkloadClass{.name = "quiet", .sm = 0.5}});
  const std::vector<Measurement> rows = {{.line = 2,
                                          .class_a = "quiet",
                                          .class_b = "quiet",
                                          .mode = "time-slice",
                                          .slowdown_a = 1.3,
                                          .slowdown_b = 1.3}};
  const CalibrationFit f = fit_calibration(rows, quiet, "m.csv", "test");
  EXPECT_TRUE(f.refused());
  EXPECT_TRUE(mentions(f,
                       "refuses: time-slice: no tenant in these rows has a neighbour with "
                       "memory bandwidth or kernel launches (every regressor is 0): there is "
                       "nothing to fit"))
      << issue_text(f);
  EXPECT_EQ(f.calibration.for_mode("time-slice").bandwidth, 0.0);
}

TEST(CalibrationConstraints, ClassesWithoutLaunchRatesFitBandwidthAloneWithAWarning) {
  const WorkloadClasses classes({WorkloadClass{.name = "a", .sm = 0.5, .bandwidth = 0.3},
                                 WorkloadClass{.name = "b", .sm = 0.4, .bandwidth = 0.6}});
  const CalibrationFit f = fit_calibration(linear_mps(classes, {0.5, 0.0}), classes, "m", "t");
  EXPECT_NEAR(f.calibration.for_mode("mps").bandwidth, 0.5, 1e-12);
  EXPECT_EQ(f.calibration.for_mode("mps").launch, 0.0);
  EXPECT_FALSE(f.refused()) << issue_text(f);
  EXPECT_TRUE(mentions(f,
                       "warns: mps: no tenant in these rows has a neighbour with a kernel "
                       "launch rate: b_launch is not fitted and stays 0"))
      << issue_text(f);
}

TEST(CalibrationConstraints, ARowOrTwoIsTooFewToTestTheModel) {
  auto rows = linear_mps(builtin_calibration().classes, {0.5, 0.01});
  rows.resize(2);  // inference with inference, inference with training
  const CalibrationFit f = fit_calibration(rows, builtin_calibration().classes, "m", "t");
  EXPECT_TRUE(mentions(f,
                       "warns: mps: only 2 measured pairs: too few to test the model (at "
                       "least 3 recommended)"))
      << issue_text(f);
}

TEST(CalibrationConstraints, LargeResidualsWarnAndHopelessOnesRefuse) {
  // 15% multiplicative noise: the RMS residual is about 15% of the slowdowns (a warning);
  // 60%: refused.
  for (const double noise : {0.15, 0.6}) {
    auto rows = synthetic(noise, 1);
    const CalibrationFit f = fit_calibration(rows, builtin_calibration().classes, "m", "t");
    RecordProperty("mps_rms_at_noise_" + std::to_string(noise),
                   std::to_string(f.calibration.fit.at("mps").rms));
    if (noise < 0.5) {
      EXPECT_FALSE(f.refused()) << issue_text(f);
      EXPECT_TRUE(mentions(f, "the model reproduces only roughly these measurements"))
          << issue_text(f);
    } else {
      EXPECT_TRUE(f.refused()) << issue_text(f);
      EXPECT_TRUE(mentions(f, "the model cannot reproduce these measurements")) << issue_text(f);
    }
    for (const auto& [mode, k] : f.calibration.coefficients) {
      EXPECT_GE(k.bandwidth, 0.0) << mode;
      EXPECT_GE(k.launch, 0.0) << mode;
    }
  }
}

class CalibrationFiles : public testing::TempFilesTest {
 protected:
  // The error a CSV gives, with the folder stripped from the file name.
  std::string error_of(const std::string& csv_text) {
    const std::string path = write("m.csv", csv_text);
    std::string msg = testing::message_of([&] {
      const auto rows = read_measurements_csv(path);
      (void)fit_calibration(rows, builtin_calibration().classes, path, "test");
    });
    if (msg.rfind(path, 0) == 0) msg = "m.csv" + msg.substr(path.size());
    return msg;
  }
};

TEST_F(CalibrationFiles, WrittenYamlReadsBackTheSameCoefficients) {
  const auto rows = synthetic(0.0, 1);
  const Calibration c =
      fit_calibration(rows, builtin_calibration().classes, "synthetic", "round trip").calibration;
  const Calibration back = load_calibration(write("cal.yaml", calibration_yaml(c)));
  EXPECT_EQ(back.source, "round trip");
  for (const auto& [mode, k] : c.coefficients) {
    // Written with 12 significant digits.
    EXPECT_NEAR(back.for_mode(mode).bandwidth, k.bandwidth, 1e-11 * k.bandwidth);
    EXPECT_NEAR(back.for_mode(mode).launch, k.launch, 1e-11 * k.launch);
  }
  EXPECT_EQ(back.classes.all().size(), c.classes.all().size());
}

TEST(Calibration, ShippedDefaultEqualsTheBuiltIn) {
  const Calibration file =
      load_calibration(std::string(SLICELAB_SOURCE_DIR) + "/calibration/default.yaml");
  const Calibration built = builtin_calibration();
  EXPECT_EQ(file.source, built.source);
  ASSERT_EQ(file.classes.all().size(), built.classes.all().size());
  for (const WorkloadClass& w : built.classes.all()) {
    const auto i = file.classes.index_of(w.name);
    ASSERT_TRUE(i.has_value()) << w.name;
    const WorkloadClass& f = file.classes[*i];
    EXPECT_DOUBLE_EQ(f.sm, w.sm) << w.name;
    EXPECT_DOUBLE_EQ(f.bandwidth, w.bandwidth) << w.name;
    EXPECT_DOUBLE_EQ(f.launch_khz, w.launch_khz) << w.name;
    EXPECT_EQ(f.memory_mib, w.memory_mib) << w.name;
  }
  for (const auto& [mode, k] : built.coefficients) {
    EXPECT_DOUBLE_EQ(file.for_mode(mode).bandwidth, k.bandwidth) << mode;
    EXPECT_DOUBLE_EQ(file.for_mode(mode).launch, k.launch) << mode;
  }
  EXPECT_EQ(file.interposer_launch_overhead_ns, built.interposer_launch_overhead_ns);
}

// --- bad CSVs: the exact message, with the line ---

const char* const kHeader = "class_a,class_b,mode,cap_a,cap_b,slowdown_a,slowdown_b\n";

TEST_F(CalibrationFiles, BadRowsNameTheFileLineAndWhatWasExpected) {
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,mps,0.5,0.5,1.2,1.1\n" +
                     "training,inference,mps,half,0.5,1.2,1.1\n"),
            "m.csv:3: column 'cap_a': expected a number in 0.001..1, found 'half'");
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,fpga,0.5,0.5,1.2,1.1\n"),
            "m.csv:2: column 'mode': expected time-slice, mps, interposer, whole-card or mig, "
            "found 'fpga'");
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,mps,0.5,0.5,1.2,1.1\n" +
                     "training,inference,mps,0.5,0.5,1.2\n"),
            "m.csv:3: expected 7 fields as in the header, found 6");
  EXPECT_EQ(error_of(std::string(kHeader) + "training,infer,mps,0.5,0.5,1.2,1.1\n"),
            "m.csv:2: unknown workload class 'infer' (known: inference, training, interactive, "
            "compute-bound, memory-bound)");
  EXPECT_EQ(error_of(kHeader), "m.csv:2: expected at least one measurement row after the header");
  EXPECT_EQ(error_of("class_a,class_b,mode,cap_a,cap_b,slowdown_a\n"),
            "m.csv:1: missing column 'slowdown_b' (the header has: class_a, class_b, mode, cap_a, "
            "cap_b, slowdown_a)");
}

TEST_F(CalibrationFiles, ImpossibleValuesNameTheRow) {
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,mps,0.5,0.5,1.2,1.1\n" +
                     "training,inference,mps,0.5,0.5,1.2,0.8\n"),
            "m.csv:3: column 'slowdown_b': expected a slowdown of at least 0.95 (a tenant never "
            "runs faster beside a neighbour than alone; below 1 only by noise), found '0.8'");
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,mps,0.5,1.5,1.2,1.1\n"),
            "m.csv:2: column 'cap_b': expected a number in 0.001..1, found '1.5'");
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,mps,0,0.5,1.2,1.1\n"),
            "m.csv:2: column 'cap_a': expected a number in 0.001..1, found '0'");
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,whole-card,1,1,1.01,0.99\n"),
            "m.csv: no row of time-slice, mps or interposer: the interference model has nothing "
            "to fit (whole-card and mig rows are skipped)");
}

TEST_F(CalibrationFiles, SlowdownsJustBelowOneAreNoiseAndOtherModesAreSkipped) {
  const std::string path = write("m.csv", std::string(kHeader) +
                                              "training,inference,mps,0.5,0.5,2.0,1.6\n"
                                              "inference,inference,mps,0.5,0.5,1.5,1.5\n"
                                              "training,training,mig,0.5,0.5,1.0,1.0\n"
                                              "training,interactive,whole-card,1,1,0.97,1.0\n");
  const auto rows = read_measurements_csv(path);
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[3].slowdown_a, 0.97);
  const CalibrationFit f = fit_calibration(rows, builtin_calibration().classes, path, "t");
  EXPECT_EQ(f.calibration.fit.size(), 1U);
  EXPECT_EQ(f.calibration.fit.at("mps").rows, 2U);
}

TEST_F(CalibrationFiles, NegativeCoefficientsDoNotLoad) {
  const std::string path = write("cal.yaml",
                                 "source: old fit\n"
                                 "coefficients:\n"
                                 "  interposer: {bandwidth: -0.995, launch: 0.01}\n");
  const std::string msg = testing::message_of([&] { (void)load_calibration(path); });
  EXPECT_NE(msg.find("coefficients.interposer.bandwidth"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0..100"), std::string::npos) << msg;
}

// The issue's case (tests/sharing/issue13-negative-fit.csv): slowdowns measured against a run
// alone at the same cap, not on the whole GPU, so every capped tenant looks faster than its
// share allows. The unconstrained fit wrote a_bandwidth = -0.997, b_launch = -0.0061 (RMS
// residual 1.17) without a word.
TEST_F(CalibrationFiles, TheIssuesCaseIsHeldAtZeroExplainedAndRefused) {
  const std::string path =
      std::string(SLICELAB_SOURCE_DIR) + "/tests/sharing/issue13-negative-fit.csv";
  const CalibrationFit f =
      fit_calibration(read_measurements_csv(path), builtin_calibration().classes, path, "t");
  const InterferenceCoefficients k = f.calibration.for_mode("interposer");
  EXPECT_EQ(k.bandwidth, 0.0);
  EXPECT_EQ(k.launch, 0.0);
  EXPECT_EQ(f.calibration.fit.at("interposer").explained, 0.0);
  EXPECT_TRUE(f.refused());
  for (const char* why : {"wanted a_bandwidth = -", "wanted b_launch = -",
                          "ran faster than the mode's share model allows",
                          "the model cannot reproduce these measurements"})
    EXPECT_TRUE(mentions(f, why)) << why << " missing from\n" << issue_text(f);
}

}  // namespace
}  // namespace slicelab

// Pins down calibration: least squares recovers known coefficients from synthetic measurements
// (exactly without noise, within 1% with small noise); bad CSVs fail with file:line; the
// shipped default calibration equals the built-in one.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/interference/builtin_calibration.h"
#include "sim/interference/calibration_fit.h"
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
  const Calibration c = fit_calibration(rows, builtin_calibration().classes, "synthetic", "test");
  for (const auto& [mode, k] : kTruth) {
    const InterferenceCoefficients got = c.for_mode(mode);
    EXPECT_NEAR(got.bandwidth, k.bandwidth, 1e-9 * k.bandwidth) << mode;
    EXPECT_NEAR(got.launch, k.launch, 1e-9 * k.launch) << mode;
    EXPECT_LT(c.fit.at(mode).rms, 1e-9) << mode;
    EXPECT_EQ(c.fit.at(mode).observations, 2U * 25U * 2U) << mode;
  }
}

TEST(Calibration, RecoversKnownCoefficientsWithinOnePercentUnderSmallNoise) {
  // 0.1% measurement noise (seeded), 20 repetitions of every pair.
  const auto rows = synthetic(0.001, 20);
  const Calibration c = fit_calibration(rows, builtin_calibration().classes, "synthetic", "test");
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

class CalibrationFiles : public testing::TempFilesTest {
 protected:
  // The error a CSV gives, with the folder stripped from the file name.
  std::string error_of(const std::string& csv_text) {
    const std::string path = write("m.csv", csv_text);
    std::string msg = testing::message_of([&] {
      const auto rows = read_measurements_csv(path);
      fit_calibration(rows, builtin_calibration().classes, path, "test");
    });
    if (msg.rfind(path, 0) == 0) msg = "m.csv" + msg.substr(path.size());
    return msg;
  }
};

TEST_F(CalibrationFiles, WrittenYamlReadsBackTheSameCoefficients) {
  const auto rows = synthetic(0.0, 1);
  Calibration c = fit_calibration(rows, builtin_calibration().classes, "synthetic", "round trip");
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
  EXPECT_EQ(error_of(std::string(kHeader) + "training,inference,mig,0.5,0.5,1.2,1.1\n"),
            "m.csv:2: column 'mode': expected time-slice, mps or interposer, found 'mig'");
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

}  // namespace
}  // namespace slicelab

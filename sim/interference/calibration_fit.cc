#include "sim/interference/calibration_fit.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "sim/sharing/gpu_rate_solver.h"
#include "sim/sharing/sharing_config.h"
#include "workloads/csv_reader.h"
#include "workloads/input_error.h"

namespace slicelab {

std::vector<Measurement> read_measurements_csv(const std::string& path) {
  CsvReader csv(path);
  const size_t c_a = csv.require_column("class_a"), c_b = csv.require_column("class_b"),
               c_mode = csv.require_column("mode"), c_cap_a = csv.require_column("cap_a"),
               c_cap_b = csv.require_column("cap_b"), c_sa = csv.require_column("slowdown_a"),
               c_sb = csv.require_column("slowdown_b");
  std::vector<Measurement> rows;
  while (csv.next()) {
    Measurement m;
    m.line = csv.line();
    m.class_a = csv.field(c_a);
    m.class_b = csv.field(c_b);
    if (m.class_a.empty()) csv.fail_field(c_a, "a workload class name");
    if (m.class_b.empty()) csv.fail_field(c_b, "a workload class name");
    m.mode = csv.field(c_mode);
    if (!is_interfering_mode(m.mode)) csv.fail_field(c_mode, "time-slice, mps or interposer");
    m.cap_a = csv.number(c_cap_a, 0.001, 1.0);
    m.cap_b = csv.number(c_cap_b, 0.001, 1.0);
    // A tenant never runs faster beside a neighbour than alone, by more than measurement noise.
    m.slowdown_a = csv.number(c_sa, 0.5, 1000.0);
    m.slowdown_b = csv.number(c_sb, 0.5, 1000.0);
    rows.push_back(std::move(m));
  }
  if (rows.empty())
    throw InputError(
        fmt::format("{}:2: expected at least one measurement row after the header", path));
  return rows;
}

BaseRates::BaseRates() = default;
BaseRates::~BaseRates() = default;

void BaseRates::pair(const Measurement& m, const WorkloadClasses& classes,
                     std::span<TenantLoad, 2> loads, std::span<double, 2> base) {
  auto it =
      std::find_if(modes_.begin(), modes_.end(), [&](const auto& e) { return e.first == m.mode; });
  if (it == modes_.end()) {
    SharingConfig cfg;
    cfg.kind = m.mode;
    cfg.replicas = 2;  // time-slice: a pair
    modes_.emplace_back(m.mode, make_sharing_mode(cfg));
    it = modes_.end() - 1;
  }
  const WorkloadClass& a = classes[*classes.index_of(m.class_a)];
  const WorkloadClass& b = classes[*classes.index_of(m.class_b)];
  loads[0] = {
      .sm_demand = a.sm, .cap = m.cap_a, .bandwidth = a.bandwidth, .launch_khz = a.launch_khz};
  loads[1] = {
      .sm_demand = b.sm, .cap = m.cap_b, .bandwidth = b.bandwidth, .launch_khz = b.launch_khz};
  std::array<double, 2> errors{};
  solve_gpu_rates(*it->second, loads, base, errors);
}

void predict_slowdowns(const Measurement& m, const WorkloadClasses& classes,
                       const InterferenceCoefficients& c, BaseRates& base, double out[2]) {
  std::array<TenantLoad, 2> loads;
  std::array<double, 2> rates{};
  base.pair(m, classes, loads, rates);
  for (size_t i = 0; i < 2; ++i) out[i] = interference_factor(c, loads, i) / rates[i];
}

Calibration fit_calibration(std::span<const Measurement> rows, const WorkloadClasses& classes,
                            std::string_view file, std::string source) {
  for (const Measurement& m : rows)
    for (const std::string* name : {&m.class_a, &m.class_b})
      if (!classes.index_of(*name)) {
        std::string known;
        for (const WorkloadClass& c : classes.all()) known += (known.empty() ? "" : ", ") + c.name;
        throw InputError(fmt::format("{}:{}: unknown workload class '{}' (known: {})", file, m.line,
                                     *name, known));
      }
  Calibration cal;
  cal.source = std::move(source);
  cal.classes = classes;
  BaseRates base;
  for (const std::string_view mode : kInterferingModes) {
    std::vector<const Measurement*> mine;
    for (const Measurement& m : rows)
      if (m.mode == mode) mine.push_back(&m);
    if (mine.empty()) continue;
    const Eigen::Index n = static_cast<Eigen::Index>(2 * mine.size());
    Eigen::MatrixXd x(n, 2);
    Eigen::VectorXd y(n);
    for (size_t r = 0; r < mine.size(); ++r) {
      const Measurement& m = *mine[r];
      std::array<TenantLoad, 2> loads;
      std::array<double, 2> rates{};
      base.pair(m, classes, loads, rates);
      const double slowdown[2] = {m.slowdown_a, m.slowdown_b};
      for (size_t i = 0; i < 2; ++i) {
        const InterferenceFeatures f = interference_features(loads, i);
        const Eigen::Index k = static_cast<Eigen::Index>(2 * r + i);
        x(k, 0) = f.bandwidth;
        x(k, 1) = f.launch;
        y(k) = slowdown[i] * rates[i] - 1.0;
      }
    }
    // A regressor that is zero in every row (e.g. no class states a launch rate) cannot be
    // fitted: its coefficient stays 0 and the other is fitted alone.
    std::vector<Eigen::Index> active;
    for (Eigen::Index j = 0; j < 2; ++j)
      if (x.col(j).norm() > 1e-12) active.push_back(j);
    InterferenceCoefficients k;
    if (!active.empty()) {
      Eigen::MatrixXd xa(n, static_cast<Eigen::Index>(active.size()));
      for (size_t j = 0; j < active.size(); ++j)
        xa.col(static_cast<Eigen::Index>(j)) = x.col(active[j]);
      const auto qr = xa.colPivHouseholderQr();
      if (qr.rank() < xa.cols())
        throw InputError(fmt::format(
            "{}:{}: mode {}: the measurements cannot tell the bandwidth and launch effects apart "
            "(expected class pairs whose bandwidth products and launch rates vary independently)",
            file, mine.front()->line, mode));
      const Eigen::VectorXd coef = qr.solve(y);
      for (size_t j = 0; j < active.size(); ++j)
        (active[j] == 0 ? k.bandwidth : k.launch) = coef(static_cast<Eigen::Index>(j));
    }
    cal.coefficients[std::string(mode)] = k;
    FitQuality q;
    double sum2 = 0;
    for (const Measurement* m : mine) {
      double pred[2];
      predict_slowdowns(*m, classes, k, base, pred);
      for (const double r : {m->slowdown_a - pred[0], m->slowdown_b - pred[1]}) {
        sum2 += r * r;
        q.max = std::max(q.max, std::abs(r));
        ++q.observations;
      }
    }
    q.rms = std::sqrt(sum2 / static_cast<double>(q.observations));
    cal.fit[std::string(mode)] = q;
  }
  return cal;
}

}  // namespace slicelab

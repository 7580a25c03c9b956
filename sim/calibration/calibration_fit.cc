#include "sim/calibration/calibration_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/interference/nonnegative_least_squares.h"
#include "sim/modes/mode_registry.h"
#include "sim/modes/time_slice/time_slice_settings.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "workloads/csv_reader.h"
#include "workloads/input_error.h"

namespace slicelab {

namespace {

// Modes the kernels harness measures whose tenants share no SMs: read, then skipped by the fit.
constexpr std::string_view kNonInterferingModes[] = {"whole-card", "mig"};

bool is_measured_mode(std::string_view mode) {
  return is_interfering_mode(mode) ||
         std::find(std::begin(kNonInterferingModes), std::end(kNonInterferingModes), mode) !=
             std::end(kNonInterferingModes);
}

double slowdown(const CsvReader& csv, size_t column) {
  double v = 0;
  if (parse_csv_number(csv.field(column), v) && v < 1.0 - kSlowdownNoise)
    csv.fail_field(column, fmt::format("a slowdown of at least {} (a tenant never runs faster "
                                       "beside a neighbour than alone; below 1 only by noise)",
                                       1.0 - kSlowdownNoise));
  return csv.number(column, 1.0 - kSlowdownNoise, 1000.0);
}

// One mode's stacked equations: row k of `a` (column-major, 2 columns) and `b` is one tenant.
struct ModeSystem {
  struct Observation {
    size_t line = 0;
    char tenant = 'a';
    double measured = 1, share_only = 1;  // slowdown measured, and 1/base
  };
  std::vector<double> a, b;
  std::vector<Observation> obs;
};

ModeSystem build_system(std::span<const Measurement* const> mine, const WorkloadClasses& classes,
                        BaseRates& base, std::string_view file) {
  ModeSystem sys;
  const size_t n = 2 * mine.size();
  sys.a.assign(2 * n, 0.0);
  sys.b.assign(n, 0.0);
  for (size_t r = 0; r < mine.size(); ++r) {
    const Measurement& m = *mine[r];
    std::array<TenantLoad, 2> loads;
    std::array<double, 2> rates{};
    base.pair(m, classes, loads, rates);
    const double measured[2] = {m.slowdown_a, m.slowdown_b};
    for (size_t i = 0; i < 2; ++i) {
      if (!(rates[i] > 0.0) || !std::isfinite(rates[i]))
        throw InputError(fmt::format(
            "{}:{}: mode {} gives tenant {} ({}, cap {}) no progress from its share alone (rate "
            "{}): its slowdown cannot be related to the model",
            file, m.line, m.mode, i == 0 ? 'a' : 'b', i == 0 ? m.class_a : m.class_b,
            i == 0 ? m.cap_a : m.cap_b, rates[i]));
      const InterferenceFeatures f = interference_features(loads, i);
      const size_t k = 2 * r + i;
      // Divided by base_i, so that the fit minimises the residual of the slowdown itself.
      sys.a[k] = f.bandwidth / rates[i];
      sys.a[n + k] = f.launch / rates[i];
      sys.b[k] = measured[i] - 1.0 / rates[i];
      sys.obs.push_back({m.line, i == 0 ? 'a' : 'b', measured[i], 1.0 / rates[i]});
    }
  }
  return sys;
}

// What the data of one mode cannot support, appended to `issues`.
void judge(std::string_view mode, size_t rows, const ModeSystem& sys, const NonNegativeFit& nn,
           const FitQuality& q, std::vector<FitIssue>& issues) {
  auto add = [&](bool refuses, std::string text) {
    issues.push_back({std::string(mode), refuses, fmt::format("{}: {}", mode, text)});
  };
  constexpr const char* kName[2] = {"a_bandwidth", "b_launch"};
  constexpr const char* kWhat[2] = {"memory bandwidth", "a kernel launch rate"};
  if (nn.rank == 0) {
    add(true,
        "no tenant in these rows has a neighbour with memory bandwidth or kernel launches "
        "(every regressor is 0): there is nothing to fit");
    return;
  }
  const size_t usable =
      static_cast<size_t>(std::count(nn.zero_column.begin(), nn.zero_column.end(), false));
  if (nn.rank < usable)
    add(true,
        "the rows cannot tell the bandwidth and launch effects apart (bw_i * bw_j and the "
        "neighbour's launch rate are in the same proportion in every row): measure class pairs "
        "whose bandwidth products and launch rates vary independently");
  for (size_t j = 0; j < 2; ++j)
    if (nn.zero_column[j])
      add(false, fmt::format("no tenant in these rows has a neighbour with {}: {} is not fitted "
                             "and stays 0",
                             kWhat[j], kName[j]));
  if (rows < kMinRowsPerMode)
    add(false, fmt::format("only {} measured pair{}: too few to test the model (at least {} "
                           "recommended)",
                           rows, rows == 1 ? "" : "s", kMinRowsPerMode));
  if (!nn.unconstrained.empty())
    for (size_t j = 0; j < 2; ++j)
      if (nn.x[j] == 0.0 && nn.unconstrained[j] < 0.0)
        add(false,
            fmt::format("the unconstrained fit wanted {} = {:.4g}, which would make a "
                        "neighbour speed a tenant up; held at 0{}",
                        kName[j], nn.unconstrained[j],
                        nn.x[1 - j] > 0.0 ? fmt::format(" and {} refitted alone", kName[1 - j])
                                          : std::string()));
  // Faster than the share model allows: measured below 1/base by more than the noise.
  size_t faster = 0;
  const ModeSystem::Observation* worst = nullptr;
  for (const ModeSystem::Observation& o : sys.obs)
    if (o.measured < o.share_only * (1.0 - kSlowdownNoise)) {
      ++faster;
      if (!worst || o.measured / o.share_only < worst->measured / worst->share_only) worst = &o;
    }
  if (worst)
    add(false,
        fmt::format("{} of {} tenants ran faster than the mode's share model allows (worst: line "
                    "{}, tenant {}: slowdown {:.4g} where its share alone gives {:.4g}); check "
                    "that the classes' demand vectors (--classes) are those of the measured work "
                    "and that slowdowns are relative to a run alone on the whole GPU",
                    faster, sys.obs.size(), worst->line, worst->tenant, worst->measured,
                    worst->share_only));
  double mean = 0;
  for (const ModeSystem::Observation& o : sys.obs) mean += o.measured;
  mean /= static_cast<double>(sys.obs.size());
  const double relative = q.rms / mean;
  if (relative > kWarnRelativeResidual) {
    const bool refuses = relative > kRefuseRelativeResidual;
    add(refuses,
        fmt::format(
            "RMS residual {:.3g} is {:.0f}% of the mean measured slowdown {:.3g} (above "
            "{:.0f}%{}): the model {} these measurements",
            q.rms, 100 * relative, mean,
            100 * (refuses ? kRefuseRelativeResidual : kWarnRelativeResidual),
            refuses ? "" : fmt::format(", refused above {:.0f}%", 100 * kRefuseRelativeResidual),
            refuses ? "cannot reproduce" : "reproduces only roughly"));
  }
}

}  // namespace

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
    if (!is_measured_mode(m.mode))
      csv.fail_field(c_mode, "time-slice, mps, interposer, whole-card or mig");
    m.cap_a = csv.number(c_cap_a, 0.001, 1.0);
    m.cap_b = csv.number(c_cap_b, 0.001, 1.0);
    m.slowdown_a = slowdown(csv, c_sa);
    m.slowdown_b = slowdown(csv, c_sb);
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
    // Time-slicing is measured as a pair: two replicas, the mode's default switch overhead.
    if (cfg.kind == "time-slice")
      cfg.set_mode_settings(std::make_shared<TimeSliceSettings>(TimeSliceSettings{.replicas = 2}));
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

bool CalibrationFit::refused() const {
  return std::any_of(issues.begin(), issues.end(), [](const FitIssue& i) { return i.refuses; });
}

CalibrationFit fit_calibration(std::span<const Measurement> rows, const WorkloadClasses& classes,
                               std::string_view file, std::string source) {
  for (const Measurement& m : rows)
    for (const std::string* name : {&m.class_a, &m.class_b})
      if (!classes.index_of(*name)) {
        std::string known;
        for (const WorkloadClass& c : classes.all()) known += (known.empty() ? "" : ", ") + c.name;
        throw InputError(fmt::format("{}:{}: unknown workload class '{}' (known: {})", file, m.line,
                                     *name, known));
      }
  if (std::none_of(rows.begin(), rows.end(),
                   [](const Measurement& m) { return is_interfering_mode(m.mode); }))
    throw InputError(fmt::format(
        "{}: no row of time-slice, mps or interposer: the interference model has nothing to fit "
        "(whole-card and mig rows are skipped)",
        file));
  CalibrationFit out;
  Calibration& cal = out.calibration;
  cal.source = std::move(source);
  cal.classes = classes;
  BaseRates base;
  for (const std::string_view mode : kInterferingModes) {
    std::vector<const Measurement*> mine;
    for (const Measurement& m : rows)
      if (m.mode == mode) mine.push_back(&m);
    if (mine.empty()) continue;
    const ModeSystem sys = build_system(mine, classes, base, file);
    const size_t n = sys.b.size();
    const NonNegativeFit nn = nonnegative_least_squares(sys.a, n, 2, sys.b);
    const InterferenceCoefficients k{nn.x[0], nn.x[1]};
    cal.coefficients[std::string(mode)] = k;
    FitQuality q;
    q.rows = mine.size();
    q.observations = n;
    double sum2 = 0, share2 = 0;
    for (size_t i = 0; i < n; ++i) {
      const double r = sys.b[i] - (sys.a[i] * k.bandwidth + sys.a[n + i] * k.launch);
      sum2 += r * r;
      share2 += sys.b[i] * sys.b[i];
      q.max = std::max(q.max, std::abs(r));
    }
    q.rms = std::sqrt(sum2 / static_cast<double>(n));
    q.explained = share2 > 0 ? std::clamp(1.0 - sum2 / share2, 0.0, 1.0) : 1.0;
    cal.fit[std::string(mode)] = q;
    judge(mode, mine.size(), sys, nn, q, out.issues);
  }
  return out;
}

}  // namespace slicelab

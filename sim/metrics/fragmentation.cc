#include "sim/metrics/fragmentation.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace slicelab {

TargetWorkload TargetWorkload::from_pods(std::span<const PodSpec> pods, const GpuCatalog& catalog,
                                         double coverage) {
  // The paper's PodResource (pkg/type/resource.go): CPU, share of each GPU, GPU count and the
  // GPU type string, compared in that order. CPU-only pods ask for no GPU share.
  struct Shape {
    int64_t cpu;
    int milli;
    int count;
    std::string type;
    bool operator<(const Shape& o) const {
      return std::tie(cpu, milli, count, type) < std::tie(o.cpu, o.milli, o.count, o.type);
    }
    bool operator==(const Shape&) const = default;
  };
  using Count = std::pair<size_t, uint64_t>;  // (pods, model mask)
  std::map<Shape, Count> counts;
  // Most workloads have a handful of shapes: those are counted in a short list searched from
  // the front (a map lookup per pod was a tenth of preparing a million-pod run), and the map
  // takes over only when the list grows long.
  constexpr size_t kListed = 32;
  std::vector<std::pair<Shape, Count>> listed;
  Shape key{0, 0, 0, {}};
  for (const PodSpec& p : pods) {
    key.cpu = p.cpu_milli;
    key.milli = p.gpu_count > 0 ? p.gpu_milli : 0;
    key.count = p.gpu_count;
    // GetPodResource's GpuType is the pod's GPU-model annotation as written (pkg/utils/utils.go):
    // a trace's spelling, repeats included, when the reader kept one; else the list joined.
    key.type.clear();
    if (!p.allowed_models.written().empty()) {
      key.type = p.allowed_models.written();
    } else {
      for (const auto& m : p.allowed_models) key.type += (key.type.empty() ? "" : "|") + m;
    }
    Count* count = nullptr;
    bool fresh = false;
    if (counts.empty()) {
      const auto it =
          std::find_if(listed.begin(), listed.end(), [&](const auto& e) { return e.first == key; });
      if (it != listed.end()) {
        count = &it->second;
      } else if (listed.size() < kListed) {
        count = &listed.emplace_back(key, Count{0, ~uint64_t{0}}).second;
        fresh = true;
      } else {
        for (auto& [shape, c] : listed) counts.emplace(std::move(shape), c);
        listed.clear();
      }
    }
    if (count == nullptr) {
      auto [it, added] = counts.try_emplace(key, 0, ~uint64_t{0});
      count = &it->second;
      fresh = added;
    }
    if (fresh && !p.allowed_models.empty()) {
      count->second = 0;
      for (const auto& m : p.allowed_models)
        if (auto idx = catalog.index_of(m)) count->second |= uint64_t{1} << *idx;
    }
    ++count->first;
  }
  for (auto& [shape, c] : listed) counts.emplace(std::move(shape), c);
  // SortTargetPodInDecreasingCount: sort.Reverse of (count, then PodResource.Less), i.e. more
  // pods first, equal counts by the larger shape first. The map is ascending in shape, so a
  // stable sort by count over its reverse gives exactly that order.
  std::vector<std::pair<const Shape*, std::pair<size_t, uint64_t>>> sorted;
  sorted.reserve(counts.size());
  for (auto it = counts.rbegin(); it != counts.rend(); ++it)
    sorted.emplace_back(&it->first, it->second);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  // GetTypicalPods: shapes from the top while the pods covered so far are below `coverage` of
  // all pods (the shape that crosses it is kept), frequencies renormalised over those kept.
  TargetWorkload t;
  size_t covered = 0;
  for (const auto& [shape, v] : sorted) {
    if (static_cast<double>(covered) >= coverage * static_cast<double>(pods.size())) break;
    t.shapes.push_back(
        {shape->cpu, shape->count, shape->milli, v.second, static_cast<double>(v.first)});
    covered += v.first;
  }
  for (auto& sh : t.shapes) sh.freq /= static_cast<double>(covered);
  return t;
}

double node_fragmentation(const TargetWorkload& target, int64_t cpu_free, uint16_t model,
                          std::span<const int> gpu_free_milli) {
  int64_t total = 0;
  for (const int f : gpu_free_milli) total += f;
  if (total == 0) return 0.0;
  // NodeGpuShareFragAmount (pkg/utils/frag.go) adds each shape's amount to its class's entry,
  // and FragAmountSumExceptQ3 then sums the entries in the classes' order; floating-point
  // addition is not associative, so the same order here (a score of 49.99999999999998 there
  // must not become 50 here).
  enum Class { kQ1LackBoth, kQ2LackGpu, kQ4LackCpu, kXlSatisfied, kXrLackCpu, kNoAccess, kClasses };
  std::array<double, kClasses> amount{};
  // Shapes share few GPU shares (whole cards and one or two fractions), so each share's pass
  // over the GPUs is kept for the shapes after it: on every bind and unbind, this is the run's
  // fragmentation curve (docs/performance.md, "Eighth round").
  struct Pass {
    int milli;
    int fitting;
    int64_t too_small;
  };
  std::array<Pass, 4> passes{};
  size_t pass_count = 0;
  auto pass_for = [&](int milli) {
    for (size_t i = 0; i < pass_count; ++i)
      if (passes[i].milli == milli) return passes[i];
    // Without branches: whether a GPU fits is as random as the cluster's state, and
    // mispredictions were most of this loop's time.
    Pass p{milli, 0, 0};
    for (const int f : gpu_free_milli) {
      const bool fits = f >= milli;
      p.fitting += static_cast<int>(fits);
      p.too_small += fits ? 0 : f;
    }
    if (pass_count < passes.size()) passes[pass_count++] = p;
    return p;
  };
  for (const TargetShape& s : target.shapes) {
    // GetNodePodFrag: a CPU-only shape is xl_satisfied or xr_lack_cpu, and both count all the
    // node's free GPU milli as fragment (FragAmountSumExceptQ3 leaves out q3_satisfied only).
    const bool cpu_ok = cpu_free >= s.cpu_milli;
    if (s.gpu_count == 0) {
      amount[cpu_ok ? kXlSatisfied : kXrLackCpu] += s.freq * static_cast<double>(total);
      continue;
    }
    if (((s.model_mask >> model) & 1U) == 0) {
      amount[kNoAccess] += s.freq * static_cast<double>(total);
      continue;
    }
    const Pass p = pass_for(s.gpu_milli);
    if (p.fitting >= s.gpu_count) {
      // q3_satisfied: the GPUs too small for the shape count as q2_lack_gpu; q4 when CPU lacks.
      if (cpu_ok) {
        amount[kQ2LackGpu] += s.freq * static_cast<double>(p.too_small);
      } else {
        amount[kQ4LackCpu] += s.freq * static_cast<double>(total);
      }
    } else {
      amount[cpu_ok ? kQ2LackGpu : kQ1LackBoth] += s.freq * static_cast<double>(total);
    }
  }
  double frag = 0;
  for (const double a : amount) frag += a;
  return frag;
}

}  // namespace slicelab

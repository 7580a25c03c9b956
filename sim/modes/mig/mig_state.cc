#include "sim/modes/mig/mig_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>

#include "workloads/input_limits.h"

namespace slicelab {

MigState::MigState(const ClusterState& cluster, const GpuCatalog& catalog,
                   const MigSettings& settings, std::span<const PodSpec> pods,
                   PodRequestView requests)
    : cluster_(cluster),
      settings_(settings),
      pods_(pods),
      req_(requests),
      models_(catalog.models().size()) {
  for (const GpuModel& m : catalog.models()) {
    table_.push_back(mig_table_for(m.name));
    model_memory_.push_back(m.memory_mib);
  }
  const size_t gpus = cluster.gpu_count();
  mig_on_.assign(gpus, 0);
  inst_profile_.assign(gpus * kInstanceSlotsPerGpu, kWhole);
  inst_start_.assign(gpus * kInstanceSlotsPerGpu, 0);
  inst_pod_.assign(gpus * kInstanceSlotsPerGpu, kFree);
  inst_count_.assign(gpus, 0);
  used_slices_.assign(gpus, 0);
  busy_until_.assign(gpus, -1.0);
  wanted_.assign(models_ * kProfileSlotsPerModel, 0);
  free_gpus_.assign(models_ * kProfileSlotsPerModel, 0.0);
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    const MigTable* table = table_[cluster.model(n)];
    const std::string& model = catalog.models()[cluster.model(n)].name;
    for (int i = 0; i < cluster.gpus_on(n); ++i) {
      const GpuId g = cluster.first_gpu(n) + static_cast<GpuId>(i);
      const MigDeviceRule* rule = nullptr;
      for (const MigDeviceRule& r : settings.rules)
        if (r.applies_to(i, model)) {
          rule = &r;
          break;
        }
      const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
      if (table && rule && rule->mig_enabled) {
        mig_on_[g] = 1;
        const auto placements = place_layout(*table, rule->mig_devices);
        for (const MigPlacement& pl : placements) {
          const size_t k = inst_count_[g]++;
          inst_profile_[base + k] = static_cast<int8_t>(pl.profile);
          inst_start_[base + k] = pl.start;
          count_free(g, k, +1);
        }
      } else if (table && settings.dynamic && !rule) {
        mig_on_[g] = 1;  // MIG on, no instances yet: created on demand
      } else {
        inst_count_[g] = 1;  // the whole card
      }
    }
  }
  const size_t n = pods.size();
  pod_profile_.assign(n * models_, kNone);
  waiting_.assign(n, 0);
  for (size_t p = 0; p < n; ++p) {
    if (pods[p].gpu_count == 0) continue;
    waiting_[p] = 1;
    for (size_t m = 0; m < models_; ++m) {
      if (!table_[m] || ((requests[p].model_mask >> m) & 1U) == 0) continue;
      const int8_t q = profile_for(*table_[m], pods[p]);
      pod_profile_[p * models_ + m] = q;
      if (q >= 0) ++wanted_[m * kProfileSlotsPerModel + static_cast<size_t>(q)];
    }
  }
}

int8_t MigState::profile_for(const MigTable& table, const PodSpec& pod) {
  if (!pod.mig_profile.empty()) {
    const auto idx = table.find(pod.mig_profile);
    return idx ? static_cast<int8_t>(*idx) : kNone;
  }
  int8_t best = kNone;
  for (size_t i = 0; i < table.profiles.size(); ++i) {
    const MigProfile& p = table.profiles[i];
    if (p.media_extensions) continue;
    if (p.compute_slices * 1000 < pod.gpu_milli * table.compute_slices) continue;
    if (p.memory_mib() < pod.gpu_memory_mib) continue;
    if (best >= 0) {
      const MigProfile& b = table.profiles[static_cast<size_t>(best)];
      if (std::pair(b.compute_slices, b.memory_slots) <=
          std::pair(p.compute_slices, p.memory_slots))
        continue;
    }
    best = static_cast<int8_t>(i);
  }
  return best;
}

int8_t MigState::pod_profile(uint32_t p, GpuId g) const {
  const uint16_t m = cluster_.model(cluster_.node_of(g));
  if (!mig_on_[g]) {
    const bool ok = pods_[p].mig_profile.empty() && ((req_[p].model_mask >> m) & 1U) != 0 &&
                    pods_[p].gpu_memory_mib <= model_memory_[m];
    return ok ? kWhole : kNone;
  }
  return pod_profile_[p * models_ + m];
}

bool MigState::has_profile(GpuId g, int8_t q) const {
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  for (size_t k = 0; k < inst_count_[g]; ++k)
    if (inst_profile_[base + k] == q) return true;
  return false;
}

std::optional<std::string> MigState::never_fits(uint32_t p) const {
  const PodSpec& s = pods_[p];
  for (NodeId n = 0; n < cluster_.node_count(); ++n) {
    int could = 0;  // GPUs of the node that could ever host it
    for (GpuId g = cluster_.first_gpu(n); g < cluster_.first_gpu(n + 1); ++g) {
      const int8_t q = pod_profile(p, g);
      could += q != kNone && (q == kWhole || settings_.dynamic || has_profile(g, q)) ? 1 : 0;
    }
    if (could >= s.gpu_count) return std::nullopt;
  }
  if (s.gpu_count > 1)
    return fmt::format("no node has {} GPUs with a {} instance{}", s.gpu_count,
                       s.mig_profile.empty() ? "fitting" : s.mig_profile,
                       settings_.dynamic ? "" : " in the layout");
  if (!s.mig_profile.empty())
    return fmt::format("no GPU offers MIG profile {}{}", s.mig_profile,
                       settings_.dynamic ? "" : " in the layout");
  return fmt::format("no MIG instance{} has {} milli of compute and {} MiB",
                     settings_.dynamic ? " profile" : " in the layout", s.gpu_milli,
                     s.gpu_memory_mib);
}

bool MigState::fits_now(GpuId g, uint32_t p, double now) const {
  if (busy_until_[g] > now) return false;
  const int8_t q = pod_profile(p, g);
  if (q == kNone) return false;
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  for (size_t k = 0; k < inst_count_[g]; ++k)
    if (inst_profile_[base + k] == q && inst_pod_[base + k] == kFree) return true;
  return false;
}

bool MigState::can_reconfigure(GpuId g, uint32_t p, double now) const {
  if (!settings_.dynamic || !mig_on_[g] || busy_until_[g] > now) return false;
  const int8_t q = pod_profile(p, g);
  if (q < 0) return false;
  const MigTable& table = *table_[cluster_.model(cluster_.node_of(g))];
  // The instances that stay are those held by pods; free ones are destroyed and recreated.
  std::array<MigPlacement, kInstanceSlotsPerGpu> kept{};
  size_t n = 0;
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  for (size_t k = 0; k < inst_count_[g]; ++k)
    if (inst_pod_[base + k] != kFree)
      kept[n++] = {static_cast<uint8_t>(inst_profile_[base + k]), inst_start_[base + k]};
  return start_for_extra(table, std::span(kept).first(n), static_cast<size_t>(q)) >= 0;
}

std::string MigState::profile_name(uint32_t p, GpuId g) const {
  const int8_t q = pod_profile(p, g);
  if (q == kWhole) return "whole GPU";
  if (q < 0) return {};
  return table_[cluster_.model(cluster_.node_of(g))]->profiles[static_cast<size_t>(q)].name;
}

std::string MigState::layout_text(GpuId g) const {
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  if (inst_count_[g] == 0) return "no instances";
  std::vector<std::string> parts;
  for (size_t k = 0; k < inst_count_[g]; ++k) {
    const int8_t q = inst_profile_[base + k];
    const std::string name = q < 0
                                 ? std::string("whole GPU, MIG off")
                                 : placement_name(*table_[cluster_.model(cluster_.node_of(g))],
                                                  {static_cast<uint8_t>(q), inst_start_[base + k]});
    parts.push_back(fmt::format("{} {}", name, inst_pod_[base + k] == kFree ? "free" : "in use"));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string MigState::misfit(GpuId g, uint32_t p, double now, bool reconfigure) const {
  if (busy_until_[g] > now) return "being re-partitioned";
  const int8_t q = pod_profile(p, g);
  if (q == kNone)
    return mig_on_[g] ? "no MIG profile of this GPU model fits the pod"
                      : "MIG is off and the pod cannot take the whole GPU";
  if (fits_now(g, p, now)) return {};
  if (q == kWhole) return "MIG is off and the whole GPU is in use";
  if (reconfigure && can_reconfigure(g, p, now)) return {};
  const std::string name = profile_name(p, g);
  if (reconfigure)
    return fmt::format("re-partitioning leaves no room for a {} beside the instances in use", name);
  if (has_profile(g, q)) return fmt::format("every {} instance of the layout is in use", name);
  return fmt::format("the layout has no {} instance", name);
}

int MigState::usable_gpus(NodeId n, uint32_t p, double now) const {
  int c = 0;
  for (GpuId g = cluster_.first_gpu(n); g < cluster_.first_gpu(n + 1); ++g)
    c += fits_now(g, p, now) ? 1 : 0;
  return c;
}

int MigState::usable_or_reconfigurable_gpus(NodeId n, uint32_t p, double now) const {
  int c = 0;
  for (GpuId g = cluster_.first_gpu(n); g < cluster_.first_gpu(n + 1); ++g)
    c += fits_now(g, p, now) || can_reconfigure(g, p, now) ? 1 : 0;
  return c;
}

int MigState::choose(NodeId n, uint32_t p, double now, bool reconfigure_allowed,
                     std::span<GpuId> out) {
  const size_t need = static_cast<size_t>(pods_[p].gpu_count);
  // (-used share in 1/28ths, gpu): fullest first, then the lower index.
  std::array<std::pair<int, GpuId>, kMaxGpusPerNode> usable{}, other{};
  size_t nu = 0, no = 0;
  for (GpuId g = cluster_.first_gpu(n); g < cluster_.first_gpu(n + 1) && nu < usable.size(); ++g) {
    const MigTable* t = table_[cluster_.model(n)];
    const int used = mig_on_[g] && t ? used_slices_[g] * 28 / t->compute_slices : 0;
    if (fits_now(g, p, now))
      usable[nu++] = {-used, g};
    else if (reconfigure_allowed && can_reconfigure(g, p, now))
      other[no++] = {-used, g};
  }
  std::sort(usable.begin(), usable.begin() + static_cast<std::ptrdiff_t>(nu));
  std::sort(other.begin(), other.begin() + static_cast<std::ptrdiff_t>(no));
  size_t k = 0;
  for (size_t i = 0; i < nu && k < need; ++i) out[k++] = usable[i].second;
  int reconfigured = 0;
  for (size_t i = 0; i < no && k < need; ++i) {
    reconfigure(other[i].second, p, now);
    out[k++] = other[i].second;
    ++reconfigured;
  }
  assert(k == need);
  return reconfigured;
}

void MigState::reconfigure(GpuId g, uint32_t p, double now) {
  const MigTable& table = *table_[cluster_.model(cluster_.node_of(g))];
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  size_t keep = 0;
  for (size_t k = 0; k < inst_count_[g]; ++k) {
    if (inst_pod_[base + k] == kFree) {
      count_free(g, k, -1);
      continue;
    }
    inst_profile_[base + keep] = inst_profile_[base + k];
    inst_start_[base + keep] = inst_start_[base + k];
    inst_pod_[base + keep] = inst_pod_[base + k];
    ++keep;
  }
  kept_.clear();
  for (size_t k = 0; k < keep; ++k)
    kept_.push_back({static_cast<uint8_t>(inst_profile_[base + k]), inst_start_[base + k]});
  const int8_t q = pod_profile(p, g);
  const int start = start_for_extra(table, kept_, static_cast<size_t>(q));
  assert(start >= 0);
  inst_profile_[base + keep] = q;
  inst_start_[base + keep] = static_cast<uint8_t>(start);
  inst_pod_[base + keep] = kFree;
  inst_count_[g] = static_cast<uint8_t>(keep + 1);
  busy_until_[g] = now + settings_.reconfigure_s;
  ++reconfigurations_;
  reconfiguration_gpu_s_ += settings_.reconfigure_s;
  // The new instance is taken by p at once (occupy), so it is never counted free.
  count_free(g, keep, +1);
}

size_t MigState::slot(GpuId g, uint32_t p) const {
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  for (size_t k = 0; k < inst_count_[g]; ++k)
    if (inst_pod_[base + k] == p) return k;
  assert(false && "pod holds no instance on this GPU");
  return 0;
}

void MigState::occupy(GpuId g, uint32_t p) {
  const int8_t q = pod_profile(p, g);
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  size_t best = kInstanceSlotsPerGpu;
  for (size_t k = 0; k < inst_count_[g]; ++k)
    if (inst_profile_[base + k] == q && inst_pod_[base + k] == kFree &&
        (best == kInstanceSlotsPerGpu || inst_start_[base + k] < inst_start_[base + best]))
      best = k;
  assert(best < kInstanceSlotsPerGpu);
  inst_pod_[base + best] = p;
  count_free(g, best, -1);
  if (q >= 0)
    used_slices_[g] += table_[cluster_.model(cluster_.node_of(g))]
                           ->profiles[static_cast<size_t>(q)]
                           .compute_slices;
}

void MigState::release(GpuId g, uint32_t p) {
  const size_t k = slot(g, p);
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  inst_pod_[base + k] = kFree;
  count_free(g, k, +1);
  const int8_t q = inst_profile_[base + k];
  if (q >= 0)
    used_slices_[g] -= table_[cluster_.model(cluster_.node_of(g))]
                           ->profiles[static_cast<size_t>(q)]
                           .compute_slices;
}

void MigState::count_free(GpuId g, size_t k, int sign) {
  const int8_t q = inst_profile_[static_cast<size_t>(g) * kInstanceSlotsPerGpu + k];
  if (q < 0) return;  // whole cards are not MIG instances
  const uint16_t m = cluster_.model(cluster_.node_of(g));
  const MigTable& t = *table_[m];
  free_gpus_[static_cast<size_t>(m) * kProfileSlotsPerModel + static_cast<size_t>(q)] +=
      sign * static_cast<double>(t.profiles[static_cast<size_t>(q)].compute_slices) /
      static_cast<double>(t.compute_slices);
}

double MigState::sm_share(GpuId g, uint32_t p) const {
  const int8_t q = inst_profile_[static_cast<size_t>(g) * kInstanceSlotsPerGpu + slot(g, p)];
  if (q < 0) return 1.0;
  const MigTable& t = *table_[cluster_.model(cluster_.node_of(g))];
  return static_cast<double>(t.profiles[static_cast<size_t>(q)].sms) /
         static_cast<double>(t.sm_count);
}

int64_t MigState::instance_memory_mib(GpuId g, uint32_t p) const {
  const int8_t q = inst_profile_[static_cast<size_t>(g) * kInstanceSlotsPerGpu + slot(g, p)];
  const uint16_t m = cluster_.model(cluster_.node_of(g));
  if (q < 0) return model_memory_[m];
  return table_[m]->profiles[static_cast<size_t>(q)].memory_mib();
}

int MigState::claim_units(GpuId g, uint32_t p) const {
  const int8_t q = pod_profile(p, g);
  if (q < 0) return 28;
  const MigTable& t = *table_[cluster_.model(cluster_.node_of(g))];
  return t.profiles[static_cast<size_t>(q)].compute_slices * 28 / t.compute_slices;
}

std::string MigState::instance_name(GpuId g, uint32_t p) const {
  const size_t k = slot(g, p);
  const int8_t q = inst_profile_[static_cast<size_t>(g) * kInstanceSlotsPerGpu + k];
  if (q < 0) return "whole GPU";
  const MigTable& t = *table_[cluster_.model(cluster_.node_of(g))];
  return placement_name(
      t, {static_cast<uint8_t>(q), inst_start_[static_cast<size_t>(g) * kInstanceSlotsPerGpu + k]});
}

const std::vector<MigPlacement> MigState::layout(GpuId g) const {
  std::vector<MigPlacement> out;
  const size_t base = static_cast<size_t>(g) * kInstanceSlotsPerGpu;
  for (size_t k = 0; k < inst_count_[g]; ++k)
    if (inst_profile_[base + k] >= 0)
      out.push_back({static_cast<uint8_t>(inst_profile_[base + k]), inst_start_[base + k]});
  std::sort(out.begin(), out.end(),
            [](MigPlacement a, MigPlacement b) { return a.start < b.start; });
  return out;
}

void MigState::pod_left_queue(uint32_t p) {
  if (!waiting_[p]) return;
  waiting_[p] = 0;
  for (size_t m = 0; m < models_; ++m) {
    const int8_t q = pod_profile_[p * models_ + m];
    if (q >= 0) --wanted_[m * kProfileSlotsPerModel + static_cast<size_t>(q)];
  }
}

double MigState::stranded_gpus() const {
  double s = 0;
  for (size_t i = 0; i < wanted_.size(); ++i)
    if (wanted_[i] == 0) s += free_gpus_[i];
  return std::max(0.0, s);
}

}  // namespace slicelab

#include "sim/modes/dra/dra_claim_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "workloads/input_error.h"

namespace slicelab {
namespace {

constexpr int64_t kBytesPerMiB = int64_t{1} << 20;

std::string where(const DraSourceLocation& l) {
  return l.file.empty() ? std::string("ResourceSlice")
                        : fmt::format("{}:{}:{}", l.file, l.line, l.column);
}

// The key of the physical GPU a device lives on: a MIG device's parentUUID, a GPU's uuid, the
// counter set a partition consumes, or else the device itself.
std::string physical_key(const DraResourceSlice& s, const DraDevice& d) {
  for (const char* attr : {"/parentUUID", "/uuid"}) {
    if (const DraAttribute* a = d.find_attribute(s.driver + attr)) return a->string_value;
  }
  if (!d.consumes_counters.empty()) return "counters:" + d.consumes_counters[0].counter_set;
  return "device:" + d.name;
}

}  // namespace

DraClaimState::DraClaimState(const DraSettings& settings, const ClusterState& cluster,
                             std::span<const PodSpec> pods)
    : settings_(settings),
      cluster_(cluster),
      pods_(pods),
      live_(
          *settings.model, *settings.selectors,
          [&] {
            std::vector<std::string> names;
            for (NodeId n = 0; n < cluster.node_count(); ++n) names.push_back(cluster.node_name(n));
            return names;
          }(),
          settings.max_steps),
      probe_(
          *settings.model, *settings.selectors,
          [&] {
            std::vector<std::string> names;
            for (NodeId n = 0; n < cluster.node_count(); ++n) names.push_back(cluster.node_name(n));
            return names;
          }(),
          settings.max_steps) {
  map_devices(cluster);
  add_pod_claims(pods);
  pod_devices_.resize(pods.size());
  reserved_.assign(pods.size(), 0);
  open_record_.assign(live_.claim_count(), -1);
  // Pods with the same claim specs share their fits() answers; the table is nodes x distinct
  // spec lists, so past kMaxMemo entries the further lists are not kept (asked each time).
  constexpr size_t kMaxMemo = size_t{1} << 22;
  std::map<std::vector<uint32_t>, uint32_t> keys;
  fit_key_.assign(pods.size(), kNoMemo);
  for (uint32_t p = 0; p < pods.size(); ++p) {
    if (!has_claims(p)) continue;
    std::vector<uint32_t> specs;
    for (const DraClaimId c : claims_of(p)) specs.push_back(live_.claim_spec_index(c));
    const auto it = keys.find(specs);
    if (it != keys.end()) {
      fit_key_[p] = it->second;
    } else if ((keys.size() + 1) * cluster.node_count() <= kMaxMemo) {
      fit_key_[p] = static_cast<uint32_t>(keys.size());
      keys.emplace(std::move(specs), fit_key_[p]);
    }
  }
  fit_memo_.resize(keys.size() * cluster.node_count());
}

bool DraClaimState::fits(uint32_t pod, NodeId node) {
  const auto claims = claims_of(pod);
  const uint32_t key = fit_key_[pod];
  const bool any_allocated = std::any_of(
      claims.begin(), claims.end(), [&](DraClaimId c) { return live_.allocation(c).has_value(); });
  if (key == kNoMemo || any_allocated) return live_.can_allocate(claims, node);
  FitMemo& m = fit_memo_[static_cast<size_t>(key) * cluster_.node_count() + node];
  const uint64_t version = live_.node_version(node);
  if (m.fits < 0 || m.version != version) {
    m.version = version;
    m.fits = live_.can_allocate(claims, node) ? 1 : 0;
  }
  return m.fits == 1;
}

void DraClaimState::map_devices(const ClusterState& cluster) {
  const DraModel& m = *settings_.model;
  std::unordered_map<std::string, NodeId> node_of;
  for (NodeId n = 0; n < cluster.node_count(); ++n) node_of.emplace(cluster.node_name(n), n);
  // Per node, the physical GPUs in order of first appearance: the i-th is the node's GPU i.
  std::vector<std::vector<std::string>> keys(cluster.node_count());
  devices_.resize(m.resource_slices.size());
  // The slices of each (driver, pool), where a partition's counter sets are looked up.
  std::map<std::pair<std::string_view, std::string_view>, std::vector<const DraResourceSlice*>>
      pools;
  for (const DraResourceSlice& s : m.resource_slices) pools[{s.driver, s.pool.name}].push_back(&s);
  for (size_t si = 0; si < m.resource_slices.size(); ++si) {
    const DraResourceSlice& s = m.resource_slices[si];
    devices_[si].resize(s.devices.size());
    if (s.devices.empty()) continue;  // a slice of shared counters only
    if (!s.node_name) {
      throw InputError(fmt::format(
          "{}: ResourceSlice {}: slicelab places devices on a node's GPUs; this slice has no "
          "nodeName (allNodes and nodeSelector slices are not modelled)",
          where(s.location), s.name));
    }
    const auto node = node_of.find(*s.node_name);
    if (node == node_of.end()) {
      throw InputError(fmt::format("{}: ResourceSlice {}: node {} is not in the cluster",
                                   where(s.location), s.name, *s.node_name));
    }
    const NodeId n = node->second;
    for (size_t di = 0; di < s.devices.size(); ++di) {
      const DraDevice& d = s.devices[di];
      const std::string key = physical_key(s, d);
      auto& list = keys[n];
      auto it = std::find(list.begin(), list.end(), key);
      if (it == list.end()) {
        if (static_cast<int>(list.size()) == cluster.gpus_on(n)) {
          throw InputError(fmt::format(
              "{}: ResourceSlice {}: device {} would be GPU {} of node {}, which has {}",
              where(d.location.file.empty() ? s.location : d.location), s.name, d.name,
              list.size() + 1, *s.node_name, cluster.gpus_on(n)));
        }
        list.push_back(key);
        it = list.end() - 1;
      }
      DeviceInfo& info = devices_[si][di];
      info.gpu = cluster.first_gpu(n) + static_cast<GpuId>(it - list.begin());
      // A partition: its share of the parent's SMs is the multiprocessors (or compute) counter
      // it consumes over the set's total.
      double frac = 1.0, any = 1.0;
      for (const DraDeviceCounterConsumption& use : d.consumes_counters) {
        for (const DraResourceSlice* other : pools[{s.driver, s.pool.name}]) {
          for (const DraCounterSet& set : other->shared_counters) {
            if (set.name != use.counter_set) continue;
            for (const DraCounter& c : use.counters) {
              for (const DraCounter& total : set.counters) {
                if (total.name != c.name || total.value.value <= 0) continue;
                const double f =
                    static_cast<double>(c.value.value) / static_cast<double>(total.value.value);
                any = std::min(any, f);
                if (c.name.find("multiprocessors") != std::string::npos ||
                    c.name.find("compute") != std::string::npos) {
                  frac = std::min(frac, f);
                }
              }
            }
          }
        }
      }
      if (frac == 1.0) frac = any;
      if (frac < 1.0) {
        info.sm_fraction = frac;
        if (const DraDeviceCapacity* mem = d.find_capacity(s.driver + "/memory")) {
          info.memory_mib = mem->value.value / kBytesPerMiB;
        }
      }
    }
  }
}

void DraClaimState::add_pod_claims(std::span<const PodSpec> pods) {
  const DraModel& m = *settings_.model;
  std::unordered_map<std::string_view, const DraPod*> pod_objects;
  for (const DraPod& p : m.pods) pod_objects.emplace(p.name, &p);
  if (!settings_.device_class.empty() && m.find_device_class(settings_.device_class) == nullptr) {
    throw InputError(
        fmt::format("sharing mode dra: device_class {} is not among the DeviceClasses read",
                    settings_.device_class));
  }
  std::map<std::pair<int, int64_t>, const DraResourceClaimSpec*> made;
  claim_begin_.push_back(0);
  // Most pods add one claim: room for them up front.
  live_.reserve_claims(live_.claim_count() + pods.size());
  probe_.reserve_claims(probe_.claim_count() + pods.size());
  for (const PodSpec& pod : pods) {
    const std::string name(pod.name.view());
    const auto obj = pod_objects.find(name);
    if (obj != pod_objects.end()) {
      const DraPod& p = *obj->second;
      for (const DraPodResourceClaim& rc : p.resource_claims) {
        if (!rc.resource_claim_name.empty()) {
          const auto id = live_.find_claim(p.namespace_name, rc.resource_claim_name);
          if (!id) {
            throw InputError(fmt::format("{}:{}:{}: pod {}: ResourceClaim {}/{} not found",
                                         p.location.file, p.location.line, p.location.column, name,
                                         p.namespace_name, rc.resource_claim_name));
          }
          claim_ids_.push_back(*id);
          continue;
        }
        size_t t = 0;
        while (t < m.resource_claim_templates.size() &&
               !(m.resource_claim_templates[t].name == rc.resource_claim_template_name &&
                 m.resource_claim_templates[t].namespace_name == p.namespace_name)) {
          ++t;
        }
        if (t == m.resource_claim_templates.size()) {
          throw InputError(fmt::format("{}:{}:{}: pod {}: ResourceClaimTemplate {}/{} not found",
                                       p.location.file, p.location.line, p.location.column, name,
                                       p.namespace_name, rc.resource_claim_template_name));
        }
        claim_ids_.push_back(
            live_.add_claim_from_template(t, name + "-" + rc.name, p.namespace_name));
        probe_.add_claim_from_template(t, name + "-" + rc.name, p.namespace_name);
      }
    } else if (pod.gpu_count > 0 && !settings_.device_class.empty()) {
      const int64_t mem = settings_.request_memory ? pod.gpu_memory_mib : 0;
      const DraResourceClaimSpec*& spec = made[{pod.gpu_count, mem}];
      if (spec == nullptr) {
        auto s = std::make_unique<DraResourceClaimSpec>();
        DraDeviceRequest r;
        r.name = "gpu";
        r.exactly.emplace();
        r.exactly->device_class_name = settings_.device_class;
        r.exactly->count = pod.gpu_count;
        if (mem > 0) {
          r.exactly->capacity_requests.push_back(
              {"memory", {mem * kBytesPerMiB, format_dra_quantity(mem * kBytesPerMiB)}});
        }
        s->requests.push_back(std::move(r));
        spec = s.get();
        made_specs_.push_back(std::move(s));
      }
      claim_ids_.push_back(live_.add_claim(*spec, name + "-gpu", settings_.namespace_name));
      probe_.add_claim(*spec, name + "-gpu", settings_.namespace_name);
    }
    claim_begin_.push_back(static_cast<uint32_t>(claim_ids_.size()));
  }
}

double DraClaimState::thread_share(const DraAllocationResult& a) const {
  for (const DraDeviceAllocationConfiguration& c : a.config) {
    const auto& g = c.opaque.gpu_config;
    if (g && g->sharing && g->sharing->strategy == "MPS" && g->sharing->mps_config &&
        g->sharing->mps_config->default_active_thread_percentage) {
      return std::clamp(*g->sharing->mps_config->default_active_thread_percentage, 1, 100) / 100.0;
    }
  }
  return 1.0;
}

bool DraClaimState::reserve(uint32_t pod, NodeId node, double now_s, std::span<GpuId> gpus,
                            int& claim_units) {
  const auto claims = claims_of(pod);
  if (!live_.allocate(claims, node)) return false;
  std::vector<PodDevice>& held = pod_devices_[pod];
  held.clear();
  int units = 0;
  size_t distinct = 0;
  bool too_many = false;
  for (const DraClaimId c : claims) {
    const DraAllocationResult& a = *live_.allocation(c);
    const double threads = thread_share(a);
    const auto devices = live_.held_devices(c);
    for (size_t i = 0; i < devices.size(); ++i) {
      const DeviceInfo& info = devices_[devices[i].slice][devices[i].device];
      const DraDevice& dev =
          settings_.model->resource_slices[devices[i].slice].devices[devices[i].device];
      double share = info.sm_fraction;
      for (const DraNamedQuantity& used : a.results[i].consumed_capacity) {
        const DraDeviceCapacity* cap = nullptr;
        for (const DraDeviceCapacity& dc : dev.capacity) {
          if (dc.name == used.name) cap = &dc;
        }
        if (cap != nullptr && cap->value.value > 0 && used.name.ends_with("memory")) {
          share = std::min(
              share, static_cast<double>(used.value.value) / static_cast<double>(cap->value.value));
        }
      }
      units = std::max(units, std::max(1, static_cast<int>(std::floor(share * kUnitsPerGpu))));
      held.push_back({info.gpu, std::min(info.sm_fraction, threads), info.memory_mib});
      const bool seen = std::any_of(gpus.begin(), gpus.begin() + static_cast<long>(distinct),
                                    [&](GpuId g) { return g == info.gpu; });
      if (!seen) {
        if (distinct == gpus.size()) {
          too_many = true;
        } else {
          gpus[distinct++] = info.gpu;
        }
      }
    }
  }
  if (too_many || distinct != gpus.size()) {
    live_.release(claims);
    held.clear();
    return false;
  }
  for (const GpuId g : gpus) units = std::min(units, cluster_.gpu_free_units(g));
  claim_units = std::max(units, 0);
  for (const DraClaimId c : claims) {
    if (open_record_[c] >= 0) continue;
    open_record_[c] = static_cast<int32_t>(records_.size());
    records_.push_back({std::string(pods_[pod].name.view()), live_.claim_namespace(c),
                        live_.claim_name(c), cluster_.node_name(node), now_s,
                        *live_.allocation(c)});
  }
  reserved_[pod] = 1;
  return true;
}

void DraClaimState::release(uint32_t pod) {
  if (reserved_[pod] == 0) return;  // nothing reserved (Unreserve is idempotent)
  reserved_[pod] = 0;
  const auto claims = claims_of(pod);
  live_.release(claims);
  for (const DraClaimId c : claims) {
    if (!live_.allocation(c)) open_record_[c] = -1;
  }
  pod_devices_[pod].clear();
}

std::optional<std::string> DraClaimState::never_fits(uint32_t pod) {
  const auto claims = claims_of(pod);
  if (claims.empty()) return std::nullopt;
  std::vector<const DraResourceClaimSpec*> key;
  for (const DraClaimId c : claims) key.push_back(&probe_.claim_spec(c));
  const auto cached = never_cache_.find(key);
  if (cached != never_cache_.end()) return cached->second;
  std::optional<std::string> why;
  std::string first;
  for (NodeId n = 0; n < cluster_.node_count(); ++n) {
    if (probe_.can_allocate(claims, n)) {
      why.reset();
      first.clear();
      break;
    }
    if (first.empty()) first = probe_.last_failure();
    why = "DRA: no node can allocate its claims (" + first + ")";
  }
  never_cache_.emplace(std::move(key), why);
  return why;
}

double DraClaimState::sm_cap(uint32_t pod, GpuId g) const {
  for (const PodDevice& d : pod_devices_[pod]) {
    if (d.gpu == g) return d.sm_cap;
  }
  return 1.0;
}

int64_t DraClaimState::partition_memory_mib(uint32_t pod, GpuId g) const {
  for (const PodDevice& d : pod_devices_[pod]) {
    if (d.gpu == g) return d.partition_mib;
  }
  return -1;
}

}  // namespace slicelab

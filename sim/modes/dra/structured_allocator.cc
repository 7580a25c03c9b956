#include "sim/modes/dra/structured_allocator.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace slicelab {

namespace {

bool apply_request_policy(const std::optional<DraCapacityRequestPolicy>& p, int64_t requested,
                          int64_t& out) {
  if (!p) {
    out = requested;
    return true;
  }
  if (!p->valid_values.empty()) {
    for (const DraQuantity& v : p->valid_values) {
      if (v.value >= requested) {
        out = v.value;
        return true;
      }
    }
    return false;  // above every valid value
  }
  if (p->valid_range) {
    const DraCapacityRequestPolicyRange& r = *p->valid_range;
    const int64_t lo = r.min ? r.min->value : 0;
    int64_t v = std::max(requested, lo);
    if (r.step && r.step->value > 0) {
      const int64_t step = r.step->value;
      v = lo + (v - lo + step - 1) / step * step;
    }
    if (r.max && v > r.max->value) return false;
    out = v;
    return true;
  }
  out = requested;
  return true;
}

bool same_value(const DraAttribute& a, const DraAttribute& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case DraAttributeType::Int:
      return a.int_value == b.int_value;
    case DraAttributeType::Bool:
      return a.bool_value == b.bool_value;
    case DraAttributeType::String:
    case DraAttributeType::Version:
      return a.string_value == b.string_value;
  }
  return false;
}

const DraNamedQuantity* find_request(const DraDeviceSubRequest& req, const DraDeviceCapacity& c) {
  for (const DraNamedQuantity& q : req.capacity_requests) {
    if (q.name == c.name || q.name == c.qualified) return &q;
  }
  return nullptr;
}

bool names(const std::vector<std::string>& list, std::string_view a, std::string_view b) {
  for (const std::string& s : list) {
    if (s == a || s == b) return true;
  }
  return false;
}

bool slice_reaches(const DraResourceSlice& s, const std::string& node) {
  if (s.all_nodes) return true;
  if (s.node_name) return *s.node_name == node;
  if (!s.node_selector) return false;
  for (const DraNodeSelectorTerm& t : s.node_selector->node_selector_terms) {
    bool ok = !t.match_fields.empty() || !t.match_expressions.empty();
    for (const DraNodeSelectorRequirement& r : t.match_fields) {
      const bool in = r.key == "metadata.name" &&
                      std::find(r.values.begin(), r.values.end(), node) != r.values.end();
      if (r.op == "In" ? !in : r.op == "NotIn" ? in : true) ok = false;
    }
    // Nodes carry no labels in slicelab: a label requirement holds only when it asks for absence.
    for (const DraNodeSelectorRequirement& r : t.match_expressions) {
      if (r.op != "NotIn" && r.op != "DoesNotExist") ok = false;
    }
    if (ok) return true;
  }
  return false;
}

}  // namespace

std::string format_dra_quantity(int64_t value) {
  static constexpr const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (value == 0 || value % 1024 != 0) return std::to_string(value);
  int i = -1;
  while (i < 5 && value % 1024 == 0) {
    value /= 1024;
    ++i;
  }
  return std::to_string(value) + kSuffix[i];
}

DraStructuredAllocator::DraStructuredAllocator(const DraModel& model,
                                               const DraSelectorEvaluator& selectors,
                                               std::vector<std::string> node_names,
                                               int64_t max_steps,
                                               std::chrono::milliseconds time_limit)
    : model_(model),
      selectors_(selectors),
      node_names_(std::move(node_names)),
      max_steps_(max_steps),
      time_limit_(time_limit) {
  if (max_steps < 1 || max_steps > kMaxMaxSteps)
    throw std::invalid_argument("DraStructuredAllocator: max_steps " + std::to_string(max_steps) +
                                " outside 1.." + std::to_string(kMaxMaxSteps));
  // Pools: the slices of each (driver, pool) at its highest generation; complete when there are
  // as many as resourceSliceCount says.
  const auto& slices = model_.resource_slices;
  std::map<std::pair<std::string, std::string>, std::vector<uint32_t>> pools;
  for (uint32_t i = 0; i < slices.size(); ++i) {
    pools[{slices[i].driver, slices[i].pool.name}].push_back(i);
  }
  std::vector<std::vector<uint32_t>> pool_slices;
  std::vector<bool> pool_complete;
  for (auto& [key, list] : pools) {
    int64_t gen = INT64_MIN;
    for (uint32_t s : list) gen = std::max(gen, slices[s].pool.generation);
    std::vector<uint32_t> current;
    for (uint32_t s : list) {
      if (slices[s].pool.generation == gen) current.push_back(s);
    }
    std::stable_sort(current.begin(), current.end(),
                     [&](uint32_t a, uint32_t b) { return slices[a].name < slices[b].name; });
    pool_complete.push_back(static_cast<int64_t>(current.size()) ==
                            slices[current.front()].pool.resource_slice_count);
    pool_slices.push_back(std::move(current));
  }

  // Counters of each pool, then the device slots with their capacity and counter uses.
  // (pool, counter set, counter) -> counter index; the first when a pool names one twice.
  std::map<std::tuple<uint32_t, std::string_view, std::string_view>, uint32_t> counter_keys;
  for (uint32_t p = 0; p < pool_slices.size(); ++p) {
    for (uint32_t s : pool_slices[p]) {
      for (const DraCounterSet& set : slices[s].shared_counters) {
        for (const DraCounter& c : set.counters) {
          counter_keys.try_emplace({p, set.name, c.name},
                                   static_cast<uint32_t>(counter_left_.size()));
          counter_left_.push_back(c.value.value);
        }
      }
    }
  }
  std::vector<uint32_t> slice_first_slot(slices.size(), 0), slice_end_slot(slices.size(), 0);
  std::vector<uint32_t> slice_pool(slices.size(), UINT32_MAX);
  for (uint32_t p = 0; p < pool_slices.size(); ++p) {
    for (uint32_t s : pool_slices[p]) {
      slice_pool[s] = p;
      slice_first_slot[s] = static_cast<uint32_t>(slots_.size());
      for (uint32_t d = 0; d < slices[s].devices.size(); ++d) {
        const DraDevice& dev = slices[s].devices[d];
        Slot slot;
        slot.slice = s;
        slot.device = d;
        slot.dev = &dev;
        slot.sl = &slices[s];
        slot.multi = dev.allow_multiple_allocations;
        slot.pool = p;
        slot.cap_begin = static_cast<uint32_t>(cap_value_.size());
        for (const DraDeviceCapacity& c : dev.capacity) cap_value_.push_back(c.value.value);
        slot.cap_end = static_cast<uint32_t>(cap_value_.size());
        slot.use_begin = static_cast<uint32_t>(counter_uses_.size());
        for (const DraDeviceCounterConsumption& use : dev.consumes_counters) {
          for (const DraCounter& c : use.counters) {
            const auto k = counter_keys.find({p, use.counter_set, c.name});
            if (k != counter_keys.end()) counter_uses_.push_back({k->second, c.value.value});
          }
        }
        slot.use_end = static_cast<uint32_t>(counter_uses_.size());
        slots_.push_back(slot);
      }
      slice_end_slot[s] = static_cast<uint32_t>(slots_.size());
    }
  }
  cap_used_.assign(cap_value_.size(), 0);
  pool_version_.assign(pool_slices.size(), 0);
  exclusive_.assign(slots_.size(), 0);
  shares_.assign(slots_.size(), 0);

  // Each node's chunks, in pool then slice order.
  std::unordered_map<std::string, uint32_t> node_index;
  for (uint32_t n = 0; n < node_names_.size(); ++n) node_index.emplace(node_names_[n], n);
  std::vector<std::vector<Chunk>> per_node(node_names_.size());
  for (uint32_t p = 0; p < pool_slices.size(); ++p) {
    for (uint32_t s : pool_slices[p]) {
      const Chunk chunk{slice_first_slot[s], slice_end_slot[s], p, pool_complete[p]};
      if (slices[s].node_name) {
        const auto it = node_index.find(*slices[s].node_name);
        if (it != node_index.end()) per_node[it->second].push_back(chunk);
        continue;
      }
      for (uint32_t n = 0; n < node_names_.size(); ++n) {
        if (slice_reaches(slices[s], node_names_[n])) per_node[n].push_back(chunk);
      }
    }
  }
  node_chunk_begin_.push_back(0);
  for (const auto& list : per_node) {
    chunks_.insert(chunks_.end(), list.begin(), list.end());
    node_chunk_begin_.push_back(static_cast<uint32_t>(chunks_.size()));
  }

  for (const DraResourceClaim& c : model_.resource_claims) {
    Claim claim;
    claim.name = c.name;
    claim.namespace_name = c.namespace_name;
    claim.spec = add_spec(c.spec);
    claims_.push_back(std::move(claim));
  }
}

uint32_t DraStructuredAllocator::add_spec(const DraResourceClaimSpec& spec) {
  for (uint32_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].spec == &spec) return i;
  }
  SpecInfo info;
  info.spec = &spec;
  auto add_unit = [&](const DraDeviceRequest& r, const DraDeviceSubRequest& sub, bool is_sub) {
    Unit u;
    u.req = &sub;
    u.cls = model_.find_device_class(sub.device_class_name);
    if (u.cls == nullptr && info.missing_class.empty()) info.missing_class = sub.device_class_name;
    u.result_name = is_sub ? r.name + "/" + sub.name : r.name;
    for (size_t k = 0; k < spec.constraints.size() && k < 64; ++k) {
      const auto& reqs = spec.constraints[k].requests;
      if (reqs.empty() || names(reqs, r.name, u.result_name)) u.constraint_mask |= uint64_t{1} << k;
    }
    u.constraints = std::popcount(u.constraint_mask);
    units_.push_back(std::move(u));
  };
  for (const DraDeviceRequest& r : spec.requests) {
    info.request_unit.push_back(static_cast<uint32_t>(units_.size()));
    if (r.exactly) {
      add_unit(r, *r.exactly, false);
    } else {
      for (const DraDeviceSubRequest& sub : r.first_available) add_unit(r, sub, true);
    }
  }
  specs_.push_back(std::move(info));
  // Grow the selector cache to the new units (-1: not evaluated yet).
  match_.resize(units_.size() * slots_.size(), -1);
  return static_cast<uint32_t>(specs_.size() - 1);
}

DraClaimId DraStructuredAllocator::add_claim_from_template(size_t template_index, std::string name,
                                                           std::string namespace_name) {
  return add_claim(model_.resource_claim_templates[template_index].spec, std::move(name),
                   std::move(namespace_name));
}

DraClaimId DraStructuredAllocator::add_claim(const DraResourceClaimSpec& spec, std::string name,
                                             std::string namespace_name) {
  Claim claim;
  claim.name = std::move(name);
  claim.namespace_name = std::move(namespace_name);
  claim.spec = add_spec(spec);
  claims_.push_back(std::move(claim));
  return static_cast<DraClaimId>(claims_.size() - 1);
}

std::optional<DraClaimId> DraStructuredAllocator::find_claim(std::string_view namespace_name,
                                                             std::string_view name) const {
  for (uint32_t i = 0; i < claims_.size(); ++i) {
    if (claims_[i].name == name && claims_[i].namespace_name == namespace_name) return i;
  }
  return std::nullopt;
}

void DraStructuredAllocator::fail(std::string why) {
  if (failure_.empty()) failure_ = std::move(why);
}

bool DraStructuredAllocator::selectable(uint32_t unit, uint32_t slot) {
  int8_t& m = match_[static_cast<size_t>(unit) * slots_.size() + slot];
  if (m >= 0) return m == 1;
  const Unit& u = units_[unit];
  const Slot& s = slots_[slot];
  bool ok = true;
  for (DraSelectorId id : u.cls->selectors) {
    if (!(ok = selectors_.matches(id, *s.dev, s.sl->driver))) break;
  }
  if (ok) {
    for (DraSelectorId id : u.req->selectors) {
      if (!(ok = selectors_.matches(id, *s.dev, s.sl->driver))) break;
    }
  }
  // Every requested capacity must exist on the device; without allowMultipleAllocations the
  // device is not consumed, only compared.
  for (const DraNamedQuantity& q : u.req->capacity_requests) {
    if (!ok) break;
    const DraDeviceCapacity* c = nullptr;
    for (const DraDeviceCapacity& dc : s.dev->capacity) {
      if (q.name == dc.name || q.name == dc.qualified) c = &dc;
    }
    ok = c != nullptr && (s.multi || q.value.value <= c->value.value);
  }
  m = ok ? 1 : 0;
  return ok;
}

bool DraStructuredAllocator::capacity_amounts(const Unit& u, const Slot& s, int64_t* out) const {
  for (uint32_t k = 0; k < s.cap_end - s.cap_begin; ++k) {
    const DraDeviceCapacity& c = s.dev->capacity[k];
    const DraNamedQuantity* q = find_request(*u.req, c);
    int64_t requested = c.value.value;  // no request and no default: all of it
    if (q != nullptr) {
      requested = q->value.value;
    } else if (c.request_policy && c.request_policy->default_value) {
      requested = c.request_policy->default_value->value;
    }
    if (!apply_request_policy(c.request_policy, requested, out[k])) return false;
    if (cap_used_[s.cap_begin + k] + out[k] > cap_value_[s.cap_begin + k]) return false;
  }
  return true;
}

bool DraStructuredAllocator::charge(int64_t n) {
  steps_ += n;
  if (steps_ > max_steps_) {
    aborted_ = true;
    return false;
  }
  if (steps_ >= next_clock_check_) {
    next_clock_check_ = steps_ + 256;  // a few microseconds of steps; the clock costs 20 ns
    const auto spent = std::chrono::steady_clock::now() - started_;
    if (spent > time_limit_)
      throw DraSearchTimeLimitError(
          "the DRA allocator's search on node " + node_names_[node_] + " ran " +
          std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(spent).count()) +
          " ms after " + std::to_string(steps_) + " steps, past its " +
          std::to_string(time_limit_.count()) +
          " ms safety limit (the step bound should end it in tens of milliseconds; is the "
          "machine overloaded?)");
  }
  return true;
}

bool DraStructuredAllocator::take(uint32_t c, uint32_t unit, uint32_t slot) {
  const Unit& u = units_[unit];
  const Slot& s = slots_[slot];
  // One step for the device, one per constraint and counter it is checked against.
  if (!charge(1 + u.constraints + (s.use_end - s.use_begin))) return false;
  const bool admin = u.req->admin_access;
  if (admin) {
    for (size_t i = claim_chosen_begin_[c]; i < chosen_.size(); ++i) {
      if (chosen_[i].slot == slot) return false;
    }
  } else if (!s.multi && exclusive_[slot] > 0) {
    return false;
  }
  if (!selectable(unit, slot)) return false;

  Chosen ch{c, unit, slot, static_cast<uint32_t>(chosen_caps_.size()), admin, false};
  if (s.multi) {
    chosen_caps_.resize(chosen_caps_.size() + (s.cap_end - s.cap_begin));
    if (!capacity_amounts(u, s, chosen_caps_.data() + ch.cap_begin)) {
      chosen_caps_.resize(ch.cap_begin);
      return false;
    }
  }
  const bool counters = s.use_end > s.use_begin && !(s.multi && shares_[slot] > 0);
  if (counters) {
    for (uint32_t i = s.use_begin; i < s.use_end; ++i) {
      if (counter_left_[counter_uses_[i].counter] < counter_uses_[i].amount) {
        chosen_caps_.resize(ch.cap_begin);
        return false;
      }
    }
  }
  // matchAttribute constraints: the first device of a constraint sets its value.
  const DraResourceClaimSpec& spec = *specs_[claims_[pod_claims_[c]].spec].spec;
  uint64_t applied = 0;
  for (uint64_t mask = u.constraint_mask; mask != 0; mask &= mask - 1) {
    const int k = std::countr_zero(mask);
    ConstraintState& cs = constraints_[constraint_begin_[c] + static_cast<uint32_t>(k)];
    const DraAttribute* a =
        s.dev->find_attribute(spec.constraints[static_cast<size_t>(k)].match_attribute);
    if (a == nullptr || (cs.refs > 0 && !same_value(*cs.value, *a))) {
      for (uint64_t undo = applied; undo != 0; undo &= undo - 1) {
        ConstraintState& us =
            constraints_[constraint_begin_[c] + static_cast<uint32_t>(std::countr_zero(undo))];
        if (--us.refs == 0) us.value = nullptr;
      }
      chosen_caps_.resize(ch.cap_begin);
      return false;
    }
    if (cs.refs++ == 0) cs.value = a;
    applied |= uint64_t{1} << k;
  }

  if (counters) {
    for (uint32_t i = s.use_begin; i < s.use_end; ++i) {
      counter_left_[counter_uses_[i].counter] -= counter_uses_[i].amount;
    }
    ch.took_counters = true;
  }
  if (s.multi) {
    ++shares_[slot];
    for (uint32_t k = 0; k < s.cap_end - s.cap_begin; ++k) {
      cap_used_[s.cap_begin + k] += chosen_caps_[ch.cap_begin + k];
    }
  } else {
    ++exclusive_[slot];  // admin access too, for the rest of this search (allocateDevice)
  }
  chosen_.push_back(ch);
  return true;
}

void DraStructuredAllocator::untake() {
  const Chosen ch = chosen_.back();
  chosen_.pop_back();
  const Slot& s = slots_[ch.slot];
  const Unit& u = units_[ch.unit];
  for (uint64_t mask = u.constraint_mask; mask != 0; mask &= mask - 1) {
    ConstraintState& cs =
        constraints_[constraint_begin_[ch.claim] + static_cast<uint32_t>(std::countr_zero(mask))];
    if (--cs.refs == 0) cs.value = nullptr;
  }
  if (ch.took_counters) {
    for (uint32_t i = s.use_begin; i < s.use_end; ++i) {
      counter_left_[counter_uses_[i].counter] += counter_uses_[i].amount;
    }
  }
  if (s.multi) {
    --shares_[ch.slot];
    for (uint32_t k = 0; k < s.cap_end - s.cap_begin; ++k) {
      cap_used_[s.cap_begin + k] -= chosen_caps_[ch.cap_begin + k];
    }
    chosen_caps_.resize(ch.cap_begin);
  } else {
    --exclusive_[ch.slot];
  }
}

void DraStructuredAllocator::undo_all() {
  while (!chosen_.empty()) untake();
}

bool DraStructuredAllocator::all_mode(uint32_t c, uint32_t r, uint32_t unit) {
  const size_t begin = all_buf_.size();
  for (uint32_t k = node_chunk_begin_[node_]; k < node_chunk_begin_[node_ + 1]; ++k) {
    const Chunk& ch = chunks_[k];
    if (!ch.pool_complete) {
      fail("request " + units_[unit].result_name +
           " asks for all devices, but a pool is incomplete");
      all_buf_.resize(begin);
      return false;
    }
    if (!charge(1 + ch.slot_end - ch.slot_begin)) {
      all_buf_.resize(begin);
      return false;
    }
    for (uint32_t slot = ch.slot_begin; slot < ch.slot_end; ++slot) {
      if (selectable(unit, slot)) all_buf_.push_back(slot);
    }
  }
  bool ok = all_buf_.size() > begin;
  size_t taken = 0;
  for (size_t i = begin; ok && i < all_buf_.size(); ++i) {
    ok = take(c, unit, all_buf_[i]);
    taken += ok ? 1 : 0;
  }
  if (ok) ok = one(c, r + 1, -1, 0, {});
  if (!ok) {
    for (size_t i = 0; i < taken; ++i) untake();
  }
  all_buf_.resize(begin);
  return ok;
}

bool DraStructuredAllocator::one(uint32_t c, uint32_t r, int32_t sub, int64_t d, Loc start) {
  if (aborted_ || !charge(1)) return false;
  if (c == pod_claims_.size()) return true;
  const Claim& claim = claims_[pod_claims_[c]];
  if (r == 0 && sub < 0 && d == 0) claim_chosen_begin_[c] = static_cast<uint32_t>(chosen_.size());
  if (claim.allocation) return one(c + 1, 0, -1, 0, {});  // in use already; node checked
  const SpecInfo& sp = specs_[claim.spec];
  if (r == sp.spec->requests.size()) return one(c + 1, 0, -1, 0, {});
  const DraDeviceRequest& req = sp.spec->requests[r];
  if (sub < 0 && !req.first_available.empty()) {
    for (int32_t s = 0; s < static_cast<int32_t>(req.first_available.size()); ++s) {
      if (one(c, r, s, 0, {})) {
        selected_sub_[selected_begin_[c] + r] = s;
        return true;
      }
      if (aborted_) return false;
    }
    return false;
  }
  const uint32_t unit = sp.request_unit[r] + static_cast<uint32_t>(std::max(sub, 0));
  const Unit& u = units_[unit];
  if (u.req->allocation_mode == DraAllocationMode::All) return all_mode(c, r, unit);
  if (d >= u.req->count) return one(c, r + 1, -1, 0, {});

  const uint32_t end = node_chunk_begin_[node_ + 1];
  for (uint32_t k = std::max(start.chunk, node_chunk_begin_[node_]); k < end; ++k) {
    const Chunk& ch = chunks_[k];
    if (!ch.pool_complete) {
      if (!charge(1)) return false;  // a node may reach many slices
      continue;
    }
    const uint32_t first = k == start.chunk ? std::max(start.slot, ch.slot_begin) : ch.slot_begin;
    for (uint32_t slot = first; slot < ch.slot_end; ++slot) {
      if (!take(c, unit, slot)) {
        if (aborted_) return false;
        continue;
      }
      if (one(c, r, sub, d + 1, {k, slot + 1})) return true;
      untake();
      if (aborted_) return false;
    }
  }
  fail("claim " + claim.namespace_name + "/" + claim.name + ": no device left for request " +
       u.result_name + " on node " + node_names_[node_]);
  return false;
}

bool DraStructuredAllocator::search(std::span<const DraClaimId> claims, uint32_t node) {
  pod_claims_ = claims;
  node_ = node;
  steps_ = 0;
  next_clock_check_ = 0;
  started_ = std::chrono::steady_clock::now();
  aborted_ = false;
  failure_.clear();
  chosen_.clear();
  chosen_caps_.clear();
  claim_chosen_begin_.assign(claims.size() + 1, 0);
  selected_begin_.clear();
  selected_sub_.clear();
  constraint_begin_.clear();
  constraints_.clear();
  for (const DraClaimId id : claims) {
    const Claim& claim = claims_[id];
    const SpecInfo& sp = specs_[claim.spec];
    selected_begin_.push_back(static_cast<uint32_t>(selected_sub_.size()));
    selected_sub_.resize(selected_sub_.size() + sp.spec->requests.size(), -1);
    constraint_begin_.push_back(static_cast<uint32_t>(constraints_.size()));
    constraints_.resize(constraints_.size() + sp.spec->constraints.size());
    if (claim.allocation && claim.node != UINT32_MAX && claim.node != node) {
      fail("claim " + claim.namespace_name + "/" + claim.name + " is allocated on node " +
           node_names_[claim.node]);
      return false;
    }
    if (!claim.allocation && !sp.missing_class.empty()) {
      fail("claim " + claim.namespace_name + "/" + claim.name + ": device class " +
           sp.missing_class + " not found");
      return false;
    }
  }
  bool ok = false;
  try {
    ok = one(0, 0, -1, 0, {});
  } catch (...) {  // the time limit: give back what the search holds before it is reported
    undo_all();
    all_buf_.clear();
    throw;
  }
  claim_chosen_begin_[claims.size()] = static_cast<uint32_t>(chosen_.size());
  if (ok) {
    failure_.clear();
  } else {
    if (aborted_) {
      failure_ = "search stopped after " + std::to_string(max_steps_) + " steps on node " +
                 node_names_[node];
    }
    chosen_.clear();
  }
  return ok;
}

bool DraStructuredAllocator::can_allocate(std::span<const DraClaimId> claims, uint32_t node) {
  const bool ok = search(claims, node);
  undo_all();
  return ok;
}

bool DraStructuredAllocator::allocate(std::span<const DraClaimId> claims, uint32_t node) {
  if (!search(claims, node)) return false;
  for (uint32_t c = 0; c < claims.size(); ++c) {
    Claim& claim = claims_[claims[c]];
    if (!claim.allocation) commit_claim(c, claim_chosen_begin_[c], claim_chosen_begin_[c + 1]);
  }
  for (const DraClaimId id : claims) ++claims_[id].users;
  chosen_.clear();
  chosen_caps_.clear();
  return true;
}

void DraStructuredAllocator::commit_claim(uint32_t c, uint32_t begin, uint32_t end) {
  Claim& claim = claims_[pod_claims_[c]];
  claim.held.clear();
  claim.held_slots.clear();
  claim.held_admin.clear();
  claim.held_caps.clear();
  claim.node = UINT32_MAX;
  for (uint32_t i = begin; i < end; ++i) {
    const Chosen& ch = chosen_[i];
    const Slot& s = slots_[ch.slot];
    ++pool_version_[s.pool];
    claim.held.push_back({s.slice, s.device});
    claim.held_slots.push_back(ch.slot);
    claim.held_admin.push_back(ch.admin ? 1 : 0);
    if (s.multi) {
      claim.held_caps.insert(claim.held_caps.end(), chosen_caps_.begin() + ch.cap_begin,
                             chosen_caps_.begin() + ch.cap_begin + (s.cap_end - s.cap_begin));
    }
    // Devices allocated with admin access are not in use for others once allocated.
    if (ch.admin && !s.multi) --exclusive_[ch.slot];
    if (!s.sl->all_nodes) claim.node = node_;
  }
  build_result(pod_claims_[c], begin, end);
}

void DraStructuredAllocator::build_result(DraClaimId id, uint32_t begin, uint32_t end) {
  Claim& claim = claims_[id];
  const uint32_t c = [&] {
    for (uint32_t k = 0; k < pod_claims_.size(); ++k) {
      if (pod_claims_[k] == id) return k;
    }
    return 0u;
  }();
  const DraResourceClaimSpec& spec = *specs_[claim.spec].spec;
  DraAllocationResult result;
  for (uint32_t i = begin; i < end; ++i) {
    const Chosen& ch = chosen_[i];
    const Slot& s = slots_[ch.slot];
    const Unit& u = units_[ch.unit];
    DraDeviceRequestAllocationResult r;
    r.request = u.result_name;
    r.driver = s.sl->driver;
    r.pool = s.sl->pool.name;
    r.device = s.dev->name;
    r.admin_access = ch.admin;
    if (s.multi) {
      // Deterministic stand-in for the random UID kube-scheduler generates.
      char buf[48];
      std::snprintf(buf, sizeof buf, "00000000-0000-0000-0000-%012llx",
                    static_cast<unsigned long long>(++next_share_));
      r.share_id = buf;
      for (uint32_t k = 0; k < s.cap_end - s.cap_begin; ++k) {
        const DraDeviceCapacity& dc = s.dev->capacity[k];
        const int64_t v = chosen_caps_[ch.cap_begin + k];
        const DraNamedQuantity* q = find_request(*u.req, dc);
        std::string text = format_dra_quantity(v);
        if (q != nullptr && q->value.value == v) {
          text = q->value.text;
        } else if (dc.value.value == v) {
          text = dc.value.text;
        }
        r.consumed_capacity.push_back({dc.name, {v, text}});
      }
    }
    result.results.push_back(std::move(r));
  }

  // devices.config: each class's config once (FromClass), then the claim's (FromClaim); a
  // config that names every request names none.
  std::vector<std::pair<const DraDeviceClass*, size_t>> class_configs;
  for (uint32_t r = 0; r < spec.requests.size(); ++r) {
    const int32_t sub = selected_sub_[selected_begin_[c] + r];
    const Unit& u =
        units_[specs_[claim.spec].request_unit[r] + static_cast<uint32_t>(std::max(sub, 0))];
    auto it = std::find_if(class_configs.begin(), class_configs.end(),
                           [&](const auto& p) { return p.first == u.cls; });
    if (it != class_configs.end()) {
      for (size_t k = it->second; k < it->second + u.cls->config.size(); ++k) {
        result.config[k].requests.push_back(u.result_name);
      }
      continue;
    }
    class_configs.emplace_back(u.cls, result.config.size());
    for (const DraOpaqueDeviceConfiguration& cfg : u.cls->config) {
      result.config.push_back({"FromClass", {u.result_name}, cfg});
    }
  }
  for (const DraDeviceClaimConfiguration& cfg : spec.config) {
    bool applies = cfg.requests.empty();
    for (uint32_t r = 0; !applies && r < spec.requests.size(); ++r) {
      const int32_t sub = selected_sub_[selected_begin_[c] + r];
      const std::string& chosen_name =
          units_[specs_[claim.spec].request_unit[r] + static_cast<uint32_t>(std::max(sub, 0))]
              .result_name;
      applies = names(cfg.requests, spec.requests[r].name, chosen_name);
    }
    if (applies) result.config.push_back({"FromClaim", cfg.requests, cfg.opaque});
  }
  for (DraDeviceAllocationConfiguration& cfg : result.config) {
    if (cfg.requests.size() == spec.requests.size()) cfg.requests.clear();
  }

  // nodeSelector: the node for node-local devices, the slice's selector for devices reached
  // through one, none when every device reaches all nodes.
  for (uint32_t i = begin; i < end; ++i) {
    const DraResourceSlice& sl = *slots_[chosen_[i].slot].sl;
    if (sl.node_name) {
      DraNodeSelector sel;
      sel.node_selector_terms.push_back({{}, {{"metadata.name", "In", {node_names_[node_]}}}});
      result.node_selector = std::move(sel);
      break;
    }
    if (sl.node_selector && !result.node_selector) result.node_selector = *sl.node_selector;
  }
  claim.allocation = std::move(result);
}

void DraStructuredAllocator::release(std::span<const DraClaimId> claims) {
  for (const DraClaimId id : claims) {
    Claim& claim = claims_[id];
    if (claim.users == 0) continue;  // Unreserve is idempotent
    if (--claim.users > 0 || !claim.allocation) continue;
    size_t cap = 0;
    for (size_t i = 0; i < claim.held_slots.size(); ++i) {
      const uint32_t slot = claim.held_slots[i];
      const Slot& s = slots_[slot];
      ++pool_version_[s.pool];
      bool give_counters = true;
      if (s.multi) {
        for (uint32_t k = 0; k < s.cap_end - s.cap_begin; ++k) {
          cap_used_[s.cap_begin + k] -= claim.held_caps[cap++];
        }
        give_counters = --shares_[slot] == 0;
      } else if (claim.held_admin[i] == 0) {
        --exclusive_[slot];
      }
      if (give_counters) {
        for (uint32_t u = s.use_begin; u < s.use_end; ++u) {
          counter_left_[counter_uses_[u].counter] += counter_uses_[u].amount;
        }
      }
    }
    claim.allocation.reset();
    claim.held.clear();
    claim.held_slots.clear();
    claim.held_admin.clear();
    claim.held_caps.clear();
    claim.node = UINT32_MAX;
  }
}

}  // namespace slicelab

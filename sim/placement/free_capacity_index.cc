#include "sim/placement/free_capacity_index.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace slicelab {

int FreeCapacityIndex::bucket_of(double key) {
  const double b = std::floor(key * kBuckets);
  if (!(b >= 0)) return 0;  // also NaN
  return b >= kBuckets - 1 ? kBuckets - 1 : static_cast<int>(b);
}

void FreeCapacityIndex::pull(size_t v) {
  cpu_max_[v] = std::max(cpu_max_[2 * v], cpu_max_[2 * v + 1]);
  mem_max_[v] = std::max(mem_max_[2 * v], mem_max_[2 * v + 1]);
  gpu_max_[v] = std::max(gpu_max_[2 * v], gpu_max_[2 * v + 1]);
  idle_max_[v] = std::max(idle_max_[2 * v], idle_max_[2 * v + 1]);
}

void FreeCapacityIndex::set_tree(size_t leaf, const ClusterState& cluster, NodeId n) {
  size_t v = leaves_ + leaf;
  cpu_max_[v] = cluster.cpu_free(n);
  mem_max_[v] = cluster.memory_free(n);
  gpu_max_[v] = cluster.max_free_units(n);
  idle_max_[v] = cluster.idle_gpus(n);
  for (v /= 2; v >= 1; v /= 2) pull(v);
}

static_assert(FreeCapacityIndex::kBuckets % 64 == 0);

int FreeCapacityIndex::next_bucket(int b, bool up) const {
  if (b < 0) return -1;
  if (b >= kBuckets) return kBuckets;
  if (up) {
    for (int w = b / 64; w < kBuckets / 64; ++w) {
      uint64_t bits = occupied_[static_cast<size_t>(w)];
      if (w == b / 64) bits &= ~uint64_t{0} << (b % 64);
      if (bits != 0) return w * 64 + std::countr_zero(bits);
    }
    return kBuckets;
  }
  for (int w = b / 64; w >= 0; --w) {
    uint64_t bits = occupied_[static_cast<size_t>(w)];
    if (w == b / 64 && b % 64 != 63) bits &= (uint64_t{1} << (b % 64 + 1)) - 1;
    if (bits != 0) return w * 64 + 63 - std::countl_zero(bits);
  }
  return -1;
}

void FreeCapacityIndex::count(int at, int delta) {
  const int b = at / kLevels;
  count_[static_cast<size_t>(b)] += static_cast<uint32_t>(delta);
  const uint64_t bit = uint64_t{1} << (b % 64);
  if (count_[static_cast<size_t>(b)] == 0) {
    occupied_[static_cast<size_t>(b / 64)] &= ~bit;
  } else {
    occupied_[static_cast<size_t>(b / 64)] |= bit;
  }
}

void FreeCapacityIndex::insert(NodeId n, int at, bool idle) {
  count(at, 1);
  where_[n] = at;
  in_class_[n] = idle ? 1 : 0;
  if (idle) {
    IdleClass& c = classes_[static_cast<size_t>(class_of_[n])];
    ++c.count;
    c.bits[n / 64] |= uint64_t{1} << (n % 64);
    c.first_word = std::min<size_t>(c.first_word, n / 64);
    return;
  }
  auto& to = buckets_[static_cast<size_t>(at)];
  slot_[n] = static_cast<uint32_t>(to.size());
  to.push_back(n);
}

void FreeCapacityIndex::remove(NodeId n) {
  count(where_[n], -1);
  if (in_class_[n] != 0) {
    IdleClass& c = classes_[static_cast<size_t>(class_of_[n])];
    --c.count;
    c.bits[n / 64] &= ~(uint64_t{1} << (n % 64));
    return;
  }
  auto& from = buckets_[static_cast<size_t>(where_[n])];
  const NodeId last = from.back();
  from[slot_[n]] = last;
  slot_[last] = slot_[n];
  from.pop_back();
}

NodeId FreeCapacityIndex::idle_member(int c) const {
  const IdleClass& k = classes_[static_cast<size_t>(c)];
  while (k.bits[k.first_word] == 0) ++k.first_word;  // count > 0: a member lies ahead
  return static_cast<NodeId>(k.first_word * 64 +
                             static_cast<size_t>(std::countr_zero(k.bits[k.first_word])));
}

void FreeCapacityIndex::classify(const ClusterState& cluster) {
  const size_t n = cluster.node_count();
  class_of_.assign(n, -1);
  classes_.clear();
  bucket_classes_.assign(kBuckets, {});
  struct Profile {
    int64_t cpu, mem, gpu_mem;
    int gpus, model;
    bool operator==(const Profile&) const = default;
  };
  std::vector<Profile> seen;
  for (NodeId i = 0; i < n; ++i) {
    const Profile p{cluster.cpu_capacity(i), cluster.memory_capacity(i),
                    cluster.gpu_memory_capacity(i), cluster.gpus_on(i),
                    static_cast<int>(cluster.model(i))};
    const auto it = std::find(seen.begin(), seen.end(), p);
    if (it != seen.end()) {
      class_of_[i] = static_cast<int>(it - seen.begin());
      continue;
    }
    if (seen.size() == kMaxClasses) continue;
    class_of_[i] = static_cast<int>(seen.size());
    seen.push_back(p);
    IdleClass c;
    c.bits.assign((n + 63) / 64, 0);
    classes_.push_back(std::move(c));
    // An idle member's key: all its CPU and GPU units free.
    const double idle_key =
        node_key(p.cpu, static_cast<int64_t>(p.gpus) * cluster.capacity_units());
    bucket_classes_[static_cast<size_t>(bucket_of(idle_key))].push_back(class_of_[i]);
  }
}

void FreeCapacityIndex::rebuild(const ClusterState& cluster) {
  const size_t n = cluster.node_count();
  max_cpu_ = static_cast<double>(cluster.max_cpu_capacity());
  max_gpu_ = static_cast<double>(cluster.max_gpus_per_node()) * cluster.capacity_units();
  cap_units_ = cluster.capacity_units();
  cpu_.resize(n);
  units_.resize(n);
  where_.resize(n);
  slot_.resize(n);
  in_class_.assign(n, 0);
  classify(cluster);
  buckets_.assign(static_cast<size_t>(kBuckets) * kLevels, {});
  count_.assign(kBuckets, 0);
  occupied_.assign(kBuckets / 64, 0);
  leaves_ = 1;
  while (leaves_ < n) leaves_ *= 2;
  constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
  cpu_max_.assign(2 * leaves_, kNever);
  mem_max_.assign(2 * leaves_, kNever);
  gpu_max_.assign(2 * leaves_, kNever);
  idle_max_.assign(2 * leaves_, kNever);
  for (NodeId i = 0; i < n; ++i) {
    cpu_[i] = cluster.cpu_free(i);
    units_[i] = cluster.free_units(i);
    insert(i, bucket_of(key(i)) * kLevels + level_of(cluster.max_free_units(i)), idle(cluster, i));
    cpu_max_[leaves_ + i] = cluster.cpu_free(i);
    mem_max_[leaves_ + i] = cluster.memory_free(i);
    gpu_max_[leaves_ + i] = cluster.max_free_units(i);
    idle_max_[leaves_ + i] = cluster.idle_gpus(i);
  }
  for (size_t v = leaves_ - 1; v >= 1; --v) pull(v);
}

void FreeCapacityIndex::update(const ClusterState& cluster, NodeId n) {
  set_tree(n, cluster, n);
  cpu_[n] = cluster.cpu_free(n);
  units_[n] = cluster.free_units(n);
  const int at = bucket_of(key(n)) * kLevels + level_of(cluster.max_free_units(n));
  const bool now_idle = idle(cluster, n);
  if (at == where_[n] && now_idle == (in_class_[n] != 0)) return;
  remove(n);
  insert(n, at, now_idle);
}

void FreeCapacityIndex::sync(const ClusterState& cluster) {
  follower_.sync(
      cluster, cluster.node_count(), [&] { rebuild(cluster); },
      [&](std::span<const NodeId> changed) {
        for (const NodeId n : changed) update(cluster, n);
      });
}

}  // namespace slicelab

// Prometheus metrics for the extender: counters, gauges and fixed-bucket histograms with labels,
// written in the text exposition format 0.0.4 that a Prometheus server scrapes from /metrics.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::k8s {

// A float counter; `add` is one atomic operation, so request threads never wait on each other.
class Counter {
 public:
  void add(double amount = 1.0) { value_.fetch_add(amount, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double amount) { value_.fetch_add(amount, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// Buckets hold non-cumulative counts (one increment per observation); the exposition adds them
// up, and derives _count from the same reads, so that the +Inf bucket always equals _count even
// while observations arrive during a scrape.
class Histogram {
 public:
  explicit Histogram(const std::vector<double>& upper_bounds);
  void observe(double v);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // one per finite bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  const std::vector<double>& bounds_;  // owned by the family, which outlives its series
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1 (the last: > max)
  std::atomic<double> sum_{0.0};
};

// Prometheus's float formatting (Go's strconv 'g' with the shortest round-trip digits): "0.005",
// "1e-05", "1.048576e+06", "+Inf", "-Inf", "NaN".
std::string format_prometheus_value(double v);
// Label values escape backslash, double quote and newline; HELP text escapes backslash and
// newline only.
std::string escape_label_value(std::string_view v);
void append_escaped_label_value(std::string& out, std::string_view v);
std::string escape_help(std::string_view v);

enum class MetricType { kCounter, kGauge, kHistogram };

// What every family shares: name, help, label names, the lock that guards its series map (taken
// when a series is first looked up and when scraping, never per observation).
class MetricFamily {
 public:
  MetricFamily(std::string name, std::string help, MetricType type,
               std::vector<std::string> label_names);
  virtual ~MetricFamily() = default;
  MetricFamily(const MetricFamily&) = delete;
  MetricFamily& operator=(const MetricFamily&) = delete;

  const std::string& name() const { return name_; }
  MetricType type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  // Appends HELP, TYPE and every sample line; false (and `out` possibly past `limit`, to be cut
  // back by the caller) when the family does not fit under `limit` bytes of exposition.
  bool write(std::string& out, size_t limit) const;

 protected:
  // Appends `{a="x",b="y"}` for the given values (and an extra label, for buckets' le).
  void append_labels(std::string& out, const std::vector<std::string>& values,
                     std::string_view extra_name = {}, std::string_view extra_value = {}) const;
  // Appends one sample line: name, labels, value.
  void append_sample(std::string& out, std::string_view sample_name,
                     const std::vector<std::string>& values, double v,
                     std::string_view extra_name = {}, std::string_view extra_value = {}) const;
  void check_arity(const std::vector<std::string>& values) const;
  // Appends the sample lines; false once `out` has passed `limit` (the rest is not written).
  virtual bool write_samples(std::string& out, size_t limit) const = 0;
  mutable std::mutex mutex_;

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
};

// A family of series created on first use and kept for the registry's life; `with` returns a
// reference that callers keep, so the request path pays the lookup once.
template <typename Series>
class KeptSeriesFamily : public MetricFamily {
 public:
  using MetricFamily::MetricFamily;

 protected:
  template <typename... Args>
  Series& find_or_add(const std::vector<std::string>& values, Args&&... args) {
    check_arity(values);
    const std::lock_guard lock(mutex_);
    auto [it, added] = series_.try_emplace(values);
    if (added) it->second = std::make_unique<Series>(std::forward<Args>(args)...);
    return *it->second;
  }
  std::map<std::vector<std::string>, std::unique_ptr<Series>> series_;
};

class CounterFamily : public KeptSeriesFamily<Counter> {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names);
  Counter& with(const std::vector<std::string>& label_values) { return find_or_add(label_values); }

 private:
  bool write_samples(std::string& out, size_t limit) const override;
};

class GaugeFamily : public KeptSeriesFamily<Gauge> {
 public:
  using Samples = std::vector<std::pair<std::vector<std::string>, double>>;
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names);
  Gauge& with(const std::vector<std::string>& label_values) { return find_or_add(label_values); }
  // Replaces the family's figures by `samples` (label values, value), written in this order:
  // for figures recomputed from a snapshot of the cluster, where a node that left must leave
  // the exposition too. A family is fed either this way or through `with`, not both; the
  // caller keeps label sets unique.
  void replace_all(Samples samples);

 private:
  bool write_samples(std::string& out, size_t limit) const override;
  Samples snapshot_;
};

// Writes one collected family's sample lines straight into the exposition being built.
class SampleWriter {
 public:
  SampleWriter(const MetricFamily& family, std::string& out, size_t limit)
      : family_(family), out_(out), limit_(limit) {}
  // Appends `name{label="value",...} v`, the family's label names with these values (escaped;
  // as many as the family has names). False once the exposition has passed its limit: stop.
  bool add(std::initializer_list<std::string_view> label_values, double v);
  bool full() const { return out_.size() > limit_; }

 private:
  const MetricFamily& family_;
  std::string& out_;
  size_t limit_;
};

// A gauge family that keeps no samples: at each scrape its collector writes them, straight into
// the exposition, from whatever it reads (the GPUs of every node, from the latest snapshot), so
// that a scrape builds no structure per series. The collector runs under the family's lock.
class CollectedGaugeFamily : public MetricFamily {
 public:
  using Collector = std::function<void(SampleWriter&)>;
  CollectedGaugeFamily(std::string name, std::string help, std::vector<std::string> label_names);
  void set_collector(Collector collector);

 private:
  bool write_samples(std::string& out, size_t limit) const override;
  Collector collector_;
};

class HistogramFamily : public KeptSeriesFamily<Histogram> {
 public:
  // `upper_bounds`: finite, strictly increasing; +Inf is implied.
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> upper_bounds);
  Histogram& with(const std::vector<std::string>& label_values) {
    return find_or_add(label_values, bounds_);
  }

 private:
  bool write_samples(std::string& out, size_t limit) const override;
  std::vector<double> bounds_;
  std::vector<std::string> bound_text_;  // each bound as the le label writes it
};

// The set of families one /metrics endpoint exposes, in the order they were added. Names are
// checked against the exposition format's grammar; a second family with the same name, a bad
// name or a wrong number of label values is a programming error (std::invalid_argument).
//
// The exposition is written into one string, reserved at the previous scrape's size, and is
// never longer than max_exposition_bytes: a family that would pass it is left out whole (a
// family is never half reported), the families after it are still written if they fit, and the
// exposition then ends with the gauge slicelab_metrics_families_dropped (how many were left
// out), which has room kept for it.
class MetricRegistry {
 public:
  // 64 MiB: about 8,000 nodes of 8 GPUs with every HAMi series (1.1 KB per GPU).
  static constexpr size_t kDefaultMaxExpositionBytes = size_t{64} << 20;
  static constexpr std::string_view kDroppedFamilies = "slicelab_metrics_families_dropped";

  explicit MetricRegistry(size_t max_exposition_bytes = kDefaultMaxExpositionBytes);
  CounterFamily& counter(std::string name, std::string help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& gauge(std::string name, std::string help, std::vector<std::string> label_names = {});
  HistogramFamily& histogram(std::string name, std::string help,
                             std::vector<std::string> label_names, std::vector<double> bounds);
  CollectedGaugeFamily& collected_gauge(std::string name, std::string help,
                                        std::vector<std::string> label_names);
  // The whole exposition, Content-Type "text/plain; version=0.0.4; charset=utf-8".
  std::string expose() const;
  size_t max_exposition_bytes() const { return max_bytes_; }

  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  template <typename Family, typename... Args>
  Family& add(Args&&... args);
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<MetricFamily>> families_;
  size_t max_bytes_;
  mutable size_t last_size_ = 0;  // the previous exposition's size (under mutex_)
};

}  // namespace slicelab::k8s

#include "backends/k8s/prometheus_registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace slicelab::k8s {
namespace {

bool valid_metric_name(std::string_view n) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Label names have no colon, and names starting with "__" are reserved for Prometheus itself.
bool valid_label_name(std::string_view n) {
  if (n.empty() || n.substr(0, 2) == "__") return false;
  for (size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string_view type_name(MetricType t) {
  switch (t) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string format_prometheus_value(double v) {
  // client_golang writes these four literally, and -0 as "0".
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return "0";
  // The shortest digits that read back to v, as "d.ddde±x"; then Go's %g rule for the shortest
  // precision: scientific when the exponent is below -4 or at least 6.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view s(buf, static_cast<size_t>(res.ptr - buf));
  const size_t e_at = s.find('e');
  const bool negative = s.front() == '-';
  std::string digits;
  for (const char c : s.substr(negative ? 1 : 0, e_at - (negative ? 1 : 0))) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::atoi(std::string(s.substr(e_at + 1)).c_str());
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    const int magnitude = std::abs(exponent);
    if (magnitude < 10) out.push_back('0');
    out.append(std::to_string(magnitude));
    return out;
  }
  if (exponent < 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out.append(digits);
    return out;
  }
  const auto int_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= int_digits) {
    out.append(digits);
    out.append(int_digits - digits.size(), '0');
  } else {
    out.append(digits, 0, int_digits);
    out.push_back('.');
    out.append(digits, int_digits);
  }
  return out;
}

void append_escaped_label_value(std::string& out, std::string_view v) {
  if (v.find_first_of("\\\"\n") == std::string_view::npos) {
    out.append(v);
    return;
  }
  for (const char c : v) {
    if (c == '\\') {
      out.append("\\\\");
    } else if (c == '"') {
      out.append("\\\"");
    } else if (c == '\n') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  append_escaped_label_value(out, v);
  return out;
}

std::string escape_help(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (const char c : v) {
    if (c == '\\') {
      out.append("\\\\");
    } else if (c == '\n') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Histogram::Histogram(const std::vector<double>& upper_bounds)
    : bounds_(upper_bounds),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(upper_bounds.size() + 1)) {}

void Histogram::observe(double v) {
  // Bucket i counts bounds_[i-1] < v <= bounds_[i] ("le" is inclusive); NaN lands in +Inf.
  const auto at =
      static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[at].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.cumulative.resize(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

MetricFamily::MetricFamily(std::string name, std::string help, MetricType type,
                           std::vector<std::string> label_names)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)) {
  if (!valid_metric_name(name_)) {
    throw std::invalid_argument("invalid metric name '" + name_ + "'");
  }
  for (const auto& l : label_names_) {
    if (!valid_label_name(l) || (type_ == MetricType::kHistogram && l == "le")) {
      throw std::invalid_argument("invalid label name '" + l + "' for " + name_);
    }
  }
}

void MetricFamily::check_arity(const std::vector<std::string>& values) const {
  if (values.size() != label_names_.size()) {
    throw std::invalid_argument(name_ + " takes " + std::to_string(label_names_.size()) +
                                " label values, got " + std::to_string(values.size()));
  }
}

namespace {

// `{a="x",b="y"}` for the names and values, escaped; an extra label (histograms' le) last.
template <typename Values>
void append_label_pairs(std::string& out, const std::vector<std::string>& names,
                        const Values& values, std::string_view extra_name,
                        std::string_view extra_value) {
  if (std::empty(values) && extra_name.empty()) return;
  out.push_back('{');
  size_t i = 0;
  for (const auto& value : values) {
    if (i > 0) out.push_back(',');
    out.append(names[i]);
    out.append("=\"");
    append_escaped_label_value(out, value);
    out.push_back('"');
    ++i;
  }
  if (!extra_name.empty()) {
    if (i > 0) out.push_back(',');
    out.append(extra_name);
    out.append("=\"");
    append_escaped_label_value(out, extra_value);
    out.push_back('"');
  }
  out.push_back('}');
}

}  // namespace

void MetricFamily::append_labels(std::string& out, const std::vector<std::string>& values,
                                 std::string_view extra_name, std::string_view extra_value) const {
  append_label_pairs(out, label_names_, values, extra_name, extra_value);
}

bool SampleWriter::add(std::initializer_list<std::string_view> label_values, double v) {
  if (label_values.size() != family_.label_names().size()) {
    throw std::invalid_argument(family_.name() + " takes " +
                                std::to_string(family_.label_names().size()) +
                                " label values, got " + std::to_string(label_values.size()));
  }
  out_.append(family_.name());
  append_label_pairs(out_, family_.label_names(), label_values, {}, {});
  out_.push_back(' ');
  out_.append(format_prometheus_value(v));
  out_.push_back('\n');
  return !full();
}

void MetricFamily::append_sample(std::string& out, std::string_view sample_name,
                                 const std::vector<std::string>& values, double v,
                                 std::string_view extra_name, std::string_view extra_value) const {
  out.append(sample_name);
  append_labels(out, values, extra_name, extra_value);
  out.push_back(' ');
  out.append(format_prometheus_value(v));
  out.push_back('\n');
}

bool MetricFamily::write(std::string& out, size_t limit) const {
  out.append("# HELP ").append(name_).push_back(' ');
  out.append(escape_help(help_)).push_back('\n');
  out.append("# TYPE ").append(name_).push_back(' ');
  out.append(type_name(type_)).push_back('\n');
  if (out.size() > limit) return false;
  const std::lock_guard lock(mutex_);
  return write_samples(out, limit);
}

CounterFamily::CounterFamily(std::string name, std::string help,
                             std::vector<std::string> label_names)
    : KeptSeriesFamily(std::move(name), std::move(help), MetricType::kCounter,
                       std::move(label_names)) {}

bool CounterFamily::write_samples(std::string& out, size_t limit) const {
  for (const auto& [values, series] : series_) {
    append_sample(out, name(), values, series->value());
    if (out.size() > limit) return false;
  }
  return true;
}

GaugeFamily::GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names)
    : KeptSeriesFamily(std::move(name), std::move(help), MetricType::kGauge,
                       std::move(label_names)) {}

void GaugeFamily::replace_all(Samples samples) {
  for (const auto& sample : samples) check_arity(sample.first);
  const std::lock_guard lock(mutex_);
  snapshot_.swap(samples);
  // The old figures are freed when `samples` goes, after the lock (a scrape waits less).
}

bool GaugeFamily::write_samples(std::string& out, size_t limit) const {
  for (const auto& [values, series] : series_) {
    append_sample(out, name(), values, series->value());
    if (out.size() > limit) return false;
  }
  for (const auto& [values, v] : snapshot_) {
    append_sample(out, name(), values, v);
    if (out.size() > limit) return false;
  }
  return true;
}

CollectedGaugeFamily::CollectedGaugeFamily(std::string name, std::string help,
                                           std::vector<std::string> label_names)
    : MetricFamily(std::move(name), std::move(help), MetricType::kGauge, std::move(label_names)) {}

void CollectedGaugeFamily::set_collector(Collector collector) {
  const std::lock_guard lock(mutex_);
  collector_ = std::move(collector);
}

bool CollectedGaugeFamily::write_samples(std::string& out, size_t limit) const {
  if (!collector_) return true;
  SampleWriter writer(*this, out, limit);
  collector_(writer);
  return !writer.full();
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> label_names,
                                 std::vector<double> upper_bounds)
    : KeptSeriesFamily(std::move(name), std::move(help), MetricType::kHistogram,
                       std::move(label_names)),
      bounds_(std::move(upper_bounds)) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1])) {
      throw std::invalid_argument(this->name() +
                                  ": bucket bounds must be finite and strictly increasing");
    }
    bound_text_.push_back(format_prometheus_value(bounds_[i]));
  }
}

bool HistogramFamily::write_samples(std::string& out, size_t limit) const {
  const std::string bucket = name() + "_bucket";
  const std::string sum_name = name() + "_sum";
  const std::string count_name = name() + "_count";
  for (const auto& [values, series] : series_) {
    const Histogram::Snapshot s = series->snapshot();
    for (size_t i = 0; i < bounds_.size(); ++i) {
      append_sample(out, bucket, values, static_cast<double>(s.cumulative[i]), "le",
                    bound_text_[i]);
    }
    append_sample(out, bucket, values, static_cast<double>(s.cumulative.back()), "le", "+Inf");
    append_sample(out, sum_name, values, s.sum);
    append_sample(out, count_name, values, static_cast<double>(s.count));
    if (out.size() > limit) return false;
  }
  return true;
}

template <typename Family, typename... Args>
Family& MetricRegistry::add(Args&&... args) {
  auto family = std::make_unique<Family>(std::forward<Args>(args)...);
  Family& ref = *family;
  const std::lock_guard lock(mutex_);
  for (const auto& f : families_) {
    if (f->name() == ref.name()) {
      throw std::invalid_argument("metric family '" + ref.name() + "' registered twice");
    }
  }
  families_.push_back(std::move(family));
  return ref;
}

CounterFamily& MetricRegistry::counter(std::string name, std::string help,
                                       std::vector<std::string> label_names) {
  return add<CounterFamily>(std::move(name), std::move(help), std::move(label_names));
}

GaugeFamily& MetricRegistry::gauge(std::string name, std::string help,
                                   std::vector<std::string> label_names) {
  return add<GaugeFamily>(std::move(name), std::move(help), std::move(label_names));
}

MetricRegistry::MetricRegistry(size_t max_exposition_bytes) : max_bytes_(max_exposition_bytes) {}

CollectedGaugeFamily& MetricRegistry::collected_gauge(std::string name, std::string help,
                                                      std::vector<std::string> label_names) {
  return add<CollectedGaugeFamily>(std::move(name), std::move(help), std::move(label_names));
}

HistogramFamily& MetricRegistry::histogram(std::string name, std::string help,
                                           std::vector<std::string> label_names,
                                           std::vector<double> bounds) {
  return add<HistogramFamily>(std::move(name), std::move(help), std::move(label_names),
                              std::move(bounds));
}

std::string MetricRegistry::expose() const {
  // Room kept for the trailer that counts dropped families (its HELP, TYPE and sample).
  constexpr size_t kTrailerRoom = 512;
  // A family passes the limit by at most a line before it is cut back: room for that too, so
  // that the reserved string never has to grow at the limit.
  constexpr size_t kOvershoot = size_t{64} << 10;
  const size_t limit = max_bytes_ > kTrailerRoom ? max_bytes_ - kTrailerRoom : 0;
  std::string out;
  const std::lock_guard lock(mutex_);
  // One allocation, never grown: growing by doubling would copy the text up to ~20 times and
  // hold 1.5 times it at each copy. Reserving the whole limit costs address space only: the
  // pages that are not written are never resident. (A limit past 1 GiB: the previous size.)
  constexpr size_t kReserveWhole = size_t{1} << 30;
  out.reserve((max_bytes_ <= kReserveWhole ? max_bytes_ : last_size_ + last_size_ / 16) +
              kOvershoot);
  size_t dropped = 0;
  for (const auto& f : families_) {
    const size_t start = out.size();
    if (!f->write(out, limit)) {
      out.resize(start);
      ++dropped;
    }
  }
  if (dropped > 0) {
    out.append("# HELP ").append(kDroppedFamilies);
    out.append(" Metric families left out of this scrape: the exposition would have passed ");
    out.append(std::to_string(max_bytes_)).append(" bytes\n# TYPE ");
    out.append(kDroppedFamilies).append(" gauge\n").append(kDroppedFamilies).push_back(' ');
    out.append(std::to_string(dropped)).push_back('\n');
  }
  last_size_ = out.size();
  return out;
}

}  // namespace slicelab::k8s

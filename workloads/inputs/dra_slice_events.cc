#include "workloads/inputs/dra_slice_events.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cstdint>
#include <istream>
#include <limits>
#include <streambuf>
#include <string>
#include <vector>

#include "workloads/input_error.h"
#include "workloads/inputs/dra_api_limits.h"
#include "workloads/kube/kube_quantity.h"

namespace slicelab {
namespace {

// The document's text as an istream without a copy.
class ViewStreamBuf final : public std::streambuf {
 public:
  explicit ViewStreamBuf(std::string_view text) {
    char* begin = const_cast<char*>(text.data());  // read only: the get area is never written
    setg(begin, begin, begin + text.size());
  }
};

// Where a value sits: the container it is in, which decides what the value may be.
enum class SliceCtx : uint8_t {
  Root,
  Meta,
  Spec,
  Pool,
  Devices,
  Device,
  Attrs,
  Attr,
  Caps,
  Cap,
  Uses,
  Use,
  Counters,  // {name: {value}} under a consumesCounters entry or a shared counter set
  CounterValue,
  Shared,
  SharedSet,
};

// Bits of what a mapping has had, for its required keys and its one-of rules.
enum SliceSeen : uint32_t {
  kSeenKind = 1,
  kSeenApi = 2,
  kSeenMeta = 4,
  kSeenSpec = 8,
  kSeenName = 16,
  kSeenDriver = 32,
  kSeenPool = 64,
  kSeenGeneration = 128,
  kSeenCount = 256,
  kSeenValue = 512,
  kSeenCounters = 1024,
  kSeenCounterSet = 2048,
};

// Refusing this document: the tree reader reads it instead.
struct SliceFallback {};

class SliceEvents final : public YAML::EventHandler {
 public:
  explicit SliceEvents(const YamlReader& yaml) : yaml_(yaml) {}

  DraResourceSlice slice;
  struct Use {
    uint32_t device = 0, use = 0;
    DraSourceLocation at;
  };
  std::vector<Use> uses;
  int documents = 0;

  // What the tree reader checks once the whole object is read.
  void finish() {
    if (!stack_.empty() || documents != 1 ||
        (root_seen_ & (kSeenKind | kSeenApi | kSeenMeta | kSeenSpec)) !=
            (kSeenKind | kSeenApi | kSeenMeta | kSeenSpec))
      throw SliceFallback{};
    if (slice.driver.size() > kDraMaxDriverNameBytes) throw SliceFallback{};
    for (DraDevice& d : slice.devices) {
      for (DraAttribute& a : d.attributes)
        a.qualified = a.name.find('/') == std::string::npos ? slice.driver + "/" + a.name : a.name;
      for (DraDeviceCapacity& c : d.capacity)
        c.qualified = c.name.find('/') == std::string::npos ? slice.driver + "/" + c.name : c.name;
    }
  }

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {
    if (++documents > 1) throw SliceFallback{};
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& /*mark*/, YAML::anchor_t anchor) override {
    if (anchor != 0) throw SliceFallback{};
    if (skip_ > 0) return;
    if (stack_.empty()) throw SliceFallback{};  // an empty document
    Frame& f = stack_.back();
    if (f.map && f.key_next) throw SliceFallback{};  // a null key
    if (skip_value_) {
      done_value(f);
      return;
    }
    throw SliceFallback{};  // the tree reader treats a null as absent, or refuses it
  }
  void OnAlias(const YAML::Mark& /*mark*/, YAML::anchor_t /*anchor*/) override {
    throw SliceFallback{};
  }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& value) override {
    if (anchor != 0) throw SliceFallback{};
    if (skip_ > 0) return;
    if (stack_.empty()) throw SliceFallback{};  // a document that is one scalar
    Frame& f = stack_.back();
    if (f.map && f.key_next) {
      key(f, value);
      return;
    }
    if (!skip_value_) scalar(f, mark, value);
    done_value(f);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    Frame(SliceCtx c, bool m) : ctx(c), map(m) {}
    SliceCtx ctx;
    bool map;
    bool key_next = true;
    std::string key;
    uint32_t seen = 0;
    size_t entries = 0;
  };

  DraSourceLocation location(const YAML::Mark& m) const {
    const YAML::Mark at = yaml_.in_file(m);
    return {yaml_.file(), at.line + 1, at.column + 1};
  }
  DraDevice& device() { return slice.devices.back(); }
  // The counters list that a Counters mapping fills: a consumption's or a shared set's.
  std::vector<DraCounter>& counters_of(SliceCtx owner) {
    if (owner == SliceCtx::Use) return device().consumes_counters.back().counters;
    return slice.shared_counters.back().counters;
  }

  static std::string text(const std::string& v) {
    if (v.empty()) throw SliceFallback{};  // YamlReader::string wants a non-empty string
    return v;
  }
  int64_t integer(const std::string& v, int64_t min, int64_t max) const {
    try {
      return yaml_.integer(YAML::Node(v), "", min, max);
    } catch (const InputError&) {
      throw SliceFallback{};
    }
  }
  bool boolean(const std::string& v) const {
    try {
      return yaml_.boolean(YAML::Node(v), "");
    } catch (const InputError&) {
      throw SliceFallback{};
    }
  }
  // As DraReader::quantity, refusing to the tree reader what it refuses.
  static DraQuantity quantity(const std::string& v) {
    std::string error;
    const auto q = parse_quantity(v, error);
    if (!q || q->negative) throw SliceFallback{};
    const auto scaled = q->scaled_up(0);
    if (!scaled) throw SliceFallback{};
    return {*scaled, v};
  }

  // A key of mapping `f`: refused unless the tree reader allows it and this reader reads it.
  void key(Frame& f, const std::string& k) {
    f.key = k;
    f.key_next = false;
    ++f.entries;
    skip_value_ = false;
    switch (f.ctx) {
      case SliceCtx::Root:
        if (k == "status") skip_value_ = true;
        if (k == "apiVersion" || k == "kind" || k == "metadata" || k == "spec" || k == "status")
          return;
        break;
      case SliceCtx::Meta:
        // ObjectMeta's fields, as DraReader::meta allows them; only the name is read.
        if (k == "name") return;
        for (const char* m :
             {"namespace", "generateName", "uid", "resourceVersion", "generation",
              "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
              "annotations", "ownerReferences", "finalizers", "managedFields", "selfLink"})
          if (k == m) {
            skip_value_ = true;
            return;
          }
        break;
      case SliceCtx::Spec:
        if (k == "driver" || k == "pool" || k == "nodeName" || k == "allNodes" || k == "devices" ||
            k == "sharedCounters")
          return;
        break;  // node selectors and partitions: the tree reader refuses or checks them
      case SliceCtx::Pool:
        if (k == "name" || k == "generation" || k == "resourceSliceCount") return;
        break;
      case SliceCtx::Device:
        if (k == "name" || k == "attributes" || k == "capacity" || k == "consumesCounters" ||
            k == "allowMultipleAllocations")
          return;
        break;  // per-device node selection, taints, binding conditions
      case SliceCtx::Attrs:
      case SliceCtx::Caps:
      case SliceCtx::Counters:
        return;  // names
      case SliceCtx::Attr:
        if (k == "int" || k == "bool" || k == "string" || k == "version") return;
        break;
      case SliceCtx::Cap:
        if (k == "value") return;
        break;  // a requestPolicy and its many rules
      case SliceCtx::CounterValue:
        if (k == "value") return;
        break;
      case SliceCtx::Use:
        if (k == "counterSet" || k == "counters") return;
        break;
      case SliceCtx::SharedSet:
        if (k == "name" || k == "counters") return;
        break;
      case SliceCtx::Devices:
      case SliceCtx::Uses:
      case SliceCtx::Shared:
        break;
    }
    throw SliceFallback{};
  }

  void done_value(Frame& f) {
    skip_value_ = false;
    if (f.map) f.key_next = true;
  }

  void scalar(Frame& f, const YAML::Mark& mark, const std::string& v) {
    const std::string& k = f.key;
    switch (f.ctx) {
      case SliceCtx::Root:
        if (k == "kind") {
          if (v != "ResourceSlice") throw SliceFallback{};
          root_seen_ |= kSeenKind;
          return;
        }
        if (k == "apiVersion") {
          if (v != "resource.k8s.io/v1" && v != "resource.k8s.io/v1beta2") throw SliceFallback{};
          root_seen_ |= kSeenApi;
          return;
        }
        break;
      case SliceCtx::Meta:
        if (k == "name") {
          slice.name = text(v);
          f.seen |= kSeenName;
          return;
        }
        break;
      case SliceCtx::Spec:
        if (k == "driver") {
          slice.driver = text(v);
          f.seen |= kSeenDriver;
          return;
        }
        if (k == "nodeName") {
          slice.node_name = text(v);
          return;
        }
        if (k == "allNodes") {
          slice.all_nodes = boolean(v);
          return;
        }
        break;
      case SliceCtx::Pool:
        if (k == "name") {
          slice.pool.name = text(v);
          f.seen |= kSeenName;
        } else if (k == "generation") {
          slice.pool.generation = integer(v, 0, std::numeric_limits<int64_t>::max());
          f.seen |= kSeenGeneration;
        } else {
          slice.pool.resource_slice_count = integer(v, 1, std::numeric_limits<int32_t>::max());
          f.seen |= kSeenCount;
        }
        return;
      case SliceCtx::Device:
        if (k == "name") {
          device().name = text(v);
          f.seen |= kSeenName;
          return;
        }
        if (k == "allowMultipleAllocations") {
          device().allow_multiple_allocations = boolean(v);
          return;
        }
        break;
      case SliceCtx::Attr: {
        DraAttribute& a = device().attributes.back();
        if (k == "int") {
          a.type = DraAttributeType::Int;
          a.int_value =
              integer(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        } else if (k == "bool") {
          a.type = DraAttributeType::Bool;
          a.bool_value = boolean(v);
        } else {
          a.type = k == "string" ? DraAttributeType::String : DraAttributeType::Version;
          a.string_value = text(v);
          if (a.string_value.size() > kDraMaxAttributeValueBytes) throw SliceFallback{};
        }
        return;
      }
      case SliceCtx::Cap:
        device().capacity.back().value = quantity(v);
        f.seen |= kSeenValue;
        return;
      case SliceCtx::CounterValue:
        counters_of(stack_[stack_.size() - 3].ctx).back().value = quantity(v);
        f.seen |= kSeenValue;
        return;
      case SliceCtx::Use:
        if (k == "counterSet") {
          DraDevice& d = device();
          d.consumes_counters.back().counter_set = text(v);
          uses.push_back({static_cast<uint32_t>(slice.devices.size() - 1),
                          static_cast<uint32_t>(d.consumes_counters.size() - 1), location(mark)});
          f.seen |= kSeenCounterSet;
          return;
        }
        break;
      case SliceCtx::SharedSet:
        if (k == "name") {
          slice.shared_counters.back().name = text(v);
          f.seen |= kSeenName;
          return;
        }
        break;
      default:
        break;
    }
    throw SliceFallback{};  // a scalar where the tree reader wants a mapping or a list
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    if (anchor != 0) throw SliceFallback{};
    if (skip_ > 0) {
      ++skip_;
      return;
    }
    if (stack_.empty()) {
      if (!map) throw SliceFallback{};
      slice.location = location(mark);
      stack_.emplace_back(SliceCtx::Root, true);
      return;
    }
    Frame& f = stack_.back();
    if (f.map && f.key_next) throw SliceFallback{};  // a mapping or list as a key
    if (skip_value_) {
      skip_ = 1;
      return;
    }
    const std::string& k = f.key;
    SliceCtx child = SliceCtx::Root;
    bool want_map = true;
    switch (f.ctx) {
      case SliceCtx::Root:
        if (k == "metadata") {
          child = SliceCtx::Meta;
          root_seen_ |= kSeenMeta;
        } else if (k == "spec") {
          child = SliceCtx::Spec;
          root_seen_ |= kSeenSpec;
        } else {
          throw SliceFallback{};
        }
        break;
      case SliceCtx::Spec:
        if (k == "pool") {
          child = SliceCtx::Pool;
          f.seen |= kSeenPool;
        } else if (k == "devices") {
          child = SliceCtx::Devices;
          want_map = false;
        } else if (k == "sharedCounters") {
          child = SliceCtx::Shared;
          want_map = false;
        } else {
          throw SliceFallback{};
        }
        break;
      case SliceCtx::Devices:
        child = SliceCtx::Device;
        slice.devices.emplace_back().location = location(mark);
        break;
      case SliceCtx::Device:
        if (k == "attributes") {
          child = SliceCtx::Attrs;
        } else if (k == "capacity") {
          child = SliceCtx::Caps;
        } else if (k == "consumesCounters") {
          child = SliceCtx::Uses;
          want_map = false;
        } else {
          throw SliceFallback{};
        }
        break;
      case SliceCtx::Attrs:
        child = SliceCtx::Attr;
        device().attributes.emplace_back().name = k;
        break;
      case SliceCtx::Caps:
        child = SliceCtx::Cap;
        device().capacity.emplace_back().name = k;
        break;
      case SliceCtx::Uses:
        child = SliceCtx::Use;
        device().consumes_counters.emplace_back();
        break;
      case SliceCtx::Use:
      case SliceCtx::SharedSet:
        if (k != "counters") throw SliceFallback{};
        child = SliceCtx::Counters;
        f.seen |= kSeenCounters;
        break;
      case SliceCtx::Counters:
        child = SliceCtx::CounterValue;
        counters_of(stack_[stack_.size() - 2].ctx).emplace_back().name = k;
        break;
      case SliceCtx::Shared:
        child = SliceCtx::SharedSet;
        slice.shared_counters.emplace_back();
        break;
      default:
        throw SliceFallback{};
    }
    if (map != want_map) throw SliceFallback{};
    stack_.emplace_back(child, map);
  }

  void close() {
    if (skip_ > 0) {
      if (--skip_ == 0) done_value(stack_.back());
      return;
    }
    const Frame f = std::move(stack_.back());
    stack_.pop_back();
    const auto need = [&](uint32_t bits) {
      if ((f.seen & bits) != bits) throw SliceFallback{};
    };
    switch (f.ctx) {
      case SliceCtx::Meta:
      case SliceCtx::Device:
      case SliceCtx::SharedSet:
        need(kSeenName);
        break;
      case SliceCtx::Spec:
        need(kSeenDriver | kSeenPool);
        // exactly one of nodeName or allNodes: true
        if (slice.node_name.has_value() == slice.all_nodes) throw SliceFallback{};
        break;
      case SliceCtx::Pool:
        need(kSeenName | kSeenGeneration | kSeenCount);
        break;
      case SliceCtx::Attr:
        if (f.entries != 1) throw SliceFallback{};
        break;
      case SliceCtx::Cap:
      case SliceCtx::CounterValue:
        need(kSeenValue);
        break;
      case SliceCtx::Use:
        need(kSeenCounterSet | kSeenCounters);
        break;
      default:
        break;
    }
    if (f.ctx == SliceCtx::Device) {
      const DraDevice& d = device();
      if (d.attributes.size() + d.capacity.size() > kDraMaxAttributesAndCapacities)
        throw SliceFallback{};
    }
    if (f.ctx == SliceCtx::SharedSet) need(kSeenCounters);
    if (!stack_.empty()) done_value(stack_.back());
  }

  const YamlReader& yaml_;
  std::vector<Frame> stack_;
  uint32_t root_seen_ = 0;
  int skip_ = 0;             // depth inside a value that is not read (status, metadata's rest)
  bool skip_value_ = false;  // the current key's value is not read
};

}  // namespace

bool read_resource_slice_events(std::string_view text, const YamlReader& yaml, DraObjects& into) {
  SliceEvents events(yaml);
  try {
    ViewStreamBuf buf(text);
    std::istream in(&buf);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(events)) {
    }
    events.finish();
  } catch (const SliceFallback&) {
    return false;
  } catch (const YAML::Exception&) {
    return false;  // the tree reader's parse names the error
  }
  const auto slice_index = static_cast<uint32_t>(into.model.resource_slices.size());
  for (SliceEvents::Use& u : events.uses)
    into.counter_use_text.push_back({slice_index, u.device, u.use, std::move(u.at)});
  into.model.resource_slices.push_back(std::move(events.slice));
  return true;
}

}  // namespace slicelab

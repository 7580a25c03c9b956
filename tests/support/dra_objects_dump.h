// DraObjects as text, every ResourceSlice field written out, so that a test or the fuzz target
// compares the two ways of reading slices (DraSliceReading) field by field and shows the first
// difference.
#pragma once

#include <fmt/format.h>

#include <string>

#include "workloads/inputs/dra_objects.h"

namespace slicelab::testing {

inline std::string dump_location(const DraSourceLocation& l) {
  return fmt::format("{}:{}:{}", l.file, l.line, l.column);
}
inline std::string dump_quantity(const DraQuantity& q) {
  return fmt::format("{}({})", q.value, q.text);
}
inline std::string dump_counters(const std::vector<DraCounter>& cs) {
  std::string out;
  for (const DraCounter& c : cs) out += fmt::format(" {}={}", c.name, dump_quantity(c.value));
  return out;
}

// The slices in full, the counter uses, and of the other objects their names (they are read by
// the same tree reader either way).
inline std::string dump_dra_objects(const DraObjects& o) {
  std::string out;
  for (const DraResourceSlice& s : o.model.resource_slices) {
    out += fmt::format("slice {} driver={} pool={}/{}/{} node={} selector={} all={} at {}\n",
                       s.name, s.driver, s.pool.name, s.pool.generation,
                       s.pool.resource_slice_count, s.node_name.value_or("-"),
                       s.node_selector.has_value(), s.all_nodes, dump_location(s.location));
    for (const DraCounterSet& c : s.shared_counters)
      out += fmt::format("  set {}:{}\n", c.name, dump_counters(c.counters));
    for (const DraDevice& d : s.devices) {
      out += fmt::format("  device {} multi={} at {}\n", d.name, d.allow_multiple_allocations,
                         dump_location(d.location));
      for (const DraAttribute& a : d.attributes)
        out += fmt::format("    attr {} {} type={} s={} i={} b={}\n", a.name, a.qualified,
                           static_cast<int>(a.type), a.string_value, a.int_value, a.bool_value);
      for (const DraDeviceCapacity& c : d.capacity) {
        out += fmt::format("    cap {} {} {}", c.name, c.qualified, dump_quantity(c.value));
        if (const auto& p = c.request_policy) {
          out += fmt::format(" policy default={}",
                             p->default_value ? dump_quantity(*p->default_value) : "-");
          for (const DraQuantity& v : p->valid_values) out += " v=" + dump_quantity(v);
          if (const auto& r = p->valid_range)
            out += fmt::format(" range={},{},{}", r->min ? dump_quantity(*r->min) : "-",
                               r->max ? dump_quantity(*r->max) : "-",
                               r->step ? dump_quantity(*r->step) : "-");
        }
        out += '\n';
      }
      for (const DraDeviceCounterConsumption& u : d.consumes_counters)
        out += fmt::format("    uses {}:{}\n", u.counter_set, dump_counters(u.counters));
    }
  }
  for (const DraCounterUseText& u : o.counter_use_text)
    out += fmt::format("use {}/{}/{} at {}\n", u.slice, u.device, u.use, dump_location(u.at));
  for (const DraDeviceClass& c : o.model.device_classes) out += "class " + c.name + "\n";
  for (const DraResourceClaim& c : o.model.resource_claims) out += "claim " + c.name + "\n";
  for (const DraResourceClaimTemplate& t : o.model.resource_claim_templates)
    out += "template " + t.name + "\n";
  for (const DraPod& p : o.model.pods) out += "pod " + p.name + "\n";
  for (const DraSelector& s : o.model.selectors) out += "selector " + s.expression + "\n";
  out += fmt::format("selector texts {}\n", o.selector_text.size());
  for (const auto& [kind, n] : o.skipped_kinds) out += fmt::format("skipped {} {}\n", kind, n);
  return out;
}

}  // namespace slicelab::testing

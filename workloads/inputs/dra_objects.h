// Dynamic Resource Allocation objects (resource.k8s.io/v1) as read from YAML or JSON: device
// classes, resource slices, claims, claim templates and the pods that name them (docs/dra.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/dra_model.h"

namespace slicelab {

// Where each byte of a selector's expression sits in its file (DraModel::selectors holds the
// expression and where it starts), so that the CEL compiler (sim/modes/dra/cel_selectors.h) names
// the line and column of the construct it refuses, inside a quoted or block YAML string.
struct DraSelectorText {
  std::string file;
  std::vector<uint32_t> line, column;  // 1-based, one per byte of the expression plus its end
  // "FILE:LINE:COL" of byte `offset` of the expression.
  std::string locate(size_t offset) const;
};

// Where a device's consumesCounters[use].counterSet was read, for check_dra_pools.
struct DraCounterUseText {
  uint32_t slice = 0, device = 0, use = 0;  // model.resource_slices[slice].devices[device]...
  DraSourceLocation at;
};

struct DraObjects {
  DraModel model;
  std::vector<DraSelectorText> selector_text;       // indexed by DraSelectorId
  std::vector<DraCounterUseText> counter_use_text;  // one per consumesCounters entry read
  std::map<std::string, int> skipped_kinds;         // kinds that are not DRA objects (Namespace)
};

// Reads every DRA object of `path` (YAML or JSON; one object, a List, or a stream, read one
// object at a time: workloads/kube/kube_export_stream.h) into `into.model`; pods are kept only
// when they have spec.resourceClaims. Field
// names are resource.k8s.io/v1's (v1beta2 has the same paths and is read too; v1beta1 and
// v1alpha3 nest fields differently and are refused). Throws InputError "FILE:LINE:COL: path:
// …" for an unknown field (with a did-you-mean), a real field slicelab does not simulate
// (tolerations, taints, adminAccess, ...), a bad quantity, a missing required field, a list
// longer than the API allows, or a capacity requestPolicy the API server refuses. CEL
// expressions are not compiled here: sim/dra compiles them with DraCelText::locate.
// ResourceSlice documents of a YAML file are read on yaml-cpp's events without a node tree
// (workloads/inputs/dra_slice_events.h), and any the events reader declines from the tree as
// before; `Tree` reads every document from its tree, for the tests and the fuzz target that
// compare the two (the same objects, the same errors).
enum class DraSliceReading : uint8_t { Events, Tree };
void read_dra_objects(const std::string& path, DraObjects& into,
                      DraSliceReading slices = DraSliceReading::Events);

// What no single object shows, once every file is read: within each pool (driver, pool name and
// generation, whose slices may sit in several objects) no device name and no counter set name
// twice, and every consumesCounters entry naming one of the pool's counter sets and counters
// of it. Throws InputError at the second device or set, or at the consumption, as the API
// server or kube-scheduler's allocator would refuse the pool.
void check_dra_pools(const DraObjects& objects);

}  // namespace slicelab

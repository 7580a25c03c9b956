// ResourceSlice documents read on yaml-cpp's parser events, straight into DraResourceSlice, without
// the node tree that YAML::Load builds (a tree takes about 45 times its text and most of the time).
#pragma once

#include <string_view>

#include "workloads/inputs/dra_objects.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// Reads `text`, one YAML document parsed on its own (`yaml` names its file and where it starts),
// as one ResourceSlice and appends it to `into` (its slice, and a DraCounterUseText for each
// consumesCounters entry), exactly as read_dra_objects' tree reader would.
//
// Contract: a fast path that never fails. It returns false, having changed nothing, for any
// document that is not a plain ResourceSlice of what it reads: another kind, a List, more than
// one document, any null or alias, a field the tree reader refuses or checks further (a
// requestPolicy, a node selector, taints, ...), a value the tree reader would refuse (an empty
// string, a bad integer, boolean or quantity, a limit exceeded) or a missing required field. The
// caller then reads the document with the tree reader, which gives the same model or the same
// error message as before; so every message and limit stays the tree reader's.
bool read_resource_slice_events(std::string_view text, const YamlReader& yaml, DraObjects& into);

}  // namespace slicelab

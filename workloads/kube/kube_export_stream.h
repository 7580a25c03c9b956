// A Kubernetes export (what `kubectl get -o json|yaml` prints: one object, a List, or a stream
// of them) read one object at a time, so that memory stays a small multiple of the file instead
// of tens of times it, as a whole parsed tree takes (docs/kubernetes-import.md#limits).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "workloads/text_file.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// The largest export file: a `kubectl get pods -A -o json` of about 25,000 pods with their
// managedFields. Read as JSON it takes about 1.2 times its size (the text and what is kept of it).
inline constexpr uint64_t kMaxKubernetesExportBytes = 256 * kMiB;
// The largest object of a JSON export, parsed on its own: the API server's etcd refuses objects
// over 1.5 MiB (its default --max-request-bytes), so no real object comes near it.
inline constexpr uint64_t kMaxKubernetesObjectBytes = 4 * kMiB;
// The largest YAML document parsed whole: a parsed YAML document takes about 45 times its text.
// A larger List whose items form a block sequence (what `kubectl get -o yaml` prints) is read an
// item at a time instead, each at most kMaxKubernetesObjectBytes.
inline constexpr uint64_t kMaxKubernetesYamlDocumentBytes = 8 * kMiB;

// One object of an export, parsed by yaml-cpp on its own. `yaml` names the file and adds where
// the object starts to its nodes' marks, so that its fail() and where() give the file's line and
// column; `text` is what the marks' pos index.
struct KubeExportObject {
  const YAML::Node& node;
  const YamlReader& yaml;
  std::string_view text;
  const std::string& path;  // "items[3]", "(document 2).items[0]", "[1]", or "" for the whole file
};

// A reader of one YAML document's text that builds no node tree (a ResourceSlice on yaml-cpp's
// events: workloads/inputs/dra_slice_events.h). It returns true when it read the document, or
// false, having changed nothing, to have it parsed and visited as usual.
using KubeYamlTextReader = std::function<bool(std::string_view text, const YamlReader& yaml)>;

// Reads `path` (at most kMaxKubernetesExportBytes, UTF-8) and calls `visit` on each object in
// file order. `read_text`, when given, is offered each YAML document (and each item of a large
// List) first, after the whole file has passed check_yaml_syntax; `visit` sees those it declines.
// - JSON (the file starts with '{' or '['): each value is first checked as strict JSON, nested
//   at most kMaxYamlDepth deep, without building it; then each item of a List (a `kind` ending in
//   "List"; path "items[i]"), each element of an array ("[i]") or else the value itself is parsed
//   on its own (at most kMaxKubernetesObjectBytes) and visited. No object has a key twice.
//   Several values one after another are "(document N)".
// - YAML: the whole file passes check_yaml_syntax (no aliases, anchors, deep nesting or key
//   twice), then each document ('---' between them; "(document N)" when there are several) is
//   parsed on its own and visited whole (the visitor reads a List's items itself), at most
//   kMaxKubernetesYamlDocumentBytes; except that a List of more than 1 MiB whose items form a
//   block sequence has each item parsed and visited on its own ("items[i]").
// Throws InputError "FILE:LINE:COL: PATH: …" for any of these limits or checks.
void read_kubernetes_export(const std::string& path,
                            const std::function<void(const KubeExportObject&)>& visit,
                            const KubeYamlTextReader& read_text = {});

}  // namespace slicelab

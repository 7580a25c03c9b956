// Loading a file that holds several YAML documents ('---' between them) or several JSON values
// one after another (`kubectl get -o json` piped through jq), with every single-file check.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/text_file.h"

namespace slicelab {

// The documents of `path` in order (empty ones skipped). Concatenated JSON values
// ("{...}\n{...}") are split at their top-level boundaries. Throws a located InputError as
// load_yaml_file does: unreadable or larger than `max_bytes`, invalid UTF-8 or syntax, aliases,
// anchors, nesting deeper than kMaxYamlDepth, a key twice in a mapping. JSON's null is kept.
// `parsed_text`, when given, receives the text the nodes' marks point into (the file's, with a
// document separator before each concatenated JSON value), for readers that locate positions
// inside a scalar.
std::vector<YAML::Node> load_yaml_documents(const std::string& path, uint64_t max_bytes,
                                            std::string* parsed_text = nullptr);

}  // namespace slicelab

// The checks every YAML input passes before it is turned into nodes: UTF-8 text, one document,
// no anchors or aliases, nesting within a depth limit and no key twice in any mapping.
#pragma once

#include <string>

namespace slicelab {

// How deep mappings and lists may nest (the deepest shipped scenario nests 9 levels).
inline constexpr int kMaxYamlDepth = 64;

// Throws InputError "PATH:LINE:COL: FIELD: …" at the first violation. Runs on yaml-cpp's event
// parser, which builds no nodes, so that an alias bomb or a deeply nested file is refused
// before anything expands it: aliases are refused outright, and with them every node of the
// document has its own text, so its node count is bounded by the file size.
// `many_documents` allows a stream of documents ('---' between them), each checked alike.
void check_yaml_syntax(const std::string& text, const std::string& path,
                       bool many_documents = false);

}  // namespace slicelab

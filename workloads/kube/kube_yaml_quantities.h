// Kubernetes quantities read from a YAML document: memory and CPU values for the readers of
// pods, clusters and DRA objects, located at their key when refused (YamlReader::fail).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "workloads/yaml_reader.h"

namespace slicelab {

// MiB for the *_mib keys: a plain number is MiB, as these keys always read it ("2048"); any
// other spelling is a Kubernetes quantity of bytes, rounded up to whole MiB ("512Mi", "16Gi",
// "10G", "10e9"). Milli, micro and nano suffixes ("512m") are refused with a did-you-mean.
int64_t kube_mebibytes(const YamlReader& yaml, const YAML::Node& node, std::string_view path);
// Kubernetes `memory:` in MiB: a quantity of bytes, a bare number included ("1073741824" is
// 1024), rounded up to whole MiB.
int64_t kube_memory_bytes_as_mib(const YamlReader& yaml, const YAML::Node& node,
                                 std::string_view path);
// Kubernetes `cpu:` in thousandths of a core: "4" -> 4000, "500m" -> 500, "0.5" -> 500.
int64_t kube_cpu_milli(const YamlReader& yaml, const YAML::Node& node, std::string_view path);

// The same for an optional key of `map`: std::nullopt when the key is absent.
std::optional<int64_t> kube_opt_mebibytes(const YamlReader& yaml, const YAML::Node& map,
                                          std::string_view path, const char* key);
std::optional<int64_t> kube_opt_memory_bytes_as_mib(const YamlReader& yaml, const YAML::Node& map,
                                                    std::string_view path, const char* key);
std::optional<int64_t> kube_opt_cpu_milli(const YamlReader& yaml, const YAML::Node& map,
                                          std::string_view path, const char* key);

}  // namespace slicelab

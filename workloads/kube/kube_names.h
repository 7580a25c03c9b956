// Kubernetes' rules for the names slicelab passes on to a cluster: DNS-1123 subdomains, qualified
// names and extended resource names (k8s.io/apimachinery's validation, the core API's helpers),
// so that a name the API server or the kubelet would refuse is refused when it is read.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slicelab {

// The device plugin's MIG resources (mixed strategy): "nvidia.com/mig-<profile>".
inline constexpr std::string_view kKubeMigResourcePrefix = "nvidia.com/mig-";

// Why `name` is not a DNS-1123 subdomain (at most 253 characters of lower-case letters, digits,
// '-' and '.', each dot-separated label starting and ending with a letter or digit); nullopt
// when it is one.
std::optional<std::string> dns_subdomain_error(std::string_view name);

// Why `name` is not a qualified name (an optional DNS subdomain prefix and '/', then at most 63
// letters, digits, '-', '_' and '.', starting and ending with a letter or digit); nullopt when it
// is one.
std::optional<std::string> qualified_name_error(std::string_view name);

// Why `name` cannot be an extended resource (what a device plugin advertises and a pod asks for:
// IsExtendedResourceName): it needs a domain prefix other than kubernetes.io, must not start
// with "requests.", and "requests." + name must be a qualified name. nullopt when it can.
std::optional<std::string> extended_resource_name_error(std::string_view name);

}  // namespace slicelab

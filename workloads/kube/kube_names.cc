#include "workloads/kube/kube_names.h"

#include <fmt/format.h>

namespace slicelab {
namespace {

constexpr size_t kMaxSubdomainLength = 253;
constexpr size_t kMaxQualifiedNameLength = 63;
constexpr std::string_view kRequestsPrefix = "requests.";
constexpr std::string_view kNativePrefix = "kubernetes.io/";

bool lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool alnum(char c) {
  return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

// The first character of `s` that is not printable ASCII, as a message fragment ("a space",
// "a line break", "'%'"), so that the error says what to remove.
std::string char_text(char c) {
  switch (c) {
    case ' ':
      return "a space";
    case '\n':
    case '\r':
      return "a line break";
    case '\t':
      return "a tab";
    default:
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a control character";
      if (static_cast<unsigned char>(c) >= 0x80) return "a non-ASCII character";
      return fmt::format("'{}'", c);
  }
}

}  // namespace

std::optional<std::string> dns_subdomain_error(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxSubdomainLength)
    return fmt::format("is longer than {} characters", kMaxSubdomainLength);
  size_t label = 0;  // start of the current label
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '.') {
      const char c = name[i];
      if (!lower_alnum(c) && c != '-')
        return fmt::format("holds {} (only lower-case letters, digits, '-' and '.' may appear)",
                           char_text(c));
      continue;
    }
    const std::string_view l = name.substr(label, i - label);
    if (l.empty() || !lower_alnum(l.front()) || !lower_alnum(l.back()))
      return std::string(
          "has a part that does not start and end with a lower-case letter or digit");
    label = i + 1;
  }
  return std::nullopt;
}

std::optional<std::string> qualified_name_error(std::string_view name) {
  std::string_view local = name;
  if (const size_t slash = name.find('/'); slash != std::string_view::npos) {
    if (name.find('/', slash + 1) != std::string_view::npos)
      return std::string("holds more than one '/'");
    const std::string_view prefix = name.substr(0, slash);
    if (prefix.empty()) return std::string("has an empty prefix before '/'");
    if (auto e = dns_subdomain_error(prefix))
      return fmt::format("has a prefix '{}' that {}", prefix, *e);
    local = name.substr(slash + 1);
  }
  if (local.empty()) return std::string("has an empty name part");
  if (local.size() > kMaxQualifiedNameLength)
    return fmt::format("has a name part longer than {} characters", kMaxQualifiedNameLength);
  for (const char c : local)
    if (!alnum(c) && c != '-' && c != '_' && c != '.')
      return fmt::format("holds {} (the name part takes letters, digits, '-', '_' and '.')",
                         char_text(c));
  if (!alnum(local.front()) || !alnum(local.back()))
    return std::string("has a name part that does not start and end with a letter or digit");
  return std::nullopt;
}

std::optional<std::string> extended_resource_name_error(std::string_view name) {
  if (name.find('/') == std::string_view::npos)
    return std::string("has no domain prefix (an extended resource is 'domain/name')");
  if (name.find(kNativePrefix) != std::string_view::npos)
    return fmt::format("is in the {} namespace, which is Kubernetes' own", kNativePrefix);
  if (name.starts_with(kRequestsPrefix))
    return fmt::format("starts with '{}', which quotas reserve", kRequestsPrefix);
  if (auto e = qualified_name_error(name)) return e;
  // The API server also accepts "requests.<name>" as a quota key: the prefix must stay a
  // subdomain of at most 253 characters with it.
  if (auto e = qualified_name_error(std::string(kRequestsPrefix) + std::string(name)))
    return fmt::format("is too long once quotas prefix it with '{}'", kRequestsPrefix);
  return std::nullopt;
}

}  // namespace slicelab

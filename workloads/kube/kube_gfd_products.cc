#include "workloads/kube/kube_gfd_products.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "workloads/edit_distance.h"

namespace slicelab {
namespace {

// One GPU family: the token GFD's product names hold ("A100" in NVIDIA-A100-SXM4-80GB), and
// the catalog model by memory: `small` below `split_mib`, `large` from it on (the same model
// when the family has one size).
struct Family {
  std::string_view token;
  std::string_view small;
  std::string_view large;
  int64_t split_mib;
  std::string_view example;
};

constexpr Family kFamilies[] = {
    {"H200", "H200", "H200", 0, "NVIDIA-H200"},
    {"H100", "H100-80GB", "H100-80GB", 0, "NVIDIA-H100-80GB-HBM3"},
    {"A100", "A100-40GB", "A100-80GB", 61440, "NVIDIA-A100-SXM4-80GB"},
    {"A30", "A30", "A30", 0, "NVIDIA-A30"},
    // AWS's A10G is an A10 with other clocks; the catalog's A10 is the nearest model.
    {"A10", "A10", "A10", 0, "NVIDIA-A10"},
    {"A10G", "A10", "A10", 0, "NVIDIA-A10G"},
    {"L4", "L4", "L4", 0, "NVIDIA-L4"},
    {"T4", "T4", "T4", 0, "Tesla-T4"},
    {"V100", "V100-16GB", "V100-32GB", 24576, "Tesla-V100-SXM2-16GB"},
    {"P100", "P100", "P100", 0, "Tesla-P100-PCIE-16GB"},
};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t dash = std::min(s.find_first_of("- _", at), s.size());
    if (dash > at) out.push_back(s.substr(at, dash - at));
    at = dash + 1;
  }
  return out;
}

// The memory a product name states ("80GB" in NVIDIA-A100-SXM4-80GB), in MiB; 0 if none.
int64_t stated_memory_mib(const std::vector<std::string>& toks) {
  for (const std::string& t : toks) {
    // At most 5 digits: no GPU has 100 TB, and longer digit runs would overflow stoll.
    if (t.size() < 3 || t.size() > 7 || !t.ends_with("GB")) continue;
    const std::string digits = t.substr(0, t.size() - 2);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(c) != 0; }))
      continue;
    return std::stoll(digits) * 1024;
  }
  return 0;
}

}  // namespace

std::optional<size_t> kube_gfd_product_model(std::string_view product, int64_t memory_mib,
                                             std::span<const std::string> models,
                                             std::string& error) {
  std::string name = upper(product);
  // "-MIG-1g.10gb" (single strategy) and "-SHARED" (replicas) describe the sharing, not the GPU.
  if (const size_t mig = name.find("-MIG"); mig != std::string::npos) name.resize(mig);
  if (name.ends_with("-SHARED")) name.resize(name.size() - 7);
  const std::vector<std::string> toks = tokens(name);
  for (const Family& f : kFamilies) {
    if (std::find(toks.begin(), toks.end(), f.token) == toks.end()) continue;
    std::string_view model = f.small;
    if (f.small != f.large) {
      int64_t mib = stated_memory_mib(toks);
      if (mib == 0) mib = memory_mib;
      if (mib == 0) {
        error = fmt::format(
            "GPU product '{}' comes in {} and {}: the product does not say which, and the node "
            "has no nvidia.com/gpu.memory label (GPU feature discovery's, in MiB) to tell",
            product, f.small, f.large);
        return std::nullopt;
      }
      model = mib >= f.split_mib ? f.large : f.small;
    }
    if (const auto it = std::find(models.begin(), models.end(), model); it != models.end())
      return static_cast<size_t>(it - models.begin());
    error = fmt::format("GPU product '{}' maps to '{}', which the catalog lacks", product, model);
    return std::nullopt;
  }
  // The catalog model whose name is nearest to the product's family-looking tokens.
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const std::string& m : models)
    for (const std::string& t : toks) {
      const std::string family = upper(m.substr(0, m.find('-')));
      const size_t d = edit_distance(t, family);
      if (d < best_d) best_d = d, best = m;
    }
  // The catalog's names sorted, as GpuCatalog::names() lists them.
  std::vector<std::string> sorted(models.begin(), models.end());
  std::sort(sorted.begin(), sorted.end());
  error = fmt::format("unknown GPU product '{}'{} (the catalog has {}; products it maps: {})",
                      product, best_d <= 2 ? fmt::format(" (did you mean {}?)", best) : "",
                      fmt::join(sorted, ", "), kube_gfd_known_products());
  return std::nullopt;
}

std::string kube_gfd_known_products() {
  std::string out;
  for (const Family& f : kFamilies) out += (out.empty() ? "" : ", ") + std::string(f.example);
  return out;
}

}  // namespace slicelab

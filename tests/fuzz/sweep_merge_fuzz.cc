// Fuzzes `slicelab merge` (reports/sweep_files): the input is split at lines "----" into up to
// two shards' sweep.json and sweep.csv (json, csv, json, csv), which are then merged.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reports/sweep_files.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest = slicelab::fuzz::as_text(data, size);
  std::array<std::string, 4> parts;
  for (auto& part : parts) {
    const auto cut = rest.find("\n----\n");
    part = rest.substr(0, cut);
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 6);
  }
  std::vector<std::string> shards;
  for (size_t i = 0; i < 2; ++i) {
    if (i == 1 && parts[2].empty() && parts[3].empty()) break;
    const std::string dir = "shard-" + std::to_string(i);
    slicelab::fuzz::write_input(dir + "/sweep.json", parts[2 * i]);
    slicelab::fuzz::write_input(dir + "/sweep.csv", parts[2 * i + 1]);
    shards.push_back((slicelab::fuzz::scratch_folder() / dir).string());
  }
  try {
    (void)slicelab::merge_sweeps(shards, (slicelab::fuzz::scratch_folder() / "merged").string());
  } catch (const slicelab::InputError&) {
  }
  return 0;
}

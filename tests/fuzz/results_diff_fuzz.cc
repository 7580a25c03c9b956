// Fuzzes `slicelab diff` (reports/results_diff): the input's first line is the options' text
// (fed to the --seeds and --fail-if parsers, and as the policy of side B), the rest is split at
// lines "----" into A's summary.json, A's seed-1/summary.json, B's summary.json and B's
// seed-1/summary.json; the two folders are then diffed, tabled and written as JSON.
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "reports/diff_fail_if.h"
#include "reports/results_diff.h"
#include "sim/scenario/replications.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest = slicelab::fuzz::as_text(data, size);
  const auto eol = rest.find('\n');
  const std::string options(rest.substr(0, eol));
  rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  std::array<std::string, 4> parts;
  for (auto& part : parts) {
    const auto cut = rest.find("\n----\n");
    part = rest.substr(0, cut);
    rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 6);
  }
  std::string why;
  const std::optional<slicelab::SeedsOption> seeds = slicelab::parse_seeds_option(options, why);
  (void)slicelab::parse_fail_if(options, why);
  slicelab::fuzz::write_input("a/summary.json", parts[0]);
  if (!parts[1].empty()) slicelab::fuzz::write_input("a/seed-1/summary.json", parts[1]);
  slicelab::fuzz::write_input("b/summary.json", parts[2]);
  if (!parts[3].empty()) slicelab::fuzz::write_input("b/seed-1/summary.json", parts[3]);
  const std::string folder_b = (slicelab::fuzz::scratch_folder() / "b").string();
  try {
    const slicelab::DiffSide a{slicelab::fuzz::scratch_folder() / "a", std::nullopt};
    const slicelab::DiffSide b = slicelab::parse_diff_side(
        options.empty() || options.find('/') != std::string::npos ? folder_b
                                                                  : folder_b + ":" + options);
    const slicelab::ResultsDiff d = slicelab::diff_results(a, b, seeds);
    (void)slicelab::diff_table(d, true);
    (void)slicelab::diff_json(d).dump();
  } catch (const std::exception&) {  // the CLI prints these as one error line, exit 1
  }
  return 0;
}

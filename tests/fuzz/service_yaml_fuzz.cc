// Fuzzes the inference-service reader (workloads/inputs/service_yaml): the input's text up to a
// line "---csv---" as a YAML document whose `services:` are read, the rest as rate.csv beside
// it (which a service's `rate: {csv: rate.csv}` reads), and the CSV alone through read_rate_csv.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/inputs/service_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(slicelab::fuzz::as_text(data, size));
  const auto cut = text.find("\n---csv---\n");
  const std::string yaml_text = cut == std::string::npos ? text : text.substr(0, cut);
  const std::string csv_text = cut == std::string::npos ? "" : text.substr(cut + 11);
  const auto csv = slicelab::fuzz::write_input("rate.csv", csv_text);
  const auto path = slicelab::fuzz::write_input("services.yaml", yaml_text);
  try {
    (void)slicelab::read_rate_csv(csv);
  } catch (const slicelab::InputError&) {
  }
  try {
    const YAML::Node root = slicelab::load_yaml_file(path);
    const slicelab::YamlReader yaml(path);
    if (root.IsMap() && root["services"].IsDefined())
      (void)slicelab::read_service_list(yaml, root["services"], "services",
                                        std::filesystem::path(path).parent_path().string());
  } catch (const slicelab::InputError&) {
  }
  return 0;
}

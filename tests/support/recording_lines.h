// Reading a recording folder back in tests: every complete line of its segments, in order, as
// JSON (a torn last line is left out, as the format's readers do).
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace slicelab::testing {

inline std::vector<nlohmann::json> read_recording_lines(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> segments;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("events-") && name.ends_with(".jsonl")) segments.push_back(e.path());
  }
  std::sort(segments.begin(), segments.end());
  std::vector<nlohmann::json> lines;
  for (const auto& p : segments) {
    std::ifstream in(p, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t from = 0;
    for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
      lines.push_back(nlohmann::json::parse(text.substr(from, nl - from), nullptr, false));
      from = nl + 1;
    }
  }
  return lines;
}

}  // namespace slicelab::testing

// The report of scripts/gpu-check (docs/gpu-check.md): the outputs its steps left in one raw
// folder, read and checked, written as one JSON file per figure and a Markdown summary with
// their tables (`slicelab kernels report`).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace slicelab {

// The figures, in the report's order: each is <name>.json in the report and a section of
// summary.md.
inline constexpr const char* kGpuCheckFigures[] = {
    "environment", "steps",       "overhead-calls", "overhead-kernels", "isolation", "memory-cap",
    "colocation",  "calibration", "replay",         "gpu-tests",        "mig"};

struct GpuCheckReport {
  std::vector<std::string> files;     // written into the folder, relative to it, sorted
  std::vector<std::string> unparsed;  // "figure: why" for each output a finished step left
                                      // that could not be read
  size_t measured = 0;                // figures with status "measured"
  size_t not_measured = 0;            // figures skipped, failed or timed out (with the reason)
};

// Reads the raw folder (docs/gpu-check.md#the-raw-folder) and writes the report into `out`, an
// existing empty folder. A figure whose step was skipped, failed or ran past its budget is
// written with that status and its reason; an output a finished step should have left but that
// is missing or cannot be read is written as "unparsed" with why, and listed in `unparsed`.
// Throws InputError when `raw` has no steps.tsv (it is not a gpu-check raw folder).
GpuCheckReport write_gpu_check_report(const std::filesystem::path& raw,
                                      const std::filesystem::path& out);

}  // namespace slicelab

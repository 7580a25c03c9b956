// Fuzzes what `slicelab record` reads back when it resumes a recording (recording_resume.h):
// the input as a segment's text, each complete line given to RecordingLineReplay (the format's
// line, seq continuity, the dedup table rebuilt under small limits), every object it parsed
// trimmed as the recorder trims; then the same text as a segment file read by
// open_recording_folder, as a resume reads it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "backends/k8s/recording_dedup.h"
#include "backends/k8s/recording_folder.h"
#include "backends/k8s/recording_line.h"
#include "backends/k8s/recording_resume.h"
#include "backends/k8s/recording_trim.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace slicelab;
  const std::string_view text = fuzz::as_text(data, size);
  k8s::RecordingDedup dedup(k8s::DedupLimits{64, 16});
  k8s::RecordingLineReplay replay(dedup);
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', from)) {
    const std::string_view line = text.substr(from, nl - from);
    from = nl + 1;
    try {
      const k8s::RecordingLine parsed = k8s::parse_recording_line(line);
      (void)k8s::trim_object(parsed.kind, parsed.object);
    } catch (const k8s::RecordingLineError&) {
    }
    try {
      replay.line(line, "fuzz:1");
    } catch (const InputError&) {
      break;  // a resume stops at the first line it refuses
    }
  }
  // The text as the last segment of a recording, read back by a resume.
  const std::filesystem::path dir =
      std::filesystem::path(fuzz::write_input("recording/events-000001.jsonl", text)).parent_path();
  k8s::RecordingHeader header;
  header.slicelab = "fuzz";
  std::ofstream(dir / "recording.json") << k8s::recording_header_text(header);
  k8s::RecordingDedup again(k8s::DedupLimits{64, 16});
  try {
    const k8s::RecordingResume r = k8s::open_recording_folder(dir, header, again);
    (void)r;
  } catch (const InputError&) {
  }
  return 0;
}

// A scripted "hour" of pod churn against the API-server stand-in, recorded by the `slicelab
// record` binary: creations, bindings, Running and Succeeded/Failed with terminated times,
// deletions, a node added and one removed, watches expired with 410, the server restarted, and
// the recorder killed with SIGKILL and restarted on the same folder. Its hour is compressed:
// minute m is taken 100 ms × m after the script began (or later, when it waits for the
// recorder), stamped with the wall clock as an API server would, so that the stand-in's times
// and the recorder's agree and the run takes seconds; segments rotate every second, and the
// first run is killed once it has rotated at least once. Shared by the recorder's acceptance
// test and the replay's (as-recorded reproduces every placement).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace slicelab::testing {

struct ChurnRecording {
  // "" when the script ran to its end; else what went wrong (the recorder's output with it).
  std::string error;
  // Every binding the stand-in made: ("namespace/name", node), in the order made.
  std::vector<std::pair<std::string, std::string>> placements;
  // UIDs of the pods deleted while the recorder was killed: the recording has them as GONE.
  std::vector<std::string> deleted_while_down;
  std::string recorder_output;  // both runs' stdout and stderr
};

// Runs the script with `slicelab_binary` recording into `dir` (absent, or an empty folder).
// Takes about 10 s (the watches' re-list back-off after the 410 and the restart).
ChurnRecording record_scripted_churn(const std::string& slicelab_binary,
                                     const std::filesystem::path& dir);

}  // namespace slicelab::testing

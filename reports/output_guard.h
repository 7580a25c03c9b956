// Which paths slicelab may write or replace: its marker file, and the rules every output folder
// and output file given by a user (or derived from a scenario name) is checked against.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/input_error.h"

namespace slicelab {

// An output path slicelab will not write: the message names the path, says why and what to do.
// An InputError, so that the CLI treats it as the other mistakes in what a user asked for.
class OutputRefused : public InputError {
 public:
  explicit OutputRefused(const std::string& message) : InputError(message) {}
};

// Every folder slicelab writes carries this file; it is what makes the folder replaceable.
inline constexpr const char* kResultsMarker = ".slicelab-results";
// The marker's first line. The lines after it list, one per line, the paths slicelab wrote
// there (relative, folders ending in '/'), so that files a user added are noticed.
inline constexpr const char* kResultsMarkerLine = "slicelab results folder";

// The paths in `dir` (relative, sorted, folders ending in '/'), the marker excluded; symbolic
// links are listed as files and never followed.
std::vector<std::string> folder_entries(const std::filesystem::path& dir);

// Writes `dir`/.slicelab-results listing `entries`, through a temporary file renamed into place.
void write_results_marker(const std::filesystem::path& dir, std::span<const std::string> entries);

// Writes `content` into a fresh temporary sibling of `target` (<target's name>.slicelab-tmp-<pid>,
// created with O_EXCL and O_NOFOLLOW, so that a file or link planted at that name is never
// written through or truncated), then renames it onto `target`. On failure the temporary file
// is removed and `target` is as it was.
void replace_file_via_temp(const std::filesystem::path& target, std::string_view content);

// The paths the marker of `dir` lists; nullopt when `dir` has no marker of slicelab's (missing,
// not a regular file, or without the first line above).
std::optional<std::vector<std::string>> read_results_marker(const std::filesystem::path& dir);

// May `dir` be (re)placed by a folder slicelab writes? Returns the absolute, lexically normal
// path to use. Refused (OutputRefused): an empty path; ".", ".." or "/" as the last component;
// the root, the home folder ($HOME), the working folder or any folder above it; a symbolic
// link; anything that is not a folder; a non-empty folder without slicelab's marker (even with
// `force`); a marked folder holding paths its marker does not list, unless `force`.
std::filesystem::path check_output_folder(const std::string& dir, bool force);

// May slicelab add its own files to the existing folder `dir` (`slicelab report`)? Only when
// it carries slicelab's marker (and is not a symbolic link). Returns the folder's path.
std::filesystem::path check_results_folder_to_add_to(const std::string& dir);

// May the single file `file` be written (replaced when it is a regular file: that is what
// naming it as the output asks for)? Refused: an empty path or one ending in '/', a folder, a
// symbolic link, a device, pipe or socket, and the same file as any of `inputs`.
std::filesystem::path check_output_file(const std::string& file,
                                        std::span<const std::string> inputs = {});

// The first line of every single output file slicelab writes as its own (`import openb|csv -o`,
// `calibrate -o`) begins with this: it is what makes the file replaceable, as the marker file
// makes a folder replaceable.
inline constexpr std::string_view kOwnFileLine = "# Written by slicelab ";

// As check_output_file, and an existing file is replaced only when it is slicelab's: empty, or
// beginning with kOwnFileLine (or "# Written by `slicelab calibrate", the calibration files of
// earlier versions). Any other file is refused, with no option to override it.
std::filesystem::path check_own_output_file(const std::string& file,
                                            std::span<const std::string> inputs = {});

}  // namespace slicelab

// The output safety rules (reports/output_guard.h, atomic_folder.h, output_file.h): which folders
// and files slicelab may replace, that a refusal or a failure deletes nothing, and the sweep of
// what killed runs left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/atomic_folder.h"
#include "reports/output_file.h"
#include "reports/output_guard.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"
#include "workloads/plain_file_name.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::read_file;

// The message of the OutputRefused that `f` throws; "no error" when it throws none.
template <typename F>
std::string refusal(F f) {
  try {
    f();
  } catch (const OutputRefused& e) {
    return e.what();
  }
  return "no error";
}

// A pid that belonged to a process that has ended (and been reaped).
pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

class OutputGuard : public testing::TempFilesTest {
 protected:
  // Writes a results folder at `dir` holding `file` with `text`, as slicelab does.
  void write_results(const fs::path& dir, const std::string& file, const std::string& text,
                     bool force = false) {
    write_folder_atomically(dir.string(), force, [&](const fs::path& tmp) {
      std::ofstream(tmp / file, std::ios::binary) << text;
    });
  }
  // The folder's entries (names only), sorted.
  std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST(PlainFileName, AcceptsNamesAndRefusesPaths) {
  for (const char* ok : {"quickstart", "day-mixed_2.v1", "..x", ".hidden", "a b"})
    EXPECT_EQ(plain_file_name_problem(ok), std::nullopt) << ok;
  for (const std::string& bad : std::vector<std::string>{
           std::string(), std::string("."), std::string(".."), std::string("a/b"),
           std::string("/abs"), std::string("../up"), std::string("a\0b", 3), std::string("a\tb"),
           std::string("x\x7f"), std::string(256, 'a')})
    EXPECT_NE(plain_file_name_problem(bad), std::nullopt) << bad;
  EXPECT_EQ(*plain_file_name_problem(".."),
            "'..' is not a plain file name; the name becomes a results folder (results/<name>): "
            "use letters, digits, '-', '_' or '.'");
}

TEST_F(OutputGuard, RefusesFoldersThatHoldOtherThings) {
  for (const std::string& dir :
       std::vector<std::string>{".", "..", "./", "/", "", (dir_ / "x" / "..").string()})
    EXPECT_NE(refusal([&] { check_output_folder(dir, true); }), "no error") << dir;
  const std::string cwd = fs::current_path().string();
  EXPECT_EQ(refusal([&] { check_output_folder(cwd, true); }),
            "output folder '" + cwd +
                "' is the working folder; give a folder of its own, e.g. results/run1");
  const std::string above = fs::current_path().parent_path().string();
  EXPECT_NE(refusal([&] { check_output_folder(above, true); }).find("holds the working folder"),
            std::string::npos);
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    EXPECT_NE(refusal([&] { check_output_folder(home, true); }).find("your home folder"),
              std::string::npos);
  }
  EXPECT_EQ(refusal([&] { check_output_folder(".", false); }),
            "output folder '.' is refused: '.' names a folder that holds other things, which "
            "slicelab would replace; give a folder of its own, e.g. results/run1");
}

TEST_F(OutputGuard, RefusesFilesAndLinks) {
  const std::string file = write("file", "mine");
  EXPECT_NE(refusal([&] { write_results(file, "a", "x", true); }).find("is not a folder"),
            std::string::npos);
  EXPECT_EQ(read_file(file), "mine");
  write_results(dir_ / "real", "a", "x");
  fs::create_directory_symlink(dir_ / "real", dir_ / "link");
  EXPECT_NE(refusal([&] { write_results(dir_ / "link", "a", "y", true); }).find("symbolic link"),
            std::string::npos);
  EXPECT_EQ(read_file(dir_ / "real" / "a"), "x");
}

// A link planted at the temporary file's name (guessable: the pid) is never written through:
// before, the temporary file was opened with ofstream, which followed it and truncated its target.
TEST_F(OutputGuard, APlantedTemporaryFileIsNeverWrittenThrough) {
  const std::string victim = write("victim", "mine");
  const fs::path target = dir_ / "out.json";
  fs::create_symlink(victim, target.string() + ".slicelab-tmp-" + std::to_string(::getpid()));
  EXPECT_THROW(replace_file_via_temp(target, "new"), std::runtime_error);
  EXPECT_EQ(read_file(victim), "mine");
  EXPECT_FALSE(fs::exists(target));
  write_results(dir_ / "res", "a", "x");
  fs::create_directory_symlink(dir_ / "res", dir_ / "to-res");
  EXPECT_NE(refusal([&] {
              check_results_folder_to_add_to((dir_ / "to-res").string());
            }).find("symbolic link"),
            std::string::npos);
}

TEST_F(OutputGuard, MissingAndEmptyFoldersAreWritten) {
  write_results(dir_ / "new" / "deeper", "a", "1");
  EXPECT_EQ(read_file(dir_ / "new" / "deeper" / "a"), "1");
  fs::create_directory(dir_ / "empty");
  write_results(dir_ / "empty", "a", "2");
  EXPECT_EQ(read_file(dir_ / "empty" / "a"), "2");
  EXPECT_EQ(read_results_marker(dir_ / "empty"), std::vector<std::string>{"a"});
  EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"empty", "new"}));  // no temporaries left
}

TEST_F(OutputGuard, UnmarkedFolderIsNeverReplacedEvenWithForce) {
  const fs::path dir = dir_ / "theirs";
  fs::create_directory(dir);
  write("theirs/notes.txt", "keep me");
  for (const bool force : {false, true}) {
    EXPECT_NE(refusal([&] { write_results(dir, "a", "x", force); })
                  .find("is not empty and was not written by slicelab (it has no "
                        ".slicelab-results file)"),
              std::string::npos);
    EXPECT_EQ(names_in(dir), std::vector<std::string>{"notes.txt"});
    EXPECT_EQ(read_file(dir / "notes.txt"), "keep me");
  }
  // A marker that is not slicelab's (another first line) does not count either.
  write("theirs/.slicelab-results", "something else\n");
  EXPECT_NE(refusal([&] { write_results(dir, "a", "x", true); }), "no error");
  EXPECT_EQ(read_file(dir / "notes.txt"), "keep me");
}

TEST_F(OutputGuard, MarkedFolderIsReplacedAndItsOldFilesGo) {
  const fs::path dir = dir_ / "r";
  write_results(dir, "old.csv", "1");
  write_results(dir, "new.csv", "2");
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{".slicelab-results", "new.csv"}));
  EXPECT_EQ(read_file(dir / "new.csv"), "2");
  EXPECT_EQ(names_in(dir_), std::vector<std::string>{"r"});
}

TEST_F(OutputGuard, AddedFilesNeedForceAndForceReplacesOnlyMarkedFolders) {
  const fs::path dir = dir_ / "r";
  write_folder_atomically(dir.string(), false, [](const fs::path& tmp) {
    fs::create_directory(tmp / "seed-1");
    std::ofstream(tmp / "seed-1" / "pods.csv") << "p";
  });
  EXPECT_EQ(read_results_marker(dir), (std::vector<std::string>{"seed-1/", "seed-1/pods.csv"}));
  write("r/seed-1/mine.txt", "added");
  EXPECT_EQ(refusal([&] { write_results(dir, "a", "x"); }),
            "output folder '" + dir.string() +
                "' is a slicelab results folder, but holds 1 path(s) slicelab did not write "
                "there (seed-1/mine.txt); move them elsewhere, or give --force to replace the "
                "folder with them");
  EXPECT_EQ(read_file(dir / "seed-1" / "mine.txt"), "added");
  EXPECT_EQ(read_file(dir / "seed-1" / "pods.csv"), "p");
  write_results(dir, "a", "x", true);
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{".slicelab-results", "a"}));
}

TEST_F(OutputGuard, FailedWriteLeavesTheOldResults) {
  const fs::path dir = dir_ / "r";
  write_results(dir, "a", "old");
  EXPECT_THROW(write_folder_atomically(dir.string(), false,
                                       [](const fs::path& tmp) {
                                         std::ofstream(tmp / "a") << "half";
                                         throw std::runtime_error("disk full");
                                       }),
               std::runtime_error);
  EXPECT_EQ(read_file(dir / "a"), "old");
  EXPECT_EQ(names_in(dir_), std::vector<std::string>{"r"});
}

TEST_F(OutputGuard, StaleFoldersOfDeadProcessesAreSwept) {
  const fs::path dir = dir_ / "r";
  const pid_t dead = dead_pid();
  const fs::path stale = dir_ / ("r.slicelab-tmp-" + std::to_string(dead));
  fs::create_directory(stale);
  write_results_marker(stale, {});
  std::ofstream(stale / "pods.csv") << "partial";
  // Not slicelab's (no marker), or of a live process (this test's parent), or another folder's.
  const fs::path unmarked = dir_ / ("r.slicelab-tmp-" + std::to_string(dead_pid()));
  fs::create_directory(unmarked);
  const fs::path live = dir_ / ("r.slicelab-tmp-" + std::to_string(getppid()));
  fs::create_directory(live);
  write_results_marker(live, {});
  const fs::path other = dir_ / ("rr.slicelab-tmp-" + std::to_string(dead));
  fs::create_directory(other);
  write_results_marker(other, {});

  write_results(dir, "a", "x");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(unmarked));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
}

TEST_F(OutputGuard, OldResultsMovedAsideByADeadRunAreRestored) {
  const fs::path dir = dir_ / "r";
  write_results(dir, "a", "old");
  // As if killed between moving the old folder aside and renaming the new one into place.
  const pid_t dead = dead_pid();
  fs::rename(dir, dir_ / ("r.slicelab-old-" + std::to_string(dead)));
  const fs::path tmp = dir_ / ("r.slicelab-tmp-" + std::to_string(dead));
  fs::create_directory(tmp);
  write_results_marker(tmp, {});
  EXPECT_EQ(sweep_stale_folders(dir), 2U);
  EXPECT_EQ(read_file(dir / "a"), "old");
  EXPECT_EQ(names_in(dir_), std::vector<std::string>{"r"});
}

// SIGTERM during the write takes effect only once the folder is complete and in place.
TEST_F(OutputGuard, SignalDuringTheWriteWaitsForTheSwap) {
  const fs::path dir = dir_ / "r";
  EXPECT_EXIT(write_folder_atomically(dir.string(), false,
                                      [](const fs::path& tmp) {
                                        std::ofstream(tmp / "a") << "1";
                                        raise(SIGTERM);
                                        std::ofstream(tmp / "b") << "2";
                                      }),
              ::testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(read_file(dir / "a"), "1");
  EXPECT_EQ(read_file(dir / "b"), "2");
  EXPECT_EQ(names_in(dir_), std::vector<std::string>{"r"});
}

TEST_F(OutputGuard, ReportAddsOnlyToMarkedFolders) {
  fs::create_directory(dir_ / "plain");
  EXPECT_NE(refusal([&] {
              check_results_folder_to_add_to((dir_ / "plain").string());
            }).find("not a results folder slicelab wrote"),
            std::string::npos);
  write_results(dir_ / "r", "summary.json", "{}");
  EXPECT_EQ(check_results_folder_to_add_to((dir_ / "r").string()), dir_ / "r");
}

TEST_F(OutputGuard, OutputFilesAreNeverAFolderALinkADeviceOrAnInput) {
  const std::string in = write("in.csv", "a,b\n");
  const std::string inputs[] = {in};
  EXPECT_NE(refusal([&] { write_output_file(in, "x", inputs); }).find("is the input file"),
            std::string::npos);
  EXPECT_EQ(read_file(in), "a,b\n");
  EXPECT_NE(refusal([&] { write_output_file(dir_.string(), "x"); }).find("is a folder"),
            std::string::npos);
  fs::create_symlink(in, dir_ / "link.yaml");
  EXPECT_NE(
      refusal([&] { write_output_file((dir_ / "link.yaml").string(), "x"); }).find("symbolic link"),
      std::string::npos);
  EXPECT_NE(refusal([&] { write_output_file("/dev/null", "x"); }).find("not a regular file"),
            std::string::npos);
  const std::string out = (dir_ / "out.yaml").string();
  write_output_file(out, "first", inputs);
  write_output_file(out, "second", inputs);  // -o replaces the file it names
  EXPECT_EQ(read_file(out), "second");
  EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"in.csv", "link.yaml", "out.yaml"}));
}

// A file slicelab owns (import's trace, calibrate's YAML) is replaced only when it is missing,
// empty or begins with kOwnFileLine: before, -o replaced any regular file it named.
TEST_F(OutputGuard, OwnOutputFilesReplaceOnlySlicelabsFiles) {
  const std::string mine = std::string(kOwnFileLine) + "test\nx: 1\n";
  const std::string foreign = write("notes.yaml", "my: notes\n");
  EXPECT_EQ(refusal([&] { write_own_output_file(foreign, mine); }),
            "output file '" + foreign +
                "' exists and was not written by slicelab (its first line is not '# Written by "
                "slicelab …'): slicelab replaces only files it wrote; give a new name, or move it "
                "elsewhere");
  EXPECT_EQ(read_file(foreign), "my: notes\n");
  // Almost the line is not the line.
  const std::string near = write("near.yaml", "# Written by slicelabs\n");
  EXPECT_NE(refusal([&] { write_own_output_file(near, mine); }).find("not written by slicelab"),
            std::string::npos);
  const std::string fresh = (dir_ / "fresh.yaml").string();
  write_own_output_file(fresh, mine);
  write_own_output_file(fresh, mine + "y: 2\n");  // its own: replaced
  EXPECT_EQ(read_file(fresh), mine + "y: 2\n");
  const std::string empty = write("empty.yaml", "");
  write_own_output_file(empty, mine);
  EXPECT_EQ(read_file(empty), mine);
  const std::string old = write("old.yaml", "# Written by `slicelab calibrate m.csv`: fit.\n");
  write_own_output_file(old, mine);
  EXPECT_EQ(read_file(old), mine);
  // The other refusals still hold, and content that would not be recognised is a bug.
  EXPECT_NE(refusal([&] { write_own_output_file(dir_.string(), mine); }).find("is a folder"),
            std::string::npos);
  EXPECT_THROW(write_own_output_file((dir_ / "x.yaml").string(), "x: 1\n"), std::logic_error);
  EXPECT_FALSE(fs::exists(dir_ / "x.yaml"));
}

}  // namespace
}  // namespace slicelab

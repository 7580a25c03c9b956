// The device plugin's host files (backends/device_plugin/host_files): folders opened without
// following a link anywhere in their path (openat2 and the component-wise fallback alike), files
// written under fresh temporary names and put in place atomically, nothing foreign touched.
#include "backends/device_plugin/host_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/temp_files.h"

namespace slicelab::device_plugin {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

std::string host_path_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const HostPathError& e) {
    return e.what();
  }
  return "no error";
}

// Each test runs with openat2 (kAuto on this kernel) and with the component-wise walk.
class HostFolderTest : public slicelab::testing::TempFilesTest,
                       public ::testing::WithParamInterface<Resolution> {
 protected:
  HostFolderOptions opts(bool create = false, mode_t mode = 0755) const {
    return {.create = create, .mode = mode, .resolution = GetParam()};
  }
};

TEST_P(HostFolderTest, OpensAndCreatesFoldersWithTheirModes) {
  const fs::path deep = dir_ / "a" / "b" / "c";
  EXPECT_NE(host_path_error([&] { HostFolder::open(deep, opts()); }).find("cannot open"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "a"));
  const HostFolder f = HostFolder::open(deep, opts(true, 0700));
  EXPECT_EQ(f.path(), deep);
  EXPECT_EQ(f.status().st_mode & 07777, 0700u);  // the umask does not narrow it
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  // Opened again as it is (no create needed), and by a path with "." and doubled slashes.
  EXPECT_EQ(HostFolder::open(deep, opts()).status().st_ino, f.status().st_ino);
  EXPECT_EQ(HostFolder::open(dir_.string() + "/./a//b/c", opts()).status().st_ino,
            f.status().st_ino);
  EXPECT_NE(host_path_error([&] {
              HostFolder::open(dir_ / "a" / ".." / "a", opts());
            }).find("'..' in a host path is refused"),
            std::string::npos);
  // A file where a folder is expected.
  write("a/file", "x");
  EXPECT_NE(host_path_error([&] {
              HostFolder::open(dir_ / "a" / "file" / "d", opts(true));
            }).find("/a/file is not a folder"),
            std::string::npos);
}

TEST_P(HostFolderTest, ALinkedFolderIsRefusedWithNothingCreatedThroughIt) {
  fs::create_directories(dir_ / "target");
  fs::create_directory_symlink(dir_ / "target", dir_ / "link");
  const std::string m = host_path_error([&] { HostFolder::open(dir_ / "link", opts(true)); });
  EXPECT_NE(m.find((dir_ / "link").string() + " is a symbolic link"), std::string::npos) << m;
  // A link above the folder: named, and nothing made beneath its target.
  const std::string above =
      host_path_error([&] { HostFolder::open(dir_ / "link" / "sub" / "deeper", opts(true)); });
  EXPECT_NE(above.find((dir_ / "link").string() + " is a symbolic link"), std::string::npos)
      << above;
  EXPECT_TRUE(fs::is_empty(dir_ / "target"));
  // A sub-folder that is a link is refused the same way.
  const HostFolder top = HostFolder::open(dir_, opts());
  EXPECT_NE(host_path_error([&] { top.folder("link", opts(true)); }).find("is a symbolic link"),
            std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(BothResolutions, HostFolderTest,
                         ::testing::Values(Resolution::kAuto, Resolution::kComponentWise),
                         [](const auto& param_info) {
                           return param_info.param == Resolution::kAuto
                                      ? std::string("Openat2")
                                      : std::string("ComponentWise");
                         });

using HostFileTest = slicelab::testing::TempFilesTest;

TEST_F(HostFileTest, WritesUnderAFreshNameAndLeavesAForeignFileOfThatNameAlone) {
  const HostFolder f = HostFolder::open(dir_);
  // Someone's file, and a link, under the first two temporary names the writer will try.
  write(".out.slicelab-tmp-taken", "foreign");
  write("elsewhere", "keep");
  fs::create_symlink(dir_ / "elsewhere", dir_ / ".out.slicelab-tmp-linked");
  std::vector<std::string> suffixes = {"taken", "linked", "fresh"};
  size_t next = 0;
  const TempNameSource names = [&] { return suffixes.at(next++); };
  ASSERT_TRUE(f.write_file("out", "ours\n", 0640, HostFolder::Existing::kMustBeAbsent, names));
  EXPECT_EQ(next, 3u);
  EXPECT_EQ(text_of(dir_ / "out"), "ours\n");
  EXPECT_EQ(text_of(dir_ / ".out.slicelab-tmp-taken"), "foreign");
  EXPECT_EQ(text_of(dir_ / "elsewhere"), "keep");
  EXPECT_TRUE(fs::is_symlink(dir_ / ".out.slicelab-tmp-linked"));
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  // Nothing of the writer's is left beside them.
  EXPECT_EQ(names_in(dir_), (std::set<std::string>{"out", ".out.slicelab-tmp-taken",
                                                   ".out.slicelab-tmp-linked", "elsewhere"}));
  // Every name taken: refused, nothing written or removed.
  const TempNameSource always_taken = [] { return std::string("taken"); };
  EXPECT_NE(host_path_error([&] {
              (void)f.write_file("out", "x", 0644, HostFolder::Existing::kReplace, always_taken);
            }).find("no fresh temporary name"),
            std::string::npos);
  EXPECT_EQ(text_of(dir_ / "out"), "ours\n");
  EXPECT_EQ(text_of(dir_ / ".out.slicelab-tmp-taken"), "foreign");
}

TEST_F(HostFileTest, MustBeAbsentNeverReplacesReplaceDoes) {
  const HostFolder f = HostFolder::open(dir_);
  write("theirs", "theirs\n");
  EXPECT_FALSE(f.write_file("theirs", "ours\n", 0644, HostFolder::Existing::kMustBeAbsent));
  EXPECT_EQ(text_of(dir_ / "theirs"), "theirs\n");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"theirs"});
  ASSERT_TRUE(f.write_file("theirs", "ours\n", 0644, HostFolder::Existing::kReplace));
  EXPECT_EQ(text_of(dir_ / "theirs"), "ours\n");
  EXPECT_EQ(names_in(dir_), std::set<std::string>{"theirs"});
  // Random suffixes differ call to call.
  EXPECT_NE(random_temp_suffix(), random_temp_suffix());
  EXPECT_EQ(random_temp_suffix().size(), 16u);
}

TEST_F(HostFileTest, ReadsOnlyRegularFilesWithinTheirLimit) {
  const HostFolder f = HostFolder::open(dir_);
  EXPECT_EQ(f.read_file("absent", 10), std::nullopt);
  write("small", "0123456789");
  EXPECT_EQ(f.read_file("small", 10), "0123456789");
  EXPECT_NE(
      host_path_error([&] { f.read_file("small", 9); }).find("holds 10 bytes, more than the 9"),
      std::string::npos);
  fs::create_symlink(dir_ / "small", dir_ / "link");
  EXPECT_NE(host_path_error([&] { f.read_file("link", 10); }).find("is a symbolic link"),
            std::string::npos);
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_NE(host_path_error([&] { f.read_file("fifo", 10); }).find("is not a regular file"),
            std::string::npos);
  EXPECT_NE(host_path_error([&] { f.read_file("../small", 10); }).find("not a single file name"),
            std::string::npos);
}

TEST_F(HostFileTest, FreshFoldersSkipWhatExistsAndRemovalIsOnlyOfTheSameFile) {
  const HostFolder f = HostFolder::open(dir_);
  fs::create_directories(dir_ / "pod-1");
  write("pod-1/theirs", "x");
  uint64_t counter = 0;
  EXPECT_EQ(f.make_fresh_folder("pod", 01777, counter).path(), dir_ / "pod-0");
  const HostFolder second = f.make_fresh_folder("pod", 01777, counter);
  EXPECT_EQ(second.path(), dir_ / "pod-2");
  EXPECT_EQ(second.status().st_mode & 07777, 01777u);
  EXPECT_EQ(counter, 3u);
  EXPECT_EQ(text_of(dir_ / "pod-1" / "theirs"), "x");

  write("mine", "1");
  const struct stat mine = *f.entry("mine");
  // Kept alive under another name, so that the file replacing it cannot reuse its inode.
  fs::create_hard_link(dir_ / "mine", dir_ / "old");
  fs::remove(dir_ / "mine");
  write("mine", "2");  // replaced by someone: another inode
  EXPECT_FALSE(f.remove_if_same("mine", mine));
  EXPECT_EQ(text_of(dir_ / "mine"), "2");
  EXPECT_TRUE(f.remove_if_same("mine", *f.entry("mine")));
  EXPECT_FALSE(fs::exists(dir_ / "mine"));
}

TEST_F(HostFileTest, VarRunIsFollowedOnlyWhereItIsTheSystemsLinkToRun) {
  fs::create_directories(dir_ / "var");
  fs::create_directories(dir_ / "run" / "cdi");
  const fs::path in_var_run = dir_ / "var" / "run" / "cdi";
  // No link yet: the path as it is.
  EXPECT_EQ(without_var_run_alias(in_var_run, dir_), in_var_run);
  fs::create_directory_symlink("../run", dir_ / "var" / "run");
  EXPECT_EQ(without_var_run_alias(in_var_run, dir_), dir_ / "run" / "cdi");
  EXPECT_EQ(without_var_run_alias(dir_ / "var" / "lib", dir_), dir_ / "var" / "lib");
  EXPECT_EQ(without_var_run_alias(dir_ / "var" / "running", dir_), dir_ / "var" / "running");
  // A /var/run pointing anywhere else is a link like any other.
  fs::remove(dir_ / "var" / "run");
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "var" / "run");
  EXPECT_EQ(without_var_run_alias(in_var_run, dir_), in_var_run);
}

}  // namespace
}  // namespace slicelab::device_plugin

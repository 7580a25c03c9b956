// Pins down the file layer under every reader: regular files only, the size limit (also for a
// file longer than its stat says), UTF-8 with the place of the first bad byte, and JSON's
// nesting limit and located parse errors.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "reports/json_file.h"
#include "tests/support/temp_files.h"
#include "workloads/csv_reader.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

using testing::message_of;

class InputFiles : public testing::TempFilesTest {};

TEST_F(InputFiles, ReadsARegularFile) {
  EXPECT_EQ(read_text_file(write("a.txt", "abc\n")), "abc\n");
  EXPECT_EQ(read_text_file(write("empty.txt", "")), "");
}

// Before: open() waited for a writer forever. A writer thread is there only so that the old
// code would have returned (and failed the test) instead of hanging the suite.
TEST_F(InputFiles, FifoIsRefusedWithoutWaiting) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done && std::chrono::steady_clock::now() < until) {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        (void)!::write(fd, "x", 1);
        ::close(fd);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const std::string message = message_of([&] { read_text_file(fifo); });
  done = true;
  writer.join();
  EXPECT_EQ(message, fifo + ": cannot read: not a regular file (a FIFO)");
}

// Before: /dev/null read as an empty file (and /dev/zero until memory ran out).
TEST_F(InputFiles, DevicesAreRefused) {
  EXPECT_EQ(message_of([] { read_text_file("/dev/null"); }),
            "/dev/null: cannot read: not a regular file (a character device)");
  EXPECT_EQ(message_of([] { read_text_file("/dev/zero"); }),
            "/dev/zero: cannot read: not a regular file (a character device)");
}

TEST_F(InputFiles, SocketIsRefused) {
  const std::string path = (dir_ / "sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(message_of([&] { read_text_file(path); }),
            path + ": cannot read: not a regular file (a socket)");
  ::close(fd);
}

TEST_F(InputFiles, FolderAndMissingFile) {
  EXPECT_EQ(message_of([&] { read_text_file(dir_.string()); }),
            dir_.string() + ": cannot open file: it is a folder");
  const std::string missing = (dir_ / "nope").string();
  EXPECT_EQ(message_of([&] { read_text_file(missing); }), missing + ": cannot open file");
}

TEST_F(InputFiles, SizeLimit) {
  const std::string at_limit = write("4k.txt", std::string(4096, 'a'));
  EXPECT_EQ(read_text_file(at_limit, 4096).size(), 4096U);
  const std::string over = write("over.txt", std::string(4097, 'a'));
  EXPECT_EQ(message_of([&] { read_text_file(over, 4096); }),
            over + ": cannot read: larger than the limit of 4096 bytes for this input");
  EXPECT_EQ(message_of([&] { read_text_file(over, kMiB); }), "no error");
}

// /proc files say size 0 and are longer: the limit holds for the bytes read, not the stat.
TEST_F(InputFiles, SizeLimitHoldsBeyondTheStatSize) {
  struct stat st {};
  ASSERT_EQ(::stat("/proc/self/maps", &st), 0);
  ASSERT_EQ(st.st_size, 0);
  EXPECT_EQ(message_of([] { read_text_file("/proc/self/maps", 16); }),
            "/proc/self/maps: cannot read: larger than the limit of 16 bytes for this input");
  EXPECT_GT(read_text_file("/proc/self/maps").size(), 16U);
}

// The CLI prints this for a filesystem_error; before: "filesystem error: status: … [path]".
TEST(FilesystemErrors, PathComesFirst) {
  const std::filesystem::filesystem_error one("status", "a/b.yaml",
                                              std::make_error_code(std::errc::filename_too_long));
  EXPECT_EQ(filesystem_error_message(one), "a/b.yaml: status: File name too long");
  const std::filesystem::filesystem_error two("cannot rename", "a", "b",
                                              std::make_error_code(std::errc::permission_denied));
  EXPECT_EQ(filesystem_error_message(two), "a: cannot rename: Permission denied (and b)");
}

TEST(Utf8, AcceptsUtf8) {
  EXPECT_NO_THROW(check_utf8("", "f"));
  EXPECT_NO_THROW(check_utf8("plain ascii\n", "f"));
  // 2, 3 and 4 byte forms, the highest code point, a byte order mark.
  EXPECT_NO_THROW(
      check_utf8("\xEF\xBB\xBF"
                 "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF",
                 "f"));
}

TEST(Utf8, RefusesWhatIsNotUtf8WithItsPlace) {
  EXPECT_EQ(message_of([] { check_utf8("ab\ncd\xFF", "f"); }),
            "f:2:3: invalid UTF-8 (byte 0xFF); the file must be UTF-8 text");
  // Latin-1 "é", an overlong "/", a surrogate, beyond U+10FFFF, a cut-off sequence at the end.
  for (const char* bad : {"caf\xE9", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "ok\xE2\x82"})
    EXPECT_NE(message_of([&] { check_utf8(bad, "f"); }), "no error") << bad;
}

// Before: a Latin-1 pod name in a CSV trace was read, and writing summary.json failed later.
TEST_F(InputFiles, CsvTraceMustBeUtf8) {
  const std::string bad = write("t.csv", "name,duration\np1,60\ncaf\xE9,60\n");
  EXPECT_EQ(message_of([&] { CsvReader reader(bad); }),
            bad + ":3:4: invalid UTF-8 (byte 0xE9); the file must be UTF-8 text");
  CsvReader ok(write("ok.csv", "\xEF\xBB\xBFname,duration\ncaf\xC3\xA9,60\n"));
  ASSERT_TRUE(ok.next());
  EXPECT_EQ(ok.header_text(), "name, duration");
}

TEST_F(InputFiles, JsonReadsAndLocatesParseErrors) {
  EXPECT_EQ(read_json_file(write("ok.json", R"({"a": [1, {"b": "\"["}]})"))["a"][0], 1);
  const std::string bad = write("bad.json", "{\n  \"a\": [1,\n}\n");
  EXPECT_EQ(message_of([&] { read_json_file(bad); }),
            bad +
                ":3:1: not valid JSON: syntax error while parsing value - unexpected '}'; "
                "expected '[', '{', or a literal");
}

// Found by the sweep_merge fuzzer: a number beyond a double's range escaped as nlohmann's
// out_of_range through the linear parser, past every handler (std::terminate).
TEST_F(InputFiles, JsonNumberBeyondADoubleIsALocatedError) {
  const std::string big = write("big.json", R"({"rows": 1801e30832})");
  EXPECT_EQ(message_of([&] { read_json_file(big); }).rfind(big + ": not valid JSON: ", 0), 0U)
      << message_of([&] { read_json_file(big); });
}

// Before: 50,000 levels overflowed the stack in `report` and `merge`.
TEST_F(InputFiles, JsonDepthIsLimited) {
  const auto nested = [](int levels) {
    return std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']');
  };
  EXPECT_NO_THROW(read_json_file(write("64.json", nested(kMaxJsonDepth))));
  const std::string deep = write("deep.json", "\n " + nested(50000));
  EXPECT_EQ(message_of([&] { read_json_file(deep); }),
            deep + ":2:66: JSON nested deeper than 64 levels");
  // Brackets inside strings do not count.
  EXPECT_NO_THROW(read_json_file(write("s.json", "[\"" + std::string(100, '[') + "\"]")));
}

}  // namespace
}  // namespace slicelab

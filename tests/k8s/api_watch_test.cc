// The API client and the list-then-watch loop against the fake API server: paging, bearer
// tokens, expired versions (410 as an answer and as an ERROR event), broken streams, oversized
// lines, bookmarks, clean stops; hostile answers (items and events nested 100,000 deep, pages
// that trickle, a persistent 410) bounded; and the bind writes (merge patch, Binding, Status
// errors, the UID as a precondition, a fresh read of the pod).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_cluster_writer.h"
#include "backends/k8s/list_page.h"
#include "backends/k8s/relist_backoff.h"
#include "backends/k8s/resource_watch.h"
#include "tests/support/fake_api_server.h"

namespace slicelab::k8s {
namespace {

using nlohmann::json;
using slicelab::testing::FakeApiServer;

// Records what a watch delivers as "started", "Added ns/name", ..., "synced".
class RecordingSink final : public ClusterWatchSink {
 public:
  void list_started(WatchKind) override { push("started"); }
  void apply(WatchKind, WatchEvent event, const json& object) override {
    const char* name = event == WatchEvent::Added      ? "Added"
                       : event == WatchEvent::Modified ? "Modified"
                                                       : "Deleted";
    const json& meta = object.at("metadata");
    push(std::string(name) + " " + meta.value("namespace", "") + "/" +
         meta.at("name").get<std::string>());
  }
  void synced(WatchKind) override { push("synced"); }
  void rejected(WatchKind, const std::string& why) override {
    std::lock_guard lock(mutex_);
    rejections_.push_back(why);
  }
  std::vector<std::string> rejections() {
    std::lock_guard lock(mutex_);
    return rejections_;
  }

  // Waits until `entry` has been seen `times` times.
  bool wait_for(const std::string& entry, int times = 1, int timeout_ms = 5000) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                        [&] { return std::count(log_.begin(), log_.end(), entry) >= times; });
  }
  std::vector<std::string> log() {
    std::lock_guard lock(mutex_);
    return log_;
  }

 private:
  void push(std::string s) {
    std::lock_guard lock(mutex_);
    log_.push_back(std::move(s));
    cv_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
  std::vector<std::string> rejections_;
};

// An object that nests `levels` arrays deep in one of its fields (2 bytes per level).
std::string deep_object(int levels) {
  return R"({"metadata":{"name":"deep","namespace":"team"},"spec":)" + std::string(levels, '[') +
         std::string(levels, ']') + "}";
}

using Clock = std::chrono::steady_clock;

json test_pod(const std::string& name) {
  return {{"metadata", {{"name", name}, {"namespace", "team"}}},
          {"spec",
           {{"schedulerName", "default-scheduler"},
            {"containers", json::array({{{"name", "main"}, {"image", "busybox"}}})}}}};
}

json test_node(const std::string& name) {
  return {{"metadata", {{"name", name}}}, {"status", {{"allocatable", {{"nvidia.com/gpu", "8"}}}}}};
}

WatchOptions quick_options() {
  WatchOptions o;
  o.initial_backoff = std::chrono::milliseconds(10);
  o.max_backoff = std::chrono::milliseconds(50);
  return o;
}

ApiConfig config_for(const FakeApiServer& server, const std::string& token = "") {
  ApiConfig c;
  c.server = server.url();
  c.token = token;
  return c;
}

TEST(ApiWatchTest, ListIsPagedWithLimitAndContinue) {
  FakeApiServer server;
  for (int i = 0; i < 7; ++i) server.add_pod(test_pod("p" + std::to_string(i)));
  ApiClient client(config_for(server));
  RecordingSink sink;
  WatchOptions o = quick_options();
  o.page_limit = 3;
  ResourceWatch watch(client, WatchKind::Pod, sink, o);
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  watch.stop();
  // 7 pods in pages of 3: three LIST requests, the second and third with a continue token.
  size_t lists = 0, continued = 0;
  for (const auto& r : server.requests()) {
    if (r.path == "/api/v1/pods" && r.query.find("watch=") == std::string::npos) {
      ++lists;
      EXPECT_NE(r.query.find("limit=3"), std::string::npos) << r.query;
      if (r.query.find("continue=") != std::string::npos) ++continued;
    }
  }
  EXPECT_EQ(lists, 3u);
  EXPECT_EQ(continued, 2u);
  const std::vector<std::string> log = sink.log();
  ASSERT_EQ(log.size(), 9u);  // started, 7 pods in name order, synced
  EXPECT_EQ(log.front(), "started");
  EXPECT_EQ(log[1], "Added team/p0");
  EXPECT_EQ(log[7], "Added team/p6");
  EXPECT_EQ(log.back(), "synced");
}

TEST(ApiWatchTest, WatchDeliversAddsModificationsDeletionsAndBookmarks) {
  FakeApiServer server;
  server.add_node(test_node("n0"));
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.add_pod(test_pod("a"));
  server.modify_pod("team", "a", {{"metadata", {{"labels", {{"x", "1"}}}}}});
  server.delete_pod("team", "a");
  ASSERT_TRUE(sink.wait_for("Deleted team/a"));
  server.send_bookmarks();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (watch.stats().bookmarks == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  watch.stop();
  const std::vector<std::string> expected = {"started", "synced", "Added team/a", "Modified team/a",
                                             "Deleted team/a"};
  EXPECT_EQ(sink.log(), expected);
  EXPECT_EQ(watch.stats().bookmarks, 1u);
  EXPECT_EQ(watch.stats().events, 3u);
  // The watch asked for bookmarks from the list's version.
  bool saw_watch = false;
  for (const auto& r : server.requests()) {
    if (r.query.find("watch=1") != std::string::npos) {
      saw_watch = true;
      EXPECT_NE(r.query.find("allowWatchBookmarks=true"), std::string::npos);
      EXPECT_NE(r.query.find("resourceVersion=101"), std::string::npos) << r.query;
    }
  }
  EXPECT_TRUE(saw_watch);
}

TEST(ApiWatchTest, BearerTokenIsSentAndItsAbsenceIsA401) {
  FakeApiServer server;
  server.require_token("s3cret");
  server.add_pod(test_pod("a"));
  ApiClient good(config_for(server, "s3cret"));
  EXPECT_EQ(good.get_json("/api/v1/pods").at("items").size(), 1u);
  EXPECT_EQ(server.requests().back().authorization, "Bearer s3cret");
  ApiClient bad(config_for(server));
  try {
    bad.get_json("/api/v1/pods");
    ADD_FAILURE() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 401);
    EXPECT_EQ(e.reason(), "Unauthorized");
  }
}

TEST(ApiWatchTest, A410AnswerMakesTheWatchRelist) {
  FakeApiServer server;
  server.add_pod(test_pod("a"));
  server.answer_gone(1);
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced", 2));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.add_pod(test_pod("b"));
  ASSERT_TRUE(sink.wait_for("Added team/b"));
  watch.stop();
  EXPECT_EQ(watch.stats().expired, 1u);
  EXPECT_EQ(watch.stats().lists, 2u);
}

TEST(ApiWatchTest, AnExpiredVersionOnRenewalIsAnErrorEventAndARelist) {
  FakeApiServer server;
  server.add_pod(test_pod("a"));
  ApiClient client(config_for(server));
  RecordingSink sink;
  WatchOptions o = quick_options();
  o.timeout_seconds = 1;  // the server ends each watch after a second: the client renews it
  ResourceWatch watch(client, WatchKind::Pod, sink, o);
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  // A node changes (the pod watch does not see it) and history is compacted: the pod watch's
  // version is now too old, which it learns when it renews.
  server.add_node(test_node("n0"));
  server.compact();
  ASSERT_TRUE(sink.wait_for("synced", 2, 10000));
  watch.stop();
  EXPECT_EQ(watch.stats().expired, 1u);
  EXPECT_NE(watch.last_error().find("too old resource version"), std::string::npos)
      << watch.last_error();
}

TEST(ApiWatchTest, ABrokenStreamIsRelistedAndResumed) {
  FakeApiServer server;
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.break_watches();
  ASSERT_TRUE(sink.wait_for("synced", 2));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.add_pod(test_pod("after"));
  ASSERT_TRUE(sink.wait_for("Added team/after"));
  watch.stop();
  EXPECT_GE(watch.stats().broken, 1u);
  EXPECT_EQ(watch.stats().lists, 2u);
}

TEST(ApiWatchTest, AnOversizedLineIsCutAndRelisted) {
  FakeApiServer server;
  ApiClient client(config_for(server));
  RecordingSink sink;
  WatchOptions o = quick_options();
  o.max_line_bytes = 1024;
  ResourceWatch watch(client, WatchKind::Pod, sink, o);
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.inject_line(std::string(4096, 'x'));
  ASSERT_TRUE(sink.wait_for("synced", 2));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.add_pod(test_pod("fine"));
  ASSERT_TRUE(sink.wait_for("Added team/fine"));
  watch.stop();
  EXPECT_EQ(watch.stats().oversized, 1u);
  EXPECT_NE(watch.last_error().find("passed 1024 bytes"), std::string::npos);
}

// An event that cannot be read (not JSON, nested 100,000 levels deep, not an object, of an
// unknown type) is skipped and counted, and the same stream goes on: no re-list.
TEST(ApiWatchTest, UnreadableEventsAreSkippedAndCounted) {
  FakeApiServer server;
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.inject_line(R"({"type": "ADDED", "object": [1, 2})");
  server.inject_line(R"({"type":"ADDED","object":)" + deep_object(100000) + "}");
  server.inject_line(R"({"type":"ADDED","object":[]})");
  server.inject_line(R"({"type":"SURPRISE","object":{}})");
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (watch.stats().rejected < 4 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  server.add_pod(test_pod("after"));
  ASSERT_TRUE(sink.wait_for("Added team/after"));
  watch.stop();
  EXPECT_EQ(watch.stats().rejected, 4u);
  EXPECT_EQ(watch.stats().lists, 1u);
  EXPECT_EQ(watch.stats().broken, 0u);
  const std::vector<std::string> why = sink.rejections();
  ASSERT_EQ(why.size(), 4u);
  EXPECT_NE(why[1].find("nesting deeper than 64 levels"), std::string::npos) << why[1];
  EXPECT_NE(why[3].find("unknown type SURPRISE"), std::string::npos) << why[3];
}

// A listed item nested 100,000 levels deep (or not an object) is skipped and counted; the rest
// of the page is delivered and the list completes.
TEST(ApiWatchTest, UnreadableListItemsAreSkippedAndCounted) {
  FakeApiServer server;
  server.add_pod(test_pod("a"));
  server.inject_list_item("pod", deep_object(100000));
  server.inject_list_item("pod", "17");
  server.inject_list_item("pod", R"({"metadata":{"name":"z","namespace":"team"}})");
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  watch.stop();
  EXPECT_EQ(sink.log(),
            (std::vector<std::string>{"started", "Added team/a", "Added team/z", "synced"}));
  EXPECT_EQ(watch.stats().rejected, 2u);
  const std::vector<std::string> why = sink.rejections();
  ASSERT_EQ(why.size(), 2u);
  EXPECT_NE(why[0].find("items[1]: nesting deeper than 64 levels"), std::string::npos) << why[0];
  EXPECT_NE(why[1].find("items[2]: an item is not an object"), std::string::npos) << why[1];
}

// A page is parsed one item at a time: the page's own structure is checked, each item bounded.
TEST(ListPageTest, ItemsOneByOneWithinTheirLimits) {
  std::vector<std::string> names, rejected;
  const auto on_item = [&](json&& item) {
    names.push_back(item["metadata"]["name"].get<std::string>());
    return true;
  };
  const auto on_rejected = [&](const std::string& why) { rejected.push_back(why); };
  const std::string page =
      R"({"kind":"PodList","metadata":{"resourceVersion":"7","continue":"c1","x":{"y":1}},)"
      R"("items":[{"metadata":{"name":"a"}}, [1], {"metadata":{"name":"b","big":")" +
      std::string(200, 'x') + R"("}}, null, {"metadata":{"name":"c"}}]})";
  ListPageLimits limits;
  limits.max_item_bytes = 1024;
  const ListPageInfo info = read_list_page(page, limits, on_item, on_rejected);
  EXPECT_EQ(info.resource_version, "7");
  EXPECT_EQ(info.continue_token, "c1");
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(info.items, 3u);
  EXPECT_EQ(info.rejected, 2u);
  // One item's parsed form over its limit: skipped, the others kept.
  limits.max_item_bytes = 600;
  names.clear();
  rejected.clear();
  EXPECT_EQ(read_list_page(page, limits, on_item, on_rejected).rejected, 3u);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c"}));
  EXPECT_NE(rejected[1].find("items[2]: the document would take more than 600 bytes"),
            std::string::npos)
      << rejected[1];
  // Not a List: each refused with the reason and where.
  const auto any_item = [](json&&) { return true; };
  for (const char* bad : {R"([1])", R"({"items":{}})", R"({"items":5})", R"({"metadata":{}})",
                          R"({"items":[{"a":1})"}) {
    EXPECT_THROW(read_list_page(bad, limits, any_item, on_rejected), ListPageError) << bad;
  }
  try {
    (void)read_list_page(R"({"items":[{},}])", limits, any_item, on_rejected);
    ADD_FAILURE() << "no error";
  } catch (const ListPageError& e) {
    EXPECT_NE(std::string(e.what()).find("at byte 13"), std::string::npos) << e.what();
  }
  // A page of 1,000,000 nested arrays costs the skim one bit per level; its one item is skipped.
  const std::string deep_page = R"({"metadata":{"resourceVersion":"1"},"items":[)" +
                                std::string(1000000, '[') + std::string(1000000, ']') + "]}";
  EXPECT_EQ(read_list_page(deep_page, {}, any_item, on_rejected).rejected, 1u);
}

TEST(ApiWatchTest, StopCutsAnOpenStreamPromptly) {
  FakeApiServer server;
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Node, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  const auto t0 = std::chrono::steady_clock::now();
  watch.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  const size_t before = sink.log().size();
  server.add_node(test_node("late"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(sink.log().size(), before);  // nothing after stop()
}

// stop() cuts a LIST in flight (a server trickling its page a byte at a time, which no per-read
// timeout would ever cut) within well under a second.
TEST(ApiWatchTest, StopCutsATricklingListPromptly) {
  FakeApiServer server;
  for (int i = 0; i < 3; ++i) server.add_pod(test_pod("p" + std::to_string(i)));
  server.trickle_lists(50);
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (server.count("GET", "/api/v1/pods") == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a few bytes in
  const auto t0 = Clock::now();
  watch.stop();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(watch.stats().lists, 0u);
}

// A page must arrive whole within its deadline: a trickling LIST is cut there and retried.
TEST(ApiWatchTest, ATricklingListIsCutByItsDeadline) {
  FakeApiServer server;
  server.add_pod(test_pod("a"));
  server.trickle_lists(20);
  ApiClient client(config_for(server));
  RecordingSink sink;
  WatchOptions o = quick_options();
  o.page_timeout = std::chrono::milliseconds(300);
  ResourceWatch watch(client, WatchKind::Pod, sink, o);
  watch.start();
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (watch.stats().failures == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(watch.stats().failures, 1u);
  EXPECT_NE(watch.last_error().find("no complete answer within 300 ms"), std::string::npos)
      << watch.last_error();
  server.trickle_lists(0);  // the server recovers: the next LIST goes through
  ASSERT_TRUE(sink.wait_for("synced"));
  watch.stop();
}

// The client's own requests: shutdown() cuts one in flight at once (and refuses later ones).
TEST(ApiWatchTest, ShutdownCutsAPlainRequestInFlight) {
  FakeApiServer server;
  server.trickle_lists(50);
  ApiClient client(config_for(server));
  std::string error;
  Clock::time_point ended;
  std::thread request([&] {
    try {
      client.get_json("/api/v1/pods");
    } catch (const ApiError& e) {
      error = e.what();
    }
    ended = Clock::now();
  });
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (server.count("GET", "/api/v1/pods") == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto t0 = Clock::now();
  client.shutdown();
  request.join();
  EXPECT_LT(ended - t0, std::chrono::milliseconds(500));
  EXPECT_NE(error.find("cancelled: the client is stopping"), std::string::npos) << error;
  EXPECT_THROW(client.get_json("/api/v1/nodes"), ApiError);
}

// Under a persistent 410 the watch re-lists at the reflector's pace: 800 ms, then 1.6 s, ...
// (each stretched by up to 2x), not four times a second.
TEST(ApiWatchTest, APersistent410BacksOffAsTheReflector) {
  FakeApiServer server;
  server.add_pod(test_pod("a"));
  server.answer_gone(1000000);
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink);  // the default back-off
  watch.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  watch.stop();
  // Lists at 0, then after >= 0.8 s, then >= 1.6 s more: at most 3 in 3 s (at most 2 of them
  // after a 410), at least 2 (the second comes within 1.6 s).
  EXPECT_LE(watch.stats().lists, 3u);
  EXPECT_GE(watch.stats().lists, 2u);
  EXPECT_EQ(watch.stats().expired, watch.stats().watches);
}

TEST(RelistBackoffTest, DoublesFrom800MsTo30SJitteredAndResetsAfterTwoMinutes) {
  RelistBackoff backoff({}, 42);
  const RelistBackoff::Clock::time_point t0{};
  const auto at = [&](int64_t s) { return t0 + std::chrono::seconds(s); };
  int64_t base = 800;
  for (int i = 0; i < 12; ++i) {
    const int64_t ms = backoff.next(at(i)).count();
    EXPECT_GE(ms, base) << i;
    EXPECT_LT(ms, 2 * base) << i;
    base = std::min<int64_t>(base * 2, 30000);
  }
  EXPECT_EQ(base, 30000);
  // Two minutes (and a second) after the last pause began: from 800 ms again.
  const int64_t fresh = backoff.next(at(11 + 121)).count();
  EXPECT_GE(fresh, 800);
  EXPECT_LT(fresh, 1600);
}

// A server that ends every watch at once, having sent nothing, is not asked again in a loop.
TEST(ApiWatchTest, WatchesEndedAtOnceAreBackedOff) {
  FakeApiServer server;
  ApiClient client(config_for(server));
  RecordingSink sink;
  WatchOptions o = quick_options();
  o.timeout_seconds = 0;  // the fake ends the watch at once
  ResourceWatch watch(client, WatchKind::Pod, sink, o);
  watch.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  watch.stop();
  EXPECT_GE(watch.stats().short_watches, 1u);
  EXPECT_LE(watch.stats().watches, 12u);  // 10 to 50 ms pauses, not thousands of requests
}

// A page over the byte limit: the next LIST asks for half as many items per page.
TEST(ApiWatchTest, AnOversizedPageHalvesThePageSize) {
  FakeApiServer server;
  for (int i = 0; i < 8; ++i) server.add_pod(test_pod("p" + std::to_string(i)));
  ApiClient client(config_for(server));
  RecordingSink sink;
  WatchOptions o = quick_options();
  o.page_limit = 8;
  o.max_page_bytes = 900;  // about 4 pods' worth
  ResourceWatch watch(client, WatchKind::Pod, sink, o);
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  watch.stop();
  std::vector<std::string> limits;
  for (const auto& r : server.requests()) {
    if (r.query.find("watch=") == std::string::npos &&
        r.query.find("continue=") == std::string::npos)
      limits.push_back(r.query.substr(r.query.find("limit=")));
  }
  ASSERT_GE(limits.size(), 2u);
  EXPECT_EQ(limits[0], "limit=8");
  EXPECT_EQ(limits[1], "limit=4");
  EXPECT_GE(watch.stats().failures, 1u);
}

TEST(ApiWatchTest, ARefusedConnectionIsRetriedWithBackOff) {
  ApiConfig c;
  c.server = "http://127.0.0.1:1";  // nothing listens on port 1
  ApiClient client(c);
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  watch.stop();
  // 10, 20, 40, 50, 50 ms pauses (each up to twice that): a handful of attempts in 200 ms.
  EXPECT_GE(watch.stats().failures, 2u);
  EXPECT_LE(watch.stats().failures, 10u);
  EXPECT_EQ(watch.stats().lists, 0u);
}

TEST(ApiWriterTest, BindPatchesAnnotationsThenPostsTheBinding) {
  FakeApiServer server;
  const json created = server.add_pod(test_pod("p"));
  ApiClient client(config_for(server, "tok"));
  ApiClusterWriter writer(client);
  const std::string assignment = R"({"node":"n1","gpus":[{"index":3}]})";
  EXPECT_TRUE(
      writer.patch_pod_annotations("team", "p", {{"slicelab.io/gpu-assignment", assignment}}).ok());
  const WriteResult bound =
      writer.bind_pod("team", "p", created["metadata"]["uid"].get<std::string>(), "n1");
  EXPECT_TRUE(bound.ok()) << bound.error;
  const json p = server.pod("team", "p");
  EXPECT_EQ(p["metadata"]["annotations"]["slicelab.io/gpu-assignment"], assignment);
  EXPECT_EQ(p["spec"]["nodeName"], "n1");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "PATCH");
  EXPECT_EQ(requests[0].path, "/api/v1/namespaces/team/pods/p");
  EXPECT_EQ(requests[0].content_type, "application/merge-patch+json");
  EXPECT_EQ(json::parse(requests[0].body),
            json({{"metadata", {{"annotations", {{"slicelab.io/gpu-assignment", assignment}}}}}}));
  EXPECT_EQ(requests[1].method, "POST");
  EXPECT_EQ(requests[1].path, "/api/v1/namespaces/team/pods/p/binding");
  EXPECT_EQ(requests[1].authorization, "Bearer tok");
  const json binding = json::parse(requests[1].body);
  EXPECT_EQ(binding["apiVersion"], "v1");
  EXPECT_EQ(binding["kind"], "Binding");
  EXPECT_EQ(binding["metadata"]["name"], "p");
  EXPECT_EQ(binding["metadata"]["namespace"], "team");
  EXPECT_EQ(binding["metadata"]["uid"], created["metadata"]["uid"]);
  EXPECT_EQ(binding["target"], json({{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "n1"}}));
}

// Bind's writes carry the UID: the annotation patch as metadata.uid (the API server refuses to
// change it: 422), the Binding as metadata.uid (409); a fresh read gives what bind checks.
TEST(ApiWriterTest, TheUidIsAPreconditionAndTheReadIsFresh) {
  FakeApiServer server;
  const json created = server.add_pod(test_pod("p"));
  const std::string uid = created["metadata"]["uid"].get<std::string>();
  ApiClient client(config_for(server));
  ApiClusterWriter writer(client);
  const LivePodRead read = writer.read_pod("team", "p");
  EXPECT_TRUE(read.live);
  EXPECT_EQ(read.error, "");
  EXPECT_EQ(read.pod.uid, uid);
  EXPECT_EQ(read.pod.phase, "Pending");
  EXPECT_EQ(read.pod.node_name, "");
  EXPECT_FALSE(read.pod.deleting);
  EXPECT_EQ(read.pod.resource_version, created["metadata"]["resourceVersion"]);
  const WriteResult other = writer.annotate_pod("team", "p", "uid-of-another", "", {{"a", "b"}});
  EXPECT_NE(other.error.find("HTTP 422"), std::string::npos) << other.error;
  EXPECT_FALSE(server.pod("team", "p")["metadata"].contains("annotations"));
  EXPECT_NE(writer.bind_pod("team", "p", "uid-of-another", "n1").error.find("HTTP 409"),
            std::string::npos);
  // Changed since the read (bound by someone else meanwhile): the patch of that read's version
  // is refused, and nothing is written.
  server.modify_pod("team", "p", {{"spec", {{"nodeName", "n9"}}}});
  const WriteResult stale =
      writer.annotate_pod("team", "p", uid, read.pod.resource_version, {{"a", "b"}});
  EXPECT_NE(stale.error.find("HTTP 409"), std::string::npos) << stale.error;
  EXPECT_FALSE(server.pod("team", "p")["metadata"].contains("annotations"));
  const LivePodRead now = writer.read_pod("team", "p");
  EXPECT_TRUE(writer.annotate_pod("team", "p", uid, now.pod.resource_version, {{"a", "b"}}).ok());
  const json patch = json::parse(server.requests().back().body);
  EXPECT_EQ(patch["metadata"]["uid"], uid);
  EXPECT_EQ(patch["metadata"]["resourceVersion"], now.pod.resource_version);
  EXPECT_EQ(server.pod("team", "p")["metadata"]["annotations"]["a"], "b");
  EXPECT_NE(writer.read_pod("team", "ghost").error.find("HTTP 404"), std::string::npos);
  server.modify_pod("team", "p", {{"metadata", {{"deletionTimestamp", "2026-01-01T00:00:09Z"}}}});
  EXPECT_TRUE(writer.read_pod("team", "p").pod.deleting);
}

TEST(ApiWriterTest, ErrorsComeFromTheStatusObject) {
  FakeApiServer server;
  server.add_pod(test_pod("p"));
  ApiClient client(config_for(server));
  ApiClusterWriter writer(client);
  ASSERT_TRUE(writer.bind_pod("team", "p", "", "n1").ok());
  const WriteResult twice = writer.bind_pod("team", "p", "", "n2");
  EXPECT_NE(twice.error.find("HTTP 409: Operation cannot be fulfilled on pods/binding \"p\": pod "
                             "p is already assigned to node \"n1\""),
            std::string::npos)
      << twice.error;
  EXPECT_NE(writer.bind_pod("team", "ghost", "", "n1")
                .error.find("HTTP 404: pods \"ghost\" not "
                            "found"),
            std::string::npos);
  EXPECT_NE(writer.patch_pod_annotations("team", "ghost", {{"a", "b"}}).error.find("HTTP 404"),
            std::string::npos);
  ApiConfig down;
  down.server = "http://127.0.0.1:1";
  ApiClient nowhere(down);
  ApiClusterWriter dead(nowhere);
  EXPECT_FALSE(dead.bind_pod("team", "p", "", "n1").ok());
}

}  // namespace
}  // namespace slicelab::k8s

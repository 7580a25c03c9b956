// The API client and the list-then-watch loop against the fake API server: paging, bearer
// tokens, expired versions (410 as an answer and as an ERROR event), broken streams, oversized
// lines, bookmarks, clean stops; and the bind writes (merge patch, Binding, Status errors).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_cluster_writer.h"
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
};

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

TEST(ApiWatchTest, AnUnreadableEventIsABrokenStream) {
  FakeApiServer server;
  ApiClient client(config_for(server));
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  ASSERT_TRUE(sink.wait_for("synced"));
  ASSERT_TRUE(server.wait_for_watches(1));
  server.inject_line(R"({"type": "ADDED", "object": [1, 2})");
  ASSERT_TRUE(sink.wait_for("synced", 2));
  watch.stop();
  EXPECT_EQ(watch.stats().broken, 1u);
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

TEST(ApiWatchTest, ARefusedConnectionIsRetriedWithBackOff) {
  ApiConfig c;
  c.server = "http://127.0.0.1:1";  // nothing listens on port 1
  ApiClient client(c);
  RecordingSink sink;
  ResourceWatch watch(client, WatchKind::Pod, sink, quick_options());
  watch.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  watch.stop();
  // 10, 20, 40, 50, 50 ms pauses: a handful of attempts in 200 ms, not a hot loop.
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

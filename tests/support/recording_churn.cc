// record_scripted_churn (recording_churn.h): the script, the recorder's runs as child processes,
// and the waits for the recording to catch up with the stand-in.
#include "tests/support/recording_churn.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "tests/support/fake_api_server.h"
#include "tests/support/recording_lines.h"

extern char** environ;

namespace slicelab::testing {
namespace {

using nlohmann::json;

// The script's clock. The stand-in's timestamps and the recorder's own `at` (the wall clock
// when an event arrives) must tell one story, as in a cluster whose API server and recorder
// share a clock: so each step of the "hour" is stamped with the wall-clock time it is taken,
// in milliseconds, and minute m of the script is taken no sooner than kChurnMinute × m after
// the script began (an hour compressed into a few seconds, its order and gaps kept).
constexpr std::chrono::milliseconds kChurnMinute{100};

std::string churn_now() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t whole = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

json churn_node(const std::string& name) {
  const json resources = {{"cpu", "64"}, {"memory", "512Gi"}, {"nvidia.com/gpu", "8"}};
  return {{"metadata",
           {{"name", name},
            {"labels", {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}}},
            {"managedFields", json::array({{{"manager", "kubelet"}}})}}},
          {"spec", json::object()},
          {"status", {{"capacity", resources}, {"allocatable", resources}}}};
}

// A recorder child: `slicelab record` with its output in a file.
struct ChurnRecorder {
  pid_t pid = -1;
  std::filesystem::path log;
};

ChurnRecorder churn_start_recorder(const std::string& binary, const std::filesystem::path& dir,
                                   const std::string& url, int run) {
  ChurnRecorder r;
  r.log = dir.string() + fmt::format(".recorder{}.log", run);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, r.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const std::string out = dir.string();
  // Segments rotate every second, so that the recording spans several, across both runs.
  std::vector<std::string> args = {binary, "record",         "-o", out, "--api-server",
                                   url,    "--rotate-every", "1s"};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&r.pid, binary.c_str(), &actions, nullptr, argv.data(), environ) != 0) r.pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return r;
}

std::string churn_read_log(const ChurnRecorder& r) {
  std::ifstream in(r.log);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ChurnScript {
 public:
  ChurnScript(const std::string& binary, const std::filesystem::path& dir, ChurnRecording& out)
      : binary_(binary), dir_(dir), out_(out) {}

  void run();

 private:
  // Waits (up to 20 s) until the recording satisfies `done`; throws with `what` otherwise.
  void wait_for(const std::string& what,
                const std::function<bool(const std::vector<json>&)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done(read_recording_lines(dir_))) {
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("the recording never showed " + what);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  static bool has_state(const std::vector<json>& lines, const std::string& uid,
                        const std::string& rv) {
    for (const json& l : lines)
      if (l.value("uid", "") == uid && l.value("rv", "") == rv && l.value("type", "") != "GONE")
        return true;
    return false;
  }
  static bool has_end(const std::vector<json>& lines, const std::string& uid) {
    for (const json& l : lines) {
      const std::string type = l.value("type", "");
      if (l.value("uid", "") == uid && (type == "DELETED" || type == "GONE")) return true;
    }
    return false;
  }
  // Waits for the pod's current state.
  void caught_up(const std::string& pod) {
    const json p = api_.pod("default", pod);
    const std::string uid = p["metadata"]["uid"], rv = p["metadata"]["resourceVersion"];
    wait_for(pod + " at " + rv, [&](const auto& lines) { return has_state(lines, uid, rv); });
  }
  void caught_up_deleted(const std::string& uid) {
    wait_for("the end of " + uid, [&](const auto& lines) { return has_end(lines, uid); });
  }

  // Waits for the script's minute, then gives the time it is.
  std::string churn_time(int minute) {
    std::this_thread::sleep_until(began_ + kChurnMinute * minute);
    return churn_now();
  }

  std::string create(const std::string& name, int minute) {
    const json pod = {
        {"metadata",
         {{"name", name},
          {"creationTimestamp", churn_time(minute)},
          {"labels", {{"app", "churn"}}},
          {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", "{}"}}}}},
        {"spec",
         {{"schedulerName", "default-scheduler"},
          {"containers", json::array({{{"name", "main"},
                                       {"image", "cuda:12"},
                                       {"env", json::array({{{"name", "X"}, {"value", "1"}}})},
                                       {"resources",
                                        {{"requests", {{"cpu", "4"}, {"nvidia.com/gpu", "1"}}},
                                         {"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}}};
    return api_.add_pod(pod)["metadata"]["uid"];
  }
  void bind(const std::string& name, const std::string& node, int minute) {
    const json patch = {
        {"spec", {{"nodeName", node}}},
        {"status",
         {{"conditions", json::array({{{"type", "PodScheduled"},
                                       {"status", "True"},
                                       {"lastTransitionTime", churn_time(minute)}}})}}}};
    if (!api_.modify_pod("default", name, patch))
      throw std::runtime_error("no pod " + name + " to bind");
    out_.placements.emplace_back("default/" + name, node);
  }
  void start(const std::string& name, int minute) {
    const std::string at = churn_time(minute);
    started_at_[name] = at;
    api_.modify_pod("default", name, {{"status", {{"phase", "Running"}, {"startTime", at}}}});
  }
  // `started`: the minute start() was called at, for the reader of the script.
  void finish(const std::string& name, bool ok, int /*started*/, int minute) {
    const json terminated = {{"startedAt", started_at_.at(name)},
                             {"finishedAt", churn_time(minute)},
                             {"exitCode", ok ? 0 : 1},
                             {"reason", ok ? "Completed" : "Error"}};
    api_.modify_pod(
        "default", name,
        {{"status",
          {{"phase", ok ? "Succeeded" : "Failed"},
           {"containerStatuses",
            json::array({{{"name", "main"}, {"state", {{"terminated", terminated}}}}})}}}});
  }
  std::string uid_of(const std::string& name) {
    return api_.pod("default", name)["metadata"]["uid"];
  }
  std::string remove(const std::string& name) {
    std::string uid = uid_of(name);
    api_.delete_pod("default", name);
    return uid;
  }
  void kill_recorder(ChurnRecorder& r, int signal) {
    ::kill(r.pid, signal);
    int status = 0;
    ::waitpid(r.pid, &status, 0);
    out_.recorder_output += churn_read_log(r);
    if (signal == SIGTERM && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      throw std::runtime_error("the recorder did not exit 0 after SIGTERM");
    r.pid = -1;
  }

  const std::string& binary_;
  const std::filesystem::path& dir_;
  ChurnRecording& out_;
  FakeApiServer api_;
  const std::chrono::steady_clock::time_point began_ = std::chrono::steady_clock::now();
  std::map<std::string, std::string> started_at_;  // pod -> its startTime
};

void ChurnScript::run() {
  std::vector<std::pair<std::string, std::string>> nodes;  // name, uid
  for (const char* n : {"node-a", "node-b", "node-c"}) {
    const json stored = api_.add_node(churn_node(n));
    nodes.emplace_back(n, stored["metadata"]["uid"]);
  }
  ChurnRecorder r1 = churn_start_recorder(binary_, dir_, api_.url(), 1);
  if (r1.pid < 0) throw std::runtime_error("cannot start " + binary_);
  try {
    wait_for("the nodes listed", [&](const auto& lines) {
      size_t listed = 0;
      for (const json& l : lines) listed += l.value("type", "") == "LISTED" ? 1 : 0;
      return listed == nodes.size();
    });
    // Minutes 0-15: ten pods arrive, eight are bound and run, three end, two are deleted.
    for (int i = 0; i < 10; ++i) create(fmt::format("p{:02}", i), i);
    const char* first_nodes[] = {"node-a", "node-b", "node-c", "node-a",
                                 "node-b", "node-a", "node-b", "node-a"};
    for (int i = 0; i < 8; ++i) {
      bind(fmt::format("p{:02}", i), first_nodes[i], i + 1);
      start(fmt::format("p{:02}", i), i + 1);
    }
    finish("p00", true, 1, 12);
    finish("p01", true, 2, 13);
    finish("p02", false, 3, 14);
    remove("p00");
    const std::string p01 = remove("p01");
    caught_up_deleted(p01);
    // Minute 16: a node joins and takes two new pods.
    nodes.emplace_back("node-d", api_.add_node(churn_node("node-d"))["metadata"]["uid"]);
    create("p10", 17);
    create("p11", 17);
    bind("p10", "node-d", 18);
    bind("p11", "node-d", 18);
    start("p10", 18);
    start("p11", 19);
    caught_up("p11");
    // Minute 20: the watches break and their next WATCH is answered 410 Gone; meanwhile a pod
    // is deleted and another bound.
    api_.answer_gone(2);
    api_.break_watches();
    const std::string p02 = remove("p02");
    bind("p08", "node-b", 21);
    start("p08", 21);
    wait_for("a re-list after 410", [&](const auto& lines) {
      for (const json& l : lines)
        if (l.value("type", "") == "RELIST" && l.value("reason", "") == "410") return true;
      return false;
    });
    caught_up("p08");
    caught_up_deleted(p02);
    // Minute 25: the API server restarts; while it is down, a pod is bound, one created, one
    // ends.
    api_.stop_listening();
    bind("p09", "node-c", 25);
    create("p12", 25);
    finish("p03", true, 4, 26);
    api_.listen_again();
    caught_up("p09");
    caught_up("p12");
    caught_up("p03");
    // Minutes 30-35: the pod on node-c ends, node-c is removed, two pods arrive and run.
    start("p09", 26);
    finish("p09", true, 26, 30);
    remove("p09");
    api_.delete_node("node-c");
    create("p13", 35);
    create("p14", 35);
    bind("p13", "node-a", 35);
    bind("p14", "node-d", 35);
    start("p13", 36);
    start("p14", 36);
    caught_up("p14");
    // Minute 40: the recorder is killed; while it is down two running pods are deleted and the
    // pod created at minute 25 is bound.
    wait_for("a second segment",
             [&](const auto&) { return std::filesystem::exists(dir_ / "events-000002.jsonl"); });
    kill_recorder(r1, SIGKILL);
    out_.deleted_while_down.push_back(remove("p04"));
    out_.deleted_while_down.push_back(remove("p05"));
    bind("p12", "node-b", 42);
    start("p12", 43);
    ChurnRecorder r2 = churn_start_recorder(binary_, dir_, api_.url(), 2);
    if (r2.pid < 0) throw std::runtime_error("cannot start " + binary_);
    try {
      for (const std::string& uid : out_.deleted_while_down) caught_up_deleted(uid);
      caught_up("p12");
      // Minutes 50-59: pods end, one is deleted, a last one arrives on node-d.
      finish("p06", true, 7, 50);
      finish("p07", false, 8, 52);
      finish("p13", true, 36, 55);
      remove("p06");
      create("p15", 57);
      bind("p15", "node-d", 58);
      start("p15", 59);
      caught_up("p15");
      kill_recorder(r2, SIGTERM);
    } catch (...) {
      if (r2.pid > 0) kill_recorder(r2, SIGKILL);
      throw;
    }
  } catch (...) {
    if (r1.pid > 0) kill_recorder(r1, SIGKILL);
    throw;
  }
}

}  // namespace

ChurnRecording record_scripted_churn(const std::string& slicelab_binary,
                                     const std::filesystem::path& dir) {
  ChurnRecording out;
  try {
    ChurnScript script(slicelab_binary, dir, out);
    script.run();
  } catch (const std::exception& e) {
    out.error = std::string(e.what()) + "\n" + out.recorder_output;
  }
  return out;
}

}  // namespace slicelab::testing

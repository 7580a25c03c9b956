#include "cli/serve_command.h"

#include <fmt/format.h>
#include <pthread.h>

#include <csignal>
#include <memory>
#include <thread>

#include "backends/k8s/api_config.h"
#include "backends/k8s/cluster_connection.h"
#include "backends/k8s/extender_server.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/metrics_endpoint.h"
#include "cli/usage_error.h"
#include "sim/scenario/scenario.h"
#include "workloads/kubernetes_objects.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

// Without an API server (snapshot files): binds are printed and succeed, so that a
// kube-scheduler pointed at the extender, or curl, can drive it offline.
class PrintingWriter final : public k8s::ClusterWriter {
 public:
  k8s::WriteResult patch_pod_annotations(
      const std::string& ns, const std::string& name,
      const std::map<std::string, std::string>& annotations) override {
    for (const auto& [key, value] : annotations)
      fmt::print(stderr, "annotate pod {}/{}: {}={}\n", ns, name, key, value);
    return {};
  }
  k8s::WriteResult bind_pod(const std::string& ns, const std::string& name,
                            const std::string& /*uid*/, const std::string& node) override {
    fmt::print(stderr, "bind pod {}/{} to node {}\n", ns, name, node);
    return {};
  }
};

std::pair<std::string, int> host_port(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) throw UsageError("--listen: expected HOST:PORT, found " + listen);
  int port = -1;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
  }
  if (port < 0 || port > 65535) throw UsageError("--listen: bad port in " + listen);
  return {listen.substr(0, colon), port};
}

}  // namespace

ServeCommand::ServeCommand(CLI::App& app)
    : cmd_(app.add_subcommand("serve", "Run slicelab as a service for a real cluster")),
      extender_(nullptr),
      device_plugin_(*cmd_) {
  cmd_->require_subcommand(1);
  extender_ = cmd_->add_subcommand(
      "extender", "Scheduler extender: kube-scheduler asks slicelab's policy where pods go");
  extender_->add_option("--scenario", scenario_, "Scenario: GPU catalog, sharing mode, policies")
      ->required()
      ->check(CLI::ExistingFile);
  extender_->add_option("-p,--policy", policy_, "Policy name (default: the scenario's first)");
  extender_->add_option("--seed", seed_, "Seed of the random tie-breaks (default: the scenario's)");
  extender_->add_option("--listen", listen_, "HOST:PORT to serve on (default 0.0.0.0:8888)");
  extender_->add_option("--url-prefix", url_prefix_, "Path before /filter, /prioritize, /bind");
  extender_->add_option("--kubeconfig", kubeconfig_, "Kubeconfig file of the cluster");
  extender_->add_flag("--in-cluster", in_cluster_, "Use the pod's service account");
  extender_->add_option("--api-server", api_server_, "API server URL (with --token-file)");
  extender_->add_option("--token-file", token_file_, "Bearer token file for --api-server");
  extender_->add_flag("--shadow", shadow_,
                      "Prioritize-only, change nothing: record what slicelab would do");
  extender_
      ->add_option("--filter-returns", filter_returns_,
                   "chosen: only the policy's node (default); all: every feasible node")
      ->check(CLI::IsMember({"chosen", "all"}));
  extender_->add_option("--nodes", nodes_file_, "Node objects file: an offline source")
      ->check(CLI::ExistingFile);
  extender_->add_option("--pods", pods_file_, "Pod objects file: an offline source")
      ->check(CLI::ExistingFile);
}

int ServeCommand::run() const {
  if (device_plugin_.chosen()) return device_plugin_.run();
  const Scenario scenario = load_scenario(scenario_, seed_);
  const PolicySpec* policy = &scenario.policies.front();
  if (!policy_.empty()) {
    policy = nullptr;
    for (const PolicySpec& p : scenario.policies)
      if (p.name == policy_) policy = &p;
    if (policy == nullptr) throw UsageError(fmt::format("no policy '{}' in the scenario", policy_));
  }
  const bool offline = !nodes_file_.empty() || !pods_file_.empty();
  const bool api = !kubeconfig_.empty() || in_cluster_ || !api_server_.empty();
  if (offline == api)
    throw UsageError(
        "give the cluster: --kubeconfig, --in-cluster or --api-server with --token-file, or "
        "--nodes and --pods snapshot files");
  if (!api_server_.empty() && (!kubeconfig_.empty() || in_cluster_))
    throw UsageError("--api-server goes alone: not with --kubeconfig or --in-cluster");
  if (!kubeconfig_.empty() && in_cluster_)
    throw UsageError("give one of --kubeconfig and --in-cluster");
  k8s::ExtenderOptions options;
  options.shadow = shadow_;
  options.filter_returns_all = filter_returns_ == "all";
  // The simulator's seed for this policy: same seed, same tie-breaks.
  k8s::ExtenderState state(scenario, *policy, derive_seed(scenario.seed, policy->name), options);
  PrintingWriter printing;
  k8s::ClusterWriter* writer = &printing;
  // The API server's watches keep the state; binds go to it. Declared before the server, so
  // the server stops first and the watches after it.
  std::unique_ptr<k8s::ClusterConnection> link;
  if (api) {
    k8s::ApiConfig config;
    if (!kubeconfig_.empty()) {
      config = k8s::load_kubeconfig(kubeconfig_);
    } else if (in_cluster_) {
      config = k8s::in_cluster_config();
    } else {
      config.server = api_server_;
      config.token_file = token_file_;
      config.source = "--api-server " + api_server_;
    }
    link = std::make_unique<k8s::ClusterConnection>(std::move(config), state);
    writer = &link->writer();
  } else {
    KubeObjects objects;
    if (!nodes_file_.empty()) read_kube_objects(nodes_file_, objects);
    if (!pods_file_.empty()) read_kube_objects(pods_file_, objects);
    state.load(objects);
  }

  k8s::ExtenderServerOptions server_options;
  server_options.url_prefix = url_prefix_;
  if (!server_options.url_prefix.empty() && server_options.url_prefix.back() == '/')
    server_options.url_prefix.pop_back();
  k8s::MetricsEndpoint metrics(state);  // outlives the server that records into it
  k8s::ExtenderServer server(state, *writer, server_options);
  server.set_metrics([&metrics] { return metrics.scrape(); });
  server.set_request_metrics(metrics.metrics());
  const auto [host, port] = host_port(listen_);
  const int bound = server.bind(host, port);
  // SIGINT and SIGTERM stop the server: blocked here (every thread inherits the mask) and
  // awaited by one thread, so no handler and no global are needed.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // The watch threads start after the mask is set, so that they inherit it too.
  if (link) link->start();
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    server.stop();
  });
  const k8s::ExtenderSnapshot s = state.snapshot();
  fmt::print(stderr,
             "slicelab extender: policy {} ({} nodes, {} pods known{}), listening on {}:{}{}\n",
             policy->name, s.nodes, s.pods_known, shadow_ ? ", shadow mode" : "", host, bound,
             url_prefix_);
  server.listen();
  // Stopped by a signal: the waiter has returned. Stopped otherwise: wake it. SIGTERM is blocked
  // in every thread, so it ends the waiter's sigwait rather than the thread or the process.
  pthread_kill(waiter.native_handle(), SIGTERM);  // NOLINT(bugprone-bad-signal-to-kill-thread)
  waiter.join();
  return 0;
}

}  // namespace slicelab

// The deployment examples in docs/examples/extender: each YAML parses, carries its fields at the
// paths kube-scheduler and the API server read (k8s.io/kube-scheduler/config/v1 types.go, whose
// strict decoding rejects unknown fields), passes kube-scheduler's extender validation, and the
// files agree with each other (ports, names, the ServiceAccount, Debian packages). The
// extender is deployed securely: loopback in kube-scheduler's pod, or HTTPS with client
// certificates; probes on the probe listener; no Service publishes an unauthenticated port.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "workloads/go_duration.h"
#include "workloads/kube/kube_quantity.h"

namespace slicelab {
namespace {

const std::string kExamples = std::string(SLICELAB_SOURCE_DIR) + "/docs/examples/extender/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<YAML::Node> load_documents(const std::string& path) {
  std::vector<YAML::Node> docs;
  for (const YAML::Node& d : YAML::LoadAllFromFile(path)) {
    if (d && !d.IsNull()) docs.push_back(d);
  }
  return docs;
}

YAML::Node the_one(const std::vector<YAML::Node>& docs, const std::string& kind) {
  YAML::Node found;
  int n = 0;
  for (const auto& d : docs) {
    if (d["kind"] && d["kind"].as<std::string>() == kind) {
      found = d;
      ++n;
    }
  }
  EXPECT_EQ(n, 1) << "documents of kind " << kind;
  return found;
}

// Keys of `map` outside `known` (the JSON tags of the Go type it decodes into).
std::vector<std::string> unknown_keys(const YAML::Node& map, const std::set<std::string>& known) {
  std::vector<std::string> out;
  for (const auto& kv : map) {
    const auto key = kv.first.as<std::string>();
    if (!known.count(key)) out.push_back(key);
  }
  return out;
}

// config/v1 KubeSchedulerConfiguration, with the inlined TypeMeta and DebuggingConfiguration.
const std::set<std::string> kConfigFields = {"apiVersion",
                                             "kind",
                                             "parallelism",
                                             "leaderElection",
                                             "clientConnection",
                                             "enableProfiling",
                                             "enableContentionProfiling",
                                             "percentageOfNodesToScore",
                                             "podInitialBackoffSeconds",
                                             "podMaxBackoffSeconds",
                                             "profiles",
                                             "extenders",
                                             "delayCacheUntilActive"};
const std::set<std::string> kExtenderFields = {
    "urlPrefix",   "filterVerb",       "preemptVerb",      "prioritizeVerb",
    "weight",      "bindVerb",         "enableHTTPS",      "tlsConfig",
    "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"};
const std::set<std::string> kManagedResourceFields = {"name", "ignoredByScheduler"};
// config/v1 ExtenderTLSConfig.
const std::set<std::string> kTlsConfigFields = {"insecure", "serverName", "certFile", "keyFile",
                                                "caFile",   "certData",   "keyData",  "caData"};
const std::set<std::string> kProfileFields = {"schedulerName", "percentageOfNodesToScore",
                                              "plugins", "pluginConfig"};
// component-base config/v1alpha1 LeaderElectionConfiguration and ClientConnectionConfiguration.
const std::set<std::string> kLeaderElectionFields = {
    "leaderElect",  "leaseDuration", "renewDeadline",    "retryPeriod",
    "resourceLock", "resourceName",  "resourceNamespace"};
const std::set<std::string> kClientConnectionFields = {"kubeconfig", "acceptContentTypes",
                                                       "contentType", "qps", "burst"};

bool is_bool(const YAML::Node& n) {
  if (!n.IsScalar()) return false;
  const auto s = n.as<std::string>();
  return s == "true" || s == "false";
}

// What kube-scheduler's config validation (validateExtenders) and strict decoding demand of
// the extenders list; returns the extenders.
YAML::Node check_scheduler_config(const std::string& file) {
  SCOPED_TRACE(file);
  const auto docs = load_documents(kExamples + file);
  EXPECT_EQ(docs.size(), 1u);
  const YAML::Node config = docs.at(0);
  EXPECT_EQ(config["apiVersion"].as<std::string>(), "kubescheduler.config.k8s.io/v1");
  EXPECT_EQ(config["kind"].as<std::string>(), "KubeSchedulerConfiguration");
  EXPECT_EQ(unknown_keys(config, kConfigFields), std::vector<std::string>{});
  if (config["leaderElection"]) {
    EXPECT_EQ(unknown_keys(config["leaderElection"], kLeaderElectionFields),
              std::vector<std::string>{});
  }
  if (config["clientConnection"]) {
    EXPECT_EQ(unknown_keys(config["clientConnection"], kClientConnectionFields),
              std::vector<std::string>{});
  }
  for (const auto& p : config["profiles"]) {
    EXPECT_EQ(unknown_keys(p, kProfileFields), std::vector<std::string>{});
  }
  const YAML::Node extenders = config["extenders"];
  EXPECT_TRUE(extenders.IsSequence());
  int binders = 0;
  for (const auto& e : extenders) {
    EXPECT_EQ(unknown_keys(e, kExtenderFields), std::vector<std::string>{});
    // kube-scheduler takes the scheme from urlPrefix; enableHTTPS and tlsConfig make its
    // transport. They must agree, and verification is never switched off.
    const bool https = e["enableHTTPS"] && e["enableHTTPS"].as<bool>();
    EXPECT_EQ(e["urlPrefix"].as<std::string>().rfind(https ? "https://" : "http://", 0), 0u);
    if (e["tlsConfig"]) {
      EXPECT_TRUE(https) << "tlsConfig without enableHTTPS";
      EXPECT_EQ(unknown_keys(e["tlsConfig"], kTlsConfigFields), std::vector<std::string>{});
      EXPECT_FALSE(e["tlsConfig"]["insecure"] && e["tlsConfig"]["insecure"].as<bool>());
    }
    if (e["prioritizeVerb"]) {
      EXPECT_GT(e["weight"].as<int64_t>(), 0) << "a prioritizing extender needs a positive weight";
    }
    if (e["bindVerb"]) ++binders;
    for (const char* flag : {"enableHTTPS", "nodeCacheCapable", "ignorable"}) {
      if (e[flag]) {
        EXPECT_TRUE(is_bool(e[flag])) << flag;
      }
    }
    if (e["httpTimeout"]) {
      std::string error;
      const auto seconds = parse_go_duration(e["httpTimeout"].as<std::string>(), error);
      EXPECT_TRUE(seconds.has_value()) << error;
    }
    std::set<std::string> names;
    for (const auto& r : e["managedResources"]) {
      EXPECT_EQ(unknown_keys(r, kManagedResourceFields), std::vector<std::string>{});
      const auto name = r["name"].as<std::string>();
      // An extended resource: a domain prefix outside kubernetes.io.
      EXPECT_NE(name.find('/'), std::string::npos) << name;
      EXPECT_EQ(name.find("kubernetes.io/"), std::string::npos) << name;
      EXPECT_TRUE(names.insert(name).second) << "duplicate managed resource " << name;
      EXPECT_TRUE(is_bool(r["ignoredByScheduler"])) << name;
    }
  }
  EXPECT_LE(binders, 1) << "only one extender may bind";
  return extenders;
}

std::set<std::string> managed_names(const YAML::Node& extender) {
  std::set<std::string> out;
  for (const auto& r : extender["managedResources"]) out.insert(r["name"].as<std::string>());
  return out;
}

// The container of `deployment` called `name`.
YAML::Node container(const YAML::Node& deployment, const std::string& name) {
  for (const auto& c : deployment["spec"]["template"]["spec"]["containers"]) {
    if (c["name"].as<std::string>() == name) return c;
  }
  ADD_FAILURE() << "no container " << name;
  return YAML::Node();
}

bool has_arg(const YAML::Node& c, const std::string& arg) {
  for (const auto& a : c["args"]) {
    if (a.as<std::string>() == arg) return true;
  }
  return false;
}

// The value of the container argument starting with `prefix` ("--policy="), or "".
std::string arg_value(const YAML::Node& c, const std::string& prefix) {
  for (const auto& a : c["args"]) {
    const auto s = a.as<std::string>();
    if (s.rfind(prefix, 0) == 0) return s.substr(prefix.size());
  }
  return "";
}

// The ConfigMap behind the pod volume `volume`, or "".
std::string volume_config_map(const YAML::Node& deployment, const std::string& volume) {
  for (const auto& v : deployment["spec"]["template"]["spec"]["volumes"]) {
    if (v["name"].as<std::string>() == volume && v["configMap"]) {
      return v["configMap"]["name"].as<std::string>();
    }
  }
  return "";
}

// The host and port of a HOST:PORT argument.
std::pair<std::string, int> host_port(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return {"", -1};
  return {listen.substr(0, colon), std::stoi(listen.substr(colon + 1))};
}

// The Secret behind the volume mounted at the folder holding `file`, or "".
std::string secret_of(const YAML::Node& deployment, const YAML::Node& c, const std::string& file) {
  for (const auto& m : c["volumeMounts"]) {
    const std::string dir = m["mountPath"].as<std::string>() + "/";
    if (file.rfind(dir, 0) != 0 || file.find('/', dir.size()) != std::string::npos) continue;
    for (const auto& v : deployment["spec"]["template"]["spec"]["volumes"]) {
      if (v["name"].as<std::string>() == m["name"].as<std::string>() && v["secret"]) {
        return v["secret"]["secretName"].as<std::string>();
      }
    }
  }
  return "";
}

// The container port named `name` (-1 when none).
int container_port(const YAML::Node& c, const std::string& name) {
  for (const auto& p : c["ports"]) {
    if (p["name"].as<std::string>() == name) return p["containerPort"].as<int>();
  }
  return -1;
}

// The extender container: its listeners and the rule the command enforces (a non-loopback
// --listen only with client certificates or a token, never --insecure-listen here), credentials
// from Secrets, probes on the probe listener, and Services that publish only the extender's
// authenticated port. Returns the extender container.
YAML::Node check_extender_workload(const std::vector<YAML::Node>& docs,
                                   const std::string& namespace_) {
  const YAML::Node deployment = the_one(docs, "Deployment");
  EXPECT_EQ(deployment["apiVersion"].as<std::string>(), "apps/v1");
  EXPECT_EQ(deployment["metadata"]["namespace"].as<std::string>(), namespace_);
  const YAML::Node labels = deployment["spec"]["template"]["metadata"]["labels"];
  for (const auto& kv : deployment["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(labels[kv.first.as<std::string>()].as<std::string>(), kv.second.as<std::string>());
  }
  EXPECT_EQ(deployment["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>(),
            "slicelab-extender");
  const YAML::Node extender = container(deployment, "extender");
  EXPECT_EQ(extender["args"][0].as<std::string>(), "serve");
  EXPECT_EQ(extender["args"][1].as<std::string>(), "extender");
  EXPECT_TRUE(has_arg(extender, "--in-cluster"));
  // --scenario names scenario.yaml inside the mounted ConfigMap, and --policy one of its policies.
  const std::string scenario_path = arg_value(extender, "--scenario=");
  const YAML::Node mount = extender["volumeMounts"][0];
  EXPECT_EQ(scenario_path, mount["mountPath"].as<std::string>() + "/scenario.yaml");
  EXPECT_EQ(volume_config_map(deployment, mount["name"].as<std::string>()),
            "slicelab-extender-scenario");
  const Scenario scenario = load_scenario(kExamples + "scenario.yaml");
  const std::string policy = arg_value(extender, "--policy=");
  bool policy_found = false;
  for (const PolicySpec& p : scenario.policies) policy_found = policy_found || p.name == policy;
  EXPECT_TRUE(policy_found) << "--policy=" << policy << " is not in scenario.yaml";

  // Who may reach it.
  EXPECT_FALSE(has_arg(extender, "--insecure-listen"));
  const auto [host, port] = host_port(arg_value(extender, "--listen="));
  EXPECT_EQ(port, 8888);
  const bool loopback = host == "127.0.0.1" || host == "::1" || host == "[::1]";
  const std::string client_ca = arg_value(extender, "--client-ca-file=");
  if (!loopback) {
    EXPECT_FALSE(client_ca.empty() && arg_value(extender, "--auth-token-file=").empty())
        << "a non-loopback --listen needs --client-ca-file or --auth-token-file";
  }
  if (!client_ca.empty()) {
    EXPECT_FALSE(arg_value(extender, "--tls-cert-file=").empty());
    EXPECT_FALSE(arg_value(extender, "--tls-private-key-file=").empty());
  }
  for (const char* flag : {"--tls-cert-file=", "--tls-private-key-file=", "--client-ca-file=",
                           "--auth-token-file=", "--metrics-token-file="}) {
    const std::string file = arg_value(extender, flag);
    if (!file.empty()) {
      EXPECT_NE(secret_of(deployment, extender, file), "") << flag << file;
    }
  }
  // Probes go to the probe listener, on the pod's IP.
  const auto [probe_host, probe_port] = host_port(arg_value(extender, "--probe-listen="));
  EXPECT_EQ(probe_host, "0.0.0.0");
  EXPECT_EQ(container_port(extender, "probes"), probe_port);
  EXPECT_EQ(extender["livenessProbe"]["httpGet"]["path"].as<std::string>(), "/healthz");
  EXPECT_EQ(extender["livenessProbe"]["httpGet"]["port"].as<std::string>(), "probes");
  EXPECT_EQ(extender["readinessProbe"]["httpGet"]["path"].as<std::string>(), "/readyz");
  EXPECT_EQ(extender["readinessProbe"]["httpGet"]["port"].as<std::string>(), "probes");
  // Prometheus scrapes /metrics on the probe port with the token.
  EXPECT_FALSE(arg_value(extender, "--metrics-token-file=").empty());
  const YAML::Node annotations = deployment["spec"]["template"]["metadata"]["annotations"];
  EXPECT_EQ(annotations["prometheus.io/port"].as<int>(), probe_port);
  EXPECT_EQ(annotations["prometheus.io/path"].as<std::string>(), "/metrics");

  // A Service may publish only the extender's own port, and only when it authenticates.
  for (const auto& d : docs) {
    if (d["kind"].as<std::string>() != "Service") continue;
    EXPECT_EQ(d["apiVersion"].as<std::string>(), "v1");
    EXPECT_EQ(d["metadata"]["namespace"].as<std::string>(), namespace_);
    for (const auto& kv : d["spec"]["selector"]) {
      EXPECT_EQ(labels[kv.first.as<std::string>()].as<std::string>(), kv.second.as<std::string>());
    }
    EXPECT_FALSE(loopback) << "a Service in front of a loopback listener";
    EXPECT_FALSE(client_ca.empty())
        << "a Service publishes the extender without client certificates";
    for (const auto& p : d["spec"]["ports"]) {
      EXPECT_EQ(container_port(extender, p["targetPort"].as<std::string>()), port)
          << "the Service publishes a port other than the extender's";
    }
  }
  return extender;
}

TEST(ExtenderExamples, DecidingConfigurationCallsEveryVerb) {
  const YAML::Node extenders = check_scheduler_config("kube-scheduler-config.yaml");
  ASSERT_EQ(extenders.size(), 1u);
  const YAML::Node e = extenders[0];
  // The sidecar, on the loopback address it listens on.
  EXPECT_EQ(e["urlPrefix"].as<std::string>(), "http://127.0.0.1:8888");
  const YAML::Node deployment =
      the_one(load_documents(kExamples + "deployment.yaml"), "Deployment");
  EXPECT_EQ(arg_value(container(deployment, "extender"), "--listen="), "127.0.0.1:8888");
  EXPECT_EQ(e["filterVerb"].as<std::string>(), "filter");
  EXPECT_EQ(e["prioritizeVerb"].as<std::string>(), "prioritize");
  EXPECT_EQ(e["bindVerb"].as<std::string>(), "bind");
  EXPECT_TRUE(e["nodeCacheCapable"].as<bool>());
  EXPECT_FALSE(e["enableHTTPS"].as<bool>());
  EXPECT_FALSE(e["ignorable"].as<bool>());
  EXPECT_EQ(managed_names(e),
            (std::set<std::string>{"nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpucores"}));
  for (const auto& r : e["managedResources"]) {
    EXPECT_TRUE(r["ignoredByScheduler"].as<bool>()) << r["name"].as<std::string>();
  }
  const YAML::Node config = YAML::LoadFile(kExamples + "kube-scheduler-config.yaml");
  EXPECT_EQ(config["profiles"][0]["schedulerName"].as<std::string>(), "slicelab-scheduler");
}

TEST(ExtenderExamples, ShadowConfigurationOnlyWatches) {
  const YAML::Node extenders = check_scheduler_config("shadow/kube-scheduler-config.yaml");
  ASSERT_EQ(extenders.size(), 1u);
  const YAML::Node e = extenders[0];
  EXPECT_EQ(e["prioritizeVerb"].as<std::string>(), "prioritize");
  EXPECT_FALSE(e["filterVerb"]) << "shadow mode must not filter";
  EXPECT_FALSE(e["bindVerb"]) << "shadow mode must not bind";
  EXPECT_FALSE(e["preemptVerb"]);
  EXPECT_TRUE(e["ignorable"].as<bool>());
  EXPECT_TRUE(e["nodeCacheCapable"].as<bool>());
  EXPECT_EQ(managed_names(e),
            (std::set<std::string>{"nvidia.com/gpu", "nvidia.com/gpumem", "nvidia.com/gpucores"}));
  // It must not change what kube-scheduler checks itself.
  for (const auto& r : e["managedResources"]) {
    EXPECT_FALSE(r["ignoredByScheduler"].as<bool>()) << r["name"].as<std::string>();
  }
  // The scheduler reaches it at the Service's fixed ClusterIP, over HTTPS with its client
  // certificate, and checks the extender's certificate for the Service's name.
  const auto docs = load_documents(kExamples + "shadow/deployment.yaml");
  const YAML::Node extender = check_extender_workload(docs, "slicelab");
  const YAML::Node service = the_one(docs, "Service");
  EXPECT_EQ(e["urlPrefix"].as<std::string>(),
            "https://" + service["spec"]["clusterIP"].as<std::string>() + ":" +
                service["spec"]["ports"][0]["port"].as<std::string>());
  EXPECT_TRUE(e["enableHTTPS"].as<bool>());
  const YAML::Node tls = e["tlsConfig"];
  ASSERT_TRUE(tls.IsMap());
  EXPECT_EQ(tls["serverName"].as<std::string>(),
            service["metadata"]["name"].as<std::string>() + "." +
                service["metadata"]["namespace"].as<std::string>() + ".svc");
  for (const char* file : {"certFile", "keyFile", "caFile"}) {
    EXPECT_EQ(tls[file].as<std::string>().rfind("/etc/kubernetes/slicelab-extender/", 0), 0u)
        << file;
  }
  EXPECT_FALSE(arg_value(extender, "--client-ca-file=").empty());
  EXPECT_TRUE(has_arg(extender, "--shadow"));
}

TEST(ExtenderExamples, DeploymentRunsSchedulerAndExtenderWithMountedConfig) {
  const auto docs = load_documents(kExamples + "deployment.yaml");
  check_extender_workload(docs, "slicelab");
  const YAML::Node deployment = the_one(docs, "Deployment");
  EXPECT_FALSE(has_arg(container(deployment, "extender"), "--shadow"));
  const YAML::Node scheduler = container(deployment, "kube-scheduler");
  std::string config_flag;
  for (const auto& a : scheduler["command"]) {
    const auto s = a.as<std::string>();
    if (s.rfind("--config=", 0) == 0) config_flag = s.substr(9);
  }
  ASSERT_FALSE(config_flag.empty());
  // The flag names the file inside the mounted ConfigMap volume.
  const YAML::Node mount = scheduler["volumeMounts"][0];
  EXPECT_EQ(config_flag, mount["mountPath"].as<std::string>() + "/kube-scheduler-config.yaml");
  EXPECT_EQ(volume_config_map(deployment, mount["name"].as<std::string>()),
            "slicelab-scheduler-config");
}

TEST(ExtenderExamples, RbacGrantsWhatTheExtenderUses) {
  const auto docs = load_documents(kExamples + "rbac.yaml");
  const YAML::Node account = the_one(docs, "ServiceAccount");
  EXPECT_EQ(account["metadata"]["name"].as<std::string>(), "slicelab-extender");
  EXPECT_EQ(account["metadata"]["namespace"].as<std::string>(), "slicelab");
  const YAML::Node role = the_one(docs, "ClusterRole");
  EXPECT_EQ(role["apiVersion"].as<std::string>(), "rbac.authorization.k8s.io/v1");
  // resource → verbs, for the core API group.
  std::map<std::string, std::set<std::string>> granted;
  for (const auto& rule : role["rules"]) {
    bool core = false;
    for (const auto& g : rule["apiGroups"]) core = core || g.as<std::string>().empty();
    if (!core) continue;
    for (const auto& r : rule["resources"]) {
      for (const auto& v : rule["verbs"]) granted[r.as<std::string>()].insert(v.as<std::string>());
    }
  }
  EXPECT_EQ(granted["nodes"], (std::set<std::string>{"get", "list", "watch"}));
  EXPECT_EQ(granted["pods"], (std::set<std::string>{"get", "list", "watch", "patch"}));
  EXPECT_EQ(granted["pods/binding"], (std::set<std::string>{"create"}));
  EXPECT_EQ(granted["events"], (std::set<std::string>{"create"}));

  int bound_to_our_role = 0;
  for (const auto& d : docs) {
    if (d["kind"].as<std::string>() != "ClusterRoleBinding") continue;
    EXPECT_EQ(d["subjects"][0]["kind"].as<std::string>(), "ServiceAccount");
    EXPECT_EQ(d["subjects"][0]["name"].as<std::string>(), "slicelab-extender");
    EXPECT_EQ(d["subjects"][0]["namespace"].as<std::string>(), "slicelab");
    EXPECT_EQ(d["roleRef"]["kind"].as<std::string>(), "ClusterRole");
    if (d["roleRef"]["name"].as<std::string>() == role["metadata"]["name"].as<std::string>()) {
      ++bound_to_our_role;
    }
  }
  EXPECT_EQ(bound_to_our_role, 1);
}

// The build stage installs every package scripts/setup's `run` list names (so the image
// builds as a developer machine does), from debian:12, and the runtime stage is slim.
TEST(ExtenderExamples, DockerfileBuildsFromSetupsDebianPackages) {
  const std::string dockerfile = read_text(kExamples + "Dockerfile");
  const std::string setup = read_text(std::string(SLICELAB_SOURCE_DIR) + "/scripts/setup");
  const size_t run_list = setup.find("if [ \"${SLICELAB_PACKAGES:-all}\" = run ]");
  ASSERT_NE(run_list, std::string::npos);
  const size_t open = setup.find("packages=(", run_list);
  const size_t close = setup.find(')', open);
  std::stringstream names(setup.substr(open + 10, close - open - 10));
  const size_t runtime_stage = dockerfile.find("FROM debian:12-slim");
  ASSERT_NE(runtime_stage, std::string::npos);
  const std::string build_stage = dockerfile.substr(0, runtime_stage);
  EXPECT_EQ(build_stage.find("FROM debian:12 AS build"), build_stage.find("FROM "));
  int n = 0;
  for (std::string p; names >> p; ++n) {
    EXPECT_NE(build_stage.find(" " + p + " "), std::string::npos) << p;
  }
  EXPECT_GE(n, 10);
  for (const char* lib : {"libyaml-cpp0.7", "libfmt9", "libcpp-httplib0.11", "libssl3",
                          "libgrpc++1.51", "libprotobuf32"}) {
    EXPECT_NE(dockerfile.find(lib, runtime_stage), std::string::npos) << lib;
  }
  EXPECT_NE(dockerfile.find("--target slicelab"), std::string::npos);
}

}  // namespace
}  // namespace slicelab

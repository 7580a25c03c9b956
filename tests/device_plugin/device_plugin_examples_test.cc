// The device plugin's deployment examples (docs/examples/device-plugin) at Kubernetes' field
// paths: the DaemonSet mounts the kubelet's socket folder, the CDI folder and every host path
// the config names at the same path on the host, the config map holds a config with the
// plugin's keys only, and the RBAC objects name the DaemonSet's service account.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/device_plugin/cdi_spec.h"
#include "cli/cdi_spec_file.h"

namespace slicelab::device_plugin {
namespace {

const std::string kExamples = std::string(SLICELAB_SOURCE_DIR) + "/docs/examples/device-plugin/";

YAML::Node load_example(const std::string& name) {
  return YAML::LoadFile(kExamples + name);
}

// The keys of the `slicelab:` section and of `slicelab.interposer` (plugin_config.h,
// NodePluginConfig and InterposerShareConfig, in the config file's spelling).
const std::set<std::string> kSlicelabKeys = {"interposer", "mpsRoot",     "mpsControl",
                                             "cdiKind",    "nvmlLibrary", "topologyFile",
                                             "pluginDir",  "nodeName"};
const std::set<std::string> kInterposerKeys = {
    "resource",       "splitCount",         "hostLibrary",    "containerLibrary",
    "hostPreloadDir", "containerRegionDir", "hostRegionRoot", "preloadViaMount"};
// NVIDIA's api/config/v1 top-level keys.
const std::set<std::string> kNvidiaTopKeys = {"version", "flags", "resources", "sharing"};

std::set<std::string> keys_of(const YAML::Node& map) {
  std::set<std::string> out;
  for (const auto& entry : map) out.insert(entry.first.as<std::string>());
  return out;
}

bool is_under(const std::string& path, const std::string& folder) {
  return path == folder || path.rfind(folder + "/", 0) == 0;
}

// The host path that `container_path` is in `container` of `pod_spec`: through the mount
// holding it (the longest mountPath) and that mount's hostPath volume (with its subPath);
// nullopt when no hostPath volume holds it.
std::optional<std::string> host_path_of(const YAML::Node& pod_spec, const YAML::Node& container,
                                        const std::string& container_path) {
  std::optional<std::string> best;
  size_t best_length = 0;
  for (const YAML::Node& mount : container["volumeMounts"]) {
    const std::string at = mount["mountPath"].as<std::string>();
    if (!is_under(container_path, at) || at.size() < best_length) continue;
    for (const YAML::Node& volume : pod_spec["volumes"]) {
      if (volume["name"].as<std::string>() != mount["name"].as<std::string>()) continue;
      if (!volume["hostPath"]) return std::nullopt;
      std::string host = volume["hostPath"]["path"].as<std::string>();
      if (mount["subPath"]) host += "/" + mount["subPath"].as<std::string>();
      best = host + container_path.substr(at.size());
      best_length = at.size();
    }
  }
  return best;
}

YAML::Node container_named(const YAML::Node& list, const std::string& name) {
  for (const YAML::Node& c : list)
    if (c["name"].as<std::string>() == name) return c;
  ADD_FAILURE() << "no container " << name;
  return YAML::Node();
}

bool has_arg(const YAML::Node& container, const std::string& arg) {
  for (const YAML::Node& a : container["args"])
    if (a.as<std::string>() == arg) return true;
  return false;
}

YAML::Node plugin_config() {
  const YAML::Node configmap = load_example("configmap.yaml");
  return YAML::Load(configmap["data"]["config.yaml"].as<std::string>());
}

TEST(DevicePluginExamples, TheConfigMapHoldsAConfigWithThePluginsKeys) {
  const YAML::Node configmap = load_example("configmap.yaml");
  EXPECT_EQ(configmap["kind"].as<std::string>(), "ConfigMap");
  const YAML::Node config = plugin_config();
  for (const std::string& key : keys_of(config)) {
    EXPECT_TRUE(kNvidiaTopKeys.count(key) || key == "slicelab") << key;
  }
  EXPECT_EQ(config["version"].as<std::string>(), "v1");
  for (const std::string& key : keys_of(config["slicelab"])) {
    EXPECT_TRUE(kSlicelabKeys.count(key)) << "slicelab." << key;
  }
  for (const std::string& key : keys_of(config["slicelab"]["interposer"])) {
    EXPECT_TRUE(kInterposerKeys.count(key)) << "slicelab.interposer." << key;
  }
  // The kind is one a CDI spec may carry.
  CdiSpec spec;
  spec.kind = config["slicelab"]["cdiKind"].as<std::string>();
  spec.devices.push_back(CdiDevice{"GPU-a", {{"A=1"}, {}, {}, {}}});
  spec.version = minimum_cdi_version(spec);
  EXPECT_TRUE(validate_cdi_spec(spec).empty());
}

TEST(DevicePluginExamples, TheDaemonSetMountsTheSocketFolderAndTheConfigsHostPaths) {
  const YAML::Node ds = load_example("daemonset.yaml");
  EXPECT_EQ(ds["apiVersion"].as<std::string>(), "apps/v1");
  EXPECT_EQ(ds["kind"].as<std::string>(), "DaemonSet");
  const YAML::Node pod = ds["spec"]["template"]["spec"];
  EXPECT_EQ(
      ds["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"].as<std::string>(),
      ds["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"].as<std::string>());
  EXPECT_EQ(pod["nodeSelector"]["nvidia.com/gpu.present"].as<std::string>(), "true");
  const YAML::Node plugin = container_named(pod["containers"], "device-plugin");
  EXPECT_TRUE(has_arg(plugin, "serve"));
  EXPECT_TRUE(has_arg(plugin, "device-plugin"));
  EXPECT_TRUE(has_arg(plugin, "--config=/etc/slicelab/config.yaml"));
  // NODE_NAME from the downward API.
  bool node_name = false;
  for (const YAML::Node& env : plugin["env"])
    if (env["name"].as<std::string>() == "NODE_NAME")
      node_name = env["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>() == "spec.nodeName";
  EXPECT_TRUE(node_name);
  // Every mount names a volume.
  std::set<std::string> volumes;
  for (const YAML::Node& v : pod["volumes"]) volumes.insert(v["name"].as<std::string>());
  for (const YAML::Node& c : pod["initContainers"])
    for (const YAML::Node& m : c["volumeMounts"]) {
      EXPECT_TRUE(volumes.count(m["name"].as<std::string>())) << m["name"].as<std::string>();
    }
  for (const YAML::Node& m : plugin["volumeMounts"]) {
    EXPECT_TRUE(volumes.count(m["name"].as<std::string>())) << m["name"].as<std::string>();
  }
  // The kubelet's socket folder, the CDI folder and every host path of the config are the
  // same path in the plugin's container as on the host: the plugin writes what it hands to
  // containers (or to the kubelet) by its host path.
  const YAML::Node config = plugin_config();
  const YAML::Node sl = config["slicelab"];
  std::vector<std::string> host_paths = {"/var/lib/kubelet/device-plugins",
                                         "/var/run/cdi",
                                         sl["pluginDir"].as<std::string>(),
                                         sl["mpsRoot"].as<std::string>(),
                                         sl["interposer"]["hostPreloadDir"].as<std::string>(),
                                         sl["interposer"]["hostRegionRoot"].as<std::string>(),
                                         sl["interposer"]["hostLibrary"].as<std::string>()};
  for (const std::string& path : host_paths) {
    EXPECT_EQ(host_path_of(pod, plugin, path).value_or("(not on the host)"), path);
  }
  // The config file is the config map's key, mounted where --config points.
  bool config_mounted = false;
  for (const YAML::Node& m : plugin["volumeMounts"])
    if (m["mountPath"].as<std::string>() == "/etc/slicelab")
      for (const YAML::Node& v : pod["volumes"])
        if (v["name"].as<std::string>() == m["name"].as<std::string>() && v["configMap"])
          config_mounted = v["configMap"]["name"].as<std::string>() ==
                           load_example("configmap.yaml")["metadata"]["name"].as<std::string>();
  EXPECT_TRUE(config_mounted);
}

TEST(DevicePluginExamples, TheInitContainersInstallTheLibraryAndWriteTheSpecOnTheHost) {
  const YAML::Node pod = load_example("daemonset.yaml")["spec"]["template"]["spec"];
  const YAML::Node install = container_named(pod["initContainers"], "install-interposer");
  const std::string copied_to = install["command"][2].as<std::string>();
  EXPECT_EQ(host_path_of(pod, install, copied_to).value_or("(not on the host)"),
            plugin_config()["slicelab"]["interposer"]["hostLibrary"].as<std::string>());
  const YAML::Node generate = container_named(pod["initContainers"], "cdi-generate");
  EXPECT_TRUE(has_arg(generate, "cdi"));
  EXPECT_TRUE(has_arg(generate, "generate"));
  EXPECT_TRUE(has_arg(generate, std::string("--output=") + kDefaultCdiSpecPath));
  EXPECT_EQ(host_path_of(pod, generate, kDefaultCdiSpecPath).value_or("(not on the host)"),
            kDefaultCdiSpecPath);
}

TEST(DevicePluginExamples, RbacLetsTheServiceAccountReadAndAnnotatePods) {
  const std::vector<YAML::Node> docs = YAML::LoadAllFromFile(kExamples + "rbac.yaml");
  const YAML::Node ds = load_example("daemonset.yaml");
  const std::string account =
      ds["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  const std::string ns = ds["metadata"]["namespace"].as<std::string>();
  std::set<std::string> verbs;
  std::string role, bound_role, subject, subject_ns;
  bool account_defined = false;
  for (const YAML::Node& doc : docs) {
    const std::string kind = doc["kind"].as<std::string>();
    if (kind == "ServiceAccount")
      account_defined = doc["metadata"]["name"].as<std::string>() == account &&
                        doc["metadata"]["namespace"].as<std::string>() == ns;
    if (kind == "ClusterRole") {
      role = doc["metadata"]["name"].as<std::string>();
      for (const YAML::Node& rule : doc["rules"])
        for (const YAML::Node& resource : rule["resources"])
          if (resource.as<std::string>() == "pods")
            for (const YAML::Node& verb : rule["verbs"]) verbs.insert(verb.as<std::string>());
    }
    if (kind == "ClusterRoleBinding") {
      bound_role = doc["roleRef"]["name"].as<std::string>();
      subject = doc["subjects"][0]["name"].as<std::string>();
      subject_ns = doc["subjects"][0]["namespace"].as<std::string>();
    }
  }
  EXPECT_TRUE(account_defined);
  EXPECT_EQ(verbs, (std::set<std::string>{"get", "list", "watch", "patch"}));
  EXPECT_EQ(bound_role, role);
  EXPECT_EQ(subject, account);
  EXPECT_EQ(subject_ns, ns);
}

}  // namespace
}  // namespace slicelab::device_plugin

// ResourceSlices read on yaml-cpp's events (workloads/inputs/dra_slice_events.h) against the
// tree reader they replace: the same model field by field on every shipped slice file and on
// the input of bench/dra_scale, and on each of hundreds of broken variants of a slice the same
// model or the same error text.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/dra_objects_dump.h"
#include "tests/support/temp_files.h"
#include "workloads/inputs/dra_objects.h"
#include "workloads/inputs/dra_slice_events.h"

namespace slicelab {
namespace {

using testing::dump_dra_objects;
using testing::message_of;

const std::string kSource = std::string(SLICELAB_SOURCE_DIR) + "/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The model both ways, or the error both ways.
std::string read_as(const std::vector<std::string>& paths, DraSliceReading how) {
  DraObjects o;
  const std::string error = message_of([&] {
    for (const std::string& p : paths) read_dra_objects(p, o, how);
    check_dra_pools(o);
  });
  if (error != "no error") return "error: " + error;
  return dump_dra_objects(o);
}

// The first difference and what surrounds it: googletest's diff of two large texts is slow.
void expect_same_text(const std::string& events, const std::string& tree, const std::string& what) {
  if (events == tree) return;
  size_t at = 0;
  while (at < events.size() && at < tree.size() && events[at] == tree[at]) ++at;
  const size_t from = at > 200 ? at - 200 : 0;
  ADD_FAILURE() << what << ": the events reader differs from the tree reader at byte " << at
                << "\nevents: " << events.substr(from, 400)
                << "\ntree:   " << tree.substr(from, 400);
}

void expect_same(const std::vector<std::string>& paths) {
  const std::string tree = read_as(paths, DraSliceReading::Tree);
  const std::string events = read_as(paths, DraSliceReading::Events);
  expect_same_text(events, tree, paths.back());
  // Inputs that load, with slices: not two identical errors.
  EXPECT_FALSE(tree.starts_with("error: ")) << tree;
  EXPECT_TRUE(tree.starts_with("slice ")) << paths.back();
}

// A slice with every field the events reader reads, and some it declines.
constexpr const char* kSlice = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-a-gpus
  labels: {team: ml}
  creationTimestamp: null
spec:
  driver: gpu.nvidia.com
  nodeName: node-a
  pool:
    name: node-a
    generation: 3
    resourceSliceCount: 1
  sharedCounters:
  - name: gpu-0-set
    counters:
      memory: {value: 80Gi}
      multiprocessors:
        value: "132"
  devices:
  - name: gpu-0
    attributes:
      index: {int: 0}
      mig: {bool: false}
      productName: {string: NVIDIA H100 80GB HBM3}
      driverVersion: {version: 570.86.15}
      resource.kubernetes.io/pcieRoot: {string: pci0000:00}
    capacity:
      memory: {value: 80Gi}
    consumesCounters:
    - counterSet: gpu-0-set
      counters:
        memory: {value: 40Gi}
    allowMultipleAllocations: true
  - name: gpu-1
status: {}
)";

class DraSliceEventsTest : public testing::TempFilesTest {};

TEST_F(DraSliceEventsTest, ReadsASliceWithoutATreeAsWritten) {
  DraObjects o;
  ASSERT_TRUE(read_resource_slice_events(kSlice, YamlReader("f.yaml", {10, 0}), o));
  ASSERT_EQ(o.model.resource_slices.size(), 1U);
  const DraResourceSlice& s = o.model.resource_slices[0];
  EXPECT_EQ(s.name, "node-a-gpus");
  EXPECT_EQ(s.driver, "gpu.nvidia.com");
  EXPECT_EQ(s.node_name, "node-a");
  EXPECT_FALSE(s.all_nodes);
  EXPECT_EQ(s.pool.generation, 3);
  EXPECT_EQ(s.pool.resource_slice_count, 1);
  EXPECT_EQ(s.location.line, 11);  // the document's first line, 10 lines into the file
  ASSERT_EQ(s.shared_counters.size(), 1U);
  ASSERT_EQ(s.shared_counters[0].counters.size(), 2U);
  EXPECT_EQ(s.shared_counters[0].counters[0].value.value, int64_t{80} << 30);
  EXPECT_EQ(s.shared_counters[0].counters[1].value.text, "132");
  ASSERT_EQ(s.devices.size(), 2U);
  const DraDevice& d = s.devices[0];
  EXPECT_EQ(d.location.line, 11 + 20);  // "- name: gpu-0" is line 21 of the document
  EXPECT_EQ(d.location.column, 5);
  ASSERT_EQ(d.attributes.size(), 5U);
  EXPECT_EQ(d.attributes[0].qualified, "gpu.nvidia.com/index");
  EXPECT_EQ(d.attributes[1].type, DraAttributeType::Bool);
  EXPECT_EQ(d.attributes[2].string_value, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.attributes[3].type, DraAttributeType::Version);
  EXPECT_EQ(d.attributes[4].qualified, "resource.kubernetes.io/pcieRoot");
  EXPECT_EQ(d.capacity[0].qualified, "gpu.nvidia.com/memory");
  EXPECT_EQ(d.consumes_counters[0].counters[0].value.value, int64_t{40} << 30);
  EXPECT_TRUE(d.allow_multiple_allocations);
  ASSERT_EQ(o.counter_use_text.size(), 1U);
  EXPECT_EQ(o.counter_use_text[0].at.line, 11 + 30);  // line 31: "    - counterSet: gpu-0-set"
  EXPECT_EQ(o.counter_use_text[0].at.column, 19);
}

TEST_F(DraSliceEventsTest, DeclinesWhatTheTreeReaderChecksFurther) {
  const std::string slice = kSlice;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"kind: ResourceSlice", "kind: DeviceClass"},
           {"resource.k8s.io/v1\n", "resource.k8s.io/v1beta1\n"},
           {"memory: {value: 80Gi}\n    consumes",
            "memory: {value: 80Gi, requestPolicy: {default: 1Gi}}\n    consumes"},
           {"  nodeName: node-a", "  nodeName: node-a\n  perDeviceNodeSelection: false"},
           {"generation: 3", "generation: ~"},
           {"index: {int: 0}", "index: {int: 0, bool: true}"},
           {"allowMultipleAllocations: true", "allowMultipleAllocations: maybe"},
           {"  - name: gpu-1", "  - name: \"\""},
       }) {
    std::string text = slice;
    text.replace(text.find(from), from.size(), to);
    DraObjects o;
    EXPECT_FALSE(read_resource_slice_events(text, YamlReader("f.yaml"), o)) << to;
    EXPECT_TRUE(o.model.resource_slices.empty() && o.counter_use_text.empty()) << to;
  }
  DraObjects o;
  EXPECT_FALSE(read_resource_slice_events(slice + "---\n" + slice, YamlReader("f.yaml"), o));
}

TEST_F(DraSliceEventsTest, ShippedSliceFilesReadTheSameBothWays) {
  const std::vector<std::string> files = {"scenarios/dra/mig-slices.yaml",
                                          "scenarios/dra/shared-gpus.yaml",
                                          "tests/data/dra/resourceslices.json"};
  for (const std::string& f : files)
    expect_same({kSource + "scenarios/dra/deviceclasses.yaml", kSource + f});
  // Every document of the MIG slices is read on events, none left to the tree.
  const std::string text = read_text(kSource + "scenarios/dra/mig-slices.yaml");
  size_t read = 0, documents = 0;
  DraObjects o;
  for (size_t at = text.find("---\n"); at != std::string::npos;) {
    const size_t next = text.find("---\n", at + 4);
    ++documents;
    if (read_resource_slice_events(text.substr(at, next - at), YamlReader("f"), o)) ++read;
    at = next;
  }
  EXPECT_EQ(documents, 4U);
  EXPECT_EQ(read, documents);
}

// bench/dra_scale's input: node h100-0's documents of mig-slices.yaml renamed for 61 nodes.
std::string scale_bench_slices() {
  const std::string all = read_text(kSource + "scenarios/dra/mig-slices.yaml");
  const size_t first = all.find("---\n");
  const size_t other = all.rfind("---\n", all.find("nodeName: h100-1"));
  const std::string node0 = all.substr(first, other - first);
  std::string big;
  for (int n = 0; n < 61; ++n) {
    std::string copy = node0;
    const std::string name = "h100-" + std::to_string(n);
    for (size_t at = copy.find("h100-0"); at != std::string::npos;
         at = copy.find("h100-0", at + name.size()))
      copy.replace(at, 6, name);
    big += copy;
  }
  return big;
}

TEST_F(DraSliceEventsTest, TheScaleBenchInputReadsTheSameBothWays) {
  const std::string big = scale_bench_slices();
  EXPECT_GT(big.size(), 5'000'000U);
  expect_same({kSource + "scenarios/dra/deviceclasses.yaml", write("slices.yaml", big)});
}

// The same slices as one List document of more than 1 MiB, whose items the export stream offers
// one at a time (each item's text indented as in the file).
TEST_F(DraSliceEventsTest, ItemsOfALargeListReadTheSameBothWays) {
  const std::string big = scale_bench_slices();
  std::string list = "apiVersion: v1\nkind: List\nitems:\n";
  std::istringstream in(big);
  bool first_line = false;
  for (std::string l; std::getline(in, l);) {
    if (l == "---") {
      first_line = true;
      continue;
    }
    list += (first_line ? "- " : "  ") + l + "\n";
    first_line = false;
  }
  EXPECT_GT(list.size(), 5'000'000U);
  expect_same({kSource + "scenarios/dra/deviceclasses.yaml", write("list.yaml", list)});
}

// Each line of kSlice removed, and each value replaced by others: the events reader gives the
// tree reader's model, or declines and the tree reader gives its error.
TEST_F(DraSliceEventsTest, BrokenSlicesGiveTheSameModelOrErrorBothWays) {
  std::vector<std::string> lines;
  std::istringstream in(kSlice);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const auto join = [](const std::vector<std::string>& ls) {
    std::string out;
    for (const std::string& l : ls) out += l + "\n";
    return out;
  };
  std::vector<std::string> variants;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> v = lines;
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
    variants.push_back(join(v));
    const size_t colon = lines[i].find(": ");
    if (colon == std::string::npos) continue;
    for (const std::string& value :
         std::vector<std::string>{"\"\"", "~", "-1", "0", "x", "1.5", "99999999999999999999", "{}",
                                  "[]", "true", "2147483648", "\"" + std::string(70, 'a') + "\""}) {
      std::vector<std::string> r = lines;
      r[i] = lines[i].substr(0, colon + 2) + value;
      variants.push_back(join(r));
    }
  }
  variants.push_back(join(lines) + "  extra: 1\n");
  EXPECT_GT(variants.size(), 300U);
  int errors = 0;
  for (size_t k = 0; k < variants.size(); ++k) {
    const std::string path = write("v" + std::to_string(k) + ".yaml", variants[k]);
    const std::string tree = read_as({path}, DraSliceReading::Tree);
    expect_same_text(read_as({path}, DraSliceReading::Events), tree, variants[k]);
    errors += tree.starts_with("error: ") ? 1 : 0;
  }
  // Most variants are refused: the comparison covers error messages, not only models.
  EXPECT_GT(errors, 150);
}

}  // namespace
}  // namespace slicelab

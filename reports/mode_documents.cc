#include "reports/mode_documents.h"

#include <algorithm>

namespace slicelab {

std::vector<std::string> mode_document_files(std::span<const RunResult> runs) {
  std::vector<std::string> files;
  for (const RunResult& run : runs)
    for (const ModeDocument& d : run.summary.mode_results.documents)
      if (std::find(files.begin(), files.end(), d.file) == files.end()) files.push_back(d.file);
  return files;
}

nlohmann::ordered_json mode_document_json(std::span<const RunResult> runs,
                                          const std::string& file) {
  using ojson = nlohmann::ordered_json;
  ojson policies = ojson::array();
  for (const RunResult& run : runs)
    for (const ModeDocument& d : run.summary.mode_results.documents) {
      if (d.file != file) continue;
      // Parsed back as ordered JSON: the mode's key order and numbers come out as it wrote them.
      policies.push_back(
          {{"policy", run.policy}, {"seed", run.seed}, {d.key, ojson::parse(d.json)}});
    }
  return {{"policies", std::move(policies)}};
}

}  // namespace slicelab

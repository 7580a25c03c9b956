// A sharing mode's own results in a run, without the generic code knowing the mode: named figures
// (summary.json keys such as "mig.stranded_ratio") and named extra documents (claims.json), each
// filled by the mode's SharingRun::write_results and read by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

// One figure of a mode, under its dotted summary.json key.
struct ModeFigure {
  std::string name;
  double value = 0;
};

// One run's part of an extra file: the writer gathers every run's part of `file` into
// {"policies": [{"policy", "seed", <key>: <json>}]}. `json` is compact JSON text, so that the
// metrics need no JSON library; it is parsed back with its key order as written.
struct ModeDocument {
  std::string file;  // "claims.json"
  std::string key;   // "claims"
  std::string json;
};

struct ModeResults {
  std::vector<ModeFigure> figures;  // in the order the mode wrote them
  std::vector<ModeDocument> documents;

  // The figure named `name`; none when the mode did not write it.
  std::optional<double> figure(std::string_view name) const {
    for (const ModeFigure& f : figures)
      if (f.name == name) return f.value;
    return std::nullopt;
  }
  // Sets (or adds) the figure named `name`.
  void set_figure(std::string_view name, double value) {
    for (ModeFigure& f : figures)
      if (f.name == name) {
        f.value = value;
        return;
      }
    figures.push_back({std::string(name), value});
  }
};

}  // namespace slicelab

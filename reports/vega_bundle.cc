#include "reports/vega_bundle.h"
#include "workloads/text_file.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

namespace slicelab {
namespace {

struct Module {
  std::string_view name;  // the name other modules require()
  std::string_view file;  // its file in libjs-vega
};

// In dependency order: each module requires only modules above it. Geo, projections, voronoi,
// force, hierarchy, label, regression, wordcloud and crossfilter are left out: no chart of the
// report uses them (and projections need d3-geo-projection, which libjs-vega lacks).
constexpr std::array kModules = {
    Module{"vega-util", "vega-util"},
    Module{"vega-time", "vega-time"},
    Module{"vega-format", "vega-format"},
    Module{"vega-loader", "vega-loader"},
    Module{"vega-dataflow", "vega-dataflow"},
    Module{"vega-scale", "vega-scale"},
    Module{"vega-canvas", "vega-canvas"},
    Module{"vega-scenegraph", "vega-scenegraph"},
    Module{"vega-statistics", "vega-statistics"},
    Module{"vega-expression", "vega-expression"},
    Module{"vega-selections", "vega-selection"},
    Module{"vega-functions", "vega-functions"},
    Module{"vega-event-selector", "vega-event-selector"},
    Module{"vega-parser", "vega-parser"},
    Module{"vega-runtime", "vega-runtime"},
    Module{"vega-view", "vega-view"},
    Module{"vega-transforms", "vega-transforms"},
    Module{"vega-view-transforms", "vega-view-transforms"},
    Module{"vega-encode", "vega-encode"},
};

std::filesystem::path module_path(const std::filesystem::path& dir, const Module& m) {
  return dir / fmt::format("{}.min.js", m.file);
}

// "</script" would end the inline element early; "<\/script" means the same inside JS strings
// and regular expressions, the only places minified code can hold it.
void escape_script_end(std::string& js) {
  for (size_t at = js.find("</"); at != std::string::npos; at = js.find("</", at + 2)) {
    std::string tag = js.substr(at + 2, 6);
    for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tag == "script") js.replace(at, 2, "<\\/");
  }
}

}  // namespace

std::filesystem::path find_vega_dir() {
  const char* env = std::getenv("SLICELAB_VEGA_DIR");
  std::filesystem::path dir = env && *env ? std::filesystem::path(env)
                                          : std::filesystem::path("/usr/share/javascript/vega");
  for (const Module& m : kModules)
    if (!std::filesystem::is_regular_file(module_path(dir, m)))
      throw std::runtime_error(fmt::format(
          "report.html needs Vega: {} is missing (install the Debian package libjs-vega, or set "
          "SLICELAB_VEGA_DIR to a folder holding vega-*.min.js)",
          module_path(dir, m).string()));
  return dir;
}

std::string vega_bundle_js(const std::filesystem::path& dir) {
  // Each module is a UMD file; given `module`, `exports` and `require` it takes its CommonJS
  // branch, so the modules link to each other here instead of through globals (their browser
  // branch would overwrite window.vega with each module in turn).
  std::string js =
      "var vega = (function () {\n"
      "var mods = {};\n"
      "function req(n) { if (!mods[n]) throw new Error('vega module missing: ' + n); "
      "return mods[n]; }\n";
  for (const Module& m : kModules) {
    std::string body = read_text_file(module_path(dir, m).string());
    escape_script_end(body);
    js += "(function () { var module = {exports: {}}, exports = module.exports, require = req;\n";
    js += body;
    js += fmt::format("\nmods['{}'] = module.exports; }})();\n", m.name);
  }
  // What Vega's own bundle does: one namespace, and every transform registered with the
  // dataflow so that specs can name them.
  js +=
      "var v = {};\n"
      "['vega-util', 'vega-statistics', 'vega-time', 'vega-loader', 'vega-scenegraph',\n"
      " 'vega-dataflow', 'vega-scale', 'vega-view', 'vega-functions', 'vega-parser',\n"
      " 'vega-runtime', 'vega-expression', 'vega-event-selector'].forEach(function (n) {\n"
      "  Object.assign(v, mods[n]); });\n"
      "Object.assign(mods['vega-dataflow'].transforms, mods['vega-transforms'],\n"
      "  mods['vega-view-transforms'], mods['vega-encode']);\n"
      "return v;\n"
      "})();\n";
  return js;
}

}  // namespace slicelab

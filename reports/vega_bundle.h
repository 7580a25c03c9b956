// Vega 5 for self-contained HTML: Debian's libjs-vega ships Vega as separate CommonJS/UMD
// modules (no single vega.min.js), so this joins the modules a chart needs behind a tiny loader.
#pragma once

#include <filesystem>
#include <string>

namespace slicelab {

// The folder holding Debian's vega-*.min.js: $SLICELAB_VEGA_DIR when set, else
// /usr/share/javascript/vega. Throws std::runtime_error (saying which package to install) when
// a module is missing.
std::filesystem::path find_vega_dir();

// One script that defines the global `vega` (parse, View, the transforms charts use) from the
// modules in `dir`, with no network access. Safe to inline in a <script> element.
std::string vega_bundle_js(const std::filesystem::path& dir);

}  // namespace slicelab

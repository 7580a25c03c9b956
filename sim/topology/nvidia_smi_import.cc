#include "sim/topology/nvidia_smi_import.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab {
namespace {

struct Token {
  std::string_view text;
  size_t column = 0;  // 1-based
};

// Recent drivers underline the header with ANSI escapes (ESC [ 4 m ... ESC [ 0 m); they are
// blanked out in place so that columns in messages still count the file's bytes.
std::vector<Token> tokens(std::string_view raw, std::string& buffer) {
  buffer.assign(raw);
  for (size_t i = 0; i + 1 < buffer.size(); ++i) {
    if (buffer[i] != '\x1b' || buffer[i + 1] != '[') continue;
    size_t j = i + 2;
    while (j < buffer.size() && (buffer[j] < '@' || buffer[j] > '~')) ++j;
    for (size_t x = i; x <= j && x < buffer.size(); ++x) buffer[x] = ' ';
    i = j;
  }
  const std::string_view line = buffer;
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back({line.substr(start, i - start), start + 1});
  }
  return out;
}

// "GPU<k>" -> k, else -1.
int gpu_index(std::string_view t) {
  if (t.size() < 4 || t.substr(0, 3) != "GPU") return -1;
  int k = -1;
  const auto [end, ec] = std::from_chars(t.data() + 3, t.data() + t.size(), k);
  if (ec != std::errc() || end != t.data() + t.size()) return -1;
  return k;
}

// One matrix cell; false when the spelling is unknown. SOC is the pre-2017 name of SYS.
bool parse_cell(std::string_view t, GpuLink& link) {
  if (t == "SYS" || t == "SOC") {
    link = {LinkKind::kCrossCpu, 0, 0};
  } else if (t == "NODE") {
    link = {LinkKind::kSameCpu, 0, 0};
  } else if (t == "PHB") {
    link = {LinkKind::kHostBridge, 0, 0};
  } else if (t == "PXB") {
    link = {LinkKind::kMultiSwitch, 0, 0};
  } else if (t == "PIX") {
    link = {LinkKind::kSingleSwitch, 0, 0};
  } else if (t.size() > 2 && t.substr(0, 2) == "NV") {
    int n = 0;
    const auto [end, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), n);
    if (ec != std::errc() || end != t.data() + t.size() || n < 1 || n > 64) return false;
    link = {LinkKind::kNvLink, n, 0};
  } else {
    return false;
  }
  link.score = link_score(link.kind, link.nvlinks);
  return true;
}

std::string spell(const GpuLink& l) {
  return l.kind == LinkKind::kNvLink ? fmt::format("NV{}", l.nvlinks)
                                     : std::string(link_label(l.kind));
}

}  // namespace

std::shared_ptr<const GpuTopology> parse_nvidia_smi_topo(std::string_view text,
                                                         const std::string& source) {
  const auto fail = [&](size_t line, size_t column, const std::string& what) {
    if (column == 0) throw InputError(fmt::format("{}:{}: {}", source, line, what));
    throw InputError(fmt::format("{}:{}:{}: {}", source, line, column, what));
  };
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }

  // The header is the first line whose first token is GPU0; its GPU columns are the leading
  // run GPU0, GPU1, ... (NIC and affinity columns follow).
  std::string buffer;  // the current line with escapes blanked; tokens point into it
  size_t header = lines.size();
  int n = 0;
  for (size_t i = 0; i < lines.size() && header == lines.size(); ++i) {
    const auto t = tokens(lines[i], buffer);
    if (t.empty() || t[0].text != "GPU0") continue;
    header = i;
    while (static_cast<size_t>(n) < t.size() && gpu_index(t[static_cast<size_t>(n)].text) == n) ++n;
    if (static_cast<size_t>(n) < t.size() && gpu_index(t[static_cast<size_t>(n)].text) >= 0)
      fail(i + 1, t[static_cast<size_t>(n)].column,
           fmt::format("expected column GPU{}, found '{}'", n, t[static_cast<size_t>(n)].text));
    if (n > 64) fail(i + 1, 0, fmt::format("{} GPUs; at most 64 are supported", n));
  }
  if (header == lines.size())
    throw InputError(fmt::format(
        "{}: no GPU matrix found (expected a header line 'GPU0 GPU1 ...' as `nvidia-smi topo "
        "-m` prints it)",
        source));

  std::vector<std::vector<GpuLink>> m(static_cast<size_t>(n),
                                      std::vector<GpuLink>(static_cast<size_t>(n)));
  std::vector<std::vector<size_t>> where(static_cast<size_t>(n),
                                         std::vector<size_t>(static_cast<size_t>(n), 0));
  int rows = 0;
  size_t last = header;
  for (size_t i = header + 1; i < lines.size() && rows < n; ++i) {
    const auto t = tokens(lines[i], buffer);
    if (t.empty()) continue;
    if (t[0].text == "Legend:") break;
    const int row = gpu_index(t[0].text);
    if (row < 0) continue;  // NIC rows
    if (row != rows)
      fail(i + 1, t[0].column, fmt::format("expected row GPU{}, found '{}'", rows, t[0].text));
    if (t.size() < static_cast<size_t>(n) + 1)
      fail(i + 1, 0, fmt::format("GPU{}: expected {} entries, found {}", row, n, t.size() - 1));
    for (int c = 0; c < n; ++c) {
      const Token& cell = t[static_cast<size_t>(c) + 1];
      if (c == row) {
        if (cell.text != "X")
          fail(i + 1, cell.column,
               fmt::format("GPU{} to GPU{}: expected X on the diagonal, found '{}'", row, c,
                           cell.text));
        continue;
      }
      GpuLink& link = m[static_cast<size_t>(row)][static_cast<size_t>(c)];
      if (!parse_cell(cell.text, link))
        fail(i + 1, cell.column,
             fmt::format("GPU{} to GPU{}: expected NV<links>, PIX, PXB, PHB, NODE or SYS, found "
                         "'{}'",
                         row, c, cell.text));
      where[static_cast<size_t>(row)][static_cast<size_t>(c)] = i + 1;
      if (c < row) {
        const GpuLink& other = m[static_cast<size_t>(c)][static_cast<size_t>(row)];
        if (other.kind != link.kind || other.nvlinks != link.nvlinks)
          fail(i + 1, cell.column,
               fmt::format("GPU{} to GPU{} is {} but GPU{} to GPU{} is {} (line {})", row, c,
                           spell(link), c, row, spell(other),
                           where[static_cast<size_t>(c)][static_cast<size_t>(row)]));
      }
    }
    ++rows;
    last = i;
  }
  if (rows < n) fail(last + 1, 0, fmt::format("expected {} GPU rows, found {}", n, rows));
  const size_t slash = source.find_last_of('/');
  return std::make_shared<const GpuTopology>(
      "nvidia-smi:" + (slash == std::string::npos ? source : source.substr(slash + 1)), m);
}

std::shared_ptr<const GpuTopology> load_nvidia_smi_topo(const std::string& path) {
  return parse_nvidia_smi_topo(read_text_file(path), path);
}

}  // namespace slicelab

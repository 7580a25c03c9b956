// One page of a LIST answer (a NodeList, a PodList) read item by item: the page's text is skimmed
// once by an iterative SAX pass that only follows the nesting and notes where each item begins
// and ends; each item is then parsed on its own, depth and memory bounded, handed over and freed.
// A page therefore takes its text plus one item's parsed form, never its whole parsed document,
// and an item nested too deep (or otherwise unreadable) is skipped without ending the page.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace slicelab::k8s {

struct ListPageLimits {
  // An item nested deeper than this is skipped: Kubernetes objects nest about 12 levels.
  size_t max_depth = 64;
  // One item's parsed form at most (the estimate of workloads/bounded_json.h): above what a real
  // object takes (etcd keeps objects under 1.5 MiB of text; parsed, about ten times that).
  size_t max_item_bytes = size_t{32} << 20;
};

struct ListPageInfo {
  std::string resource_version;  // metadata.resourceVersion ("" when absent)
  std::string continue_token;    // metadata.continue ("" on the last page)
  size_t items = 0;              // items handed to on_item
  size_t rejected = 0;           // items skipped (handed to on_rejected)
};

// The page is not a List: not JSON, not an object, or `items` neither a list nor null. The
// message names the byte offset.
class ListPageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `text`: on_item gets each item that parsed as an object (return false to stop reading:
// the page is then left unfinished and the info says what was read), on_rejected each item that
// did not, with the reason. Throws ListPageError.
ListPageInfo read_list_page(std::string_view text, const ListPageLimits& limits,
                            const std::function<bool(nlohmann::json&&)>& on_item,
                            const std::function<void(const std::string&)>& on_rejected);

}  // namespace slicelab::k8s

// Parses JSON into an ordered_json in time linear in the number of keys: nlohmann's own parser
// looks each key up in the ordered (vector-backed) map, quadratic for a wide object.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

namespace slicelab {

// As nlohmann::ordered_json::parse(text): the same values, key order, last-wins for a repeated
// key, and nlohmann::ordered_json::parse_error on bad input.
nlohmann::ordered_json parse_ordered_json(std::string_view text);

}  // namespace slicelab

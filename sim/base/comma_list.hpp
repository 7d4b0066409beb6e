#pragma once
// The items of a comma-separated list as written ("1,1.3,2" -> "1", "1.3", "2"; "8," -> "8", ""),
// for the flags and fields that take lists; each caller checks and converts its items.
#include <algorithm>
#include <string>
#include <vector>

namespace dtsim {

inline std::vector<std::string> comma_separated(const std::string& text) {
  std::vector<std::string> items;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

}  // namespace dtsim

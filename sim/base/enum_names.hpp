#pragma once
// The names of an enum's values as scenario files spell them: to_string of each, in the order of
// the enum's list of values (kRecomputeModes, kAttentionKernels, ...). For the loaders' choices
// and the GUI's combo boxes.
#include <cstddef>
#include <string>
#include <vector>

namespace dtsim {

template <class Enum, std::size_t N>
std::vector<std::string> names_of(const Enum (&values)[N]) {
  std::vector<std::string> names;
  names.reserve(N);
  for (Enum v : values) names.push_back(to_string(v));
  return names;
}

}  // namespace dtsim

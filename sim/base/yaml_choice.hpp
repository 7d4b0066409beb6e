#pragma once
// Reading an enum field: one of its values, written as its to_string name (enum_names.hpp).
#include <cstddef>
#include <string>

#include "enum_names.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

// One of an enum's `values` at `key`, written as its to_string name; `fallback` when the key is
// absent. Anything else is an error naming the field and the names allowed.
template <class Enum, std::size_t N>
Enum read_choice(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key,
                 const Enum (&values)[N], Enum fallback) {
  const std::string written = f.choice(map, path, key, names_of(values), to_string(fallback));
  for (Enum v : values)
    if (written == to_string(v)) return v;
  return fallback;
}

// As above for a field that must be there.
template <class Enum, std::size_t N>
Enum read_choice(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key,
                 const Enum (&values)[N]) {
  const std::string written = f.choice(map, path, key, names_of(values));
  for (Enum v : values)
    if (written == to_string(v)) return v;
  return values[0];  // not reached: choice() accepts only the names above
}

}  // namespace dtsim

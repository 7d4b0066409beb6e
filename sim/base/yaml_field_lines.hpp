#pragma once
// The line a dotted field path such as "events[0].gpu" was written on in a YAML file, for
// messages about a field that a check found wrong after the file was read.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace dtsim {

// The line `field` is written on, if the file spells it out.
std::optional<int> exact_line_of_field(const YAML::Node& root, const std::string& field);
// The line of `field`, or, when the file does not spell it out (a defaulted count), of its
// nearest written ancestor; 0 when none is written.
int line_of_field(const YAML::Node& root, const std::string& field);

}  // namespace dtsim

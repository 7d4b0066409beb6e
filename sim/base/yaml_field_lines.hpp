#pragma once
// The line a dotted field path such as "events[0].gpu" was written on in a YAML file, for
// messages about a field that a check found wrong after the file was read.
#include <yaml-cpp/yaml.h>

#include <string>

namespace dtsim {

// The line of `field`, or, when the file does not spell it out (a model shape that came from a
// preset, a defaulted count), of the key it came from or of its nearest written ancestor.
int line_of_field(const YAML::Node& root, const std::string& field);

}  // namespace dtsim

#pragma once
// Internal to scenario_loader.cpp and scenario_writer.cpp: one FieldOverride applied to a
// scenario's YAML tree.
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "scenario_loader.hpp"

namespace dtsim {

// Sets `o.path` (dotted mapping keys) of `root` to `o.value` parsed as YAML. A path that does not
// name a mapping key, or a value that is not YAML, throws InputError naming `file`.
void apply_field_override(const std::filesystem::path& file, YAML::Node root, const FieldOverride& o);

}  // namespace dtsim

#pragma once
// The `input_pipeline` section of a layer-graph scenario (input_pipeline_config.hpp).
#include <optional>
#include <string>

#include "input_pipeline_config.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

// `input_pipeline` of `holder`, or nothing when absent (the GPUs never wait for data, as with
// synthetic data). Bad input throws InputError naming the field.
std::optional<InputPipelineConfig> read_input_pipeline_section(const YamlFields& f, const YAML::Node& holder,
                                                               const std::string& path);

}  // namespace dtsim

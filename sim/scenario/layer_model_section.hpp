#pragma once
// The parts of a scenario (or a published run) that describe a layer-graph model: `model` with
// `zoo` or `layers_file`, the `data_parallel` section and the measured `reference`.
#include <filesystem>
#include <optional>
#include <string>

#include "data_parallel_config.hpp"
#include "layer_model.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

// True when `model` names a layer graph (zoo or layers_file) rather than a transformer.
bool is_layer_model_section(const YamlFields& f, const YAML::Node& model);
LayerModel read_layer_model_section(const YamlFields& f, const YAML::Node& model, const std::string& path);
// `data_parallel` of `holder`; the defaults (DDP) when absent.
DataParallelConfig read_data_parallel_section(const YamlFields& f, const YAML::Node& holder, const std::string& path);
// `reference` of `holder`: {gpus, samples_per_s} (images_per_s or sequences_per_s, the model's
// sample unit, are the same field).
std::optional<ThroughputReference> read_reference_section(const YamlFields& f, const YAML::Node& holder,
                                                          const std::string& path, const std::string& sample_unit);

// A user's layer file (YAML or JSON): name, sample_unit and layers with their per-sample costs.
// Bad input throws InputError naming the file, line and field.
LayerGraph load_layer_file(const std::filesystem::path& file);

}  // namespace dtsim

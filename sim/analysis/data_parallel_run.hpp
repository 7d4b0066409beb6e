#pragma once
// A published data-parallel run of a layer-graph model (a row of validation/data-parallel-runs.yaml,
// schema in that file's header) read as the scenario it describes: the GPU's usual node with the
// run's GPUs per node and NICs, the zoo model, the batch per GPU, the data-parallel strategy and
// the measured reference the prediction scales from.
#include <filesystem>
#include <string>

#include "validation.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

// A run whose model is a layer graph (model.zoo or model.layers_file) rather than a transformer.
bool is_data_parallel_run(const YamlFields& f, const YAML::Node& run);

// Why validate cannot simulate the run yet ("" when it can): an unpublished field the prediction
// needs (GPU, batch per GPU) or a strategy, library or reference the model does not have.
std::string data_parallel_run_skip_reason(const YamlFields& f, const YAML::Node& run);

// Bad input throws InputError naming the runs file, line and field.
PublishedRun read_data_parallel_run(const YamlFields& f, const YAML::Node& root, const YAML::Node& run,
                                    const std::string& path, const std::filesystem::path& topologies_dir);

}  // namespace dtsim

#pragma once
// The sections a scenario file and a published run (validation/*.yaml) share: model, training
// and parallelism, read with the same checks, so that what a run publishes is what is simulated.
// `path` is the dotted path of the mapping that holds the section ("" in a scenario file,
// "runs[3]" in a runs file), used in error messages.
#include <string>

#include "scenario.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

// The file named by `key` of `map`, resolved against the folder of f's file; it must exist.
std::filesystem::path read_existing_file(const YamlFields& f, const YAML::Node& map, const std::string& path,
                                         const std::string& key);

// `model`: a preset, a Hugging Face config.json (hf_config) or the shape spelled out, each
// field overridable. `name` names the model when nothing else does.
TransformerConfig read_model_section(const YamlFields& f, const YAML::Node& model, const std::string& path,
                                     const std::string& name);
// `framework`: the framework when the section names none (megatron for a transformer, pytorch for a
// layer-graph model).
TrainingConfig read_training_section(const YamlFields& f, const YAML::Node& training, const std::string& path,
                                     Framework framework = Framework::megatron);
// `parallelism` may be absent (everything 1).
ParallelismConfig read_parallelism_section(const YamlFields& f, const YAML::Node& holder, const std::string& path);

}  // namespace dtsim

#pragma once
// Reads a scenario YAML file (see scenarios/ and README "Scenario files") into a Scenario,
// loading the topology it names. Any mistake throws InputError naming file, line, field,
// expected and found.
#include <filesystem>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace dtsim {

Scenario load_scenario(const std::filesystem::path& file);

// One field set from outside the file, e.g. {"parallelism.tp", "4"} or {"cluster.nodes", "32"}:
// a dotted path of mapping keys and a value written as in YAML. `dtsim sweep` varies a field so.
struct FieldOverride {
  std::string path;
  std::string value;
};
// The file with the overrides applied before it is read; every check still runs. A path that
// does not name a mapping key (or crosses a non-mapping) throws InputError naming it.
Scenario load_scenario(const std::filesystem::path& file, const std::vector<FieldOverride>& overrides);

// Reads a Hugging Face config.json (LlamaForCausalLM, GPT2, Mistral, ...) into a TransformerConfig.
// seq_len comes from max_position_embeddings unless the caller overrides it afterwards.
TransformerConfig load_hf_config(const std::filesystem::path& file);

// Checks that apply however a scenario was made (file or code): divisibility of batch and
// layers, tp*pp*dp against the cluster's GPU count, device support for the precision, event
// targets in range. load_scenario runs the same checks itself, with line numbers; this one
// is for scenarios built in code (validation harness, tests) and reports line 0.
void check_scenario_consistency(const Scenario& s);

}  // namespace dtsim

#pragma once
// Writing scenarios back to YAML: the GUI edits a scenario as overrides of its file's fields
// (scenario_loader.hpp's FieldOverride) and events, and saves the result.
#include <filesystem>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "scenario_loader.hpp"

namespace dtsim {

// One event as a YAML flow mapping, in the form scenario files use:
// "{type: straggler, gpu: 5, slowdown: 1.3}". load_scenario reads it back to the same event.
std::string event_to_yaml(const Event& e);
// A flow sequence of events ("[]" for none): the value of an override of the field "events".
std::string events_to_yaml(const std::vector<Event>& events);

// The YAML of `file` with `overrides` applied, as it would be saved at `destination`: relative
// paths in it (cluster.topology, calibration, model.hf_config) are rewritten relative to
// destination's folder so that they still name the same files. Comments are not kept.
// Throws InputError naming the file when it cannot be read or an override path is bad.
std::string scenario_yaml(const std::filesystem::path& file, const std::vector<FieldOverride>& overrides,
                          const std::filesystem::path& destination);

// A transformer scenario's model, training, parallelism, cluster (the topology file by its path:
// in-memory overrides of its fabric are not kept), calibration and events, for `dtsim plan
// --write-scenario`: load_scenario reads a planned layout back to the same simulation. The model is
// its preset with every field spelled out (or the fields alone, named by the scenario, where no
// preset has its name); the topology path is absolute. `comment` heads the file ("# ..." lines).
// Throws std::invalid_argument for a layer-graph, parameter-server or input-pipeline scenario.
std::string scenario_to_yaml(const Scenario& s, const std::string& comment);

}  // namespace dtsim

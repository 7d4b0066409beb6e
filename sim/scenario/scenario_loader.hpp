#pragma once
// Reads a scenario YAML file (see scenarios/ and README "Scenario files") into a Scenario,
// loading the topology it names. Any mistake throws InputError naming file, line, field,
// expected and found.
#include <filesystem>
#include <string>
#include <vector>

#include "hf_config.hpp"
#include "scenario.hpp"
#include "scenario_consistency.hpp"

namespace dtsim {

Scenario load_scenario(const std::filesystem::path& file);

// One field set from outside the file, e.g. {"parallelism.tp", "4"} or {"cluster.nodes", "32"}:
// a dotted path of mapping keys and a value written as in YAML. `dtsim sweep` varies a field so.
// A null value ("~") removes the key, so that the loader's default applies.
struct FieldOverride {
  std::string path;
  std::string value;
};
// The file with the overrides applied before it is read; every check still runs. A path that
// does not name a mapping key (or crosses a non-mapping) throws InputError naming it.
Scenario load_scenario(const std::filesystem::path& file, const std::vector<FieldOverride>& overrides);

// A file holding only an `events:` list, written as a scenario's (`dtsim import --events`): each
// event's fields read and typed, with file and line in errors; their targets are checked against
// a cluster by check_events, where one is known.
std::vector<Event> load_events_file(const std::filesystem::path& file);

}  // namespace dtsim

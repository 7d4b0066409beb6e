#pragma once
// Reads a scenario YAML file (see scenarios/ and docs/scenarios.md) into a Scenario,
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

// One field set from outside the file, e.g. {"parallelism.tp", "4"}, {"cluster.nodes", "32"} or
// {"events.0.slowdown", "1.3"}: a dotted path of mapping keys and list indices, and a value written
// as in YAML; a last key "+" appends to a list ({"events.+", "{type: straggler, gpu: 5}"}).
// `dtsim sweep` varies a field so. A null value ("~") removes the key, so that the loader's
// default applies.
struct FieldOverride {
  std::string path;
  std::string value;
  bool operator==(const FieldOverride&) const = default;
};
// The file with the overrides applied before it is read; every check still runs. A path that
// names no mapping key or list index (or crosses a scalar) throws InputError naming it.
Scenario load_scenario(const std::filesystem::path& file, const std::vector<FieldOverride>& overrides);

// An event written on the command line (`dtsim run --event 'straggler gpu=5 slowdown=1.3'`): its
// type, then KEY=VALUE fields as the YAML event has them, appended to the scenario's events (and
// checked as those are). A text not of that form throws InputError naming `flag`.
FieldOverride event_override(const std::string& flag, const std::string& text);

// A file holding only an `events:` list, written as a scenario's (`dtsim import --events`): each
// event's fields read and typed, with file and line in errors; their targets are checked against
// a cluster by check_events, where one is known.
std::vector<Event> load_events_file(const std::filesystem::path& file);

}  // namespace dtsim

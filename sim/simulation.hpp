#pragma once
// One simulated iteration of a scenario. SimGrid 3.32 supports one Engine per process (a second
// one inherits the first one's clock), so every simulation runs in a forked child process that
// sends its result back over a pipe; callers may simulate as many scenarios as they like.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compute_model.hpp"
#include "engine.hpp"
#include "scenario.hpp"

namespace dtsim {

// The scenario's compute model: datasheet-default efficiencies, or its calibration file's.
ComputeModel compute_model_of(const Scenario& s);

struct SimulationOptions {
  bool record_trace = false;
};

struct SimulationResult {
  EngineResult engine;
  double platform_build_wall_s = 0;
  double simulation_wall_s = 0;
  std::string efficiency_source;  // "datasheet defaults" or the calibration file
};

// Throws InputError for bad input (e.g. a bad calibration file), std::runtime_error if the
// simulation itself failed.
SimulationResult simulate(const Scenario& scenario, const SimulationOptions& options = {});

// Several scenarios, up to `parallel` child processes at a time (one per core is the useful
// maximum). Each result is a value or the message of the error its simulation raised.
struct SimulationOutcome {
  std::optional<SimulationResult> result;
  std::string error;
};
std::vector<SimulationOutcome> simulate_many(const std::vector<Scenario>& scenarios, int parallel);

// Lower level, for tests and benchmarks: runs a given workload on `nodes` nodes of `topology`,
// every GPU host at `gpu_speed_flops`, with `events` applied.
SimulationResult simulate_workload(const TopologySpec& topology, int nodes, double gpu_speed_flops,
                                   const Workload& workload, const std::vector<Event>& events,
                                   const SimulationOptions& options = {});

}  // namespace dtsim

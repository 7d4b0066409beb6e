#pragma once
// One simulated iteration of a scenario. SimGrid 3.32 supports one Engine per process (a second
// one inherits the first one's clock), so every simulation runs in a forked child process that
// sends its result back over a pipe; callers may simulate as many scenarios as they like.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine.hpp"
#include "input_pipeline.hpp"
#include "link_usage.hpp"
#include "resolved_scenario.hpp"
#include "scenario.hpp"

namespace dtsim {

struct SimulationOptions {
  bool record_trace = false;
  bool record_link_usage = false;  // bytes per link (SimulationResult::links)
  // Every link of this tier a million times faster: what the tier costs the iteration
  // (network_report.hpp).
  std::optional<LinkTier> unlimited_tier;
  // Fold data-parallel replicas into one (DESIGN.md "Scale"), except those a what-if event
  // reaches (all of them for a failure or background traffic).
  bool fold_replicas = true;
  // Set to true (from any thread) to stop: the child is killed and simulate throws
  // SimulationCancelled within about 0.1 s.
  const std::atomic<bool>* cancel = nullptr;
  // Called on the calling thread with the child's simulated clock, about every 0.2 s of wall time.
  std::function<void(double simulated_s)> on_progress;
};

class SimulationCancelled : public std::runtime_error {
 public:
  SimulationCancelled() : std::runtime_error("simulation cancelled") {}
};

struct SimulationResult {
  EngineResult engine;
  double platform_build_wall_s = 0;
  double simulation_wall_s = 0;
  double peak_memory_bytes = 0;   // the simulating child process's peak resident memory
  std::string efficiency_source;  // "datasheet defaults" or the calibration file
  std::vector<LinkUsage> links;   // with record_link_usage: every link of the platform
  // With an input pipeline: engine.iteration_s is its steady step, and this says how it came from
  // the simulated step with data always ready (input_pipeline.hpp).
  std::optional<InputPipelineStep> input;
};

// Throws InputError for bad input the child finds, std::runtime_error if the simulation itself
// failed.
SimulationResult simulate(const ResolvedScenario& scenario, const SimulationOptions& options = {});
// The same after resolve_scenario(scenario), which throws InputError for a bad calibration file.
SimulationResult simulate(const Scenario& scenario, const SimulationOptions& options = {});

// simulate in two halves: the constructor forks the child, finish() (on any thread, once) waits
// for it as simulate does. The child of a process with threads may only rely on what no other
// thread held at the fork: a program with threads (the GUI) forks on the thread that touches the C
// library's shared state (its UI thread, where static objects get their exit handlers) and waits
// on another.
class StartedSimulation {
 public:
  StartedSimulation(ResolvedScenario scenario, SimulationOptions options);
  StartedSimulation(StartedSimulation&&) noexcept;
  ~StartedSimulation();
  SimulationResult finish();
  const ResolvedScenario& scenario() const { return scenario_; }

 private:
  struct Child;
  ResolvedScenario scenario_;  // what the child was forked with, for the result's provenance
  SimulationOptions options_;
  std::unique_ptr<Child> child_;
};

// Several scenarios, up to `parallel` child processes at a time (one per core is the useful
// maximum). Each result is a value or the message of the error its simulation raised.
struct SimulationOutcome {
  std::optional<SimulationResult> result;
  std::string error;
};
// `on_outcome`, if given, is called with each outcome as soon as it is known (in order of the
// scenarios); with `cancel` set, the running children are killed and the call returns what it has.
// `options` says what each records (its cancel and on_progress are not used).
std::vector<SimulationOutcome> simulate_many(
    const std::vector<ResolvedScenario>& scenarios, int parallel,
    const std::function<void(size_t index, const SimulationOutcome&)>& on_outcome = {},
    const std::atomic<bool>* cancel = nullptr, const SimulationOptions& options = {});

// What runs a batch of simulations when it is not simulate_many on this machine's cores (a Slurm
// job array: sim/batch/slurm_batch.hpp). It returns one outcome per scenario, in order, or none
// at all when it only submitted them (gathered later).
using SimulationBatchRunner = std::function<std::vector<SimulationOutcome>(const std::vector<ResolvedScenario>&)>;

// A simulation run by another process, perhaps on another machine (a Slurm task, sim/batch/),
// hands its outcome over as bytes: the reply a simulating child sends its parent. `resolve`
// gives the scenario there (what it throws is in the reply too); the simulation runs in a child
// as simulate's does, recording what `options` say. outcome_from_reply turns the bytes into what
// simulate_many gives for it.
std::vector<uint8_t> simulate_to_reply(const std::function<ResolvedScenario()>& resolve,
                                       const SimulationOptions& options = {});
SimulationOutcome outcome_from_reply(const ResolvedScenario& resolved, const std::vector<uint8_t>& reply);

// Lower level, for tests and benchmarks: runs a given workload on `nodes` nodes of `topology`,
// every GPU host at `gpu_speed_flops`, with `events` applied.
SimulationResult simulate_workload(const TopologySpec& topology, int nodes, double gpu_speed_flops,
                                   const Workload& workload, const std::vector<Event>& events,
                                   const SimulationOptions& options = {});

}  // namespace dtsim

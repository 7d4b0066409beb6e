#pragma once
// What events cost: the iteration with a scenario's events against the same scenario without
// them, who waited for whom, and a straggler sensitivity sweep.
#include <string>
#include <vector>

#include "scenario.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "slurm_batch.hpp"

namespace dtsim {

// One line per event, in words ("GPU 3 computes 1.5x slower from 0 s").
std::string describe_event(const Event& e);

// The comparison block of `dtsim run` for a scenario with events: iteration time with and
// without them, or what failed and when if the iteration could not complete; the ranks whose
// lateness cost the others most (EngineResult::waited_on_s), at most `top`.
std::string format_what_if(const Scenario& s, const SimulationResult& with_events,
                           const SimulationResult& without_events, int top = 5);

struct SensitivityPoint {
  double slowdown = 1;
  double iteration_s = 0;
  std::string error;  // why this point's simulation failed, if it did
};

// The scenario with GPU `gpu` slowed by each factor in turn (its other events kept), simulated
// in parallel on the local cores.
std::vector<SensitivityPoint> straggler_sensitivity(const Scenario& s, int gpu, const std::vector<double>& slowdowns);
// The same as a Slurm job array (slurm_batch.hpp): each point is the scenario's file loaded with
// `loaded_with` (the overrides `s` was loaded with) and the straggler appended to its events.
// No points when submitted without waiting.
struct SensitivityOnSlurm {
  std::vector<SensitivityPoint> points;
  SlurmBatch batch;  // outcomes left out
};
SensitivityOnSlurm straggler_sensitivity_on_slurm(const Scenario& s, const std::vector<FieldOverride>& loaded_with,
                                                  int gpu, const std::vector<double>& slowdowns,
                                                  const SlurmOptions& slurm);
std::string format_sensitivity(const std::vector<SensitivityPoint>& points, int gpu);

}  // namespace dtsim

#pragma once
// `dtsim goodput [SCENARIO]`: failures and checkpoints over a whole training run. Simulates one
// iteration, then models failures by component (Llama 3 fleet rates unless the scenario's
// `reliability:` section says otherwise), checkpoint and restart costs, and the three recovery
// strategies with a Monte Carlo over failure times; compares checkpoint intervals with the closed
// form and Young/Daly (sim/reliability/goodput_model.hpp, sim/reliability/goodput_monte_carlo.hpp).
#include <CLI/CLI.hpp>

#include <string>

#include "slurm_flags.hpp"

namespace dtsim {

// Flags as written; run_goodput_command checks them (an InputError names the flag).
struct GoodputOptions {
  std::string scenario;                  // empty: default_scenario, unless the layout is planned
  std::string default_scenario;
  // Instead of a scenario file, as `dtsim plan` takes them: the best layout on this GPU count is
  // planned and its failures simulated (reliability defaults).
  std::string model, gpu, gpus, global_batch;
  std::string iterations, tokens, samples, days;  // at most one; none: the scenario's reliability.training
  std::string runs = "1000";
  std::string seed = "1";
  std::string interval;                  // seconds or "auto"; empty: the scenario's
  std::string checkpoint_mode;           // blocking | async | in_memory; empty: the scenario's
  std::string strategy = "all";          // wait_for_repair | spare_nodes | elastic | all
  std::string sweep_points = "17";       // intervals in the sweep; 0: no sweep
  std::string json_file;
  std::string usd_per_gpu_hour, pue;     // empty: training_cost.hpp's defaults
  // "storage_GBps=500,1000,2000", "restart_s=60,600" or "mtbf_scale=0.5,1,2": goodput, days and
  // cost at each value of one of them (the interval re-optimised where it is auto).
  std::string what_if_sweep;
  SlurmFlags slurm;  // --slurm: the Monte Carlo runs as one Slurm job array (the iteration simulates here)
};

// Returns the options object the parsed flags are written into (owned by the command);
// `default_scenario` is used when no SCENARIO is given.
GoodputOptions& add_goodput_options(CLI::App& command, const std::string& default_scenario);
// Exit code: 0, or 3 when the scenario does not fit in GPU memory (as `dtsim run`).
int run_goodput_command(const GoodputOptions& options);

}  // namespace dtsim

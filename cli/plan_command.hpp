#pragma once
// `dtsim plan`: the best parallel layouts of a model on each of a number of GPU counts (see
// sim/analysis/planner.hpp), with what training on a number of tokens takes on each, and the best
// layout of each count written as a scenario file.
#include <CLI/CLI.hpp>

#include <string>

#include "slurm_flags.hpp"

namespace dtsim {

// Flags as written; run_plan_command checks them (an InputError names the flag).
struct PlanOptions {
  std::string model = "gpt3-175b";  // preset name or path of a Hugging Face config.json
  std::string seq_len;              // empty: the model's
  std::string gpu = "a100-80gb-sxm";
  std::string gpus = "1024";        // "1024", "512,1024" or "256-2048"
  std::string topology;             // empty: default_topology_for(gpu, <source>/topologies)
  std::string global_batch = "1536";
  std::string precision = "bf16";
  std::string top = "10";
  std::string finalists = "2";
  std::string json_file;
  std::string write_scenario;       // the best layout of each GPU count as a scenario file
  std::string tokens;               // a training length: days, GPU-hours, cost and energy per layout
  std::string usd_per_gpu_hour, pue;
  bool full_simulation = false;     // --full-simulation: no micro-batch extrapolation
  SlurmFlags slurm;                 // --slurm: the finalists as a Slurm job array
};

// Returns the options object the parsed flags are written into (owned by the command).
PlanOptions& add_plan_options(CLI::App& command);
int run_plan_command(const PlanOptions& options);

}  // namespace dtsim

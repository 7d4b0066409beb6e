#pragma once
// The --slurm flags of the commands that run many simulations (slurm_batch.hpp) or Monte Carlo
// runs (slurm_monte_carlo.hpp), `dtsim collect DIR`, which gathers a batch submitted with
// --slurm-no-wait by running its command again, and the command line they save for it.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "slurm_batch.hpp"

namespace dtsim {

struct SlurmFlags {
  bool slurm = false;
  std::string partition, time_limit, tasks, work_dir, collect_from;
  std::vector<std::string> sbatch_options;
  bool no_wait = false;
};

void add_slurm_flags(CLI::App& command, SlurmFlags& flags);
// nullopt without --slurm (or --slurm-collect); bad values are flag errors.
std::optional<SlurmOptions> slurm_options_from(const SlurmFlags& flags);

// True when `batch` was submitted and not waited for (--slurm-no-wait): then says so on standard
// output (the job and `dtsim collect DIR`), and the command has nothing more to print. A batch
// with nothing to simulate submitted nothing (no job): false.
bool said_submitted(const std::optional<SlurmBatch>& batch, const std::optional<SlurmOptions>& options);

// main's arguments, saved for a batch's `dtsim collect`.
void remember_command_line(int argc, char** argv);

// `dtsim collect DIR`: runs the command saved in DIR again, gathering instead of submitting.
// Returns only when that cannot start (execv failed), with its exit code.
int run_collect_command(const std::string& work_dir);

}  // namespace dtsim

#pragma once
// Simulations run as one Slurm job array instead of this machine's child processes
// (simulate_many). dtsim writes each simulation's input (its scenario file and field overrides,
// or what the command's own code rebuilds it from) to a work folder that every node sees, submits
// one array whose tasks each run `dtsim slurm-task DIR K` on their shard (simulation i goes to
// task i % tasks), waits while saying how many simulations are done, submits the tasks that
// failed or ran out of time once more (slurm_array.hpp), and reads the outcomes back: the same
// SimulationOutcome simulate_many gives, or, for a simulation no task delivered, an error naming
// the task and its log. A work folder is for one batch (a folder holding another is refused):
//   batch.json        the items (simulations, or goodput's Monte Carlo shares), the task count,
//                     the job ids, the command that asked
//   task.sh           what each task runs
//   results/I.reply   item I's reply (simulation.hpp: simulate_to_reply), written whole
//   logs/task-K.log   task K's output (task-K.retry.log on its second try)
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "scenario_loader.hpp"
#include "simulation.hpp"

namespace dtsim {

struct SlurmOptions {
  std::filesystem::path work_dir;           // empty: dtsim-slurm-<date>-<pid> in the current folder
  std::string partition;                    // sbatch --partition; empty: the cluster's default
  std::string time_limit;                   // sbatch --time, per task; empty: the partition's
  int tasks = 0;                            // array tasks; 0: one per simulation, at most 1000
  std::vector<std::string> sbatch_options;  // more sbatch options, passed as written
  bool wait = true;                         // false: submit, say how to collect, return
  // The command that asked, to run again by `dtsim collect DIR` (its arguments, argv[0] first).
  std::vector<std::string> command_line;
  // Set by `dtsim collect`: the work folder of a submitted batch, read instead of submitting.
  std::filesystem::path collect_from;
  std::filesystem::path dtsim_executable;   // empty: this process's own executable
};

// One simulation as a task rebuilds it: load_scenario(scenario_file, overrides), resolved; or,
// with a `kind`, a simulation a command derives from that file with its own code, which the task
// is given (SlurmRebuilders, from the CLI): compare-strategies' variant `index` of the scenario,
// validate's run `index` of a published-runs file.
struct SlurmSimulation {
  std::filesystem::path scenario_file;  // absolute
  std::vector<FieldOverride> overrides;
  std::string kind;                     // empty: the scenario file and its overrides
  int index = 0;
  std::filesystem::path topologies_dir;  // a published run's topology files (absolute)
  // What it records (SimulationOptions).
  bool fold_replicas = true;
  bool record_link_usage = false;
  SimulationOptions options() const;
  bool operator==(const SlurmSimulation&) const = default;
};
// A simulation of `scenario_file`, made absolute (a task runs in another folder, perhaps on
// another node), loaded with `overrides`.
SlurmSimulation slurm_simulation(const std::filesystem::path& scenario_file, std::vector<FieldOverride> overrides = {});
using SlurmRebuilder = std::function<ResolvedScenario(const SlurmSimulation&)>;
using SlurmRebuilders = std::map<std::string, SlurmRebuilder, std::less<>>;

struct SlurmBatch {
  std::vector<SimulationOutcome> outcomes;  // empty when not waited for
  std::string job_id;                       // the first submission's
  std::filesystem::path work_dir;
};

// `resolved[i]` is what the caller resolved for `simulations[i]` (outcome_from_reply completes the
// result with it). `on_outcome` gets each outcome once read (in index order, at the end); `log`
// the progress lines. `cancel` set: the job is cancelled (scancel) and the call returns what it has.
// Throws InputError (field "--slurm...") when sbatch refuses the job or is missing.
SlurmBatch simulate_on_slurm(const std::vector<SlurmSimulation>& simulations,
                             const std::vector<ResolvedScenario>& resolved, const SlurmOptions& options,
                             std::ostream& log,
                             const std::function<void(size_t, const SimulationOutcome&)>& on_outcome = {},
                             const std::atomic<bool>* cancel = nullptr);

// `resolved` simulated here (simulate_many, `parallel` processes, recording what `options` say; one
// that fails is tried again alone, with the whole memory budget) or, with `slurm`, as a Slurm job
// array of `inputs` (inputs[i] rebuilds resolved[i]; `batch` gets where it ran). No outcomes when
// submitted without waiting.
std::vector<SimulationOutcome> simulate_here_or_on_slurm(const std::vector<ResolvedScenario>& resolved,
                                                         const std::vector<SlurmSimulation>& inputs, int parallel,
                                                         const SimulationOptions& options,
                                                         const std::optional<SlurmOptions>& slurm,
                                                         std::optional<SlurmBatch>& batch);

// A SimulationBatchRunner for simulations built in code (a plan's finalists): each transformer
// scenario written to DIR/inputs/I.yaml (scenario_to_yaml, which load_scenario reads back to the
// same simulation), then simulate_on_slurm. `record` gets the batch (its job and work folder);
// without waiting the runner returns no outcomes.
SimulationBatchRunner slurm_runner(const SlurmOptions& options, std::ostream& log, SlurmBatch& record);

// The command saved in a work folder and where it was given (`dtsim collect DIR` runs it again
// there with --slurm-collect DIR). Throws InputError naming DIR/batch.json when it is not a work
// folder.
struct SavedCommand {
  std::vector<std::string> arguments;  // argv[0] first
  std::filesystem::path working_dir;
};
SavedCommand saved_command(const std::filesystem::path& work_dir);

}  // namespace dtsim

#include "slurm_flags.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "flag_values.hpp"

namespace dtsim {

namespace {
std::vector<std::string> command_line;
}  // namespace

void add_slurm_flags(CLI::App& command, SlurmFlags& f) {
  command.add_flag("--slurm", f.slurm,
                   "run the simulations (goodput: the Monte Carlo) as one Slurm job array (sbatch) instead of on "
                   "this machine; the work "
                   "folder must be on a file system every node sees, and dtsim at the same path on every node");
  command.add_option("--slurm-partition", f.partition, "with --slurm: sbatch --partition");
  command.add_option("--slurm-time", f.time_limit, "with --slurm: sbatch --time, per task (e.g. 0:30:00)");
  command.add_option("--slurm-tasks", f.tasks,
                     "with --slurm: array tasks (default: one per simulation or Monte Carlo share, at most 1000)");
  command.add_option("--slurm-option", f.sbatch_options,
                     "with --slurm: one more sbatch option, as written (e.g. --slurm-option=--account=ml); "
                     "repeatable");
  command.add_option("--slurm-dir", f.work_dir,
                     "with --slurm: the work folder (default: dtsim-slurm-DATE-PID in the current folder)");
  command.add_flag("--slurm-no-wait", f.no_wait,
                   "with --slurm: submit, print the job and the work folder, return; `dtsim collect DIR` gathers");
  command.add_option("--slurm-collect", f.collect_from, "gather the batch of this work folder (dtsim collect)")
      ->group("");
}

std::optional<SlurmOptions> slurm_options_from(const SlurmFlags& f) {
  const bool any_other = !f.partition.empty() || !f.time_limit.empty() || !f.tasks.empty() || !f.work_dir.empty() ||
                         !f.sbatch_options.empty() || f.no_wait;
  if (!f.slurm && f.collect_from.empty()) {
    if (any_other) flag_error("--slurm", "--slurm with the --slurm-... flags", "--slurm-... flags without --slurm");
    return std::nullopt;
  }
  SlurmOptions o;
  o.partition = f.partition;
  o.time_limit = f.time_limit;
  if (!f.tasks.empty()) o.tasks = int(integer_flag("--slurm-tasks", f.tasks, 1, 1000));
  o.sbatch_options = f.sbatch_options;
  o.work_dir = f.work_dir;
  o.collect_from = f.collect_from;
  o.wait = !f.no_wait || !o.collect_from.empty();  // collecting waits for what the submission did not
  o.command_line = command_line;
  return o;
}

bool said_submitted(const std::optional<SlurmBatch>& batch, const std::optional<SlurmOptions>& options) {
  if (!batch || batch->job_id.empty() || !options || options->wait) return false;
  std::cout << fmt::format("submitted Slurm job {}; `dtsim collect {}` gathers the results\n", batch->job_id,
                           batch->work_dir.string());
  return true;
}

void remember_command_line(int argc, char** argv) { command_line.assign(argv, argv + argc); }

int run_collect_command(const std::string& work_dir) {
  const SavedCommand saved = saved_command(work_dir);
  std::vector<std::string> args = saved.arguments;
  if (args.empty()) flag_error("collect", "the work folder of a dtsim --slurm batch", work_dir);
  args.push_back("--slurm-collect");
  args.push_back(std::filesystem::absolute(work_dir).string());
  // Relative paths in the command (scenario, outputs) name what they named where it was given.
  if (chdir(saved.working_dir.c_str()) != 0)
    flag_error("collect", "the folder the batch was submitted from", saved.working_dir.string());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execv("/proc/self/exe", argv.data());
  std::cerr << "dtsim: error: could not run the saved command again: " << std::strerror(errno) << "\n";
  return 1;
}

}  // namespace dtsim

#pragma once
// The Slurm side of a batch (simulations: slurm_batch.hpp; Monte Carlo shares:
// slurm_monte_carlo.hpp): a new work folder, one job array over its items (item i to task
// i % tasks, each running `dtsim slurm-task DIR K`), waiting while saying how many are done, one
// more try for the tasks that left items undone, and cancelling on Ctrl-C.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "slurm_batch.hpp"
#include "slurm_work_dir.hpp"

namespace dtsim {

struct SlurmArray {
  SlurmManifest manifest;  // its items, tasks and job ids
  std::filesystem::path work_dir;
  enum class State { gathered, submitted, cancelled } state = State::gathered;
  // Item i's reply as its task wrote it; nothing when no task delivered it.
  std::optional<std::vector<uint8_t>> reply(size_t item) const;
  // Why item i has no reply: its task, the jobs that tried it, the task's log and its last line.
  std::string missing_reply_error(size_t item) const;
};

// `items`: a manifest holding the items alone. Submits them as one job array, or with
// options.collect_from finds the batch submitted before (it must hold the same items); waits
// unless options.wait is false (state submitted); `cancel` set: scancel, state cancelled.
// Throws InputError (field "--slurm...") when sbatch refuses the job or is missing, or the work
// folder is another batch's.
SlurmArray run_slurm_array(SlurmManifest items, const SlurmOptions& options, std::ostream& log,
                           const std::atomic<bool>* cancel = nullptr);

// From a signal handler: scancel every job this process submitted and has not gathered yet
// (fork and execv of scancel's path, found at submission; no wait).
void cancel_waited_slurm_jobs() noexcept;

// Used by slurm_runner, which writes inputs to the work folder before the batch.
std::filesystem::path default_work_dir();  // dtsim-slurm-DATE-PID in the current folder
void refuse_used_work_dir(const std::filesystem::path& dir);
void write_text(const std::filesystem::path& file, const std::string& text);  // InputError naming --slurm-dir

}  // namespace dtsim

#pragma once
// Monte Carlo runs of goodput as one Slurm job array (slurm_array.hpp): each job split into
// shares of kRunsPerShare runs (more, for a job of over 100 shares of that), a task computing its
// shares on one thread (monte_carlo_runs) and writing their runs' outcomes, this side summing each
// job's runs in order (summarise_runs). Run i of a job draws the same failures wherever it runs,
// so the figures are the local ones, bit for bit.
#include <cstdint>
#include <ostream>
#include <vector>

#include "goodput_monte_carlo.hpp"
#include "slurm_batch.hpp"
#include "slurm_work_dir.hpp"

namespace dtsim {

constexpr int kRunsPerShare = 1000;

struct MonteCarloOnSlurm {
  // One per job, in order; none when submitted without waiting. A job some of whose runs no task
  // delivered has the others' figures and says which are missing (MonteCarloResult::missing).
  std::vector<MonteCarloResult> results;
  SlurmBatch batch;  // its job and work folder
};
MonteCarloOnSlurm monte_carlo_on_slurm(const std::vector<MonteCarloJob>& jobs, const SlurmOptions& options,
                                       std::ostream& log);

// What a task writes for one share: its runs' outcomes, computed on one thread.
std::vector<uint8_t> monte_carlo_share_reply(const MonteCarloJob& job, const MonteCarloShare& share);

}  // namespace dtsim

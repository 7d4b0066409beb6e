#pragma once
// One task of a Slurm batch (slurm_batch.hpp), as `dtsim slurm-task DIR K` runs it on a node:
// the simulations of shard K (i % tasks == K) that have no reply yet, each loaded from its
// scenario file and overrides, simulated in a child process as simulate does, and its reply
// written whole to DIR/results/I.reply. Returns 0, or 1 when the work folder cannot be read.
#include <filesystem>
#include <ostream>

namespace dtsim {

int run_slurm_task(const std::filesystem::path& work_dir, int task, std::ostream& log);

}  // namespace dtsim

#pragma once
// One task of a Slurm batch (slurm_batch.hpp), as `dtsim slurm-task DIR K` runs it on a node:
// the items of shard K (i % tasks == K) that have no reply yet: a simulation loaded from its
// scenario file and overrides (or rebuilt by `rebuilders`' entry for its kind) and simulated in a
// child process as simulate does, or a Monte Carlo share run; each reply written whole to
// DIR/results/I.reply. A kind
// without a rebuilder is that simulation's error. Returns 0, or 1 when the work folder cannot be
// read or a reply written.
#include <filesystem>
#include <ostream>

#include "slurm_batch.hpp"

namespace dtsim {

int run_slurm_task(const std::filesystem::path& work_dir, int task, std::ostream& log,
                   const SlurmRebuilders& rebuilders = {});

}  // namespace dtsim

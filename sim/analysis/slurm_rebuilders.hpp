#pragma once
// How a Slurm task (`dtsim slurm-task`, slurm_task.hpp) rebuilds the simulations the analysis
// commands derive from a file with their own code: compare-strategies' variants of a scenario
// (kStrategyVariantKind) and validate's published runs (kPublishedRunKind). The task then
// simulates exactly what the submitting command would have simulated here.
#include "slurm_batch.hpp"

namespace dtsim {

SlurmRebuilders analysis_slurm_rebuilders();

}  // namespace dtsim

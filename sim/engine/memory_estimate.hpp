#pragma once
// What a simulation will hold in memory, estimated before SimGrid builds anything, so that work
// beyond the memory budget is refused up front with the figure (the budget's RLIMIT_DATA still
// stops an estimate that falls short).
#include <string>

#include "program.hpp"

namespace dtsim {

// Bytes: a base, the platform per GPU (hosts, links, routes), each simulated rank (its actor),
// each task of the simulated programs.
double estimated_simulation_bytes(long platform_gpus, long simulated_ranks, long tasks);

// In a simulation child: throws the memory budget's InputError, with the estimate, when the
// workload on `platform_gpus` GPUs (of the scenario or trace `name`) is estimated above this
// process's memory limit.
void refuse_beyond_memory_limit(const Workload& workload, long platform_gpus, const std::string& name);

}  // namespace dtsim

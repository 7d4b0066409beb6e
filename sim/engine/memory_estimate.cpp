#include "memory_estimate.hpp"

#include <fmt/format.h>

#include "memory_budget.hpp"

namespace dtsim {

// Least squares over ten runs on the 2-core development machine (2026-11-26; peak RSS of
// `/usr/bin/time build/cli/dtsim run ...`, folded and --no-fold: the default scenario, bench/scale's
// 3,072 to 65,536-GPU cases, the 64- and 256-GPU stock scenarios): 42 MB + 41.1 kB per platform GPU
// + 7.0 kB per simulated rank + 76 B per task. Within 5% from 1,024 unfolded GPUs up; the 12,288-GPU
// folded run took 18% more than estimated, small runs less (the base dominates).
double estimated_simulation_bytes(long platform_gpus, long simulated_ranks, long tasks) {
  return 42.2e6 + 41.1e3 * double(platform_gpus) + 7.0e3 * double(simulated_ranks) + 76.4 * double(tasks);
}

void refuse_beyond_memory_limit(const Workload& workload, long platform_gpus, const std::string& name) {
  long simulated = 0, tasks = 0;
  for (size_t r = 0; r < workload.ranks.size(); ++r) {
    tasks += long(workload.ranks[r].tasks.size());
    simulated += workload.representative.empty() || workload.representative[r] == int(r);
  }
  const double limit = process_memory_limit_bytes(), estimate = estimated_simulation_bytes(platform_gpus, simulated, tasks);
  if (limit > 0 && estimate > limit)
    throw memory_budget_exceeded(
        fmt::format("the simulation of '{}'", name), limit,
        fmt::format("about {:.2f} GB: {} GPUs on the platform, {} simulated, {} tasks", estimate / 1e9, platform_gpus,
                    simulated, tasks));
}

}  // namespace dtsim

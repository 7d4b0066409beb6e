#include "slurm_rebuilders.hpp"

#include "scenario_loader.hpp"
#include "strategy_comparison.hpp"
#include "validation.hpp"

namespace dtsim {

SlurmRebuilders analysis_slurm_rebuilders() {
  SlurmRebuilders rebuilders;
  rebuilders.emplace(kStrategyVariantKind, [](const SlurmSimulation& s) {
    return resolved_strategy_variant(resolve_scenario(load_scenario(s.scenario_file, s.overrides)), size_t(s.index));
  });
  rebuilders.emplace(kPublishedRunKind, [](const SlurmSimulation& s) {
    return resolved_published_run(s.scenario_file, s.topologies_dir, size_t(s.index));
  });
  return rebuilders;
}

}  // namespace dtsim

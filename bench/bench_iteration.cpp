// Times the simulation of one iteration of the GPT-3 175B scenario (TP8, PP16, global batch
// 1536, micro-batch 1) at 64, 1024 and 4096 GPUs, scaling DP (and PP for 64 GPUs) with the GPU
// count. Prints wall seconds and simulated activities (events) per second.
#include <fmt/format.h>

#include <filesystem>

#include "scenario_loader.hpp"
#include "simulation.hpp"

using namespace dtsim;

int main(int argc, char** argv) {
  const std::filesystem::path file = std::filesystem::path(DTSIM_SOURCE_DIR) / "scenarios" / "gpt3-175b-1024-a100.yaml";
  const Scenario base = load_scenario(file);
  struct Size { int gpus, pp, dp; };
  std::vector<Size> sizes = {{64, 8, 1}, {1024, 16, 8}, {4096, 16, 32}};
  if (argc > 1) sizes.resize(std::min<size_t>(sizes.size(), std::stoul(argv[1])));
  fmt::print("{:>6} {:>4} {:>4} {:>4} {:>12} {:>10} {:>10} {:>12} {:>14}\n", "gpus", "tp", "pp", "dp", "iteration_s",
             "build_s", "wall_s", "activities", "activities/s");
  for (const Size& size : sizes) {
    Scenario s = base;
    s.parallelism.pp = size.pp;
    s.parallelism.dp = size.dp;
    s.cluster.nodes = size.gpus / s.cluster.topology.node.gpus;
    check_scenario_consistency(s);
    const SimulationResult r = simulate(s);
    fmt::print("{:>6} {:>4} {:>4} {:>4} {:>12.3f} {:>10.2f} {:>10.2f} {:>12} {:>14.0f}\n", size.gpus,
               s.parallelism.tp, s.parallelism.pp, s.parallelism.dp, r.engine.iteration_s, r.platform_build_wall_s,
               r.simulation_wall_s, r.engine.activities, r.engine.activities / r.simulation_wall_s);
  }
  return 0;
}

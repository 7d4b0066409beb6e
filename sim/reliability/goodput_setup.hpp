#pragma once
// From a scenario, its reliability config and its simulated iteration time to the numbers the
// goodput model works with (goodput_model.hpp, goodput_monte_carlo.hpp): how much work, which
// components can fail and how many of each, what a checkpoint and a restart cost, and how the
// job recovers. Keeps what each figure came from, for the report.
#include <string>
#include <vector>

#include "goodput_monte_carlo.hpp"
#include "reliability_config.hpp"
#include "scenario.hpp"

namespace dtsim {

struct GoodputSetup {
  GoodputProblem problem;  // work, δ, R, failure classes
  RecoveryModel recovery;  // strategy from the config; the CLI may compare all three

  double iteration_s = 0;
  double iterations = 0;
  std::string unit;                 // what the training length counts: "token", "image", ...
  double units_per_iteration = 0;   // Scenario::throughput_units_per_iteration
  std::string training_source;  // where the iteration count came from

  long nodes = 0, gpus = 0, nics = 0, switches = 0;
  double parameters = 0;
  double checkpoint_bytes = 0;
  std::string checkpoint_size_source;
  double write_Bps = 0, read_Bps = 0;  // storage, effective: min(nodes x per node, storage)
  double write_s = 0;                  // the whole checkpoint to storage
  CheckpointMode mode = CheckpointMode::blocking;
  double host_copy_Bps = 0;   // async, in_memory: per GPU
  double host_copy_s = 0;     // async, in_memory: each GPU's shard (size / GPUs) to host memory
  double peer_Bps = 0;        // in_memory: a node's NICs
  double peer_copy_s = 0;     // in_memory: a node's shard (size / nodes) to or from a peer node
  double reload_s = 0;        // from storage, or from the peer (in_memory)
  double restart_s = 0;

  double interval_s = 0;        // used by the Monte Carlo
  bool interval_auto = false;   // the closed-form optimum rounded to whole iterations
};

// Bytes of a checkpoint per parameter: weights in the training precision (2 B for bf16, fp16
// and fp8, whose weights stay bf16) + fp32 master weights (4 B) + Adam's two fp32 moments (8 B)
// = 14 B; fp32 training keeps no separate master copy: 4 + 8 = 12 B. Gradients are not saved.
double checkpoint_bytes_per_parameter(Precision p);
// A layer-graph model keeps fp32 weights (4 B, the master copy in mixed precision) and its
// optimizer's fp32 state: 4 B (SGD), 8 B (with momentum), 12 B (Adam).
double checkpoint_bytes_per_parameter(LayerModelOptimizer o);

// Switches of the scenario's fabric (leaves, spines, aggregation, core, rail leaves, dragonfly
// routers; none for a torus) in the topology graph of `nodes` nodes (topology_graph.hpp).
long fabric_switch_count(const TopologySpec& topology, long nodes);

// The six failure classes: GPUs, their HBM and NICs, fabric switches and hosts fail per unit;
// software per node. GPU, HBM, NIC and host failures take the node out; switch and software
// failures restart the job on the same nodes (the fabric routes around a switch or cable).
std::vector<FailureClass> failure_classes(const ComponentMtbf& m, long gpus, long nics, long switches, long nodes);

// Data-parallel replicas that lose a GPU when one node fails: ranks go tp fastest, then cp, then
// dp (Megatron's order), so a node of g GPUs holds g / (tp x cp) replicas' GPUs when tp x cp < g
// (at most dp), else part of one replica.
int replicas_per_node_failure(const Scenario& s);

// The stall δ and the persist time P of each mode (goodput_model.hpp): blocking δ = write_s,
// P = 0; async δ = host_copy_s, P = write_s (the background write at storage speed); in_memory
// δ = host_copy_s, P = peer_copy_s. Reload: from storage, in_memory from the peer (peer_copy_s).
// Throws InputError when the scenario's fabric cannot hold its nodes (topology_graph.hpp).
GoodputSetup make_goodput_setup(const Scenario& s, const ReliabilityConfig& config, double iteration_s);

// The Monte Carlo of the setup's problem at its interval under `strategy` (the setup's recovery
// model otherwise).
MonteCarloJob monte_carlo_job(const GoodputSetup& g, RecoveryStrategy strategy, int runs, uint64_t seed);

// That Monte Carlo under each strategy, with the same failures.
struct StrategyMonteCarlo {
  RecoveryStrategy strategy;
  MonteCarloResult mc;
};
std::vector<StrategyMonteCarlo> monte_carlo_by_strategy(const GoodputSetup& g,
                                                        const std::vector<RecoveryStrategy>& strategies, int runs,
                                                        uint64_t seed, int threads = 0);

}  // namespace dtsim

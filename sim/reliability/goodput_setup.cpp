#include "goodput_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "device_spec.hpp"
#include "input_error.hpp"
#include "layer_model_costs.hpp"
#include "topology_graph.hpp"

namespace dtsim {

double checkpoint_bytes_per_parameter(Precision p) { return p == Precision::fp32 ? 12 : 14; }

double checkpoint_bytes_per_parameter(LayerModelOptimizer o) {
  return kLayerModelGradientBytes + optimizer_state_bytes_per_parameter(o);  // fp32 weights, as gradients
}

long fabric_switch_count(const TopologySpec& topology, long nodes) {
  const TopologyGraph g = build_topology_graph(topology, nodes);
  long switches = 0;
  for (auto [v, end] = boost::vertices(g.graph); v != end; ++v)
    if (is_fabric_switch(g.graph[*v].kind)) ++switches;
  return switches;
}

std::vector<FailureClass> failure_classes(const ComponentMtbf& m, long gpus, long nics, long switches, long nodes) {
  return {
      {"gpu", double(gpus), m.gpu_hours, true},
      {"hbm", double(gpus), m.hbm_hours, true},
      {"nic", double(nics), m.nic_hours, true},
      {"switch", double(switches), m.switch_hours, false},
      {"host", double(nodes), m.host_hours, true},
      {"software", double(nodes), m.software_hours, false},
  };
}

int replicas_per_node_failure(const Scenario& s) {
  const int model_parallel_per_node = s.parallelism.tp * s.parallelism.cp;
  const int gpus_per_node = s.cluster.topology.node.gpus;
  return std::clamp(gpus_per_node / std::max(1, model_parallel_per_node), 1, std::max(1, s.parallelism.dp));
}

namespace {

void set_training_length(GoodputSetup& g, const TrainingLength& t) {
  const auto in_units = [&](double amount, const std::string& why) {
    g.iterations = std::ceil(amount / g.units_per_iteration);
    g.training_source =
        fmt::format("{}{:.4g} {}s / {:.0f} {}s per iteration", why, amount, g.unit, g.units_per_iteration, g.unit);
  };
  if (t.iterations) {
    g.iterations = std::ceil(*t.iterations);
    g.training_source = "given";
  } else if (t.tokens || t.samples) {
    in_units(t.tokens ? *t.tokens : *t.samples, "");
  } else if (t.days) {
    g.iterations = std::max(1.0, std::floor(*t.days * 86400 / g.iteration_s));
    g.training_source = fmt::format("given as {:g} days", *t.days);
  } else if (g.unit == "token") {
    in_units(20 * g.parameters, "20 tokens per parameter (Chinchilla; default): ");
  } else {
    in_units(usual_training_amount(g.unit), "a usual run (default): ");
  }
}

}  // namespace

GoodputSetup make_goodput_setup(const Scenario& s, const ReliabilityConfig& config, double iteration_s) {
  GoodputSetup g;
  g.iteration_s = iteration_s;
  g.nodes = s.cluster.nodes;
  g.gpus = long(s.cluster.nodes) * s.cluster.topology.node.gpus;
  g.nics = long(s.cluster.nodes) * s.cluster.topology.node.nics;
  g.switches = fabric_switch_count(s.cluster.topology, s.cluster.nodes);
  g.parameters = s.layer_model ? s.layer_model->graph.parameters() : double(parameter_count(s.model));
  g.unit = s.throughput_unit();
  g.units_per_iteration = s.throughput_units_per_iteration();
  set_training_length(g, config.training);

  const CheckpointPolicy& c = config.checkpoint;
  if (c.size_bytes) {
    g.checkpoint_bytes = *c.size_bytes;
    g.checkpoint_size_source = "reliability.checkpoint.size_bytes";
  } else {
    const double per_parameter = s.layer_model ? checkpoint_bytes_per_parameter(s.layer_model->optimizer)
                                               : checkpoint_bytes_per_parameter(s.training.precision);
    g.checkpoint_bytes = per_parameter * g.parameters;
    g.checkpoint_size_source = fmt::format("{:g} B x {:.4g} parameters", per_parameter, g.parameters);
  }
  g.write_Bps = std::min(double(g.nodes) * c.write_GBps_per_node, c.storage_write_GBps) * 1e9;
  g.read_Bps = std::min(double(g.nodes) * c.read_GBps_per_node, c.storage_read_GBps) * 1e9;
  g.write_s = g.checkpoint_bytes / g.write_Bps;
  g.mode = c.mode;
  if (c.mode == CheckpointMode::in_memory && (g.nodes < 2 || s.cluster.topology.node.nics < 1))
    throw InputError({s.source_file.string(), 0, "reliability.checkpoint.mode",
                      "blocking or async for a job on one node or without NICs (in_memory copies to another node)",
                      fmt::format("in_memory on {} node(s) of {} NIC(s)", g.nodes, s.cluster.topology.node.nics)});
  const DeviceSpec* device = find_device(s.cluster.gpu);
  g.host_copy_Bps = c.host_copy_GBps_per_gpu ? *c.host_copy_GBps_per_gpu * 1e9 : device->host_copy_Bps();
  g.host_copy_s = g.checkpoint_bytes / double(g.gpus) / g.host_copy_Bps;
  g.peer_Bps = s.cluster.topology.node.nic_aggregate_bw_Bps();
  g.peer_copy_s = g.checkpoint_bytes / double(g.nodes) / g.peer_Bps;
  g.reload_s = c.mode == CheckpointMode::in_memory ? g.peer_copy_s : g.checkpoint_bytes / g.read_Bps;
  g.restart_s = c.restart_s;

  g.problem.work_s = g.iterations * iteration_s;
  switch (c.mode) {
    case CheckpointMode::blocking: g.problem.checkpoint_stall_s = g.write_s; break;
    case CheckpointMode::async:
      g.problem.checkpoint_stall_s = g.host_copy_s;
      g.problem.checkpoint_persist_s = g.write_s;
      break;
    case CheckpointMode::in_memory:
      g.problem.checkpoint_stall_s = g.host_copy_s;
      g.problem.checkpoint_persist_s = g.peer_copy_s;
      break;
  }
  g.problem.recovery_s = g.restart_s + g.reload_s;
  g.problem.failures = failure_classes(config.mtbf, g.gpus, g.nics, g.switches, g.nodes);

  const RecoveryPolicy& r = config.recovery;
  g.recovery.strategy = r.strategy;
  g.recovery.repair_s = r.repair_hours * 3600;
  g.recovery.spares = r.spares ? *r.spares : std::max(1, int(std::ceil(0.02 * double(g.nodes))));
  g.recovery.swap_s = r.swap_s;
  g.recovery.dp = s.parallelism.dp;
  g.recovery.replicas_per_node_failure = replicas_per_node_failure(s);

  if (c.interval_s) {
    g.interval_s = *c.interval_s;
  } else {
    // Checkpoints happen between iterations: the optimum rounded to whole iterations (at least
    // one); no failures at all: one checkpoint, at the end.
    g.interval_auto = true;
    const double best = optimal_interval_s(g.problem);
    g.interval_s = std::isfinite(best) ? std::max(1.0, std::round(best / iteration_s)) * iteration_s
                                       : std::max(g.problem.work_s, iteration_s);
  }
  return g;
}

MonteCarloJob monte_carlo_job(const GoodputSetup& g, RecoveryStrategy strategy, int runs, uint64_t seed) {
  MonteCarloJob job{g.problem, g.recovery, g.interval_s, runs, seed};
  job.recovery.strategy = strategy;
  return job;
}

std::vector<StrategyMonteCarlo> monte_carlo_by_strategy(const GoodputSetup& g,
                                                        const std::vector<RecoveryStrategy>& strategies, int runs,
                                                        uint64_t seed, int threads) {
  std::vector<StrategyMonteCarlo> out;
  for (RecoveryStrategy strategy : strategies)
    out.push_back({strategy, monte_carlo(monte_carlo_job(g, strategy, runs, seed), threads)});
  return out;
}

}  // namespace dtsim

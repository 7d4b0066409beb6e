#include "strategy_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "input_error.hpp"
#include "layer_model_costs.hpp"
#include "parameter_server_workload.hpp"
#include "report.hpp"
#include "resolved_scenario.hpp"
#include "scenario_consistency.hpp"
#include "simulation.hpp"

namespace dtsim {

namespace {

std::string describe(const DataParallelConfig& dp) {
  std::string text = to_string(dp.strategy);
  text += " ";
  text += dp.uses_servers() ? to_string(dp.mode) : to_string(dp.library);
  if (dp.compression != GradientCompression::none) text += fmt::format(" + {}", to_string(dp.compression));
  return text;
}

DataParallelConfig compressed(GradientCompression c) {
  DataParallelConfig dp;
  dp.compression = c;
  return dp;
}

// Below this share of the iteration, communication is hidden: the compute sets the pace.
constexpr double kExposedShareOfNote = 0.05;

std::string link_words(const LinkUsage& l) {
  switch (l.role) {
    case LinkRole::nic: return fmt::format("node {}'s NIC {}", l.node, l.nic);
    case LinkRole::nvlink: return fmt::format("GPU {}'s NVLink", l.gpu);
    case LinkRole::pcie: return fmt::format("GPU {}'s PCIe link", l.gpu);
    case LinkRole::fabric: break;
  }
  return "fabric link " + l.name;
}

// The link whose busier direction carried the most for its bandwidth, over `span_s` of simulated
// time; of links as busy as each other (a NIC and the switch port behind it), a named one.
std::string busiest_link(const std::vector<LinkUsage>& links, double span_s) {
  const LinkUsage* busiest = nullptr;
  auto busier = [&](const LinkUsage& l) {
    const double a = l.utilisation(span_s), b = busiest->utilisation(span_s);
    if (std::abs(a - b) <= 1e-9 * std::max(a, b))
      return busiest->role == LinkRole::fabric && l.role != LinkRole::fabric;
    return a > b;
  };
  for (const LinkUsage& l : links)
    if (!busiest || busier(l)) busiest = &l;
  if (!busiest || busiest->utilisation(span_s) <= 0) return "no link carried data";
  return fmt::format("busiest link {} at {:.0f}%", link_words(*busiest),
                     100 * std::min(1.0, busiest->utilisation(span_s)));
}

// The server receiving the most and the largest tensor it holds (parameter servers).
std::string busiest_server(const Scenario& s, const ServerSummary& servers) {
  const LayerGraph& g = s.layer_model->graph;
  const std::vector<int> server_of = tensor_servers(s);
  const Layer* largest = nullptr;
  for (size_t l = 0; l < g.layers.size(); ++l)
    if (server_of[l] == servers.busiest_server && (!largest || g.layers[l].parameters > largest->parameters))
      largest = &g.layers[l];
  std::string text = fmt::format("server {} receives {:.3f} GB per iteration", servers.busiest_server,
                                 servers.busiest_received_bytes / 1e9);
  if (largest)
    text += fmt::format(" (it holds {}, {:.0f} MB)", largest->name,
                        largest->parameters * kLayerModelGradientBytes / 1e6);
  return text;
}

StrategyOutcome outcome_of(const StrategyVariant& v, const ResolvedScenario& r, const SimulationOutcome& o,
                           double single_gpu_samples_per_s, double amount, const CostInputs& inputs) {
  StrategyOutcome out;
  out.strategy = v.name;
  if (!o.result) {
    out.error = o.error;
    return out;
  }
  const Report rep = make_report(r, *o.result);
  out.cost = training_cost(rep, amount, inputs);
  out.iteration_s = rep.iteration_s;
  out.samples_per_s = rep.samples_per_s;
  out.scaling_efficiency = rep.samples_per_s / (rep.gpus * single_gpu_samples_per_s);
  out.compute_s = rep.mean_breakdown.compute_s;
  out.exposed_communication_s = rep.mean_breakdown.communication_s;
  // Means over GPUs and iterations can leave a rounding remainder below zero.
  const Breakdown& b = rep.mean_breakdown;
  out.other_s = std::max(0.0, b.other_s + b.bubble_s + b.input_wait_s);
  const double span_s = rep.iteration_s * std::max(1, o.result->engine.iterations);
  std::vector<std::string> parts;
  if (rep.input && b.input_wait_s > 0)
    parts.push_back(fmt::format("input pipeline {}-bound: GPUs wait {:.0f}% of the step", rep.input->rates.limit(),
                                100 * b.input_wait_s / rep.iteration_s));
  else if (out.exposed_communication_s < kExposedShareOfNote * out.iteration_s)
    parts.push_back("compute-bound: communication hidden");
  if (rep.servers) parts.push_back(busiest_server(r.scenario, *rep.servers));
  parts.push_back(busiest_link(o.result->links, span_s));
  for (const std::string& p : parts) out.bottleneck += (out.bottleneck.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

std::vector<StrategyVariant> strategy_variants(const Scenario& s) {
  const DataParallelConfig& own = s.data_parallel;
  DataParallelConfig horovod;
  horovod.library = AllreduceLibrary::horovod;
  horovod.bucket_cap_mb = horovod.first_bucket_mb = kHorovodFusionThresholdMiB;
  horovod.cycle_time_ms = kHorovodCycleTimeMs;
  DataParallelConfig mpi = horovod;  // Horovod's fusion, reduced on the CPUs
  mpi.library = AllreduceLibrary::mpi;
  // Parameter servers as the scenario places them, or one per node, colocated.
  DataParallelConfig servers = own.uses_servers() ? own : DataParallelConfig{};
  servers.strategy = DataParallelStrategy::parameter_server;
  servers.compression = GradientCompression::none;
  servers.mode = UpdateMode::sync;
  servers.staleness_bound = servers.backup_workers = 0;
  DataParallelConfig async = servers, hierarchical = servers;
  async.mode = UpdateMode::async;
  hierarchical.strategy = DataParallelStrategy::hierarchical;
  const DataParallelConfig others[] = {DataParallelConfig{},
                                       horovod,
                                       mpi,
                                       compressed(GradientCompression::fp16),
                                       compressed(GradientCompression::powersgd),
                                       compressed(GradientCompression::topk),
                                       servers,
                                       async,
                                       hierarchical};
  std::vector<StrategyVariant> variants = {{describe(own) + " (the scenario's)", own}};
  for (const DataParallelConfig& dp : others)
    if (describe(dp) != describe(own)) variants.push_back({describe(dp), dp});
  return variants;
}

Scenario with_strategy(const Scenario& s, const StrategyVariant& v, double single_gpu_samples_per_s) {
  Scenario variant = s;
  variant.data_parallel = v.data_parallel;
  if (s.reference) variant.reference = ThroughputReference{1, single_gpu_samples_per_s};
  return variant;
}

namespace {

double single_gpu_samples_per_s(const ResolvedScenario& base) {
  const Scenario& s = base.scenario;
  const double samples_per_gpu = double(s.micro_batches_per_replica()) * s.training.micro_batch;
  return samples_per_gpu / single_gpu_step_s(s, base.compute);
}

}  // namespace

ResolvedScenario resolved_strategy_variant(const ResolvedScenario& base, size_t index) {
  const std::vector<StrategyVariant> variants = strategy_variants(base.scenario);
  if (index >= variants.size())
    throw std::out_of_range(fmt::format("strategy variant {} of {}", index, variants.size()));
  const Scenario variant = with_strategy(base.scenario, variants[index], single_gpu_samples_per_s(base));
  check_scenario_consistency(variant);
  return resolve_variant(base, variant);
}

StrategyComparison compare_strategies(const Scenario& s, int parallel, double samples, const CostInputs& inputs,
                                      const std::optional<SlurmOptions>& slurm) {
  if (!s.layer_model)
    throw InputError({s.source_file.string(), 0, "model",
                      "a layer-graph model (zoo or layers_file): compare-strategies compares how data-parallel "
                      "replicas synchronise",
                      "a transformer model"});
  const ResolvedScenario base = resolve_scenario(s);
  StrategyComparison c;
  c.scenario = s.name;
  c.model = s.layer_model->graph.name;
  c.gpu = s.cluster.gpu;
  c.sample_unit = s.layer_model->graph.sample_unit;
  c.gpus = s.gpu_count();
  c.nodes = s.cluster.nodes;
  c.single_gpu_samples_per_s = single_gpu_samples_per_s(base);
  c.single_gpu_measured = s.reference.has_value();
  c.amount_is_default = samples <= 0;
  c.amount = c.amount_is_default ? usual_training_amount(c.sample_unit) : samples;
  c.inputs = inputs;

  // A variant the scenario's checks refuse (parameter servers for sharded embedding tables) is a
  // row that says why, not a simulation.
  const std::vector<StrategyVariant> variants = strategy_variants(s);
  std::vector<ResolvedScenario> resolved;
  std::vector<SlurmSimulation> slurm_inputs;  // resolved[i] as a Slurm task rebuilds it
  std::vector<std::string> refusals(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    try {
      resolved.push_back(resolved_strategy_variant(base, i));
      SlurmSimulation input = slurm_simulation(s.source_file);
      input.kind = kStrategyVariantKind;
      input.index = int(i);
      input.record_link_usage = true;
      slurm_inputs.push_back(input);
    } catch (const InputError& e) {
      refusals[i] = fmt::format("{}: expected {}", e.info().field, e.info().expected);
    }
  }
  SimulationOptions options;
  options.record_link_usage = true;
  const std::vector<SimulationOutcome> outcomes =
      simulate_here_or_on_slurm(resolved, slurm_inputs, parallel, options, slurm, c.slurm);
  if (outcomes.size() != resolved.size()) return c;  // submitted to Slurm, not waited for: dtsim collect
  for (size_t i = 0, simulated = 0; i < variants.size(); ++i) {
    if (!refusals[i].empty()) {
      StrategyOutcome refused;
      refused.strategy = variants[i].name;
      refused.error = refusals[i];
      c.rows.push_back(refused);
      continue;
    }
    c.rows.push_back(outcome_of(variants[i], resolved[simulated], outcomes[simulated], c.single_gpu_samples_per_s,
                                c.amount, inputs));
    ++simulated;
  }
  return c;
}

std::string format_strategy_comparison(const StrategyComparison& c) {
  std::string out = fmt::format("compare-strategies  {}: {} on {} x {} ({} nodes)\n", c.scenario, c.model, c.gpus,
                                c.gpu, c.nodes);
  out += fmt::format("one GPU alone       {:.1f} {}s/s ({})\n", c.single_gpu_samples_per_s, c.sample_unit,
                     c.single_gpu_measured ? "the scenario's reference" : "the device model, no communication");
  out += fmt::format("to train on        {} {}s{}, at ${:.2f} per GPU-hour, PUE {:g}\n", with_thousands(c.amount),
                     c.sample_unit, c.amount_is_default ? " (a usual run; --samples)" : "", c.inputs.usd_per_gpu_hour,
                     c.inputs.pue);
  out += fmt::format("\n{:<40} {:>11} {:>12} {:>8} {:>9} {:>9} {:>9} {:>8} {:>11} {:>12} {:>7}\n", "strategy",
                     "iteration", c.sample_unit + "s/s", "scaling", "compute", "exposed", "other", "days", "GPU-hours",
                     "cost $", "MWh");
  for (const StrategyOutcome& r : c.rows) {
    if (!r.error.empty()) {
      out += fmt::format("{:<40} not simulated: {}\n", r.strategy, r.error);
      continue;
    }
    out += fmt::format("{:<40} {:>9.4f} s {:>12.1f} {:>7.1f}% {:>9.4f} {:>9.4f} {:>9.4f} {:>8.2f} {:>11} {:>12} {:>7.1f}\n",
                       r.strategy, r.iteration_s, r.samples_per_s, 100 * r.scaling_efficiency, r.compute_s,
                       r.exposed_communication_s, r.other_s, r.cost.time_s / 86400, with_thousands(r.cost.gpu_hours),
                       with_thousands(r.cost.cost_usd), r.cost.energy_mwh);
  }
  out += "(compute, exposed communication and other: seconds per iteration, mean over GPUs; scaling: against "
         "the GPUs training alone; days, GPU-hours, cost and energy: the training above at each throughput)\n\n"
         "what limits each\n";
  for (const StrategyOutcome& r : c.rows)
    if (r.error.empty()) out += fmt::format("  {:<38} {}\n", r.strategy, r.bottleneck);
  return out;
}

nlohmann::json strategy_comparison_to_json(const StrategyComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const StrategyOutcome& r : c.rows) {
    if (!r.error.empty()) {
      rows.push_back({{"strategy", r.strategy}, {"error", r.error}});
      continue;
    }
    rows.push_back({{"strategy", r.strategy},
                    {"iteration_time_s", r.iteration_s},
                    {"samples_per_s", r.samples_per_s},
                    {"scaling_efficiency", r.scaling_efficiency},
                    {"compute_s", r.compute_s},
                    {"exposed_communication_s", r.exposed_communication_s},
                    {"other_s", r.other_s},
                    {"bottleneck", r.bottleneck},
                    {"training_cost", training_cost_to_json(r.cost)}});
  }
  return {{"scenario", c.scenario},
          {"model", c.model},
          {"gpu", c.gpu},
          {"gpus", c.gpus},
          {"nodes", c.nodes},
          {"sample_unit", c.sample_unit},
          {"single_gpu_samples_per_s", c.single_gpu_samples_per_s},
          {"single_gpu_measured", c.single_gpu_measured},
          {"strategies", rows}};
}

}  // namespace dtsim

#pragma once
// `dtsim compare-strategies`: one layer-graph model on one cluster trained with each way of
// synchronising its data-parallel replicas (DDP, Horovod, compressed all-reduce, parameter servers
// sync and async, hierarchical), side by side: throughput, scaling efficiency against one GPU
// alone, where the time goes and what limits it, and what training on an amount of samples takes
// with each (days, GPU-hours, cost, energy: training_cost.hpp).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "resolved_scenario.hpp"
#include "scenario.hpp"
#include "slurm_batch.hpp"
#include "training_cost.hpp"

namespace dtsim {

struct StrategyVariant {
  std::string name;  // "allreduce nccl", "parameter_server async", ...
  DataParallelConfig data_parallel;
};
// The strategies compared: the scenario's own data_parallel section first, then the others.
// Parameter-server variants keep the scenario's server fields when it has servers.
std::vector<StrategyVariant> strategy_variants(const Scenario& s);
// `s` synchronised as `v` says, its GPUs computing as fast as s's do: a reference measured on
// several GPUs ran with s's own synchronisation, so the variant takes the one-GPU rate it implies
// (`single_gpu_samples_per_s`, single_gpu_step_s's) instead of rescaling its compute to its own.
Scenario with_strategy(const Scenario& s, const StrategyVariant& v, double single_gpu_samples_per_s);
// Variant `index` of the base scenario, checked (InputError when its checks refuse it) and
// resolved, as compare_strategies simulates it and a Slurm task rebuilds it (kind
// kStrategyVariantKind of the scenario file).
ResolvedScenario resolved_strategy_variant(const ResolvedScenario& base, size_t index);
constexpr std::string_view kStrategyVariantKind = "strategy_variant";

struct StrategyOutcome {
  std::string strategy;
  std::string error;  // why it was not simulated; empty when it was
  double iteration_s = 0, samples_per_s = 0;
  double scaling_efficiency = 0;  // samples_per_s / (GPUs x one GPU's rate)
  // Mean over GPUs, per iteration.
  double compute_s = 0, exposed_communication_s = 0, other_s = 0;
  std::string bottleneck;  // what limits it, in words
  TrainingCost cost;       // StrategyComparison::amount at samples_per_s
};

struct StrategyComparison {
  std::string scenario, model, gpu, sample_unit;
  int gpus = 0, nodes = 0;
  double single_gpu_samples_per_s = 0;  // one GPU training alone
  bool single_gpu_measured = false;     // the scenario's reference (else the device model)
  double amount = 0;                    // samples to train on, for each row's cost
  bool amount_is_default = false;       // usual_training_amount of the sample unit
  CostInputs inputs;
  std::vector<StrategyOutcome> rows;    // none when submitted to Slurm and not waited for
  std::optional<SlurmBatch> slurm;      // where a Slurm batch ran the variants (outcomes left out)
};

// Throws InputError when the scenario's model is not a layer graph. `samples` 0: the unit's
// usual_training_amount. With `slurm`, the variants run as a Slurm job array (slurm_batch.hpp) of
// the scenario's file, instead of `parallel` processes here.
StrategyComparison compare_strategies(const Scenario& s, int parallel, double samples = 0,
                                      const CostInputs& inputs = {},
                                      const std::optional<SlurmOptions>& slurm = std::nullopt);
std::string format_strategy_comparison(const StrategyComparison& c);
nlohmann::json strategy_comparison_to_json(const StrategyComparison& c);

}  // namespace dtsim

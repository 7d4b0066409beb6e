#pragma once
// `dtsim plan`: enumerate parallel layouts of a model on a GPU count, drop those that do not fit
// in memory, rank the rest by the analytic estimate and re-rank the best by the SimGrid model.
//
// Search space (PlanSearchSpace; defaults below), for each GPU count N of the request:
//   tp  powers of two up to the GPUs of one node (the NVLink domain, topology node.gpus)
//   cp  1, 2, 4, 8 with tp*cp <= node.gpus: tensor and context parallelism both stay in NVLink
//   pp  the divisors of model.layers that divide N/(tp*cp) (even split, whole layers per stage)
//   dp  N / (tp*cp*pp)
//   ep  1 for a dense model; for MoE every divisor of dp that divides model.moe.experts
//   micro_batch 1, 2, 4, 8; recompute none, selective, full
//   schedule 1f1b; with pp >= 2 also zero_bubble, and interleaved_1f1b with every virtual_stages
//            v >= 2 such that layers % (pp*v) == 0
//   zero_stage 0; with dp > 1 also 1, and 3 when pp == 1 (ZeRO-3 shards parameters across the
//            data-parallel group, which Megatron and DeepSpeed do not combine with pipelines)
//   sequence_parallel = (tp > 1), overlap_grad_reduce = true, tp_comm_overlap = false
// Layouts check_scenario_consistency rejects are counted as invalid, those peak_memory_per_gpu
// says do not fit as out of memory; the rest are estimated with estimate_iteration (one
// ComputeModel for the whole search).
//
// Ranking, per GPU count (rows grouped by count, counts in increasing order): the count's K best
// analytic layouts (K = finalists), simulated (in full, or at two short micro-batch counts and
// extrapolated: micro_batch_extrapolation.hpp) and ordered by simulated s/iter; the count's
// others follow, ordered by analytic s/iter. Ties (the same time): less memory per GPU, then
// enumeration order.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "scenario_loader.hpp"
#include "slurm_batch.hpp"

namespace dtsim {

struct PlanSearchSpace {
  int max_tp = 0;  // 0: the GPUs of one node
  std::vector<int> cp = {1, 2, 4, 8};
  std::vector<int> micro_batches = {1, 2, 4, 8};
  std::vector<Recompute> recompute = {Recompute::none, Recompute::selective, Recompute::full};
  bool interleaved = true;   // interleaved_1f1b with every valid virtual_stages (pp >= 2)
  bool zero_bubble = true;   // zero_bubble (pp >= 2)
  bool zero_1 = true;        // zero_stage 1 (dp > 1)
  bool zero_3 = true;        // zero_stage 3 (dp > 1, pp == 1)
};

struct PlanRequest {
  TransformerConfig model;
  std::string gpu = "a100-80gb-sxm";     // DeviceSpec id
  std::vector<int> gpu_counts;           // each a multiple of the topology's GPUs per node
  std::filesystem::path topology_file;   // loaded once for the whole search
  int global_batch = 1536;               // sequences per iteration
  Precision precision = Precision::bf16;
  int finalists = 2;                     // per GPU count: best analytic layouts re-ranked by simulate(); 0 = none
  // Simulate each finalist at pp and 2 pp micro-batches and extrapolate to its micro-batch count
  // (micro_batch_extrapolation.hpp) instead of simulating every micro-batch.
  bool extrapolate_micro_batches = true;
  PlanSearchSpace space;
  // Set: the finalists are simulated as a Slurm job array (slurm_batch.hpp); the result is the same.
  std::optional<SlurmOptions> slurm;
};

struct PlanRow {
  ParallelismConfig parallelism;
  TrainingConfig training;
  int gpus = 0;
  double memory_bytes = 0;           // peak_memory_per_gpu(...).total_bytes
  double analytic_s = 0;             // estimate_iteration(...).iteration_s
  std::optional<double> simulated_s; // simulate(...), finalists only
  std::string simulation_error;      // why a finalist's simulation failed, if it did
  // From the simulated time when there is one, else the analytic one; 0 when that time is 0.
  double tokens_per_s = 0;           // global_batch * seq_len / time
  double mfu = 0;                    // model_flops_per_iteration / time / gpus / peak (as report.cpp)
};

struct PlanResult {
  Scenario base;                   // model, batch, precision, cluster of the search (parallelism unset)
  std::vector<int> gpu_counts;     // as requested
  double memory_capacity_bytes = 0;  // HBM of one GPU
  long enumerated = 0;
  long invalid = 0;                // rejected by check_scenario_consistency
  std::vector<std::pair<std::string, long>> invalid_by_field;  // field named by the rejection, count
  std::vector<std::string> invalid_examples;  // per invalid_by_field entry: its first layout and why
  long out_of_memory = 0;
  long estimated = 0;              // fit, and were estimated analytically (rows.size())
  long simulated = 0;              // finalists simulated without error
  double search_wall_s = 0;        // enumeration + consistency + memory + analytic + sort
  double simulation_wall_s = 0;    // the finalists' simulations
  std::string simulation_method;   // how the finalists were simulated, in words
  std::optional<SlurmBatch> slurm;  // where a Slurm batch ran them; no outcomes when not waited for
  std::vector<PlanRow> rows;       // by GPU count (increasing), ranked within each, best first

  // The rank of rows[i] among the rows of its GPU count (1 = the best).
  int rank_in_count(size_t i) const;

  // The full scenario of a row (what `dtsim run` would simulate).
  Scenario scenario_of(const PlanRow& row) const;
};

// The overrides that give a scenario loaded from its file `s`'s layout: every parallelism field,
// the micro-batch, the recompute and the node count (a replanned sweep point, rebuilt by a Slurm
// task; a plan row chosen in the GUI, scenario_of(row)).
std::vector<FieldOverride> layout_overrides(const Scenario& s);

// Throws InputError naming the request's field (as the CLI flag: --gpu, --gpus, --topology,
// --global-batch, --precision, --finalists) when the request itself is unusable.
PlanResult plan_layouts(const PlanRequest& request);

// "1024", "512,1024", or "256-2048": the powers of two in the range that are multiples of
// `gpus_per_node` (whole nodes). InputError names `flag`.
std::vector<int> parse_gpu_counts(const std::string& flag, const std::string& text, int gpus_per_node = 1);
// A preset name (find_model_preset) or the path of a Hugging Face config.json. InputError names `flag`.
TransformerConfig resolve_model(const std::string& flag, const std::string& name_or_path);

// "tp8 cp1 pp16 v1 dp8 ep1 mb1 1f1b none zero1" style label.
std::string layout_label(const ParallelismConfig& p, const TrainingConfig& t);
std::string layout_label(const PlanRow& row);
nlohmann::json plan_to_json(const PlanResult& result);

}  // namespace dtsim

#pragma once
// `dtsim sweep`: one scenario simulated at several values of one field (GPU count, a
// parallelism degree, any dotted scenario field), the points in parallel on the local cores.
//
// What changes with the swept value, so that tp*cp*pp*dp = cluster.nodes x GPUs per node holds
// and the global batch stays the scenario's (degrees, nodes and GPUs per node of the base file):
//   GPU count g (--gpus)   cluster.nodes = g / GPUs per node, parallelism.dp = g / (tp*cp*pp)
//   cluster.nodes n        parallelism.dp = n x GPUs per node / (tp*cp*pp)
//   parallelism.dp d       cluster.nodes = d x tp*cp*pp / GPUs per node
//   parallelism.tp|cp|pp   parallelism.dp = the file's GPU count / (tp*cp*pp)   (GPUs fixed)
//   any other field        nothing else
// A tied field is only set when the division is exact; otherwise the scenario's own checks
// reject the point (tp*cp*pp*dp against the cluster) and say why.
//
// Every point is loaded with load_scenario(file, overrides), so every check of `dtsim run`
// applies. A point that fails them (InputError) or does not fit in GPU memory is reported with
// its reason and not simulated; a simulation that fails is reported too; the others still run.
#include <atomic>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenario_loader.hpp"
#include "slurm_batch.hpp"

namespace dtsim {

struct SweepRequest {
  std::filesystem::path scenario_file;
  // Applied to the file before each point's own overrides (the GUI's unsaved edits).
  std::vector<FieldOverride> base_overrides;
  // Exactly one of: gpu_counts (a GPU-count sweep), or field + values.
  std::vector<int> gpu_counts;
  std::string field;                // dotted path, e.g. "parallelism.tp", "training.micro_batch"
  std::vector<std::string> values;  // as written in YAML
  // Time to train is for this many of the base scenario's units (Scenario::throughput_unit: tokens,
  // or a layer model's images, sequences or records); 0: usual_training_amount of that unit.
  double amount = 0;
  int parallel = 0;                 // simulations at once; 0: std::thread::hardware_concurrency()
  // GPU sweeps of a transformer: at each count the layout plan_layouts ranks first (planner.hpp:
  // its search space and finalists) replaces the scenario's (parallelism, micro-batch, recompute);
  // the scenario's other fields are kept.
  bool replan = false;
  // Set: the simulations run as a Slurm job array (slurm_batch.hpp) instead of on this machine;
  // the result is the same.
  std::optional<SlurmOptions> slurm;
};

struct SweepPoint;
// Optional hooks for a front end that shows points as they come (the GUI).
struct SweepProgress {
  // Called on run_sweep's thread with each point once known: rejected points first, then each
  // simulated one when its simulation ends (scaling_efficiency is filled in only at the end).
  std::function<void(size_t index, const SweepPoint& point)> on_point;
  // Set to true to stop; points not simulated yet are reported failed with "cancelled".
  const std::atomic<bool>* cancel = nullptr;
};

enum class SweepStatus {
  simulated,
  invalid,        // the scenario's checks rejected the point (error holds the InputError message)
  out_of_memory,  // peak memory per GPU above the GPU's HBM; not simulated
  failed,         // the simulation itself failed (error holds why)
};
const char* to_string(SweepStatus s);

struct SweepPoint {
  std::string value;  // the swept value as written ("64" for 64 GPUs)
  SweepStatus status = SweepStatus::invalid;
  std::string error;  // empty when simulated
  // Layout of the point (0 where the point was rejected before it had one).
  int gpus = 0, nodes = 0, tp = 0, cp = 0, pp = 0, dp = 0;
  // Memory: known once the point passed the checks.
  double memory_bytes = 0;           // peak per GPU (memory_model.hpp)
  double memory_capacity_bytes = 0;  // the GPU's HBM
  bool fits = false;
  // Simulated points only (0 otherwise).
  double iteration_s = 0;
  std::string unit;                 // what throughput_per_s counts: "token", "image", ...
  double throughput_per_s = 0;      // tokens (global_batch * seq_len) or samples per second
  double model_tflops_per_gpu = 0;  // model FLOPs (no recompute) per second per GPU / 1e12
  double mfu = 0;                   // model FLOP/s per GPU / the GPU's peak, 0..1
  // The result's amount / throughput_per_s; 0 when the point counts in another unit than the
  // amount (a sweep of model.zoo from a CNN to BERT).
  double time_to_train_s = 0;
  // (throughput_per_s / gpus) / the same of the reference point (the first simulated one); 0 for a
  // point counting in another unit than the reference.
  double scaling_efficiency = 0;
  // With a time to train (0 otherwise), at training_cost.hpp's default price and PUE:
  double gpu_hours = 0;   // time_to_train_s x gpus / 3600
  double cost_usd = 0;    // gpu_hours x $ per GPU-hour
  double energy_mwh = 0;  // the cluster's facility power over time_to_train_s

  bool simulated() const { return status == SweepStatus::simulated; }
  bool has_time_to_train() const { return simulated() && time_to_train_s > 0; }
  bool has_scaling() const { return simulated() && scaling_efficiency > 0; }
};

struct SweepResult {
  std::string scenario;                // name in the file
  std::string what;                    // "gpt3-175b on a100-80gb-sxm, dgx-a100-hdr-fattree": model, GPU, fabric
  std::filesystem::path scenario_file;
  bool gpu_sweep = false;
  std::string swept;                   // "gpus" or the field path
  std::vector<std::string> tied;       // the fields set along with it
  bool replanned = false;              // SweepRequest::replan
  int global_batch = 0;                // of the base scenario (kept at every point)
  int seq_len = 0;                     // 0 for a layer model
  std::string unit = "token";          // of the base scenario's throughput
  double amount = 0;                   // time to train is for this many `unit`s
  int parallel = 0;                    // simulations run at once on this machine (with Slurm: none)
  std::optional<SlurmBatch> slurm;     // where a Slurm batch ran (outcomes left out)
  double wall_s = 0;                   // the whole sweep
  std::optional<size_t> reference;     // index of the point scaling efficiency is relative to
  std::vector<SweepPoint> points;      // in the order of the request

  int simulated_count() const;
};

// Throws InputError for a request that cannot be swept at all: a bad base scenario file (for a
// GPU-count sweep and tied fields, the base must load), no values, an amount < 0, both or
// neither of gpu_counts and field. Errors of single points go into their SweepPoint.
SweepResult run_sweep(const SweepRequest& request, const SweepProgress& progress = {});

// A comma-separated list; an item "A-B" of two positive integers stands for the powers of two
// from A to B ("1-8" = 1,2,4,8). Items are kept as written otherwise ("a100-80gb-sxm", "1f1b").
// InputError names `flag`.
std::vector<std::string> parse_sweep_values(const std::string& flag, const std::string& text);

// One CSV field: as it is, or RFC 4180 quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);

// One header line, then one line per point (RFC 4180 quoting). Numbers are written shortest
// round-trip, as in the JSON; fields a point does not have are empty. The throughput column is
// headed by its unit, "tokens_per_s" or "images_per_s" (all units joined with '|' when they differ).
std::string sweep_to_csv(const SweepResult& r);
// Numbers a point does not have are null. Each point's throughput is under "<unit>s_per_s", with
// its "unit"; the amount to train on under "<unit>s" ("tokens": 3e11), with "unit".
nlohmann::json sweep_to_json(const SweepResult& r);
// "300B", "1.5T", "20M": a count (tokens, images) with a T, B or M suffix (4 significant digits).
std::string format_count(double count);
// The table `dtsim sweep` prints.
std::string format_sweep_table(const SweepResult& r);

}  // namespace dtsim

#pragma once
// Headline numbers of one simulated iteration, derived from the engine's per-rank times.
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "compression_summary.hpp"
#include "input_pipeline.hpp"
#include "memory_model.hpp"
#include "resolved_scenario.hpp"
#include "simulation.hpp"

namespace dtsim {

struct Breakdown {
  double compute_s = 0;
  double communication_s = 0;  // exposed: not hidden behind compute
  double bubble_s = 0;  // waiting for a pipeline neighbour, or for the pipeline to drain
  double input_wait_s = 0;  // waiting for the input pipeline's next batch
  double other_s = 0;    // anything else (zero unless a rank is blocked outside these)
  // Each kind of communication ("tp", "cp", "ep", "dp", "edp", "pp"): how long it ran and how
  // much of it was exposed; the exposed times add up to communication_s.
  std::map<std::string, CommunicationTimes> communication_by_kind;
};

// With parameter servers (several iterations simulated): how the workers' steps spread, how stale
// the applied gradients were, and the busiest server.
struct ServerSummary {
  std::string mode;  // sync, async, ssp
  int servers = 0, iterations = 0;
  double step_p50_s = 0, step_p95_s = 0, step_max_s = 0;  // workers' steps after the first
  std::map<int, long> staleness_counts;                    // versions behind -> gradients
  long dropped_gradients = 0;
  int busiest_server = 0;
  double busiest_received_bytes = 0;  // per iteration
  double busiest_update_s = 0;        // per iteration
  double mean_staleness() const;
};

// The report's `rank folding` line when every GPU ran its own program.
inline constexpr const char* kNoFolding = "none: one actor per GPU";

struct Report {
  std::string scenario;
  std::string gpu;
  int gpus = 0;
  int gpus_per_node = 1;           // the topology's node
  double gpu_board_power_w = 0;    // DeviceSpec::board_power_w
  double node_power_w = 0;         // NodeSpec::power_w (0: not given)
  int micro_batches = 0;
  double iteration_s = 0;
  double analytic_iteration_s = 0;      // estimate_iteration (analytic_model.hpp); 0 with parameter servers
  double tokens_per_s = 0;               // transformer models (0 for layer models)
  double samples_per_s = 0;             // sequences (transformers) or the layer model's samples per second
  std::string sample_unit = "sequence";  // "image", "sequence" or "record"
  bool layer_model = false;              // a layer-graph model: counted in samples, not tokens
  // What training is counted in: tokens for transformers, the layer model's samples otherwise.
  std::string throughput_unit() const { return layer_model ? sample_unit : "token"; }
  double throughput_per_s() const { return layer_model ? samples_per_s : tokens_per_s; }
  // Layer models with a measured reference: the factor on the device model's compute times that
  // makes the reference's modelled step take the measured time (layer_model_costs.hpp), and the
  // number of GPUs it was measured on.
  std::optional<double> reference_compute_scale;
  int reference_gpus = 0;
  double model_flops = 0;               // per iteration, no recompute (72*B*s*l*h^2*... convention)
  double hardware_flops = 0;            // per iteration, recompute included
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;                       // model FLOP/s per GPU / peak
  Breakdown mean_breakdown;             // averaged over GPUs
  // One iteration's compute on the busiest stage's GPUs by class of kernel (GEMM, attention,
  // memory-bound, optimizer, launch), as the framework runs it; communication and waits apart.
  KernelClassTimes compute_classes;
  MemoryBreakdown memory;               // per GPU, of the pipeline stage that needs the most
  std::string efficiency_source;
  int64_t simulated_activities = 0;
  double simulation_wall_s = 0;
  double simulation_peak_memory_bytes = 0;
  std::string folding = kNoFolding;  // folding_description
  std::optional<ServerSummary> servers;
  std::optional<CompressionSummary> compression;
  // With an input pipeline: its rates and what it adds to the step (the wait counts as "other").
  std::optional<InputPipelineStep> input;
};

Report make_report(const ResolvedScenario& resolved, const SimulationResult& r);
// What rank folding did, for the report: `simulated_ranks` of `gpus` ran their own program.
std::string folding_description(int gpus, int simulated_ranks);
std::string format_report_text(const Report& r);
nlohmann::json report_to_json(const Report& r);

}  // namespace dtsim

#pragma once
// A scenario: what to train, how it is split, on what cluster, and what goes wrong.
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "../topologies/topology_spec.hpp"
#include "transformer_config.hpp"

namespace dtsim {

enum class Precision { bf16, fp16, fp8, fp32 };
enum class Recompute { none, selective, full };
enum class PipelineScheduleKind { one_f_one_b };

struct TrainingConfig {
  int global_batch = 0;  // sequences per iteration, all replicas together
  int micro_batch = 1;   // sequences per micro-batch
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
};

struct ParallelismConfig {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  PipelineScheduleKind schedule = PipelineScheduleKind::one_f_one_b;
};

struct ClusterConfig {
  std::string gpu;                      // a DeviceSpec id, e.g. "a100-80gb-sxm"
  int nodes = 0;
  std::filesystem::path topology_file;  // resolved against the scenario's folder
  TopologySpec topology;                // loaded from topology_file
};

// What-if events. New kinds are new alternatives of Event, applied to the SimGrid
// platform in events.cpp.
struct StragglerEvent {
  int gpu = 0;            // global rank
  double slowdown = 1.0;  // compute takes `slowdown` times longer
};
using Event = std::variant<StragglerEvent>;

struct Scenario {
  std::string name;
  std::filesystem::path source_file;  // empty when built in code
  TransformerConfig model;
  TrainingConfig training;
  ParallelismConfig parallelism;
  ClusterConfig cluster;
  std::optional<std::filesystem::path> calibration_file;
  std::vector<Event> events;

  int gpu_count() const { return parallelism.tp * parallelism.pp * parallelism.dp; }
  int micro_batches_per_replica() const {
    return training.global_batch / (parallelism.dp * training.micro_batch);
  }
};

const char* to_string(Precision p);
const char* to_string(Recompute r);

}  // namespace dtsim

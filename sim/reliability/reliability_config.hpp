#pragma once
// The optional `reliability:` mapping of a scenario file, read by `dtsim goodput`: failure rates
// per component, the checkpoint policy, what happens after a node failure, and how long the
// training is. Every field is optional; docs/goodput.md lists them.
#include <filesystem>
#include <optional>

#include "goodput_model.hpp"

namespace dtsim {

// Mean time between failures of ONE unit, in hours. Defaults from the Llama 3 405B pre-training
// run (Dubey et al. 2024, "The Llama 3 Herd of Models", section 3.3.4 and Table 5): 419
// unexpected interruptions in a 54-day period (1296 h) on 16,384 H100 GPUs in 2048 servers of
// 8 GPUs and 8 RoCE NICs, one top-of-rack switch per rack of 2 servers (section 3.3.1: 1024
// ToR switches). Per-unit MTBF = units in that cluster x 1296 h / interruptions of the class:
struct ComponentMtbf {
  // Faulty GPU 148 + GPU SRAM memory 19 + GPU system processor 17 + silent data corruption 6 +
  // GPU thermal interface and sensor 6 = 196 on 16,384 GPUs: 16384 x 1296 / 196 = 108,335 h.
  double gpu_hours = 16384.0 * 1296 / 196;
  // GPU HBM3 memory 72 on 16,384 GPUs (a GPU's HBM stacks count as one unit): 294,912 h.
  double hbm_hours = 16384.0 * 1296 / 72;
  // NIC 7 on 16,384 NICs (one per GPU): 3,033,381 h.
  double nic_hours = 16384.0 * 1296 / 7;
  // Network switch/cable 35 on 1024 switches: 37,917 h. The paper gives the ToR count (one per
  // rack of 2 servers: 1024) but not the count of its cluster and aggregation switches, so each
  // ToR is charged with all switch and cable interruptions. dtsim applies the rate to the fabric
  // switches of the scenario's topology graph (leaves and spines, goodput_setup.hpp), which may
  // count differently: the stock RoCE spine-leaf has a leaf per 4 nodes + 8 spines; the stock
  // fat-trees a leaf per 16 nodes + nodes_per_leaf x NICs / oversubscription = 128 spines
  // whatever the node count (many for small clusters). Meta: 0.5 switches per node.
  double switch_hours = 1024.0 * 1296 / 35;
  // Host maintenance (unplanned) 32 + SSD 3 + power supply 3 + server chassis 2 + IO expansion
  // board 2 + CPU 2 + system memory 2 = 46 on 2048 hosts: 57,700 h.
  double host_hours = 2048.0 * 1296 / 46;
  // Software bug 54 + NCCL watchdog timeout 7 + dependency 2 = 63, charged per node (more nodes,
  // more processes that can hang or crash): 2048 x 1296 / 63 = 42,130 h. These restart the job
  // without taking a node out. The six classes add up to the paper's 419.
  double software_hours = 2048.0 * 1296 / 63;
};

// How a checkpoint is taken (goodput_setup.cpp prices each):
//  - blocking: the job stops while the GPUs write their shards to storage (torch.save, Megatron-LM
//    without --async-save);
//  - async: the job stops only to copy each GPU's shard to pinned host memory; a background
//    process writes it to storage while training goes on (Megatron-LM --async-save, PyTorch
//    DCP async_save, NVIDIA Resiliency Extension); a restart reloads from storage;
//  - in_memory: as async, but the background copy goes to a peer node's host memory over the
//    NICs, and a restart reloads from there (Gemini: Wang et al., SOSP 2023). The storage
//    checkpoints such a job still takes now and then, against a node and its peer failing
//    together, are not modelled.
enum class CheckpointMode { blocking, async, in_memory };
inline constexpr CheckpointMode kCheckpointModes[] = {CheckpointMode::blocking, CheckpointMode::async,
                                                      CheckpointMode::in_memory};
const char* to_string(CheckpointMode m);

struct CheckpointPolicy {
  CheckpointMode mode = CheckpointMode::blocking;
  // async and in_memory: GPU to pinned host memory, per GPU, all at once. Empty: the GPU's PCIe
  // link at the efficiency measured on an H100 (DeviceSpec::host_copy_Bps).
  std::optional<double> host_copy_GBps_per_gpu;
  std::optional<double> interval_s;   // training seconds between checkpoints; empty: "auto" (closed-form optimum)
  std::optional<double> size_bytes;   // empty: 14 B per parameter (see goodput_setup.hpp)
  // A checkpoint is written at min(nodes x per-node, storage) bytes/s and read back the same way.
  // Per node: an assumption (a DGX H100 has 2 x 400 Gb/s storage ports, 100 GB/s of link; file
  // system clients sustain a fraction). Storage: Llama 3's Tectonic file system, 2 TB/s
  // sustained (section 3.3.1; 7 TB/s peak).
  double write_GBps_per_node = 10;
  double read_GBps_per_node = 10;
  double storage_write_GBps = 2000;
  double storage_read_GBps = 2000;
  // Detection (NCCL watchdog, heart-beats), requeue, process start and NCCL communicator init
  // at scale, before the checkpoint is read: an assumption (10 min); the paper gives no figure.
  double restart_s = 600;
};

struct RecoveryPolicy {
  RecoveryStrategy strategy = RecoveryStrategy::spare_nodes;
  // Until a failed node is back in service (reboot, reseat or swap a GPU tray, health checks):
  // an assumption (4 h, parts and staff on site); RMA of a whole node takes days.
  double repair_hours = 4;
  std::optional<int> spares;  // empty: 2% of the job's nodes, at least 1 (an assumption)
  // A spare, already health-checked, replaces the failed node in the job's host list before the
  // restart: an assumption (2 min).
  double swap_s = 120;
};

// How much training: at most one of these; none: 20 tokens per parameter (Hoffmann et al. 2022's
// compute-optimal "Chinchilla" ratio) for a transformer, usual_training_amount of its samples
// for a layer-graph model.
struct TrainingLength {
  std::optional<double> iterations;
  std::optional<double> tokens;   // a transformer's
  std::optional<double> samples;  // a layer model's images, sequences or records
  std::optional<double> days;     // days of failure-free compute
};

struct ReliabilityConfig {
  ComponentMtbf mtbf;
  CheckpointPolicy checkpoint;
  RecoveryPolicy recovery;
  TrainingLength training;
};

// The `reliability:` mapping of `scenario_file` (defaults when it has none). Bad input throws
// InputError naming the file, line, field (e.g. reliability.checkpoint.interval_s), what was
// expected and what was found.
ReliabilityConfig load_reliability_config(const std::filesystem::path& scenario_file);

RecoveryStrategy recovery_strategy_from(const std::string& name);  // throws std::invalid_argument

}  // namespace dtsim

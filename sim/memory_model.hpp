#pragma once
// Peak HBM use of one GPU during an iteration: weights, gradients, optimizer states (ZeRO
// sharding), activations of the micro-batches in flight (Korthikanti et al. 2022 for each
// recompute mode and sequence parallelism), and an allowance for the allocator and CUDA context.
#include <string>

#include "scenario.hpp"

namespace dtsim {

struct MemoryBreakdown {
  int stage = 0;  // pipeline stage this breakdown is for
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;            // fp32 master weights + Adam m and v
  double activations_bytes = 0;          // all micro-batches in flight on this stage
  int micro_batches_in_flight = 0;
  double fragmentation_bytes = 0;        // allocator fragmentation and CUDA context allowance
  double total_bytes = 0;
  double capacity_bytes = 0;             // the GPU's HBM
  bool fits() const { return total_bytes <= capacity_bytes; }
};

// Activation bytes one transformer layer keeps for the backward pass, per micro-batch, on one GPU.
double activation_bytes_per_layer(const Scenario& s);

MemoryBreakdown memory_of_stage(const Scenario& s, int stage);
// The stage with the highest total (the one that decides whether the run fits).
MemoryBreakdown peak_memory_per_gpu(const Scenario& s);

// "weights 40.1 GB, gradients ..., total 77.3 of 80.0 GB" style lines.
std::string format_memory(const MemoryBreakdown& m);

}  // namespace dtsim

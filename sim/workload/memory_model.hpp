#pragma once
// Peak HBM use of one GPU during an iteration: weights, gradients, optimizer states (ZeRO
// sharding), activations of the micro-batches in flight (Korthikanti et al. 2022 for each
// recompute mode and sequence parallelism), and an allowance for the allocator and CUDA context.
// Formulas and constants: memory_model.cpp. 1 GB = 1e9 B.
#include <string>
#include <vector>

#include "scenario.hpp"

namespace dtsim {

struct MemoryBreakdown {
  int stage = 0;  // pipeline stage this breakdown is for
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;            // fp32 master weights + Adam m and v
  double activations_bytes = 0;          // all micro-batches in flight on this stage
  // Micro-batches holding activations on this stage (started forward, backward not finished).
  int micro_batches_in_flight = 0;
  // Forward passes of model chunks whose activations are held: micro_batches_in_flight without
  // interleaving; with it, a micro-batch counts once per chunk of this stage it has been through.
  int chunk_passes_in_flight = 0;
  double fragmentation_bytes = 0;        // allocator fragmentation and CUDA context allowance
  double total_bytes = 0;
  double capacity_bytes = 0;             // the GPU's HBM
  bool fits() const { return total_bytes <= capacity_bytes; }
};

// Activation bytes one transformer layer keeps for the backward pass, per micro-batch, on one GPU.
double activation_bytes_per_layer(const Scenario& s);
// The same under another recompute mode (the one of s.training is ignored).
double activation_bytes_per_layer(const Scenario& s, Recompute mode);

// Forward chunk-passes stage `stage` holds at its peak (Megatron-LM's warm-up + 1, capped by the
// micro-batches there are), per local model chunk k (global chunk stage + k*pp).
std::vector<int> chunk_passes_in_flight(const Scenario& s, int stage);

MemoryBreakdown memory_of_stage(const Scenario& s, int stage);
// The stage with the highest total (the one that decides whether the run fits).
MemoryBreakdown peak_memory_per_gpu(const Scenario& s);

// "weights 40.1 GB, gradients ..., total 77.3 of 80.0 GB" style lines, each indented by two spaces.
std::string format_memory(const MemoryBreakdown& m);
// "out of memory: NAME needs X GB on each GPU of pipeline stage S; GPU has Y GB", then the breakdown.
std::string format_out_of_memory(const Scenario& s, const MemoryBreakdown& m);

}  // namespace dtsim

#pragma once
// Order of the micro-batch passes one pipeline stage runs (DESIGN.md "WorkloadBuilder").
#include <vector>

#include "scenario.hpp"

namespace dtsim {

// forward; backward (input and weight gradients together); zero-bubble schedules split the
// backward into backward_input (B: what the previous stage waits for) and backward_weight (W:
// weight gradients, which nothing downstream waits for and which can fill bubbles).
enum class PassKind { forward, backward, backward_input, backward_weight };

struct PipelineStep {
  PassKind pass = PassKind::forward;
  int micro_batch = 0;
  int chunk = 0;  // model chunk on this GPU, 0..virtual_stages-1 (global chunk = chunk * pp + stage)
  bool is_forward() const { return pass == PassKind::forward; }
};

// GPipe: all forwards, then all backwards (in reverse micro-batch order, as autograd would).
std::vector<PipelineStep> gpipe(int stage, int stages, int micro_batches);

// 1F1B (PipeDream-Flush, Megatron-LM's default): stage s of p runs min(p-s-1, m) warm-up
// forwards, then alternates one forward and one backward, then drains the remaining backwards.
std::vector<PipelineStep> one_f_one_b(int stage, int stages, int micro_batches);

// Megatron-LM's interleaved 1F1B: v chunks per GPU; the k-th forward runs chunk (k / p) % v of
// micro-batch (k / (p v)) p + k % p, backwards run the chunks in reverse; warm-up
// (p - s - 1) * 2 + (v - 1) * p chunk-passes. Needs m to be a multiple of p.
std::vector<PipelineStep> interleaved_one_f_one_b(int stage, int stages, int virtual_stages, int micro_batches);

// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024): 1F1B's order of F and B,
// with stage s keeping up to p - s - 1 W passes pending and running them where 1F1B would wait
// in the drain; same activation memory as 1F1B.
std::vector<PipelineStep> zero_bubble_h1(int stage, int stages, int micro_batches);

std::vector<PipelineStep> pipeline_steps(const ParallelismConfig& p, int stage, int micro_batches);

}  // namespace dtsim

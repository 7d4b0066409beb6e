#pragma once
// Order of forward and backward micro-batch passes on one pipeline stage.
#include <vector>

namespace dtsim {

struct PipelineStep {
  bool forward = true;
  int micro_batch = 0;
};

// 1F1B (PipeDream-Flush, Megatron-LM's default): stage s of p runs min(p-s-1, m) warm-up
// forwards, then alternates one forward and one backward, then drains the remaining backwards.
std::vector<PipelineStep> one_f_one_b(int stage, int stages, int micro_batches);

}  // namespace dtsim

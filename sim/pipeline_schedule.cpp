#include "pipeline_schedule.hpp"

#include <algorithm>

namespace dtsim {

std::vector<PipelineStep> one_f_one_b(int stage, int stages, int micro_batches) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  std::vector<PipelineStep> steps;
  steps.reserve(2 * micro_batches);
  int next_forward = 0, next_backward = 0;
  for (int i = 0; i < warmup; ++i) steps.push_back({true, next_forward++});
  while (next_forward < micro_batches) {
    steps.push_back({true, next_forward++});
    steps.push_back({false, next_backward++});
  }
  while (next_backward < micro_batches) steps.push_back({false, next_backward++});
  return steps;
}

}  // namespace dtsim

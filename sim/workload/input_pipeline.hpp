#pragma once
// What a scenario's input pipeline (input_pipeline_config.hpp) does to its step, in closed form:
// each node's loaders are a producer of fixed rate and its GPUs the consumer. With a prefetch
// queue the two overlap and the steady step is the slower of them; without one the training loop
// loads each batch itself and the two take turns. The first step waits for its batch either way.
#include "scenario.hpp"

namespace dtsim {

// Samples per second a node's pipeline delivers: its storage's share divided by the bytes each
// uncached sample reads, and its cores' decode rate; the smaller limits it.
struct InputPipelineRates {
  double storage_samples_per_s = 0;  // infinite when the cache serves every sample
  double decode_samples_per_s = 0;
  double samples_per_s() const;
  const char* limit() const;  // "storage" or "decode"
};
InputPipelineRates node_input_rates(const Scenario& s);

struct InputPipelineStep {
  InputPipelineRates rates;
  double node_samples = 0;  // one node's GPUs' samples per step (all micro-batches)
  double load_s = 0;        // loading them at rates.samples_per_s()
  double gpu_step_s = 0;    // the step with data always ready
  double step_s = 0;        // steady state: max(gpu_step_s, load_s) prefetching, their sum otherwise
  double first_step_s = 0;  // load_s + gpu_step_s
  double input_wait_s() const { return step_s - gpu_step_s; }
};
// For a scenario with an input_pipeline section, whose step with data always ready is gpu_step_s.
InputPipelineStep input_pipeline_step(const Scenario& s, double gpu_step_s);

}  // namespace dtsim

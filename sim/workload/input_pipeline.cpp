#include "input_pipeline.hpp"

#include <algorithm>
#include <limits>

namespace dtsim {

double InputPipelineRates::samples_per_s() const { return std::min(storage_samples_per_s, decode_samples_per_s); }

const char* InputPipelineRates::limit() const {
  return storage_samples_per_s < decode_samples_per_s ? "storage" : "decode";
}

InputPipelineRates node_input_rates(const Scenario& s) {
  const InputPipelineConfig& c = *s.input_pipeline;
  const double node_storage_Bps =
      c.storage_GBps * 1e9 / (c.storage == InputStorage::shared ? double(s.cluster.nodes) : 1.0);
  const double read_bytes_per_sample = c.sample_bytes * (1 - c.cache_hit_rate);
  InputPipelineRates r;
  r.storage_samples_per_s = read_bytes_per_sample > 0 ? node_storage_Bps / read_bytes_per_sample
                                                      : std::numeric_limits<double>::infinity();
  r.decode_samples_per_s = c.cpu_cores * c.samples_per_s_per_core;
  return r;
}

InputPipelineStep input_pipeline_step(const Scenario& s, double gpu_step_s) {
  InputPipelineStep p;
  p.rates = node_input_rates(s);
  const int gpus_per_node = std::min(s.cluster.topology.node.gpus, s.gpu_count());
  p.node_samples = double(gpus_per_node) * s.training.micro_batch * s.micro_batches_per_replica();
  p.load_s = p.node_samples / p.rates.samples_per_s();
  p.gpu_step_s = gpu_step_s;
  p.step_s = s.input_pipeline->prefetch_batches > 0 ? std::max(gpu_step_s, p.load_s) : gpu_step_s + p.load_s;
  p.first_step_s = p.load_s + gpu_step_s;
  return p;
}

}  // namespace dtsim

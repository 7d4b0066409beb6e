#include "layer_model_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "bucket_sync.hpp"
#include "gradient_compression.hpp"
#include "input_error.hpp"
#include "kernel_launch.hpp"
#include "nccl_channels.hpp"

namespace dtsim {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

double optimizer_bytes_per_parameter(LayerModelOptimizer o) {
  return 12 + 2 * optimizer_state_bytes_per_parameter(o);  // gradient and weight in, weight out; state in and out
}

double optimizer_state_bytes_per_parameter(LayerModelOptimizer o) {
  switch (o) {
    case LayerModelOptimizer::sgd: return 0;
    case LayerModelOptimizer::sgd_momentum: return 4;
    case LayerModelOptimizer::adam: return 8;
  }
  return 8;
}

namespace {

OperatorKind operator_kind(LayerKind k) {
  if (has_weight_products(k)) return OperatorKind::gemm;
  if (k == LayerKind::attention) return OperatorKind::attention_gemm;
  return OperatorKind::elementwise;
}

// A sharded table's lookups touch only the rows they read (its output), never the whole table.
double layer_bytes(const Layer& l, double samples, double activation_bytes) {
  const double weights = l.sharded ? 0 : l.parameters * activation_bytes;
  return (l.input_elements + l.output_elements) * samples * activation_bytes + weights;
}

}  // namespace

Operator layer_forward_operator(const Layer& l, double samples, double activation_bytes) {
  Operator op{"layer_forward", operator_kind(l.kind)};
  op.flops = 2 * l.forward_macs * samples;
  op.bytes = layer_bytes(l, samples, activation_bytes);
  return op;
}

Operator layer_backward_operator(const Layer& l, double samples, double activation_bytes) {
  Operator op{"layer_backward", operator_kind(l.kind)};
  op.flops = backward_product_factor(l.kind) * 2 * l.forward_macs * samples;
  op.bytes = 2 * layer_bytes(l, samples, activation_bytes);
  op.kernels = has_weight_products(l.kind) ? 2 : 1;
  return op;
}

LayerModelPass layer_model_pass(const Scenario& s, const ComputeModel& compute) {
  const LayerGraph& g = s.layer_model->graph;
  const double samples = s.training.micro_batch;
  const double activation_bytes = element_bytes(working_precision(s.training.precision));
  LayerModelPass p;
  for (const Layer& l : g.layers) {
    const Operator f = layer_forward_operator(l, samples, activation_bytes);
    const Operator b = layer_backward_operator(l, samples, activation_bytes);
    p.forward_s.push_back(compute.time_s(f));
    p.backward_s.push_back(compute.time_s(b));
    p.forward_flops += f.flops;
    p.backward_flops += b.flops;
    p.forward_kernels += f.kernels;
    p.backward_kernels += b.kernels;
  }
  const Operator step{"optimizer", OperatorKind::optimizer, 0,
                      dense_parameters(g) * optimizer_bytes_per_parameter(s.layer_model->optimizer)};
  p.optimizer_s = compute.time_s(step);
  return p;
}

namespace {

double sum(const std::vector<double>& v) {
  double t = 0;
  for (double x : v) t += x;
  return t;
}

struct LaunchedPasses {
  double forward_s = 0, backward_s = 0;
};

LaunchedPasses launched(const LayerModelPass& p, bool cuda_graphs) {
  return {launched_pass_s(sum(p.forward_s), p.forward_kernels, cuda_graphs),
          launched_pass_s(sum(p.backward_s), p.backward_kernels, cuda_graphs)};
}

double modelled_single_gpu_step_s(const Scenario& s, const ComputeModel& compute) {
  const LayerModelPass p = layer_model_pass(s, compute);
  const LaunchedPasses l = launched(p, s.training.cuda_graphs);
  return s.micro_batches_per_replica() * (l.forward_s + l.backward_s) + p.optimizer_s;
}

// The buckets of a replica whose backward layers take `backward_s` (scaled), each compressed for
// a data-parallel group of `ranks`.
std::vector<GradientBucket> bucket_layout(const Scenario& s, const ComputeModel& compute,
                                          const std::vector<double>& backward_s, int ranks) {
  std::vector<GradientBucket> buckets = ddp_gradient_buckets(s.layer_model->graph, backward_s, s.data_parallel);
  if (!s.data_parallel.overlap && !buckets.empty()) {  // every bucket after the whole pass
    for (GradientBucket& b : buckets) b.compute_share = 0;
    buckets.front().compute_share = 1;
  }
  for (GradientBucket& b : buckets) compress_gradient_bucket(s, compute, ranks, b);
  return buckets;
}

// MPI's all-reduces run through the CPUs at their memory bandwidth; NCCL's do not (0).
double host_staged_cpu_Bps(const Scenario& s) {
  return s.data_parallel.reduces_on_cpus() ? s.data_parallel.server_memory_gbs * 1e9 : 0.0;
}

std::vector<double> scaled(std::vector<double> v, double scale) {
  for (double& x : v) x *= scale;
  return v;
}

// The step of the reference's GPUs (one node, each with the scenario's batch) when every compute
// time is `scale` x the modelled one: all micro-batches, then what the buckets leave exposed after
// the last backward (bucket_sync.hpp), then the optimizer.
double reference_step_s(const Scenario& s, const ComputeModel& compute, const LayerModelPass& p, double scale) {
  const LaunchedPasses l = launched(p, s.training.cuda_graphs);
  const int gpus = s.reference->gpus;
  const GroupShape dp{.ranks = gpus, .nodes = 1, .ranks_per_node = gpus};
  const std::vector<GradientBucket> buckets = bucket_layout(s, compute, scaled(p.backward_s, scale), gpus);
  const double last_backward_s = l.backward_s * scale;
  return s.micro_batches_per_replica() * (l.forward_s + l.backward_s) * scale +
         bucket_layout_sync_s(buckets, last_backward_s, dp, s.cluster.topology.node, host_staged_cpu_Bps(s)) +
         p.optimizer_s * scale;
}

// The scale at which the reference's GPUs, synchronising as the scenario does, take the step
// they measured. The step grows with the scale (more compute, and buckets ready later), so
// bisection finds it; none exists when the communication alone outlasts the measured step.
double multi_gpu_reference_scale(const Scenario& s, const ComputeModel& compute, double measured_s) {
  const LayerModelPass p = layer_model_pass(s, compute);
  const double modelled_s = modelled_single_gpu_step_s(s, compute);
  if (!(modelled_s > 0)) return 1;
  double low = 0, high = measured_s / modelled_s;  // compute alone at `high` takes the measured step
  const double communication_s = reference_step_s(s, compute, p, 0);
  if (communication_s >= measured_s)
    throw InputError({s.source_file.string(), 0, "reference.samples_per_s",
                      fmt::format("a rate the {} GPUs' modelled gradient all-reduce allows", s.reference->gpus),
                      fmt::format("{} (their communication alone takes {:.4g} s of the {:.4g} s step)",
                                  s.reference->samples_per_s, communication_s, measured_s)});
  for (int i = 0; i < 60 && high - low > 1e-9 * high; ++i) {
    const double mid = (low + high) / 2;
    (reference_step_s(s, compute, p, mid) < measured_s ? low : high) = mid;
  }
  return (low + high) / 2;
}

}  // namespace

double reference_compute_scale(const Scenario& s, const ComputeModel& compute) {
  if (!s.reference) return 1;
  const double samples_per_gpu = double(s.micro_batches_per_replica()) * s.training.micro_batch;
  const double measured_s = samples_per_gpu * s.reference->gpus / s.reference->samples_per_s;
  if (s.reference->gpus > 1) return multi_gpu_reference_scale(s, compute, measured_s);
  const double modelled_s = modelled_single_gpu_step_s(s, compute);
  return modelled_s > 0 ? measured_s / modelled_s : 1;
}

double single_gpu_step_s(const Scenario& s, const ComputeModel& compute) {
  return modelled_single_gpu_step_s(s, compute) * reference_compute_scale(s, compute);
}

std::vector<GradientBucket> ddp_gradient_buckets(const LayerGraph& g, const std::vector<double>& backward_s,
                                                 const DataParallelConfig& dp) {
  std::vector<GradientBucket> buckets;
  const double total_s = sum(backward_s);
  double pending_s = 0, bytes = 0;
  int last_layer = int(g.layers.size()) - 1;
  for (size_t i = g.layers.size(); i-- > 0;) {
    pending_s += backward_s[i];
    if (!g.layers[i].sharded) bytes += g.layers[i].parameters * kLayerModelGradientBytes;
    const double cap = (buckets.empty() ? dp.first_bucket_mb : dp.bucket_cap_mb) * kMiB;
    const bool cycle_over = dp.cycle_time_ms > 0 && pending_s >= dp.cycle_time_ms * 1e-3;
    if (bytes >= cap || (cycle_over && bytes > 0) || (i == 0 && bytes > 0)) {
      buckets.push_back({.compute_share = total_s > 0 ? pending_s / total_s : 0,
                         .bytes = bytes,
                         .first_layer = int(i),
                         .last_layer = last_layer});
      pending_s = 0;
      bytes = 0;
      last_layer = int(i) - 1;
    }
  }
  return buckets;
}

double dense_parameters(const LayerGraph& g) { return g.parameters() - g.sharded_parameters(); }

std::vector<PassCollective> sharded_lookup_exchange(const Scenario& s) {
  const LayerGraph& g = s.layer_model->graph;
  if (s.parallelism.dp < 2 || g.sharded_output_elements() <= 0) return {};
  const double bytes = s.training.micro_batch * g.sharded_output_elements() *
                       element_bytes(working_precision(s.training.precision));
  return {{GroupRole::dp, CollectiveKind::all_to_all, 1, bytes, false}};
}

double fullest_gpu_sharded_parameters(const LayerGraph& g, int gpus) {
  std::vector<double> tables;
  for (const Layer& l : g.layers)
    if (l.sharded) tables.push_back(l.parameters);
  std::sort(tables.begin(), tables.end(), std::greater<>());
  std::vector<double> held(size_t(std::max(1, gpus)), 0.0);
  for (double t : tables) *std::min_element(held.begin(), held.end()) += t;
  return *std::max_element(held.begin(), held.end());
}

double layer_model_flops_per_iteration(const Scenario& s) {
  return 6 * s.layer_model->graph.forward_macs() * s.training.global_batch;
}

WorkloadInputs layer_model_workload_inputs(const Scenario& s, const ComputeModel& compute) {
  const LayerGraph& g = s.layer_model->graph;
  const LayerModelPass p = layer_model_pass(s, compute);
  const double scale = reference_compute_scale(s, compute);
  const LaunchedPasses l = launched(p, s.training.cuda_graphs);
  WorkloadInputs in;
  in.micro_batches = s.micro_batches_per_replica();
  in.collective_sm_share = compute.device().collective_sm_share(nccl_collective_channels(s.cluster.topology.node));
  in.forward.push_back({l.forward_s * scale, p.forward_flops, sharded_lookup_exchange(s)});
  in.backward.push_back({l.backward_s * scale, p.backward_flops, sharded_lookup_exchange(s)});
  in.backward_weight.push_back({});  // no split backward (zero-bubble) without a pipeline
  in.gradient_bytes.push_back(dense_parameters(g) * kLayerModelGradientBytes);
  in.parameter_bytes.push_back(dense_parameters(g) * kLayerModelGradientBytes);
  in.expert_gradient_bytes.push_back(0);
  in.expert_parameter_bytes.push_back(0);
  in.optimizer_s.push_back(p.optimizer_s * scale);
  // Horovod's cycle counts in wall-clock time: buckets from the scaled backward pass.
  in.gradient_bucket_layout = bucket_layout(s, compute, scaled(p.backward_s, scale), s.parallelism.dp);
  in.host_staged_cpu_Bps = host_staged_cpu_Bps(s);
  return in;
}

}  // namespace dtsim

#include "layer_model_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "bucket_sync.hpp"
#include "gradient_compression.hpp"
#include "input_error.hpp"
#include "launch_model.hpp"
#include "layer_graph_kernels.hpp"
#include "transformer_ops.hpp"
#include "workload_builder.hpp"
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

LayerModelPass priced_pass(const Scenario& s, const ComputeModel& compute) {
  const LayerGraph& g = s.layer_model->graph;
  const LayerGraphRun run = layer_graph_run(s);
  const double host_s = host_launch_s(s.training);
  LayerModelPass p;
  std::vector<Operator> forward, backward;  // each pass's kernels in the order they run
  std::vector<std::vector<Operator>> backward_of(g.layers.size());
  for (size_t i = 0; i < g.layers.size(); ++i) {
    const Layer* previous = i > 0 ? &g.layers[i - 1] : nullptr;
    std::vector<Operator> f = layer_forward_kernels(g.layers[i], previous, run);
    std::vector<Operator> b = layer_backward_kernels(g.layers[i], previous, run);
    if (i + 1 == g.layers.size()) {  // the loss: after the last layer, and first backward
      const std::vector<Operator> loss_f = loss_forward_kernels(g, run), loss_b = loss_backward_kernels(g, run);
      f.insert(f.end(), loss_f.begin(), loss_f.end());
      b.insert(b.begin(), loss_b.begin(), loss_b.end());
    }
    p.forward_s.push_back(sum_time_s(f, compute));
    p.backward_s.push_back(sum_time_s(b, compute));
    p.forward_flops += sum_flops(f);
    p.backward_flops += sum_flops(b);
    forward.insert(forward.end(), f.begin(), f.end());
    backward_of[i] = std::move(b);
  }
  for (size_t i = g.layers.size(); i-- > 0;) backward.insert(backward.end(), backward_of[i].begin(), backward_of[i].end());
  p.forward_classes = launched_pass(forward, compute, host_s);
  p.backward_classes = launched_pass(backward, compute, host_s);
  p.forward_launch_s = p.forward_classes.launch_s;
  p.backward_launch_s = p.backward_classes.launch_s;
  const std::vector<Operator> optimizer =
      layer_graph_optimizer_kernels(s.layer_model->optimizer, s.layer_model->weight_decay, dense_parameter_tensors(g));
  p.optimizer_classes = launched_pass(optimizer, compute, host_s);
  p.optimizer_classes.launch_s += step_overhead_s(s.training);
  p.optimizer_s = p.optimizer_classes.total_s();
  return p;
}

}  // namespace

// A GPU at its power limit runs its tensor cores slower the more of its work they fill
// (ComputeModel::under_power_limit), as the transformers' workload_inputs has it: priced at the
// in-step rate, then again at the clock that the passes' share of matmuls and attention gives.
LayerModelPass layer_model_pass(const Scenario& s, const ComputeModel& compute) {
  const LayerModelPass p = priced_pass(s, compute);
  KernelClassTimes t = p.forward_classes;
  t += p.backward_classes;
  const std::optional<ComputeModel> slowed = compute.under_power_limit(t);
  return slowed ? priced_pass(s, *slowed) : p;
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

// Each pass's kernels with what launching them adds.
LaunchedPasses launched(const LayerModelPass& p) {
  return {sum(p.forward_s) + p.forward_launch_s, sum(p.backward_s) + p.backward_launch_s};
}

// One GPU's step of the pass `p` prices: every micro-batch's passes, then the optimizer.
double modelled_single_gpu_step_s(const Scenario& s, const LayerModelPass& p) {
  const LaunchedPasses l = launched(p);
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
  const LaunchedPasses l = launched(p);
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
double multi_gpu_reference_scale(const Scenario& s, const ComputeModel& compute, const LayerModelPass& p,
                                 double measured_s) {
  const double modelled_s = modelled_single_gpu_step_s(s, p);
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

// reference_compute_scale for the pass `p` the scenario's layers price to, priced once by the caller.
double reference_scale(const Scenario& s, const ComputeModel& compute, const LayerModelPass& p) {
  if (!s.reference) return 1;
  const double samples_per_gpu = double(s.micro_batches_per_replica()) * s.training.micro_batch;
  const double measured_s = samples_per_gpu * s.reference->gpus / s.reference->samples_per_s;
  if (s.reference->gpus > 1) return multi_gpu_reference_scale(s, compute, p, measured_s);
  const double modelled_s = modelled_single_gpu_step_s(s, p);
  return modelled_s > 0 ? measured_s / modelled_s : 1;
}

}  // namespace

double reference_compute_scale(const Scenario& s, const ComputeModel& compute) {
  return s.reference ? reference_scale(s, compute, layer_model_pass(s, compute)) : 1;
}

double single_gpu_step_s(const Scenario& s, const ComputeModel& compute) {
  const LayerModelPass p = layer_model_pass(s, compute);
  return modelled_single_gpu_step_s(s, p) * reference_scale(s, compute, p);
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
  const double scale = reference_scale(s, compute, p);
  const LaunchedPasses l = launched(p);
  WorkloadInputs in;
  in.micro_batches = s.micro_batches_per_replica();
  in.collective_sm_share = compute.device().collective_sm_share(nccl_collective_channels(s.cluster.topology.node));
  in.forward.push_back({l.forward_s * scale, p.forward_flops, sharded_lookup_exchange(s), p.forward_classes.scaled(scale)});
  in.backward.push_back({l.backward_s * scale, p.backward_flops, sharded_lookup_exchange(s), p.backward_classes.scaled(scale)});
  in.backward_weight.push_back({});  // no split backward (zero-bubble) without a pipeline
  in.gradient_bytes.push_back(dense_parameters(g) * kLayerModelGradientBytes);
  in.parameter_bytes.push_back(dense_parameters(g) * kLayerModelGradientBytes);
  in.expert_gradient_bytes.push_back(0);
  in.expert_parameter_bytes.push_back(0);
  in.optimizer_s.push_back(p.optimizer_s * scale);
  in.optimizer_classes.push_back(p.optimizer_classes.scaled(scale));
  // Horovod's cycle counts in wall-clock time: buckets from the scaled backward pass.
  in.gradient_bucket_layout = bucket_layout(s, compute, scaled(p.backward_s, scale), s.parallelism.dp);
  in.host_staged_cpu_Bps = host_staged_cpu_Bps(s);
  return in;
}

}  // namespace dtsim

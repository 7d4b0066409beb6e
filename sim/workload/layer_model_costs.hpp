#pragma once
// What a layer-graph model (sim/workload/README.md "Layer graphs") costs on one GPU: each layer's forward and
// backward operators priced by the compute model, the optimizer step, PyTorch DDP's gradient
// buckets, and the scale that makes the modelled step match a measured reference.
#include <vector>

#include "compute_model.hpp"
#include "scenario.hpp"
#include "workload_builder.hpp"

namespace dtsim {

// Gradients and master weights stay fp32 in mixed precision (torch.cuda.amp keeps parameters
// and their .grad in fp32; DDP all-reduces .grad), so every gradient byte count uses 4 B.
inline constexpr double kLayerModelGradientBytes = 4;

// Optimizer step per parameter, fp32 (4 B per access). SGD: read grad and weight, write weight
// (12 B). SGD with momentum: read grad, weight and momentum, write weight and momentum (20 B).
// Adam: read grad, weight, m, v, write weight, m, v (28 B). Sharded embedding tables are updated
// row by row in their backward pass (sparse gradients), not by this step.
double optimizer_bytes_per_parameter(LayerModelOptimizer o);
// fp32 state the optimizer keeps per parameter: none (SGD), a momentum (4 B), Adam's m and v (8 B).
double optimizer_state_bytes_per_parameter(LayerModelOptimizer o);

// One micro-batch through the model on one GPU, at the device model's speed (unscaled): each
// layer's kernels as its framework runs them (layer_graph_kernels.hpp; the loss with the last
// layer), what launching them adds to each pass (launch_model.hpp), and the optimizer step with
// the step's start and end.
struct LayerModelPass {
  std::vector<double> forward_s;   // [layer] kernel time
  std::vector<double> backward_s;  // [layer] kernel time
  double forward_launch_s = 0, backward_launch_s = 0;  // gaps and waits on the host, per pass
  double forward_flops = 0, backward_flops = 0;  // matmul FLOPs
  double optimizer_s = 0;
  KernelClassTimes forward_classes, backward_classes, optimizer_classes;
};
LayerModelPass layer_model_pass(const Scenario& s, const ComputeModel& compute);

// Multiplier on every compute time so that the modelled step takes what s.reference measured; 1
// without a reference. One GPU: its step (all micro-batches and the optimizer) alone. Several
// GPUs of one node, each with the scenario's batch: their step with the gradient buckets'
// synchronisation the scenario's data_parallel section gives them (bucket_sync.hpp) on the
// scenario's node, so that only what more GPUs add is predicted. Throws InputError when that
// communication alone outlasts the measured step.
double reference_compute_scale(const Scenario& s, const ComputeModel& compute);
// That step of one GPU training alone (no communication), scaled: with a one-GPU reference,
// exactly the time the reference's rate gives its samples.
double single_gpu_step_s(const Scenario& s, const ComputeModel& compute);

// PyTorch DDP's buckets (or Horovod's fusions) in the order the backward pass fills them:
// parameters in reverse layer order, a bucket closed once it holds `first_bucket_mb` (the first) or
// `bucket_cap_mb` MiB of gradients (a layer's gradients are never split) or, with Horovod, once
// `cycle_time_ms` of backward_s has passed since it opened. Each bucket's compute_share is the
// part of the backward pass from the previous bucket's last layer to its own.
std::vector<GradientBucket> ddp_gradient_buckets(const LayerGraph& g, const std::vector<double>& backward_s,
                                                 const DataParallelConfig& dp);

// Parameters every replica holds and all-reduces: all but the sharded embedding tables'.
double dense_parameters(const LayerGraph& g);
// A micro-batch's exchange of sharded lookups (Layer::sharded), in its forward pass and again,
// as gradients, in its backward pass: one all-to-all over the data-parallel GPUs in which each
// sends every other the vectors its tables looked up for that GPU's samples (nccl-tests' size:
// micro-batch x the looked-up elements x the activation's bytes). None on one GPU.
std::vector<PassCollective> sharded_lookup_exchange(const Scenario& s);
// The sharded tables' parameters on the GPU holding the most when `gpus` GPUs share them table by
// table, each table (largest first) to the GPU holding the least so far (TorchRec's table-wise
// sharding, balanced by size).
double fullest_gpu_sharded_parameters(const LayerGraph& g, int gpus);

// Matmul FLOPs of one iteration, all GPUs: 2 per multiply-accumulate forward and 4 backward
// (input and weight gradients), as torchvision's GFLOPS x 6 per sample.
double layer_model_flops_per_iteration(const Scenario& s);

// The workload inputs of a layer-graph scenario (one stage, dp replicas).
WorkloadInputs layer_model_workload_inputs(const Scenario& s, const ComputeModel& compute);

}  // namespace dtsim

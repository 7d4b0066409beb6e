// training.memory_format: which layout a layer graph's feature maps take decides the kernels
// around its convolutions, and the dtype which BatchNorm runs (sim/framework/layer_graph_kernels.cpp),
// checked against HTA's public trace of ResNet-50 on an A100 with NCHW maps (tests/data/traces/hta,
// SOURCES.md).
#include <gtest/gtest.h>

#include <string>

#include "kineto_trace.hpp"
#include "device_spec.hpp"
#include "layer_graph_builder.hpp"
#include "layer_graph_kernels.hpp"
#include "layer_model_costs.hpp"
#include "resolved_scenario.hpp"
#include "scenario_loader.hpp"
#include "step_summary.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

// ResNet-50 as the trace ran it: one A100 40GB, 32 images, fp32 (TF32 tensor cores), eager PyTorch.
Scenario traced_resnet(const test::ScratchDir& dir, const std::string& memory_format,
                       const std::string& precision = "fp32") {
  const std::string topology = (test::source_dir() / "topologies" / "single-h100-sxm.yaml").string();
  const std::string format = memory_format.empty() ? "" : ", memory_format: " + memory_format;
  return load_scenario(dir.write("rn50.yaml", "name: rn50\nmodel: {zoo: resnet-50}\n"
                                              "training: {global_batch: 32, micro_batch: 32, precision: " +
                                                  precision + format + "}\ncluster: {gpu: a100-40gb-sxm, nodes: 1, " +
                                                  "gpu_differs_from_topology: true, topology: " + topology + "}\n"));
}

// Seconds of the scenario's forward and backward kernels whose name starts with `prefix`.
double kernels_named(const Scenario& s, const ComputeModel& compute, const std::string& prefix) {
  const LayerGraph& g = s.layer_model->graph;
  const LayerGraphRun run = layer_graph_run(s);
  double t = 0;
  for (size_t i = 0; i < g.layers.size(); ++i) {
    const Layer* previous = i > 0 ? &g.layers[i - 1] : nullptr;
    for (const auto& ops : {layer_forward_kernels(g.layers[i], previous, run),
                            layer_backward_kernels(g.layers[i], previous, run)})
      for (const Operator& op : ops)
        if (std::string(op.name).rfind(prefix, 0) == 0) t += compute.time_s(op);
  }
  return t;
}

TEST(MemoryFormat, FollowsTheFrameworkUnlessSet) {
  TrainingConfig t;
  t.framework = Framework::pytorch;
  EXPECT_EQ(resolved_memory_format(t), MemoryFormat::contiguous);  // PyTorch's default layout
  t.framework = Framework::torch_compile;
  EXPECT_EQ(resolved_memory_format(t), MemoryFormat::channels_last);  // Inductor's layout_optimization
  t.memory_format = MemoryFormat::contiguous;
  EXPECT_EQ(resolved_memory_format(t), MemoryFormat::contiguous);

  const test::ScratchDir dir;
  EXPECT_EQ(traced_resnet(dir, "channels_last").training.memory_format, MemoryFormat::channels_last);
  const InputErrorInfo e = test::error_of([&] { traced_resnet(dir, "nhwc"); });
  EXPECT_EQ(e.field, "training.memory_format");
  EXPECT_EQ(e.expected, "one of [auto, channels_last, contiguous]");
}

// The trace's GPU step (ProfilerStep#6): cuDNN's NCHW BatchNorm forward kernels (bn_fw_tr_1C11)
// against the model's one kernel per BatchNorm, reading the map twice and writing it at the
// normalization share measured on the H100 (not fitted to this trace); and all its memory-bound
// kernels (dtsim import's class: element-wise, BatchNorm, the layout's copies, pooling) against
// the model's, the copies at the layout_transpose share fitted to this trace's three steps.
TEST(MemoryFormat, NchwResNet50MatchesTheA100TracesBatchNormAndMemoryBoundKernels) {
  const KinetoTrace trace = read_kineto_trace(test::data_dir() / "traces" / "hta" / "nccl_data.json.gz");
  const RankStep step = summarize_step(trace, "ProfilerStep#6");
  double batch_norm_forward_s = 0;
  for (const GpuActivity& a : trace.gpu)
    if (a.start_us >= step.gpu_step_start_us && a.end_us() <= step.gpu_step_end_us &&
        a.name.find("bn_fw_tr_1C11") != std::string::npos)
      batch_norm_forward_s += a.duration_us * 1e-6;

  const test::ScratchDir dir;
  const Scenario nchw = traced_resnet(dir, "");  // eager PyTorch's default: contiguous
  const ComputeModel compute = resolve_scenario(nchw).compute;
  EXPECT_NEAR(kernels_named(nchw, compute, "cudnn_batch_norm"), batch_norm_forward_s, 0.05 * batch_norm_forward_s);

  const LayerModelPass pass = layer_model_pass(nchw, compute);
  const double memory_bound_s =
      pass.forward_classes[OperatorKind::elementwise] + pass.backward_classes[OperatorKind::elementwise];
  const double measured_s = step.classes[OperatorKind::elementwise];
  EXPECT_NEAR(memory_bound_s, measured_s, 0.10 * measured_s);

  // Channels-last maps need no copies.
  const Scenario nhwc = traced_resnet(dir, "channels_last");
  EXPECT_GT(kernels_named(nchw, compute, "input_to_nhwc"), 0);
  EXPECT_EQ(kernels_named(nhwc, compute, "input_to_nhwc") + kernels_named(nhwc, compute, "grad_layout_transposes"), 0);
}

// A 1x1 convolution of stride 1 runs as a GEMM over NCHW maps as they lie, its bias or not: its
// width n is its output channels, 16 here, not (weights + bias) / k = (8 x 16 + 16) / 8 = 18, which
// would not divide the map and would have it copied to NHWC as a 3x3 one is.
TEST(MemoryFormat, ABiasedOneByOneConvolutionNeedsNoLayoutCopies) {
  LayerGraph g{"convs", "image", {}};
  ImageLayers image(g, {8, 32, 32});
  image.conv("pointwise", 16, 1, 1, 0, /*bias=*/true);
  image.conv("spatial", 16, 3, 1, 1, /*bias=*/true);
  LayerGraphRun run;
  run.samples = 4;
  run.channels_last = false;
  run.device = find_device("a100-80gb-sxm");  // tensor cores for bf16: NCHW maps copied where needed
  const auto copies = [&](const Layer& l, const Layer* previous) {
    int n = 0;
    for (const auto& ops : {layer_forward_kernels(l, previous, run), layer_backward_kernels(l, previous, run)})
      for (const Operator& op : ops) n += op.access == MemoryAccess::layout_transpose;
    return n;
  };
  EXPECT_EQ(copies(g.layers[0], nullptr), 0);
  EXPECT_GT(copies(g.layers[1], &g.layers[0]), 0);
}

// Which BatchNorm runs follows PyTorch's _select_batch_norm_backend: cuDNN's for fp32 and for fp16
// under autocast (fp32 weights), in either layout; PyTorch's own kernels for bf16.
TEST(MemoryFormat, BatchNormRunsCudnnsKernelUnlessBf16) {
  const test::ScratchDir dir;
  const std::pair<const char*, bool> cudnn_by_precision[] = {{"fp32", true}, {"fp16", true}, {"bf16", false}};
  for (const char* format : {"channels_last", "contiguous"})
    for (const auto& [precision, cudnn] : cudnn_by_precision) {
      const Scenario s = traced_resnet(dir, format, precision);
      const ComputeModel compute = resolve_scenario(s).compute;
      EXPECT_EQ(kernels_named(s, compute, "cudnn_batch_norm") > 0, cudnn) << format << " " << precision;
      EXPECT_EQ(kernels_named(s, compute, "batch_norm_statistics") > 0, !cudnn) << format << " " << precision;
    }
}

}  // namespace
}  // namespace dtsim

// PyTorch's multi-tensor launches (multi_tensor_apply) against the launches of the traced H100
// steps (tests/data/h100-2026-11-26/traces), and what one launch costs.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "device_spec.hpp"
#include "efficiency_defaults.hpp"
#include "model_zoo.hpp"
#include "multi_tensor_apply.hpp"
#include "stage_layout.hpp"
#include "test_support.hpp"
#include "transformer_ops.hpp"
#include "transformer_config.hpp"
#include "validation.hpp"

namespace dtsim {
namespace {

std::vector<int> grids(const std::vector<double>& tensors, int depth) {
  std::vector<int> blocks;
  for (const MultiTensorLaunch& l : multi_tensor_launches(tensors, depth)) blocks.push_back(l.blocks);
  return blocks;
}

// torchvision's ResNet-50: 161 tensors (53 convolutions without bias, 53 batch norms' scales and
// shifts, the classifier's weight and bias), 25,557,032 parameters. The traced step's foreach SGD
// launched _foreach_mul_ (depth 1) with grids 180, 320, 8: the first 110 tensors' 180 chunks, then
// 320 more cut by the block limit; each _foreach_add_ (depth 2) 71, 155, 282 (64 tensors a launch);
// _foreach_add (depth 3, out of place) 51, 90, 204, 163 (48 tensors).
TEST(MultiTensorApply, ResNet50sForeachSgdLaunchesTheTracedGrids) {
  const std::vector<double> tensors = dense_parameter_tensors(*zoo_model("resnet-50"));
  ASSERT_EQ(tensors.size(), 161u);
  double sum = 0;
  for (const double n : tensors) sum += n;
  EXPECT_DOUBLE_EQ(sum, 25557032);
  EXPECT_EQ(grids(tensors, 1), (std::vector<int>{180, 320, 8}));
  EXPECT_EQ(grids(tensors, 2), (std::vector<int>{71, 155, 282}));
  EXPECT_EQ(grids(tensors, 3), (std::vector<int>{51, 90, 204, 163}));
}

// One layer's tensors hold its parameters: the model's count less its embeddings and final norm,
// per layer. GPT-3 175B: LayerNorms (scale and shift), fused qkv and biases, 12 tensors; Llama 2
// 70B: RMSNorms, separate q, k, v, no biases, 9; Mixtral 8x7B: 6 before the MoE, the router and
// 8 experts' 3 matrices, 31.
TEST(MultiTensorApply, ATransformerLayersTensorsHoldItsParameters) {
  const std::map<std::string, size_t> tensors_per_layer = {{"gpt3-175b", 12}, {"llama2-70b", 9}, {"mixtral-8x7b", 31}};
  for (const auto& [preset, tensors] : tensors_per_layer) {
    const TransformerConfig m = *find_model_preset(preset);
    const std::vector<double> layer = layer_parameter_tensors(m);
    EXPECT_EQ(layer.size(), tensors) << preset;
    double sum = 0;
    for (const double n : layer) sum += n;
    const double embeddings = double(m.vocab) * m.hidden * (m.tied_embeddings ? 1 : 2) +
                              (m.position_kind() == PositionKind::learned ? double(m.seq_len) * m.hidden : 0);
    const double final_norm = m.norm_kind() == NormKind::layernorm ? 2.0 * m.hidden : m.hidden;
    EXPECT_DOUBLE_EQ(sum * m.layers, double(parameter_count(m)) - embeddings - final_norm) << preset;
  }
}

// The traced LLM steps: Llama-3.2-1B's 146 tensors and GPT 1.3B's 292 took 60 and 64 launches in
// each pass: clip_grad_norm_'s norms and scaling (depth 1) and fused AdamW (depth 4).
TEST(MultiTensorApply, TheTracedLlmStepsTakeTheirLaunchesPerPass) {
  const std::vector<PublishedRun> runs = read_published_runs(
      test::source_dir() / "validation" / "single-gpu-steps.yaml", test::source_dir() / "topologies");
  const std::map<std::string, std::pair<size_t, size_t>> traced = {
      {"h100-llama-3.2-1b-s2048-mb4-eager", {146, 60}}, {"h100-gpt-1.3b-s2048-mb4-eager", {292, 64}}};
  int checked = 0;
  for (const PublishedRun& run : runs) {
    const auto it = traced.find(run.scenario.name);
    if (it == traced.end()) continue;
    const std::vector<double> tensors =
        stage_parameter_tensors(run.scenario, 0, stage_parameters_per_rank(run.scenario, 0).total());
    EXPECT_EQ(tensors.size(), it->second.first) << run.scenario.name;
    EXPECT_EQ(multi_tensor_launches(tensors, 1).size(), it->second.second) << run.scenario.name;
    EXPECT_EQ(multi_tensor_launches(tensors, 4).size(), it->second.second) << run.scenario.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// FSDP1 lays each unit's tensors end to end and gives each rank an equal part. A GPT-like layer of
// hidden 64 (norms and biases 64 each, fused QKV 12,288 and its bias 192, output 4,096, MLP 16,384
// and 16,384 with biases 256 and 64) holds 49,984 elements: over two ranks, rank 0's 24,992 reach
// its first nine tensors (up to 8,096 of the first MLP matrix), rank 1's the other four. The root's
// embedding (128 x 64), positions (16 x 64) and final norm (64, 64), 9,344: rank 0 holds half the
// embedding, rank 1 the rest of it and three more. Rank 0 holds 10 pieces, rank 1 8; Composer's
// per-tensor AdamW steps rank 0's ten, 9 kernels each. FSDP2 shards every tensor: all 16 stepped.
TEST(MultiTensorApply, Fsdp1StepsThePiecesOfTheRankHoldingTheMost) {
  Scenario s;
  s.model = transformer_shape("tiny-gpt", 1, 64, 4, 0, 256, 16, 128, MlpKind::gelu);
  s.training.framework = Framework::pytorch;
  s.training.optimizer = OptimizerKernels::per_tensor;
  s.parallelism.dp = 2;
  s.parallelism.zero_stage = 3;
  s.parallelism.fsdp_version = 1;
  const std::vector<double> rank0{4672, 64, 64, 12288, 192, 4096, 64, 64, 64, 8096};
  EXPECT_EQ(stage_parameter_tensors(s, 0, 29664), rank0);
  const auto adam_kernels = [&] {
    int kernels = 0;
    for (const Operator& op : optimizer_step_ops(s, stage_parameter_tensors(s, 0, 29664)))
      if (std::string(op.name) == "adam") kernels += op.kernels;
    return kernels;
  };
  EXPECT_EQ(adam_kernels(), 90);
  s.parallelism.fsdp_version = 2;
  EXPECT_EQ(stage_parameter_tensors(s, 0, 29664).size(), 16u);
  EXPECT_EQ(adam_kernels(), 144);
}

// A launch takes hypot(14.6 us x its largest chunk's share of 65,536 elements, bytes at 0.884 of
// the H100's 3350 GB/s) + 1.8 us. ResNet-50's last _foreach_mul_ (8 blocks, 3.3 MB): hypot(14.6,
// 1.114) + 1.8 = 16.44 us (16.0 traced); a full clipping scale of Llama's (320 blocks, 167.8 MB):
// hypot(14.6, 56.65) + 1.8 = 60.30 us (61.8 traced). Chunks of one element (the optimizer's step
// counters) cost the start-up alone.
TEST(MultiTensorApply, ALaunchTakesAtLeastTheTimeOneBlockStreamsAChunk) {
  const DeviceSpec& h100 = *find_device("h100-sxm");
  const ComputeModel cm(h100, Precision::bf16, default_efficiencies(h100));
  const auto launch_us = [&](double bytes, double fill) {
    std::vector<Operator> ops;
    add_multi_tensor_pass(ops, "pass", MemoryAccess::multi_tensor, {{1, bytes, fill * kMultiTensorChunkElements}}, 1);
    return cm.time_s(ops.at(0)) * 1e6;
  };
  EXPECT_NEAR(launch_us(3.3e6, 1), std::hypot(14.6, 3.3e6 / (0.884 * 3350e9) * 1e6) + 1.8, 1e-9);
  EXPECT_NEAR(launch_us(3.3e6, 1), 16.44, 0.01);
  EXPECT_NEAR(launch_us(320 * 65536 * 8.0, 1), 60.30, 0.01);
  EXPECT_NEAR(launch_us(146 * 4.0, 1 / 65536.0), 1.8, 0.01);
}

}  // namespace
}  // namespace dtsim

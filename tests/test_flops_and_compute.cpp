// FLOPs of the transformer against Narayanan et al.'s closed forms, and the roofline time of
// single operators against hand arithmetic.
#include <gtest/gtest.h>

#include "device_spec.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"
#include "transformer_ops.hpp"

namespace dtsim {
namespace {

Scenario gpt3_scenario() { return load_scenario(test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml"); }

// 72 * B * s * l * h^2 * (1 + s/(6h) + V/(12*l*h)): model FLOPs per iteration, no recompute.
double megatron_model_flops(const Scenario& s) {
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden,
               V = s.model.vocab;
  return 72 * B * sl * l * h * h * (1 + sl / (6 * h) + V / (12 * l * h));
}

TEST(TransformerFlops, Gpt3MatchesClosedFormForEveryTensorParallelSize) {
  Scenario s = gpt3_scenario();
  for (int tp : {1, 2, 8}) {
    s.parallelism.tp = tp;
    const double expected = megatron_model_flops(s);
    EXPECT_NEAR(model_flops_per_iteration(s), expected, 1e-9 * expected) << "tp " << tp;
  }
}

TEST(TransformerFlops, FullRecomputeMatchesSc21Formula) {
  // 96 * B * s * l * h^2 * (1 + s/(6h) + V/(16*l*h)): one more forward pass of every layer.
  Scenario s = gpt3_scenario();
  s.training.recompute = Recompute::full;
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden,
               V = s.model.vocab;
  const double expected = 96 * B * sl * l * h * h * (1 + sl / (6 * h) + V / (16 * l * h));
  EXPECT_NEAR(hardware_flops_per_iteration(s), expected, 1e-9 * expected);
  EXPECT_NEAR(model_flops_per_iteration(s), megatron_model_flops(s), 1e-9 * expected);
}

TEST(TransformerFlops, SelectiveRecomputeAddsOnlyTheAttentionScoresAndValues) {
  Scenario s = gpt3_scenario();
  s.training.recompute = Recompute::selective;
  // Per layer and sequence: QK^T and (P)V, 2 * 2*s^2*h FLOPs.
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden;
  const double extra = B * l * 4 * sl * sl * h;
  EXPECT_NEAR(hardware_flops_per_iteration(s) - model_flops_per_iteration(s), extra, 1e-9 * extra);
}

TEST(ComputeModel, LargeGemmIsComputeBound) {
  // 8192^3 bf16 GEMM on H100: 2*8192^3 FLOPs at 989.4 TFLOP/s x 0.80 default GEMM efficiency.
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const double n = 8192;
  const Operator op{"gemm", OperatorKind::gemm, 2 * n * n * n, 3 * n * n * 2};
  EXPECT_NEAR(cm.time_s(op), 2 * n * n * n / (989.4e12 * 0.80), 1e-12);
}

TEST(ComputeModel, ElementwiseIsMemoryBound) {
  // 1 GB through HBM on A100 80GB: 2,039 GB/s x 0.85 default memory efficiency.
  const ComputeModel cm(*find_device("a100-80gb-sxm"), Precision::bf16, default_efficiencies());
  const Operator op{"gelu", OperatorKind::elementwise, 0, 1e9};
  EXPECT_NEAR(cm.time_s(op), 1e9 / (2039e9 * 0.85), 1e-12);
}

TEST(ComputeModel, SkinnyGemmFallsBackToBandwidth) {
  // [1 x 8192] x [8192 x 8192] bf16 on H100: 134 MFLOP but 134 MB of weights.
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const double k = 8192;
  const Operator op{"gemv", OperatorKind::gemm, 2 * k * k, (k + k * k + k) * 2};
  EXPECT_NEAR(cm.time_s(op), (k + k * k + k) * 2 / (3350e9 * 0.85), 1e-12);
}

TEST(DeviceSpec, DatasheetPeaks) {
  EXPECT_DOUBLE_EQ(find_device("a100-80gb-sxm")->peak_flops(Precision::bf16), 312e12);
  EXPECT_DOUBLE_EQ(find_device("h100-sxm")->peak_flops(Precision::fp8), 1978.9e12);
  EXPECT_DOUBLE_EQ(find_device("h200-sxm")->hbm_bw_Bps, 4.8e12);
  EXPECT_EQ(find_device("a100-40gb-sxm")->peak_flops(Precision::fp8), 0);
  EXPECT_EQ(find_device("no-such-gpu"), nullptr);
}

}  // namespace
}  // namespace dtsim

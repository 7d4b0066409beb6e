// FLOPs of the transformer against Narayanan et al.'s closed forms, and the roofline time of
// single operators against hand arithmetic.
#include <gtest/gtest.h>

#include <cmath>

#include "device_spec.hpp"
#include "launch_model.hpp"
#include "nccl_channels.hpp"
#include "resolved_scenario.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"
#include "topology_spec.hpp"
#include "transformer_ops.hpp"

namespace dtsim {
namespace {

Scenario gpt3_scenario() { return load_scenario(test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml"); }
// As SC21 and Korthikanti et al. ran it: attention as unfused GEMMs over the whole score matrix.
Scenario megatron_2021_gpt3() {
  Scenario s = gpt3_scenario();
  s.training.attention = AttentionKernel::unfused;
  return s;
}

// The bytes of the operators whose names start with `prefix` (one kind of kernel of a pass).
double bytes_named(const std::string& prefix, const std::vector<Operator>& ops) {
  double sum = 0;
  for (const Operator& op : ops)
    if (std::string(op.name).rfind(prefix, 0) == 0) sum += op.bytes;
  return sum;
}

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
  Scenario s = megatron_2021_gpt3();
  s.training.recompute = Recompute::full;
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden,
               V = s.model.vocab;
  const double expected = 96 * B * sl * l * h * h * (1 + sl / (6 * h) + V / (16 * l * h));
  EXPECT_NEAR(hardware_flops_per_iteration(s), expected, 1e-9 * expected);
  EXPECT_NEAR(model_flops_per_iteration(s), megatron_model_flops(s), 1e-9 * expected);
}

// PyTorch's non-reentrant checkpointing stops before each layer's last matmul, the MLP's down
// projection (2*s*ffn*h FLOPs per sequence and layer); reentrant checkpointing reruns it, as
// Megatron does.
TEST(TransformerFlops, NonReentrantRecomputeLeavesEachLayersLastMatmulOut) {
  Scenario s = megatron_2021_gpt3();
  s.training.recompute = Recompute::full;
  s.training.framework = Framework::pytorch;
  const double reran = hardware_flops_per_iteration(s);
  s.training.recompute_reentrant = true;
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden,
               f = s.model.ffn_hidden;
  const double down = B * l * 2 * sl * f * h;
  EXPECT_NEAR(hardware_flops_per_iteration(s) - reran, down, 1e-9 * down);
  s.training.framework = Framework::megatron;
  s.training.recompute_reentrant = false;
  EXPECT_NEAR(hardware_flops_per_iteration(s) - reran, down, 1e-9 * down);
}

TEST(TransformerFlops, SelectiveRecomputeAddsOnlyTheAttentionScoresAndValues) {
  Scenario s = megatron_2021_gpt3();
  s.training.recompute = Recompute::selective;
  // Per layer and sequence: QK^T and (P)V, 2 * 2*s^2*h FLOPs.
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden;
  const double extra = B * l * 4 * sl * sl * h;
  EXPECT_NEAR(hardware_flops_per_iteration(s) - model_flops_per_iteration(s), extra, 1e-9 * extra);
}

double optimizer_bytes(const std::vector<Operator>& ops) {
  double bytes = 0;
  for (const Operator& op : ops) bytes += op.bytes;
  return bytes;
}

// Adam(W) per parameter: the fused kernel reads grad, weight, m, v and writes weight, m, v (28 B);
// PyTorch's foreach path makes 8 passes (84 B), Composer's per-tensor loop 9 (92 B). Clipping adds
// the norm's read and the scaling (12 B). Megatron's bf16 optimizer copies the fp32 master weights
// into the bf16 ones (4 + 2 B) and zeroes its fp32 gradient buffer (4 B); PyTorch keeps none.
TEST(Optimizer, AdamBytesPerParameterByImplementationAndFramework) {
  Scenario s = gpt3_scenario();
  const double p = 1e9;
  const std::vector<double> tensors{p};
  EXPECT_DOUBLE_EQ(optimizer_bytes(optimizer_step_ops(s, tensors)), (28 + 12 + 6 + 4) * p);
  s.training.optimizer = OptimizerKernels::foreach;
  EXPECT_DOUBLE_EQ(optimizer_bytes(optimizer_step_ops(s, tensors)), (84 + 12 + 6 + 4) * p);
  s.training.framework = Framework::pytorch;
  EXPECT_DOUBLE_EQ(optimizer_bytes(optimizer_step_ops(s, tensors)), (84 + 12) * p);
  s.training.optimizer = OptimizerKernels::per_tensor;
  EXPECT_DOUBLE_EQ(optimizer_bytes(optimizer_step_ops(s, tensors)), (92 + 12) * p);
  // One tensor of 1e9 is 15,259 chunks of 65,536 elements: 48 launches of at most 320 blocks.
  s.training.optimizer = OptimizerKernels::fused;
  int adam_launches = 0;
  for (const Operator& op : optimizer_step_ops(s, tensors))
    if (std::string(op.name) == "adam") adam_launches += op.kernels;
  EXPECT_EQ(adam_launches, 48);
}

// A GEMM's compute time c and memory time m combine as sqrt(c^2 + m^2).
double gemm_time_s(double flops, double bytes, double peak_flops, double efficiency, double bandwidth_Bps) {
  return std::hypot(flops / (peak_flops * efficiency), bytes / (bandwidth_Bps * 0.93));
}

TEST(ComputeModel, LargeGemmIsComputeBound) {
  // 8192^3 bf16 GEMM on H100: 2*8192^3 FLOPs at 989.4 TFLOP/s x 0.80 default GEMM efficiency; its
  // 402.7 MB at 0.93 of 3.35 TB/s add 0.5%.
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const double n = 8192;
  const Operator op{"gemm", OperatorKind::gemm, 2 * n * n * n, 3 * n * n * 2};
  const double compute_s = 2 * n * n * n / (989.4e12 * 0.80);
  EXPECT_NEAR(cm.time_s(op), gemm_time_s(op.flops, op.bytes, 989.4e12, 0.80, 3350e9), 1e-12);
  EXPECT_NEAR(cm.time_s(op) / compute_s, 1.005, 0.001);
  // The H100 SXM's table holds the rate this project measured inside training steps: 0.84.
  const ComputeModel measured(*find_device("h100-sxm"), Precision::bf16, default_efficiencies(*find_device("h100-sxm")));
  EXPECT_NEAR(measured.time_s(op), gemm_time_s(op.flops, op.bytes, 989.4e12, 0.84, 3350e9), 1e-12);
}

// The traced H100 steps' GEMMs (tests/data/h100-2026-11-26): the Llama step's k and v projections
// [8192 x 2048] x [2048 x 512] took 25.1 us (mean of 32), the MLP's down projection [8192 x 8192] x
// [8192 x 2048] 327.8 us, ResNet-50's 1x1 convolutions [50176 x 256] x [256 x 1024] 51.9 us; each
// within 5% of its model time at the measured 0.84.
TEST(ComputeModel, GemmsNearTheRidgeTakeTheirComputeAndMemoryTimeTogether) {
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies(*find_device("h100-sxm")));
  struct Case {
    double m, k, n, measured_s;
  };
  for (const Case& c : {Case{8192, 2048, 512, 25.1e-6}, Case{8192, 8192, 2048, 327.8e-6},
                        Case{50176, 256, 1024, 51.9e-6}}) {
    const Operator op = gemm("gemm", c.m, c.k, c.n, 2);
    EXPECT_NEAR(cm.time_s(op), c.measured_s, 0.05 * c.measured_s) << c.m << " " << c.k << " " << c.n;
    EXPECT_DOUBLE_EQ(cm.time_s(op), gemm_time_s(op.flops, op.bytes, 989.4e12, 0.84, 3350e9));
  }
  // An output narrower than the 128-wide tiles wastes the rest of each: n = 64 computes at half rate.
  EXPECT_DOUBLE_EQ(gemm("narrow", 8192, 8192, 64, 2).tile_utilization, 0.5);
  EXPECT_DOUBLE_EQ(gemm("wide", 8192, 8192, 192, 2).tile_utilization, 1.0);
}

// Meta's 500 W H100 ran a bf16 8192^3 GEMM at 585.23 TFLOP/s (pytorch/FBGEMM pull request 2546).
// dtsim's rate there: the default 0.80 of 989.4 TFLOP/s, times the part's sustained tensor scale.
TEST(ComputeModel, PowerLimitedPartRunsALargeGemmAtItsMeasuredRate) {
  const ComputeModel cm(*find_device("h100-96gb-500w"), Precision::bf16, default_efficiencies());
  const double n = 8192;
  const Operator op{"gemm", OperatorKind::gemm, 2 * n * n * n, 3 * n * n * 2};
  const double tflops = op.flops / cm.time_s(op) / 1e12;
  // Its 402.7 MB at 2.4 TB/s add 1.2% beside the compute.
  EXPECT_NEAR(tflops, 585.23, 0.02 * 585.23);
  EXPECT_NEAR(cm.time_s(op), gemm_time_s(op.flops, op.bytes, 989.4e12, 0.80 * 585.23 / 797.5, 2400e9), 1e-12);
  // Memory-bound work runs at the part's 2.4 TB/s HBM2e, unscaled, plus its start-up time.
  const Operator copy{"gelu", OperatorKind::elementwise, 0, 1e9};
  EXPECT_NEAR(cm.time_s(copy), 1e9 / (2400e9 * 0.93) + kMemoryKernelStartupS, 1e-12);
}

// The same pull request's FP8 8192^3 GEMM with per-row scales ran at 1125.51 TFLOP/s at 500 W,
// where this project's 700 W H100 SXM ran it at 1348.63: the power limit takes 16.5% of the FP8
// rate against 26.6% of the bf16 one. An FP8 GEMM on the 500 W part therefore takes 1348.63 /
// 1125.51 of the 700 W part's time at any shape, and a bf16 one 797.5 / 585.23.
TEST(ComputeModel, PowerLimitSlowsFp8GemmsLessThanBf16Ones) {
  const DeviceSpec& full = *find_device("h100-sxm");
  const DeviceSpec& limited = *find_device("h100-96gb-500w");
  const double n = 8192;
  const Operator op{"gemm", OperatorKind::gemm, 2 * n * n * n, 0};  // compute only: the HBMs differ
  for (Fp8Recipe recipe : {Fp8Recipe::tensorwise, Fp8Recipe::rowwise}) {
    const ComputeModel at_700(full, Precision::fp8, default_efficiencies(full), {}, uniform_access_scales(1), recipe);
    const ComputeModel at_500(limited, Precision::fp8, default_efficiencies(limited), {}, uniform_access_scales(1),
                              recipe);
    EXPECT_NEAR(at_500.time_s(op) / at_700.time_s(op), 1348.63 / 1125.51, 1e-9) << to_string(recipe);
  }
  const ComputeModel bf16_700(full, Precision::bf16, default_efficiencies(full));
  const ComputeModel bf16_500(limited, Precision::bf16, default_efficiencies(limited));
  EXPECT_NEAR(bf16_500.time_s(op) / bf16_700.time_s(op), 797.5 / 585.23, 1e-9);
  // Attention's batched GEMMs stay at the bf16 rate when training in fp8, and so at its scale.
  Operator attention = op;
  attention.kind = OperatorKind::attention_gemm;
  const ComputeModel fp8_700(full, Precision::fp8, default_efficiencies(full));
  const ComputeModel fp8_500(limited, Precision::fp8, default_efficiencies(limited));
  EXPECT_NEAR(fp8_500.time_s(attention) / fp8_700.time_s(attention), 797.5 / 585.23, 1e-9);
}

TEST(ComputeModel, ElementwiseIsMemoryBound) {
  // 1 GB through HBM on A100 80GB: 2,039 GB/s x 0.93 (streaming, measured on an H100), plus the
  // kernel's 1.8 us start-up.
  const ComputeModel cm(*find_device("a100-80gb-sxm"), Precision::bf16, default_efficiencies());
  const Operator op{"gelu", OperatorKind::elementwise, 0, 1e9};
  EXPECT_NEAR(cm.time_s(op), 1e9 / (2039e9 * 0.93) + 1.8e-6, 1e-12);
  // Each access pattern at its measured share: an unrolled bf16 -> fp32 cast 0.57, a permuting copy
  // 0.35, a LayerNorm's input gradient 0.60, BatchNorm's statistics 0.19 and transform 0.64, max
  // pooling's gradient through its argmax 0.15, cuDNN's NCHW <-> NHWC copies 0.54 (on an A100).
  for (const auto& [access, share] : {std::pair{MemoryAccess::unrolled, 0.57}, std::pair{MemoryAccess::strided, 0.35},
                                      std::pair{MemoryAccess::norm_backward, 0.60},
                                      std::pair{MemoryAccess::batch_norm_statistics, 0.19},
                                      std::pair{MemoryAccess::batch_norm_transform, 0.64},
                                      std::pair{MemoryAccess::max_pool_backward, 0.15},
                                      std::pair{MemoryAccess::layout_transpose, 0.54}}) {
    const Operator k = memory_op("k", access, 1e9);
    EXPECT_NEAR(cm.time_s(k), 1e9 / (2039e9 * share) + 1.8e-6, 1e-12) << to_string(access);
  }
}

// The largest tensors measured on the H100, the loss's, ran faster than HBM streams: the fp32 ->
// bf16 cast of Llama's [8192 x 128256] logits gradient, 6.30 GB in 1026 us (1.83 of the peak);
// GPT's 2.47 GB logits cast up in 1306 us (0.57, as smaller ones). In between, linear in log(size).
TEST(ComputeModel, MemoryAccessSharesFollowTheMeasuredSizes) {
  EXPECT_DOUBLE_EQ(memory_access_efficiency(MemoryAccess::streaming, 1e8), 0.93);
  EXPECT_DOUBLE_EQ(memory_access_efficiency(MemoryAccess::streaming, 6.3e9), 1.83);
  EXPECT_DOUBLE_EQ(memory_access_efficiency(MemoryAccess::unrolled, 2.47e9), 0.57);
  const double halfway = std::sqrt(2.47e9 * 6.3e9);
  EXPECT_NEAR(memory_access_efficiency(MemoryAccess::unrolled, halfway), (0.57 + 1.16) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(memory_access_efficiency(MemoryAccess::fill, 1e12), 1.98);
  // Dropout's kernel (it draws random numbers too): 0.86 at 41.9 MB, 0.77 at 1.208 GB.
  EXPECT_DOUBLE_EQ(memory_access_efficiency(MemoryAccess::dropout, 1e7), 0.86);
  EXPECT_NEAR(memory_access_efficiency(MemoryAccess::dropout, std::sqrt(4.194e7 * 1.208e9)), (0.86 + 0.77) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(memory_access_efficiency(MemoryAccess::dropout, 1.208e9), 0.77);
}

// The shares are per kernel: 63 GB streamed by 100 kernels of 630 MB each run at 0.93 of the peak,
// the share of a 630 MB kernel, not at the 1.83 measured for one 6.3 GB kernel (an optimizer's
// per-tensor loop is such an operator).
TEST(ComputeModel, AnOperatorOfManyKernelsStreamsAtItsKernelsSize) {
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  Operator loop = memory_op("adam", MemoryAccess::streaming, 63e9, 100);
  EXPECT_DOUBLE_EQ(cm.memory_efficiency(loop), 0.93);
  EXPECT_NEAR(cm.time_s(loop), 63e9 / (3350e9 * 0.93) + 100 * kMemoryKernelStartupS, 1e-12);
  loop.kernels = 10;  // 6.3 GB each
  EXPECT_DOUBLE_EQ(cm.memory_efficiency(loop), 1.83);
}

TEST(ComputeModel, SkinnyGemmFallsBackToBandwidth) {
  // [1 x 8192] x [8192 x 8192] bf16 on H100: 134 MFLOP but 134 MB of weights: the memory time.
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const double k = 8192;
  const Operator op{"gemv", OperatorKind::gemm, 2 * k * k, (k + k * k + k) * 2};
  const double memory_s = (k + k * k + k) * 2 / (3350e9 * 0.93);
  EXPECT_NEAR(cm.time_s(op), memory_s, 1e-3 * memory_s);
  EXPECT_DOUBLE_EQ(cm.time_s(op), gemm_time_s(op.flops, op.bytes, 989.4e12, 0.80, 3350e9));
}

// A rank shape of one head-dim-128 attention problem set, as FlashAttention-3's benchmarks run it
// (batch x seq = 16k tokens, 16 heads), on `gpu` with `kernel`.
RankShape attention_shape(const char* gpu, AttentionKernel kernel, double seq) {
  RankShape r;
  r.batch = 16384 / seq;
  r.seq = r.kv_seq = seq;
  r.heads = r.kv_heads = 16;
  r.head_dim = 128;
  r.hidden = 2048;
  r.ffn = 8192;
  r.vocab = 32000;
  r.attention = kernel;
  r.device = find_device(gpu);
  return r;
}

Operator find_op(const std::vector<Operator>& ops, const std::string& name) {
  for (const Operator& op : ops)
    if (name == op.name) return op;
  ADD_FAILURE() << "no operator " << name;
  return {};
}

// A GPT layer (MHA, GELU MLP of 4 h) on an H100 with FlashAttention-2, sequences of 2048 tokens.
RankShape gpt_layer_on_h100(double batch, double hidden, double heads) {
  RankShape r = attention_shape("h100-sxm", AttentionKernel::flash2, 2048);
  r.batch = batch;
  r.hidden = hidden;
  r.heads = r.kv_heads = heads;
  r.head_dim = hidden / heads;
  r.ffn = 4 * hidden;
  return r;
}

// TorchTitan's per-op selective AC recomputes every second matmul of a layer. Llama's are wq, wk,
// wv, wo, w1, w3, w2: wk (h x kv), wo (h x h) and w3 (h x ffn) are redone, 2 t h (kv + h + ffn)
// FLOPs; the attention kernel's output is kept; the norms and SwiGLU are recomputed.
TEST(TransformerFlops, PerOpSelectiveRecomputeRedoesEverySecondMatmul) {
  RankShape r = attention_shape("h100-sxm", AttentionKernel::flash2, 4096);
  r.kv_heads = 4;  // GQA: kv = 4 x 128 = 512 of h = 2048
  r.mlp = MlpKind::swiglu;
  const double t = r.tokens(), h = 2048, kv = 512, ffn = 8192;
  double flops = 0;
  bool attention = false, swiglu = false;
  for (const Operator& op : layer_recompute_ops(r, Recompute::selective_op)) {
    flops += op.flops;
    attention |= std::string(op.name) == "fused_attention";
    swiglu |= std::string(op.name) == "swiglu";
  }
  EXPECT_DOUBLE_EQ(flops, 2 * t * h * (kv + h + ffn));
  EXPECT_FALSE(attention);
  EXPECT_TRUE(swiglu);
}

// FP8 training: each GEMM input [m x k] and each output gradient [m x n] is cast to FP8 with a
// transposed copy, 2 + 1 + 1 bytes per element. A GELU layer's GEMM inputs are t x (h, h, h, 4h)
// (QKV, projection, MLP up, MLP down): 7 t h elements; their output gradients t x (3h, h, 4h, h):
// 9 t h elements. bf16 training has no casts.
TEST(Fp8Casts, EveryGemmInputAndOutputGradientIsCastWithItsTranspose) {
  RankShape r = gpt_layer_on_h100(4, 1024, 16);
  const double t = 4 * 2048, h = 1024;
  EXPECT_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), 0);
  r.fp8_gemms = true;
  EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), 4 * 7 * t * h);
  EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_backward_ops(r)), 4 * 9 * t * h);
  // Zero-bubble's split backward casts the gradients once, in the input-gradient pass.
  EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_backward_input_ops(r)), 4 * 9 * t * h);
  EXPECT_EQ(bytes_named("fp8_cast_transpose", layer_backward_weight_ops(r)), 0);
  // Full recompute redoes the forward casts.
  EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_recompute_ops(r, Recompute::full)), 4 * 7 * t * h);
  // Current scaling reads each tensor once more for its amax; MXFP8 writes one E8M0 scale per 32
  // elements with each copy.
  r.fp8_recipe = Fp8Recipe::tensorwise;
  EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), 6 * 7 * t * h);
  r.fp8_recipe = Fp8Recipe::mxfp8;
  EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), (4 + 2.0 / 32) * 7 * t * h);
}

// torchao's Float8 TP (fp8_tp_all_gather): the casts that feed a sequence-parallel all-gather run
// on the rank's t / tp tokens. A Llama layer of h = 1024 on tp 4 (wq, wk, wv, wo, w1, w3, w2; on
// this rank q = 256, kv = 64, ffn f = 512): forward, the attention's and the MLP's inputs once
// each on t/4 x h (instead of three and two casts of t x h), wo's and w2's inputs as before
// (t x q, t x f); backward, wo's and w2's output gradients on t/4 x h, the column linears' as
// before (t x (q + 2 kv + 2 f)). Tensorwise scaling: 6 bytes per element. Eager and compiled alike.
TEST(Fp8Casts, Float8TensorParallelCastsTheShardBeforeTheGather) {
  RankShape r = gpt_layer_on_h100(4, 1024, 4);
  r.head_dim = 64;
  r.kv_heads = 1;
  r.ffn = 512;
  r.mlp = MlpKind::swiglu;
  r.fused_qkv = false;
  r.tp = 4;
  r.sequence_parallel = true;
  r.fp8_gemms = true;
  r.fp8_recipe = Fp8Recipe::tensorwise;
  const double t = 4 * 2048, h = 1024, q = 256, kv = 64, f = 512;
  for (Framework framework : {Framework::pytorch, Framework::torch_compile}) {
    r.framework = framework;
    r.fp8_tp_gather = false;
    EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), 6 * t * (5 * h + q + f));
    EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_backward_ops(r)), 6 * t * (q + 2 * kv + h + 2 * f + h));
    r.fp8_tp_gather = true;
    EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), 6 * t * (2 * h / 4 + q + f));
    EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_backward_ops(r)),
                     6 * t * (q + 2 * kv + 2 * f + 2 * h / 4));
  }
}

// torchao's Float8Linear (tensorwise and rowwise recipes outside Megatron;
// torchao/float8/float8_linear.py, matmul_with_hp_or_float8_args) casts each weight in every
// forward unless FSDP gathered it in FP8, and its backward casts again for the two gradient GEMMs:
// the output gradient, the saved bf16 input and the weight. Compiled with per-tensor scales those
// repeat casts already made and are deduplicated; per-row scales run along the other axis, and
// eager PyTorch deduplicates nothing. Each such cast reads its bf16 tensor twice (amax, cast) and
// writes FP8: 5 B an element. A GELU layer of h = 1024 over t = 8192 tokens: weights 12 h^2,
// inputs 7 t h, output gradients 9 t h. Transformer Engine (Megatron) caches its weights' casts.
TEST(Fp8Casts, Float8LinearCastsWeightsAndRecastsInTheBackwardUnlessCompiledPerTensor) {
  RankShape r = gpt_layer_on_h100(4, 1024, 16);
  r.fp8_gemms = true;
  const double t = 4 * 2048, h = 1024;
  struct Case {
    Framework framework;
    Fp8Recipe recipe;
    bool recasts;
  };
  for (const Case& c : {Case{Framework::torch_compile, Fp8Recipe::tensorwise, false},
                        Case{Framework::torch_compile, Fp8Recipe::rowwise, true},
                        Case{Framework::pytorch, Fp8Recipe::tensorwise, true},
                        Case{Framework::pytorch, Fp8Recipe::rowwise, true}}) {
    r.framework = c.framework;
    r.fp8_recipe = c.recipe;
    for (bool weight_gather : {false, true}) {
      r.fp8_weight_gather = weight_gather;
      const double weights = weight_gather ? 0 : 5 * 12 * h * h;
      EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_weight", layer_forward_ops(r)), weights);
      EXPECT_DOUBLE_EQ(bytes_named("fp8_recast_weight", layer_backward_ops(r)), c.recasts ? weights : 0);
      EXPECT_DOUBLE_EQ(bytes_named("fp8_recast_input", layer_backward_ops(r)), c.recasts ? 5 * 7 * t * h : 0);
      EXPECT_DOUBLE_EQ(bytes_named("fp8_recast_grad", layer_backward_ops(r)), c.recasts ? 5 * 9 * t * h : 0);
      // The casts every recipe makes are unchanged (6 B an element with current scaling).
      EXPECT_DOUBLE_EQ(bytes_named("fp8_cast_transpose", layer_forward_ops(r)), 6 * 7 * t * h);
    }
  }
  r.framework = Framework::megatron;
  r.fp8_recipe = Fp8Recipe::delayed;
  r.fp8_weight_gather = false;
  EXPECT_EQ(bytes_named("fp8_cast_weight", layer_forward_ops(r)), 0);
  EXPECT_EQ(bytes_named("fp8_recast", layer_backward_ops(r)), 0);
}

// flash-attn's varlen API (llm-foundry's MPT flash_attn_fn) around the kernel, a layer of t = 8192
// tokens, q 1024 wide and k, v 256 (4 KV heads of 64), 2-byte elements, int64 row indices (8 t):
// forward q, k and v each gathered (read and write, 2 t w e, and the indices) from where the
// projection wrote them (no split copy), two host syncs each (nonzero's count, the longest row's
// .item()), the output scattered into zeros (t q e, then 2 t q e); backward the output's gradient
// gathered, and each of q's, k's and v's gradients scattered into zeros. Eager and compiled alike.
TEST(VarlenAttention, GathersQkvAndScattersTheOutputBackWithTwoHostSyncsEach) {
  RankShape r = gpt_layer_on_h100(4, 1024, 16);
  r.kv_heads = 4;
  const double t = 4 * 2048, e = 2, q = 1024, kv = 256, qkv = q + 2 * kv;
  for (Framework framework : {Framework::pytorch, Framework::torch_compile}) {
    r.framework = framework;
    r.attention_varlen = false;
    EXPECT_EQ(bytes_named("varlen", layer_forward_ops(r)) + bytes_named("varlen", layer_backward_ops(r)), 0);
    EXPECT_GT(bytes_named("qkv_split", layer_forward_ops(r)), 0);
    r.attention_varlen = true;
    const std::vector<Operator> forward = layer_forward_ops(r), backward = layer_backward_ops(r);
    EXPECT_DOUBLE_EQ(bytes_named("varlen_unpad_gather", forward), 2 * t * qkv * e + 3 * 8 * t);
    EXPECT_DOUBLE_EQ(bytes_named("varlen_pad_zero", forward), t * q * e);
    EXPECT_DOUBLE_EQ(bytes_named("varlen_pad_index_put", forward), 2 * t * q * e + 8 * t);
    EXPECT_EQ(bytes_named("qkv_split", forward), 0);
    EXPECT_EQ(std::count_if(forward.begin(), forward.end(), [](const Operator& op) { return op.host_sync; }), 6);
    EXPECT_DOUBLE_EQ(bytes_named("varlen_pad_grad_gather", backward), 2 * t * q * e + 8 * t);
    EXPECT_DOUBLE_EQ(bytes_named("varlen_unpad_grad_zero", backward), t * qkv * e);
    EXPECT_DOUBLE_EQ(bytes_named("varlen_unpad_grad_scatter", backward), 2 * t * qkv * e + 3 * 8 * t);
  }
}

// The loss over t x V logits of 2 bytes, eager and compiled alike. torch (F.cross_entropy under
// autocast): forward the fp32 copy (2 + 4 B an element), log-softmax (12) keeping its fp32 output
// (4), backward the zeroed gradient (4), log-softmax's backward (12), the cast down (4 + 2): 40 B
// an element, 4 kept, and its backward holds two fp32 gradients (8). fused (flash-attn's
// CrossEntropyLoss): two reads forward (4), a read and a write backward (4); it keeps each token's
// log-sum-exp (4 B a token) and its backward holds the logits' bf16 gradient. Composer's two train
// metrics add two forward-only torch cross-entropies: 2 x 18 B an element, nothing kept.
TEST(CrossEntropy, FusedKernelReadsTheLogitsOnceEachWayAndMetricsAddForwardPasses) {
  RankShape r = gpt_layer_on_h100(4, 1024, 16);
  r.vocab = 50368;
  const double t = 4 * 2048, tv = t * r.vocab;
  const auto sum = [](const std::vector<Operator>& ops, std::initializer_list<const char*> names) {
    double bytes = 0, saved = 0;
    for (const Operator& op : ops)
      for (const char* n : names)
        if (std::string(op.name) == n) bytes += op.bytes, saved += op.saved_bytes;
    return std::pair{bytes, saved};
  };
  for (Framework framework : {Framework::pytorch, Framework::torch_compile}) {
    r.framework = framework;
    r.fused_cross_entropy = false;
    r.loss_metrics = 0;
    EXPECT_DOUBLE_EQ(sum(logits_forward_ops(r), {"logits_upcast", "log_softmax"}).first, 18 * tv);
    EXPECT_DOUBLE_EQ(sum(logits_forward_ops(r), {"log_softmax"}).second, 4 * tv);
    EXPECT_DOUBLE_EQ(sum(logits_backward_ops(r), {"nll_loss_grad_zero", "log_softmax_backward", "logits_grad_cast"}).first,
                     22 * tv);
    EXPECT_DOUBLE_EQ(loss_backward_bytes(r), 8 * tv);
    r.fused_cross_entropy = true;
    EXPECT_DOUBLE_EQ(sum(logits_forward_ops(r), {"cross_entropy_fused"}).first, 4 * tv + 8 * t);
    EXPECT_DOUBLE_EQ(sum(logits_forward_ops(r), {"cross_entropy_fused"}).second, 4 * t);
    EXPECT_DOUBLE_EQ(sum(logits_forward_ops(r), {"logits_upcast", "log_softmax"}).first, 0);
    EXPECT_DOUBLE_EQ(sum(logits_backward_ops(r), {"cross_entropy_fused_backward"}).first, 4 * tv + 8 * t);
    EXPECT_DOUBLE_EQ(sum(logits_backward_ops(r), {"nll_loss_grad_zero", "log_softmax_backward"}).first, 0);
    EXPECT_DOUBLE_EQ(loss_backward_bytes(r), 2 * tv);
    r.loss_metrics = 2;
    const auto metrics = sum(logits_forward_ops(r), {"metric_logits_upcast", "metric_log_softmax"});
    EXPECT_DOUBLE_EQ(metrics.first, 2 * 18 * tv);
    EXPECT_DOUBLE_EQ(metrics.second, 0);
  }
}

TEST(FusedAttention, FlopsAreFlashAttentionsCount) {
  // 4*b*heads*s^2*d forward, halved by the causal mask; backward 2.5x (FlashAttention's
  // benchmark_flash_attention.py convention).
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 8192);
  const double forward = 4.0 * 2 * 16 * 8192 * 8192 * 128 / 2;
  EXPECT_DOUBLE_EQ(fused_attention_flops(r, AttentionPass::forward), forward);
  EXPECT_DOUBLE_EQ(fused_attention_flops(r, AttentionPass::backward), 2.5 * forward);
}

// Measured on the H100 (attention_kernel.cpp): cuDNN, causal, head dim 128, at 2048 tokens the GPT
// step's kernels, 0.480 of the peak forward and 0.357 backward; at 8192 the microbenchmark's, 0.583
// and 0.507; FlashAttention-2 at 2048 0.250 and 0.190.
TEST(FusedAttention, RunsAtTheMeasuredH100Rates) {
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  struct Case {
    AttentionKernel kernel;
    double seq, forward_share, backward_share;
  };
  for (const Case& c : {Case{AttentionKernel::cudnn, 8192, 0.583, 0.507}, Case{AttentionKernel::cudnn, 2048, 0.480, 0.357},
                        Case{AttentionKernel::flash2, 2048, 0.250, 0.190}}) {
    const RankShape r = attention_shape("h100-sxm", c.kernel, c.seq);
    const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
    const Operator bwd = find_op(layer_backward_ops(r), "fused_attention_backward");
    EXPECT_NEAR(cm.time_s(fwd), fwd.flops / (c.forward_share * 989.4e12), 1e-9 * cm.time_s(fwd)) << c.seq;
    EXPECT_NEAR(cm.time_s(bwd), bwd.flops / (c.backward_share * 989.4e12), 1e-9 * cm.time_s(bwd)) << c.seq;
  }
  // Between measured lengths the rate is linear in log2(seq): 3072 lies log2(3072) - 11 = 0.585
  // of the way from 2k (0.480 causal forward) to 4k (0.562).
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 3072);
  const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
  const double share = 0.480 + (std::log2(3072.0) - 11) * (0.562 - 0.480);
  EXPECT_NEAR(cm.time_s(fwd), fwd.flops / (share * 989.4e12), 1e-9 * cm.time_s(fwd));
  // Head dim 64 runs at the Llama step's measured share of head dim 128's: 0.767 forward.
  RankShape narrow = attention_shape("h100-sxm", AttentionKernel::cudnn, 2048);
  narrow.head_dim = 64;
  const Operator narrow_fwd = find_op(layer_forward_ops(narrow), "fused_attention");
  EXPECT_NEAR(cm.time_s(narrow_fwd), narrow_fwd.flops / (0.767 * 0.480 * 989.4e12), 1e-9 * cm.time_s(narrow_fwd));
}

// Below 512 tokens cuDNN's kernels run at the rates of the steps traced on 2026-11-28 (head dim 64,
// no causal mask, helper kernels included): BERT-large's 128 tokens 0.119 of the peak forward and
// 0.089 backward, ViT-B/16's 197 0.183 and 0.116; at 300 tokens, linear in log2 from 197's to the
// curves' 512 point (FlashAttention-3's non-causal forward, 497 of 989.4 TFLOP/s, and the measured
// backward, 0.187, each at head dim 64's share).
TEST(FusedAttention, ShortSequencesRunAtTheTracedEncoderRates) {
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const auto shares = [&](double seq) {
    RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, seq);
    r.head_dim = 64, r.causal = false;
    const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
    const Operator bwd = find_op(layer_backward_ops(r), "fused_attention_backward");
    return std::pair{fwd.flops / (cm.time_s(fwd) * 989.4e12), bwd.flops / (cm.time_s(bwd) * 989.4e12)};
  };
  EXPECT_NEAR(shares(128).first, 0.119, 1e-9);
  EXPECT_NEAR(shares(128).second, 0.089, 1e-9);
  // Shorter ones at 128's rate (at 64 tokens the kernel's bytes bound it instead).
  EXPECT_NEAR(fused_attention_efficiency(AttentionKernel::cudnn, AttentionPass::forward, false, 64, 64,
                                         *find_device("h100-sxm")),
              0.119, 1e-9);
  EXPECT_NEAR(shares(197).first, 0.183, 1e-9);
  EXPECT_NEAR(shares(197).second, 0.116, 1e-9);
  const double t = std::log2(300.0 / 197) / std::log2(512.0 / 197);
  EXPECT_NEAR(shares(300).first, (1 - t) * 0.183 + t * 0.767 * 497 / 989.4, 1e-9);
  EXPECT_NEAR(shares(300).second, (1 - t) * 0.116 + t * 0.792 * 0.187, 1e-9);
}

// A head dim a kernel pads takes the padded dim's time: FlashAttention-2 runs 112 (and 100) on its
// kernel for 128, 80 on the one for 96; the Triton port (flash1) runs 80 and 96 at 128; cuDNN
// runs 112 as it is. Per FLOP the padded kernels reach d / padded of the padded dim's rate.
TEST(FusedAttention, PaddedHeadDimsTakeThePaddedDimsTime) {
  const DeviceSpec& h100 = *find_device("h100-sxm");
  const auto rate = [&](AttentionKernel k, double head_dim) {
    return fused_attention_efficiency(k, AttentionPass::forward, true, 4096, head_dim, h100);
  };
  for (AttentionKernel k : {AttentionKernel::flash2, AttentionKernel::flash1}) {
    EXPECT_NEAR(rate(k, 112), rate(k, 128) * 112 / 128, 1e-12);
    EXPECT_NEAR(rate(k, 100), rate(k, 128) * 100 / 128, 1e-12);
  }
  EXPECT_NEAR(rate(AttentionKernel::flash2, 80), rate(AttentionKernel::flash2, 96) * 80 / 96, 1e-12);
  EXPECT_NEAR(rate(AttentionKernel::flash1, 80), rate(AttentionKernel::flash1, 128) * 80 / 128, 1e-12);
  EXPECT_NEAR(rate(AttentionKernel::flash1, 96), rate(AttentionKernel::flash1, 128) * 96 / 128, 1e-12);
  // cuDNN: between head dims 64 and 128 linear in the head dim, 112 three quarters of the way.
  const double at_64 = rate(AttentionKernel::cudnn, 64), at_128 = rate(AttentionKernel::cudnn, 128);
  EXPECT_NEAR(rate(AttentionKernel::cudnn, 112), at_64 + 0.75 * (at_128 - at_64), 1e-12);
}

TEST(FusedAttention, FlashAttentionV1AtItsPublishedShareOfPeak) {
  // Dao 2023 (FlashAttention-2), abstract: v1 reaches 25-40% of the A100's peak, v2 50-73%, the
  // non-causal forward's rate. The causal forward and the backward keep the share of it that
  // FlashAttention-2 keeps on H100 (FlashAttention-3 paper: 191 of 309 TFLOP/s causal at 512,
  // 335 of 370 at 16k; backward 322 of 370 at 16k).
  const ComputeModel a100(*find_device("a100-80gb-sxm"), Precision::bf16, default_efficiencies());
  for (double seq : {512.0, 16384.0}) {
    const RankShape r = attention_shape("a100-80gb-sxm", AttentionKernel::flash1, seq);
    const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
    const double share = seq == 512 ? 0.25 * 191 / 309 : 0.40 * 335 / 370;
    EXPECT_NEAR(a100.time_s(fwd), fwd.flops / (312e12 * share), 1e-9 * a100.time_s(fwd)) << seq;
  }
  const RankShape long_seq = attention_shape("a100-80gb-sxm", AttentionKernel::flash1, 16384);
  const Operator bwd = find_op(layer_backward_ops(long_seq), "fused_attention_backward");
  EXPECT_NEAR(a100.time_s(bwd), bwd.flops / (312e12 * 0.40 * 322 / 370), 1e-9 * a100.time_s(bwd));
  // H100: FlashAttention-2's measured rate (0.250 of the peak, causal forward at 2k) times v1's A100
  // share relative to v2's at that length (0.31 / 0.60).
  const ComputeModel h100(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::flash1, 2048);
  const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
  EXPECT_NEAR(h100.time_s(fwd), fwd.flops / (0.250 * 989.4e12 * 0.31 / 0.60), 1e-9 * h100.time_s(fwd));
}

TEST(FusedAttention, StaysBf16WhenTheGemmsRunInFp8) {
  // Transformer Engine's FP8 recipe runs the linear layers in FP8 and attention in bf16.
  const ComputeModel bf16(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const ComputeModel fp8(*find_device("h100-sxm"), Precision::fp8, default_efficiencies());
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 4096);
  const Operator attention = find_op(layer_forward_ops(r), "fused_attention");
  EXPECT_DOUBLE_EQ(fp8.time_s(attention), bf16.time_s(attention));
  // The layers' GEMMs compute at the FP8 rate, at the share of it FP8 GEMMs with per-tensor
  // scales reached on the H100 (0.834: the median of 8 shapes against twice the bf16 rate,
  // microbenchmarks.jsonl); their bytes are priced as before.
  const Operator qkv = find_op(layer_forward_ops(r), "qkv_gemm");
  EXPECT_NEAR(fp8.time_s(qkv), gemm_time_s(qkv.flops, qkv.bytes, 1978.9e12, 0.80 * 0.834, 3350e9), 1e-12);
}

TEST(Fp8Gemms, RunAtTheShareMeasuredForTheirScales) {
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 4096);
  const Operator qkv = find_op(layer_forward_ops(r), "qkv_gemm");
  const auto fp8_time = [&](const char* device, Fp8Recipe recipe, const Operator& op) {
    const ComputeModel m(*find_device(device), Precision::fp8, default_efficiencies(), {}, uniform_access_scales(1),
                         recipe);
    return m.time_s(op);
  };
  // Per-row scales (PyTorch's CUTLASS kernel): median 0.804 of twice the bf16 rate.
  EXPECT_NEAR(fp8_time("h100-sxm", Fp8Recipe::rowwise, qkv),
              gemm_time_s(qkv.flops, qkv.bytes, 1978.9e12, 0.80 * 0.804, 3350e9), 1e-12);
  // Transformer Engine's delayed scaling calls the same per-tensor-scaled cuBLASLt GEMM as tensorwise.
  EXPECT_DOUBLE_EQ(fp8_time("h100-sxm", Fp8Recipe::delayed, qkv), fp8_time("h100-sxm", Fp8Recipe::tensorwise, qkv));
  // Compute alone: the H200 is the H100's die (the same shares); a B200 was not measured, so its
  // FP8 GEMM takes the time of half its FLOPs at the bf16 peak (the FP8 peak is twice it).
  Operator compute_only = qkv;
  compute_only.bytes = 0;
  EXPECT_DOUBLE_EQ(fp8_time("h200-sxm", Fp8Recipe::rowwise, compute_only),
                   fp8_time("h100-sxm", Fp8Recipe::rowwise, compute_only));
  Operator half = compute_only;
  half.flops /= 2;
  const ComputeModel b200_bf16(*find_device("b200"), Precision::bf16, default_efficiencies());
  EXPECT_NEAR(fp8_time("b200", Fp8Recipe::rowwise, compute_only), b200_bf16.time_s(half), 1e-15);
}

TEST(Fp8Gemms, TheLmHeadStaysBf16) {
  // Megatron-Core's output layer is not a Transformer Engine module, and TorchTitan's float8
  // converter skips "output": under fp8 the logits GEMM runs at the bf16 rate, the layers' at fp8.
  const ComputeModel bf16(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const ComputeModel fp8(*find_device("h100-sxm"), Precision::fp8, default_efficiencies());
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 4096);
  for (const std::vector<Operator>& ops : {logits_forward_ops(r), logits_backward_ops(r)}) {
    const Operator head = find_op(ops, "logits_gemm");
    EXPECT_GT(head.flops, 0);
    EXPECT_DOUBLE_EQ(fp8.time_s(head), bf16.time_s(head));
  }
  const Operator up = find_op(layer_backward_ops(r), "mlp_up_gemm");
  EXPECT_NEAR(fp8.time_s(up), gemm_time_s(up.flops, up.bytes, 1978.9e12, 0.80 * 0.834, 3350e9), 1e-12);
}

// FlashAttention-2 runs on Ampere or later (its README's requirements): a V100 computes attention
// unfused.
TEST(FusedAttention, AutomaticIsCudnnOnHopperFlashAttention2OnAmpereAndUnfusedBefore) {
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("h100-sxm")), AttentionKernel::cudnn);
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("b200")), AttentionKernel::cudnn);
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("a100-80gb-sxm")),
            AttentionKernel::flash2);
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("v100-sxm2-16gb")),
            AttentionKernel::unfused);
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::unfused, *find_device("h100-sxm")), AttentionKernel::unfused);
}

TEST(FusedAttention, HardwareFlopsDropByTheSkippedCausalHalfButModelFlopsKeepTheConvention) {
  // Unfused per layer and sequence: forward 4s^2h, backward 8s^2h; fused causal: 2s^2h and 5s^2h.
  Scenario unfused = megatron_2021_gpt3();
  unfused.training.recompute = Recompute::none;
  Scenario fused = unfused;
  fused.training.attention = AttentionKernel::flash2;
  const double B = unfused.training.global_batch, sl = unfused.model.seq_len, l = unfused.model.layers,
               h = unfused.model.hidden;
  const double saved = B * l * (12 - 7) * sl * sl * h;
  EXPECT_NEAR(hardware_flops_per_iteration(unfused) - hardware_flops_per_iteration(fused), saved, 1e-9 * saved);
  EXPECT_DOUBLE_EQ(model_flops_per_iteration(fused), model_flops_per_iteration(unfused));
}

TEST(DeviceSpec, DatasheetPeaks) {
  EXPECT_DOUBLE_EQ(find_device("a100-80gb-sxm")->peak_flops(Precision::bf16), 312e12);
  EXPECT_DOUBLE_EQ(find_device("h100-sxm")->peak_flops(Precision::fp8), 1978.9e12);
  EXPECT_DOUBLE_EQ(find_device("h200-sxm")->hbm_bw_Bps, 4.8e12);
  EXPECT_EQ(find_device("a100-40gb-sxm")->peak_flops(Precision::fp8), 0);
  EXPECT_EQ(find_device("no-such-gpu"), nullptr);
}

// Ten kernels of 1.8 us each (empty element-wise kernels: their start-up only) launched by an
// eager host every 15.2 us: the GPU starts each when the host has launched it, at 15.2, 30.4, ...,
// 152 us, and the pass ends at 152 + 1.8 us. The launch share is the rest: 153.8 - 10 x 1.8 us.
// As one CUDA graph (no host cost) only the 2.0 us gaps between activities remain.
TEST(KernelLaunch, SmallKernelsWaitForTheHostUnlessLaunchedAsACudaGraph) {
  const ComputeModel compute(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const std::vector<Operator> tiny(10, memory_op("tiny", MemoryAccess::streaming, 0));
  const KernelClassTimes eager = launched_pass(tiny, compute, kEagerLaunchHostS);
  EXPECT_NEAR(eager[OperatorKind::elementwise], 10 * 1.8e-6, 1e-15);
  EXPECT_NEAR(eager.total_s(), 10 * 15.2e-6 + 1.8e-6, 1e-12);
  EXPECT_NEAR(eager.launch_s, 10 * 15.2e-6 + 1.8e-6 - 10 * 1.8e-6, 1e-12);
  const KernelClassTimes graphed = launched_pass(tiny, compute, 0);
  EXPECT_NEAR(graphed.launch_s, 10 * 2.0e-6, 1e-15);
  // Three layers of them: the host never gets ahead; each layer after the first starts with the
  // host 1.8 us ahead (the last kernel's length) and waits that much less.
  EXPECT_NEAR(launched_pass(tiny, compute, kEagerLaunchHostS, 3).launch_s, 3 * eager.launch_s - 2 * 1.8e-6, 1e-12);
}

// A host sync (.item()) after a long kernel: the host, 30.4 us into its launches, waits until the
// GPU finishes the synced kernel at 120.8 us; the two tiny kernels after it then start when the
// host has launched them (136.0 and 151.2 us), 13.2 and 11.4 us after the GPU could have. Without
// the sync the host is far ahead and only their gaps remain: the sync costs 24.6 us.
TEST(KernelLaunch, AHostSyncLeavesTheGpuWaitingForTheNextLaunches) {
  const ComputeModel compute(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const Operator long_kernel = memory_op("long", MemoryAccess::streaming, 3350e9 * 0.93 * 100e-6);  // 101.8 us
  const Operator tiny = memory_op("tiny", MemoryAccess::streaming, 0);                                // 1.8 us
  Operator synced = tiny;
  synced.host_sync = true;
  // The first kernel waits 15.2 - 2.0 us for its launch; four gaps of 2.0 us.
  EXPECT_NEAR(launched_pass({long_kernel, tiny, tiny, tiny}, compute, kEagerLaunchHostS).launch_s,
              4 * 2.0e-6 + 13.2e-6, 1e-12);
  EXPECT_NEAR(launched_pass({long_kernel, synced, tiny, tiny}, compute, kEagerLaunchHostS).launch_s,
              4 * 2.0e-6 + 13.2e-6 + 13.2e-6 + 11.4e-6, 1e-12);
}

// A large model's kernels outlast their launches: after the first kernel only the gaps remain.
TEST(KernelLaunch, LongKernelsHideTheirLaunches) {
  const ComputeModel compute(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const std::vector<Operator> ops(10, memory_op("long", MemoryAccess::streaming, 3350e9 * 0.93 * 100e-6));
  // The first waits 15.2 - 2.0 us for its launch; each kernel lasts 101.8 us, longer than a launch.
  EXPECT_NEAR(launched_pass(ops, compute, kEagerLaunchHostS).launch_s, 10 * 2.0e-6 + (15.2e-6 - 2.0e-6), 1e-12);
  EXPECT_NEAR(launched_pass(ops, compute, kEagerLaunchHostS, 4).launch_s, 40 * 2.0e-6 + (15.2e-6 - 2.0e-6), 1e-12);
}

// NCCL's channels: 2 where GPUs meet over PCIe only (one ring, doubled), the H100 trace's 24
// with NVLink; each channel's CTA holds one SM of the whitepapers' counts, at most all of them.
TEST(DeviceSpec, CollectiveKernelsHoldTheirCtasShareOfTheSms) {
  const auto channels = [](const char* topology) {
    return nccl_collective_channels(load_topology(test::source_dir() / "topologies" / topology).node);
  };
  EXPECT_EQ(channels("pcie-gpu-server-ethernet.yaml"), 2);
  EXPECT_EQ(channels("dgx-h100-ndr-fattree.yaml"), 24);
  EXPECT_EQ(channels("dgx1-v100-edr-fattree.yaml"), 24);
  EXPECT_DOUBLE_EQ(find_device("a100-80gb-sxm")->collective_sm_share(24), 24.0 / 108);
  EXPECT_DOUBLE_EQ(find_device("h100-sxm")->collective_sm_share(24), 24.0 / 132);
  EXPECT_DOUBLE_EQ(find_device("p100-pcie-16gb")->collective_sm_share(2), 2.0 / 56);
  EXPECT_DOUBLE_EQ(find_device("k80")->collective_sm_share(2), 2.0 / 13);
  EXPECT_DOUBLE_EQ(find_device("k80")->collective_sm_share(24), 1.0);  // 13 SMs
}

}  // namespace
}  // namespace dtsim

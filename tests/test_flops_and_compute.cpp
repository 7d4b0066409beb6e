// FLOPs of the transformer against Narayanan et al.'s closed forms, and the roofline time of
// single operators against hand arithmetic.
#include <gtest/gtest.h>

#include <cmath>

#include "device_spec.hpp"
#include "gemm_shape.hpp"
#include "kernel_launch.hpp"
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

TEST(TransformerFlops, SelectiveRecomputeAddsOnlyTheAttentionScoresAndValues) {
  Scenario s = megatron_2021_gpt3();
  s.training.recompute = Recompute::selective;
  // Per layer and sequence: QK^T and (P)V, 2 * 2*s^2*h FLOPs.
  const double B = s.training.global_batch, sl = s.model.seq_len, l = s.model.layers, h = s.model.hidden;
  const double extra = B * l * 4 * sl * sl * h;
  EXPECT_NEAR(hardware_flops_per_iteration(s) - model_flops_per_iteration(s), extra, 1e-9 * extra);
}

// Adam(W) per parameter: the fused kernel reads grad, weight, m, v and writes weight, m, v (28 B);
// PyTorch's foreach path makes 8 passes (84 B), Composer's per-tensor loop 9 (92 B). Clipping adds
// the norm's read and the scaling (12 B); bf16 training writes its 2-byte working copy.
TEST(Optimizer, AdamBytesPerParameterByImplementation) {
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Precision::bf16, OptimizerKernels::fused), 28 + 12 + 2);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Precision::bf16, OptimizerKernels::foreach), 84 + 12 + 2);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Precision::bf16, OptimizerKernels::per_tensor), 92 + 12 + 2);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Precision::fp32, OptimizerKernels::fused), 28 + 12);
}

TEST(ComputeModel, LargeGemmIsComputeBound) {
  // 8192^3 bf16 GEMM on H100: 2*8192^3 FLOPs at 989.4 TFLOP/s x 0.80 default GEMM efficiency.
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const double n = 8192;
  const Operator op{"gemm", OperatorKind::gemm, 2 * n * n * n, 3 * n * n * 2};
  EXPECT_NEAR(cm.time_s(op), 2 * n * n * n / (989.4e12 * 0.80), 1e-12);
}

// Meta's 500 W H100 ran a bf16 8192^3 GEMM at 585.23 TFLOP/s (pytorch/FBGEMM pull request 2546).
// dtsim's rate there: the default 0.80 of 989.4 TFLOP/s, times the part's sustained tensor scale.
TEST(ComputeModel, PowerLimitedPartRunsALargeGemmAtItsMeasuredRate) {
  const ComputeModel cm(*find_device("h100-96gb-500w"), Precision::bf16, default_efficiencies());
  const double n = 8192;
  const Operator op{"gemm", OperatorKind::gemm, 2 * n * n * n, 3 * n * n * 2};
  const double tflops = op.flops / cm.time_s(op) / 1e12;
  EXPECT_NEAR(tflops, 989.4 * 0.80 * 585.23 / 797.5, 1e-9);
  EXPECT_NEAR(tflops, 585.23, 0.01 * 585.23);
  // Memory-bound work runs at the part's 2.4 TB/s HBM2e, unscaled.
  const Operator copy{"gelu", OperatorKind::elementwise, 0, 1e9};
  EXPECT_NEAR(cm.time_s(copy), 1e9 / (2400e9 * 0.85), 1e-12);
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

// OpenXLA's H100 table (gemm_shape.cpp): bf16 TFLOP/s of a batch-4, 4096 x 4096 GEMM is 793.1 at
// k = 4096 (the reference), 503.9 at k = 256 and 619.9 at k = 512; one 256^3 GEMM runs at 6.5.
TEST(GemmShape, RatesRelativeToTheLargestMeasuredGemm) {
  EXPECT_DOUBLE_EQ(gemm_shape_factor(16384, 4096, 4096), 1.0);
  EXPECT_NEAR(gemm_shape_factor(16384, 4096, 256), 503.9 / 793.1, 1e-12);
  EXPECT_NEAR(gemm_shape_factor(256, 256, 256), 6.5 / 793.1, 1e-12);
  // Linear in log2(k) between the measured sizes: k = 362 is halfway from 256 to 512.
  EXPECT_NEAR(gemm_shape_factor(16384, 4096, std::sqrt(256.0 * 512)), (503.9 + 619.9) / 2 / 793.1, 1e-9);
  // Beyond the table: the edge values, so a large GEMM runs at the default GEMM efficiency.
  EXPECT_DOUBLE_EQ(gemm_shape_factor(65536, 12288, 49152), 1.0);
  EXPECT_NEAR(gemm_shape_factor(65536, 8192, 256), 503.9 / 793.1, 1e-12);
}

TEST(GemmShape, ScalesTheDefaultGemmEfficiencyOfALayersGemms) {
  // A 125M-parameter GPT (hidden 768) at 16384 tokens per micro-batch: the QKV GEMM's k = 768 lies
  // between the measured 512 and 1024; it runs at 0.80 x its shape factor of the bf16 peak.
  const RankShape r = gpt_layer_on_h100(8, 768, 12);
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const Operator qkv = find_op(layer_forward_ops(r), "qkv_gemm");
  const double factor = gemm_shape_factor(16384, 3 * 768, 768);
  EXPECT_LT(factor, 0.9);
  EXPECT_NEAR(cm.time_s(qkv), 2.0 * 16384 * 768 * 2304 / (989.4e12 * 0.80 * factor), 1e-12);
  // Backward: dgrad [16384 x 2304] x [2304 x 768], then wgrad [768 x 16384] x [16384 x 2304].
  const Operator bwd = find_op(layer_backward_ops(r), "qkv_gemm");
  const double dgrad = gemm_shape_factor(16384, 768, 2304), wgrad = gemm_shape_factor(768, 2304, 16384);
  EXPECT_NEAR(cm.time_s(bwd), qkv.flops / (989.4e12 * 0.80) * (1 / dgrad + 1 / wgrad), 1e-12);
}

// FP8 training: each GEMM input [m x k] and each output gradient [m x n] is cast to FP8 with a
// transposed copy, 2 + 1 + 1 bytes per element. A GELU layer's GEMM inputs are t x (h, h, h, 4h)
// (QKV, projection, MLP up, MLP down): 7 t h elements; their output gradients t x (3h, h, 4h, h):
// 9 t h elements. bf16 training has no casts.
TEST(Fp8Casts, EveryGemmInputAndOutputGradientIsCastWithItsTranspose) {
  RankShape r = gpt_layer_on_h100(4, 1024, 16);
  const double t = 4 * 2048, h = 1024;
  auto cast_bytes = [](const std::vector<Operator>& ops) {
    double bytes = 0;
    for (const Operator& op : ops)
      if (std::string(op.name).rfind("fp8_cast_transpose", 0) == 0) bytes += op.bytes;
    return bytes;
  };
  EXPECT_EQ(cast_bytes(layer_forward_ops(r)), 0);
  r.fp8_gemms = true;
  EXPECT_DOUBLE_EQ(cast_bytes(layer_forward_ops(r)), 4 * 7 * t * h);
  EXPECT_DOUBLE_EQ(cast_bytes(layer_backward_ops(r)), 4 * 9 * t * h);
  // Zero-bubble's split backward casts the gradients once, in the input-gradient pass.
  EXPECT_DOUBLE_EQ(cast_bytes(layer_backward_input_ops(r)), 4 * 9 * t * h);
  EXPECT_EQ(cast_bytes(layer_backward_weight_ops(r)), 0);
  // Full recompute redoes the forward casts.
  EXPECT_DOUBLE_EQ(cast_bytes(layer_recompute_ops(r, Recompute::full)), 4 * 7 * t * h);
  // Current scaling reads each tensor once more for its amax; MXFP8 writes one E8M0 scale per 32
  // elements with each copy.
  r.fp8_recipe = Fp8Recipe::tensorwise;
  EXPECT_DOUBLE_EQ(cast_bytes(layer_forward_ops(r)), 6 * 7 * t * h);
  r.fp8_recipe = Fp8Recipe::mxfp8;
  EXPECT_DOUBLE_EQ(cast_bytes(layer_forward_ops(r)), (4 + 2.0 / 32) * 7 * t * h);
}

TEST(FusedAttention, FlopsAreFlashAttentionsCount) {
  // 4*b*heads*s^2*d forward, halved by the causal mask; backward 2.5x (FlashAttention's
  // benchmark_flash_attention.py convention).
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 8192);
  const double forward = 4.0 * 2 * 16 * 8192 * 8192 * 128 / 2;
  EXPECT_DOUBLE_EQ(fused_attention_flops(r, AttentionPass::forward), forward);
  EXPECT_DOUBLE_EQ(fused_attention_flops(r, AttentionPass::backward), 2.5 * forward);
}

TEST(FusedAttention, RunsAtThePublishedH100Rates) {
  // Shah et al. 2024 (FlashAttention-3), H100 SXM5, head dim 128: causal forward at 8k, cuDNN
  // 529 TFLOP/s, FlashAttention-2 333; backward at 2k, cuDNN 465, FlashAttention-2 291.
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  struct Case {
    AttentionKernel kernel;
    double seq, forward_tflops, backward_tflops;
  };
  for (const Case& c : {Case{AttentionKernel::cudnn, 8192, 529, 518}, Case{AttentionKernel::flash2, 8192, 333, 318},
                        Case{AttentionKernel::cudnn, 2048, 484, 465}, Case{AttentionKernel::flash2, 2048, 298, 291}}) {
    const RankShape r = attention_shape("h100-sxm", c.kernel, c.seq);
    const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
    const Operator bwd = find_op(layer_backward_ops(r), "fused_attention_backward");
    EXPECT_NEAR(cm.time_s(fwd), fwd.flops / (c.forward_tflops * 1e12), 1e-9 * cm.time_s(fwd)) << c.seq;
    EXPECT_NEAR(cm.time_s(bwd), bwd.flops / (c.backward_tflops * 1e12), 1e-9 * cm.time_s(bwd)) << c.seq;
  }
  // Between published lengths the rate is linear in log2(seq): 3072 lies log2(3072) - 11 = 0.585
  // of the way from 2k (484 TFLOP/s causal forward) to 4k (518).
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 3072);
  const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
  const double tflops = 484 + (std::log2(3072.0) - 11) * (518 - 484);
  EXPECT_NEAR(cm.time_s(fwd), fwd.flops / (tflops * 1e12), 1e-9 * cm.time_s(fwd));
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
  // H100: FlashAttention-2's published rate (298 TFLOP/s causal forward at 2k) times v1's A100
  // share relative to v2's at that length (0.31 / 0.60).
  const ComputeModel h100(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::flash1, 2048);
  const Operator fwd = find_op(layer_forward_ops(r), "fused_attention");
  EXPECT_NEAR(h100.time_s(fwd), fwd.flops / (298e12 * 0.31 / 0.60), 1e-9 * h100.time_s(fwd));
}

TEST(FusedAttention, StaysBf16WhenTheGemmsRunInFp8) {
  // Transformer Engine's FP8 recipe runs the linear layers in FP8 and attention in bf16.
  const ComputeModel bf16(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const ComputeModel fp8(*find_device("h100-sxm"), Precision::fp8, default_efficiencies());
  const RankShape r = attention_shape("h100-sxm", AttentionKernel::cudnn, 4096);
  const Operator attention = find_op(layer_forward_ops(r), "fused_attention");
  EXPECT_DOUBLE_EQ(fp8.time_s(attention), bf16.time_s(attention));
  const Operator qkv = find_op(layer_forward_ops(r), "qkv_gemm");
  EXPECT_NEAR(fp8.time_s(qkv), bf16.time_s(qkv) * 989.4 / 1978.9, 1e-12);
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
  EXPECT_NEAR(fp8.time_s(up), bf16.time_s(up) * 989.4 / 1978.9, 1e-12);
}

TEST(FusedAttention, AutomaticIsCudnnOnHopperAndFlashAttention2OnAmpere) {
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("h100-sxm")), AttentionKernel::cudnn);
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("b200")), AttentionKernel::cudnn);
  EXPECT_EQ(resolve_attention_kernel(AttentionKernel::automatic, *find_device("a100-80gb-sxm")),
            AttentionKernel::flash2);
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

// A model so small that every kernel is shorter than its launch: eagerly, a forward pass takes
// its kernels x 5 us of host time. Per layer 10 kernels (two norms, four GEMMs, fused attention,
// GELU, two residual adds), the embedding 1, the LM head 3 (norm, GEMM, cross-entropy): with 2
// layers 24 kernels, 120 us. The backward launches 2 GEMMs (dgrad, wgrad) per forward GEMM and
// one kernel per other operator: 14 per layer, 1 for the embedding, 4 for the LM head: 33
// kernels, 165 us. As one CUDA graph each pass takes its GPU time only.
TEST(KernelLaunch, SmallKernelsWaitForTheHostUnlessLaunchedAsACudaGraph) {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  s.model.layers = 2, s.model.hidden = 64, s.model.heads = 1, s.model.kv_heads = 1, s.model.ffn_hidden = 256;
  s.model.seq_len = 128, s.model.vocab = 128;
  s.training.micro_batch = 1;
  const ComputeModel compute = resolve_scenario(s).compute;
  const WorkloadInputs eager = workload_inputs(s, compute);
  EXPECT_NEAR(eager.forward[0].compute_s, 24 * kEagerKernelLaunchHostS, 1e-12);
  EXPECT_NEAR(eager.backward[0].compute_s, 33 * kEagerKernelLaunchHostS, 1e-12);

  s.training.cuda_graphs = true;
  const WorkloadInputs graphed = workload_inputs(s, compute);
  const RankShape r = rank_shape(s);
  const double gpu_forward_s = 2 * sum_time_s(layer_forward_ops(r), compute) +
                               sum_time_s(embedding_forward_ops(r), compute) +
                               sum_time_s(logits_forward_ops(r), compute);
  EXPECT_NEAR(graphed.forward[0].compute_s, gpu_forward_s, 1e-15);
  EXPECT_LT(gpu_forward_s, 0.5 * eager.forward[0].compute_s);
}

// A large model's kernels outlast their launches: the launches hide behind them.
TEST(KernelLaunch, LongKernelsHideTheirLaunches) {
  const Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  const ComputeModel compute = resolve_scenario(s).compute;
  const RankShape r = rank_shape(s);
  const double gpu_layer_s = sum_time_s(layer_forward_ops(r), compute);
  EXPECT_GT(gpu_layer_s, 10 * kEagerKernelLaunchHostS);
  EXPECT_DOUBLE_EQ(launched_pass_s(gpu_layer_s, 10, false), gpu_layer_s);
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

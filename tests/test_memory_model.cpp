// Per-GPU memory: activations against Korthikanti et al. 2022 (Sec. 4) and their generalisation
// derived tensor by tensor, model states under each ZeRO stage, micro-batches in flight per
// pipeline schedule, and out-of-memory verdicts (library and `dtsim run`).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "memory_model.hpp"
#include "report.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

// Equal up to rounding: the code sums the same terms in another order.
void expect_close(double actual, double expected) { EXPECT_NEAR(actual, expected, 1e-12 * std::abs(expected)); }

Scenario gpt3_175b(int tp, int pp, int dp, Recompute recompute, bool sequence_parallel) {
  Scenario s;
  s.name = "gpt3-175b";
  s.model = *find_model_preset("gpt3-175b");
  s.training.global_batch = 64 * dp;
  s.training.micro_batch = 1;
  s.training.recompute = recompute;
  s.parallelism.tp = tp;
  s.parallelism.pp = pp;
  s.parallelism.dp = dp;
  s.parallelism.sequence_parallel = sequence_parallel;
  s.cluster.gpu = "a100-80gb-sxm";
  s.training.attention = AttentionKernel::unfused;  // Korthikanti et al.'s Megatron-LM: scores in HBM
  return s;
}

// GPT-3 175B, s = 2048, b = 1, h = 12288, a = 96, t = 8: Korthikanti et al., Sec. 4.1 and Table 2.
constexpr double s_ = 2048, b_ = 1, h_ = 12288, a_ = 96, t_ = 8;
constexpr double sbh = s_ * b_ * h_;

TEST(MemoryActivations, Gpt3WithoutParallelismIsSbh34Plus5asOverH) {
  const Scenario s = gpt3_175b(1, 1, 1, Recompute::none, false);
  expect_close(activation_bytes_per_layer(s), sbh * (34 + 5 * a_ * s_ / h_));
}

TEST(MemoryActivations, FusedAttentionKeepsOnlyTheLogSumExpOfEachQuery) {
  // FlashAttention / cuDNN: no score matrix, 4 B (fp32) of log-sum-exp per query and head.
  Scenario s = gpt3_175b(1, 1, 1, Recompute::none, false);
  for (AttentionKernel k : {AttentionKernel::flash2, AttentionKernel::cudnn}) {
    s.training.attention = k;
    expect_close(activation_bytes_per_layer(s), 34 * sbh + 4 * a_ * s_ * b_);
  }
  s.training.attention = AttentionKernel::automatic;  // A100: FlashAttention-2
  expect_close(activation_bytes_per_layer(s), 34 * sbh + 4 * a_ * s_ * b_);
}

TEST(MemoryActivations, Gpt3TensorParallelMatchesKorthikantiInEveryMode) {
  struct Case {
    Recompute recompute;
    bool sp;
    double expected_bytes;
  };
  const Case cases[] = {
      {Recompute::none, false, sbh * (10 + 24 / t_ + 5 * a_ * s_ / (h_ * t_))},
      {Recompute::none, true, sbh * (34 + 5 * a_ * s_ / h_) / t_},
      {Recompute::selective, false, sbh * (10 + 24 / t_)},
      {Recompute::selective, true, 34 * sbh / t_},
      {Recompute::full, false, 2 * sbh},
      {Recompute::full, true, 2 * sbh / t_},
  };
  for (const Case& c : cases) {
    const Scenario s = gpt3_175b(8, 1, 1, c.recompute, c.sp);
    SCOPED_TRACE(std::string(to_string(c.recompute)) + (c.sp ? " with SP" : " without SP"));
    expect_close(activation_bytes_per_layer(s), c.expected_bytes);
  }
}

TEST(MemoryActivations, Fp32DoublesTheTensorsButNotTheOneByteMasks) {
  Scenario s = gpt3_175b(1, 1, 1, Recompute::selective, false);
  s.training.precision = Precision::fp32;
  // Replicated: 2 layernorm inputs + 2 GEMM inputs at 4 B, 2 masks at 1 B = 18sbh; Q, K, V,
  // projection input 4 x 4sbh; GeLU input and output 2 x 4 x 4sbh.
  expect_close(activation_bytes_per_layer(s), sbh * (18 + 16 + 32));
  s.training.recompute = Recompute::none;  // + softmax and dropout output (4 B), mask (1 B) per score
  expect_close(activation_bytes_per_layer(s), sbh * (18 + 16 + 32) + 9 * a_ * s_ * s_ * b_);
}

TEST(MemoryActivations, ContextParallelSplitsTheSequenceButNotTheKeysAttendedTo) {
  Scenario s = gpt3_175b(1, 1, 1, Recompute::none, false);
  s.parallelism.cp = 2;
  // Each GPU keeps s/2 tokens; its s/2 queries score against all s keys.
  expect_close(activation_bytes_per_layer(s), 34 * sbh / 2 + 5 * a_ * (s_ / 2) * s_ * b_);
}

TEST(MemoryActivations, GroupedQueryAttentionAndSwiGluTensorByTensor) {
  Scenario s;
  s.model = *find_model_preset("llama2-70b");  // h 8192, 64 heads, 8 KV heads, ffn 28672, s 4096
  s.training.recompute = Recompute::selective;
  s.parallelism.tp = 8;
  const double lsbh = 4096.0 * 8192;
  // Replicated 10sbh as for GPT. Split over 8 ranks: Q and K 2(h + h/8), V 2h/8, projection
  // input 2h, SwiGLU gate, up and product 3 x 2 x 28672 per token.
  const double split = 2 * (1 + 1.0 / 8) + 2.0 / 8 + 2 + 3 * 2 * 28672.0 / 8192;
  expect_close(activation_bytes_per_layer(s), lsbh * (10 + split / 8));
}

// TorchTitan's per-op selective AC keeps the layer input, wq's and wv's outputs, the attention
// output and its fp32 log-sum-exp, w1's output and w2's (the 7th matmul): per token, without TP,
// 2 (h + h + h/8 + h + ffn + h) bytes, plus 4 bytes per query row and head.
TEST(MemoryActivations, PerOpSelectiveKeepsTheOddMatmulsOutputs) {
  Scenario s;
  s.model = *find_model_preset("llama2-70b");  // h 8192, 64 heads, 8 KV heads, ffn 28672, s 4096
  s.training.recompute = Recompute::selective_op;
  const double lsbh = 4096.0 * 8192;
  const double per_token_h = 2 * (4 + 1.0 / 8 + 28672.0 / 8192);
  expect_close(activation_bytes_per_layer(s), lsbh * per_token_h + 4 * 4096.0 * 64);
}

TEST(MemoryActivations, MixtureOfExpertsScalesTheMlpByRoutedTokens) {
  Scenario s;
  s.model = *find_model_preset("mixtral-8x7b");  // h 4096, 32 heads, 8 KV heads, 8 experts, top-2
  s.model.moe.capacity_factor = 1.25;
  s.training.recompute = Recompute::selective;
  const double sb = 4096.0, h = 4096, routed = 2 * 1.25;  // token copies per token
  // Attention: 5sbh replicated + Q, K 2(h + h/4), V 2h/4, projection input 2h. MLP: layernorm
  // input, router input, mask 5sbh; dispatched tokens 2h per copy; fp32 router probabilities
  // 4 x 8 experts; SwiGLU 3 x 2 x 14336 per copy.
  const double expected = sb * h * (5 + 2 * (1 + 0.25) + 0.5 + 2) + sb * h * 5 + sb * routed * 2 * h + sb * 4 * 8 +
                          sb * routed * 3 * 2 * 14336;
  expect_close(activation_bytes_per_layer(s), expected);
}

// A small GPT on one pipeline stage: P = 4 layers x 12h^2 + vocab x h + learned positions s x h.
Scenario small_gpt(int dp, int zero_stage, Precision precision) {
  Scenario s;
  s.model = transformer_shape("small", 4, 1024, 16, 16, 4096, 512, 1000, MlpKind::gelu);
  s.training.global_batch = dp;
  s.training.precision = precision;
  s.parallelism.dp = dp;
  s.parallelism.zero_stage = zero_stage;
  s.cluster.gpu = "h100-sxm";
  return s;
}
constexpr double kH = 1024, kLayerParams = 12 * kH * kH;
constexpr double kParams = 4 * kLayerParams + 1000 * kH + 512 * kH;

TEST(MemoryModelStates, Bf16IsTwoPlusFourPlusTwelveBytesPerParameterUnsharded) {
  const MemoryBreakdown m = memory_of_stage(small_gpt(8, 0, Precision::bf16), 0);
  expect_close(m.weights_bytes, 2 * kParams);
  expect_close(m.gradients_bytes, 4 * kParams);
  expect_close(m.optimizer_bytes, 12 * kParams);
}

TEST(MemoryModelStates, EachZeroStageShardsOneMoreStateOverTheReplicas) {
  const double n = 8, bucket_bytes = 25e6;  // default 25 MB gradient bucket, kept whole
  const MemoryBreakdown z1 = memory_of_stage(small_gpt(8, 1, Precision::bf16), 0);
  expect_close(z1.weights_bytes + z1.gradients_bytes + z1.optimizer_bytes, (2 + 4 + 12 / n) * kParams);
  const MemoryBreakdown z2 = memory_of_stage(small_gpt(8, 2, Precision::bf16), 0);
  expect_close(z2.weights_bytes + z2.gradients_bytes + z2.optimizer_bytes,
                   (2 + (4 + 12) / n) * kParams + bucket_bytes);
  const MemoryBreakdown z3 = memory_of_stage(small_gpt(8, 3, Precision::bf16), 0);
  const double working_copy_bytes = 2 * kLayerParams * 2;  // two gathered layers in bf16
  expect_close(z3.weights_bytes, 2 * kParams / n + working_copy_bytes);
  expect_close(z3.weights_bytes + z3.gradients_bytes + z3.optimizer_bytes,
                   (2 + 4 + 12) / n * kParams + working_copy_bytes + bucket_bytes);
}

TEST(MemoryModelStates, Fp32AndFp16) {
  const MemoryBreakdown fp32 = memory_of_stage(small_gpt(1, 0, Precision::fp32), 0);
  expect_close(fp32.weights_bytes + fp32.gradients_bytes + fp32.optimizer_bytes, (4 + 4 + 8) * kParams);
  const MemoryBreakdown fp16 = memory_of_stage(small_gpt(1, 0, Precision::fp16), 0);
  expect_close(fp16.weights_bytes + fp16.gradients_bytes + fp16.optimizer_bytes, (2 + 2 + 12) * kParams);
}

TEST(MemoryModelStates, ExpertParametersShardOverTheirOwnReplicas) {
  Scenario s;
  s.model = transformer_shape("moe", 2, 512, 8, 8, 0, 256, 0, MlpKind::swiglu, {8, 2, 1024, 1.0});
  s.training.global_batch = 8;
  s.parallelism.dp = 8;
  s.parallelism.ep = 4;
  s.parallelism.cp = 1;
  s.parallelism.zero_stage = 1;
  s.cluster.gpu = "h100-sxm";
  // Per layer: attention 4h^2 and a router h x 8 on every GPU (8 replicas); 8/4 experts of
  // 3 x h x 1024 on each GPU, replicated over dp/ep = 2 GPUs.
  const double h = 512, dense = 2 * (4 * h * h + h * 8), expert = 2 * 2 * 3 * h * 1024;
  expect_close(memory_of_stage(s, 0).optimizer_bytes, 12 * (dense / 8 + expert / 2));
}

Scenario pipeline(PipelineScheduleKind schedule, int micro_batches, int virtual_stages) {
  Scenario s;
  s.model = transformer_shape("pipe", 16, 1024, 16, 16, 4096, 512, 1000, MlpKind::gelu);
  s.training.global_batch = micro_batches;
  s.parallelism.pp = 4;
  s.parallelism.schedule = schedule;
  s.parallelism.virtual_stages = virtual_stages;
  s.cluster.gpu = "h100-sxm";
  return s;
}

TEST(MemoryInFlight, OneFOneBAndZeroBubbleHoldPMinusStageGPipeHoldsAll) {
  for (const auto kind : {PipelineScheduleKind::one_f_one_b, PipelineScheduleKind::zero_bubble}) {
    const Scenario s = pipeline(kind, 8, 1);
    for (int stage = 0; stage < 4; ++stage) EXPECT_EQ(memory_of_stage(s, stage).micro_batches_in_flight, 4 - stage);
    EXPECT_EQ(memory_of_stage(pipeline(kind, 2, 1), 0).micro_batches_in_flight, 2);  // fewer than p
  }
  const Scenario gpipe = pipeline(PipelineScheduleKind::gpipe, 8, 1);
  for (int stage = 0; stage < 4; ++stage) EXPECT_EQ(memory_of_stage(gpipe, stage).micro_batches_in_flight, 8);
}

TEST(MemoryInFlight, InterleavedFollowsMegatronWarmUp) {
  // p = 4, v = 2, m = 8. Stage 0: (4-0-1)*2 + (2-1)*4 + 1 = 11 chunk-passes, chunk 0 gets
  // micro-batches 0-3 then 4-6 (7), chunk 1 gets 0-3 (4). Stage 3: 0 + 4 + 1 = 5: 4 and 1.
  const Scenario s = pipeline(PipelineScheduleKind::interleaved_1f1b, 8, 2);
  EXPECT_EQ(chunk_passes_in_flight(s, 0), (std::vector<int>{7, 4}));
  EXPECT_EQ(chunk_passes_in_flight(s, 3), (std::vector<int>{4, 1}));
  EXPECT_EQ(memory_of_stage(s, 0).micro_batches_in_flight, 7);
  EXPECT_EQ(memory_of_stage(s, 0).chunk_passes_in_flight, 11);
  // Capped at m*v = 8 when m = 4.
  EXPECT_EQ(chunk_passes_in_flight(pipeline(PipelineScheduleKind::interleaved_1f1b, 4, 2), 0),
            (std::vector<int>{4, 4}));
}

TEST(MemoryInFlight, InterleavedFirstStageHoldsKorthikantisFactor) {
  // Korthikanti et al. Sec. 4.2.3: the first stage holds p micro-batches of L/p layers times
  // (1 + (p-1)/(pv)); plus the embedding dropout mask (1 B per element) of its 7 micro-batches.
  const Scenario s = pipeline(PipelineScheduleKind::interleaved_1f1b, 8, 2);
  const double p = 4, v = 2, layers = 16, tokens = 512;
  const double expected =
      p * (layers / p) * (1 + (p - 1) / (p * v)) * activation_bytes_per_layer(s) + 7 * tokens * 1024;
  expect_close(memory_of_stage(s, 0).activations_bytes, expected);
}

TEST(MemoryInFlight, LastStageAddsLogitsOfOneMicroBatch) {
  // 1F1B, stage 3 of 4: 1 micro-batch of 4 layers; final layernorm and LM-head inputs (2 x 2 B)
  // and fp32 logits, 4 B x 512 tokens x 1000 vocabulary.
  const Scenario s = pipeline(PipelineScheduleKind::one_f_one_b, 8, 1);
  const double expected = 4 * activation_bytes_per_layer(s) + 2 * 2 * 512 * 1024 + 4 * 512 * 1000.0;
  expect_close(memory_of_stage(s, 3).activations_bytes, expected);
}

TEST(MemoryFit, Gpt3OnEightA100WithTp8DoesNotFit) {
  // 175e9 / 8 parameters x 18 B = 394 GB per GPU, almost five times the 80 GiB the driver reports.
  const MemoryBreakdown m = peak_memory_per_gpu(gpt3_175b(8, 1, 1, Recompute::none, false));
  EXPECT_FALSE(m.fits());
  EXPECT_GT(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 390e9);
  expect_close(m.capacity_bytes, 81920.0 * 1024 * 1024);
  EXPECT_NE(format_memory(m).find("does not fit"), std::string::npos);
}

TEST(MemoryFit, Gpt3On64A100WithTp8Pp8AndFullRecomputeFits) {
  const Scenario s = gpt3_175b(8, 8, 1, Recompute::full, false);
  const MemoryBreakdown m = peak_memory_per_gpu(s);
  EXPECT_TRUE(m.fits()) << format_memory(m);
  // Stage 0 decides: 12 layers of 12h^2/8 + the vocab slice 51200h/8 + 2048h positions, 18 B each;
  // 8 micro-batches x 12 layers x 2sbh inputs, one layer recomputed (23sbh - 2sbh), 8 embedding
  // masks (sbh at 1 B); 2 GB + 10% of activations allowance.
  EXPECT_EQ(m.stage, 0);
  const double params = 12 * 12 * h_ * h_ / 8 + 51200 * h_ / 8 + 2048 * h_;
  const double activations = 8 * 12 * 2 * sbh + 21 * sbh + 8 * sbh;
  expect_close(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 18 * params);
  expect_close(m.activations_bytes, activations);
  expect_close(m.total_bytes, 18 * params + 1.1 * activations + 2e9);
}

TEST(MemoryReport, TextAndJsonCarryThePeakStage) {
  Report r;
  r.iteration_s = 1;
  r.memory = peak_memory_per_gpu(gpt3_175b(8, 8, 1, Recompute::full, false));
  EXPECT_NE(format_report_text(r).find("memory per GPU"), std::string::npos);
  const nlohmann::json j = report_to_json(r)["memory_per_gpu"];
  expect_close(j["total_bytes"].get<double>(), r.memory.total_bytes);
  EXPECT_EQ(j["micro_batches_in_flight"].get<int>(), 8);
  EXPECT_TRUE(j["fits"].get<bool>());
}

TEST(MemoryCli, RunStopsWithExitCode3WhenTheScenarioDoesNotFit) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dtsim-memory-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "gpt3-175b-8-a100.yaml";
  std::ofstream(file) << "name: gpt3-175b-8-a100\nmodel: {preset: gpt3-175b}\n"
                         "training: {global_batch: 8, micro_batch: 1, precision: bf16}\n"
                         "parallelism: {tp: 8, pp: 1, dp: 1}\n"
                         "cluster: {gpu: a100-80gb-sxm, nodes: 1, topology: "
                      << (test::source_dir() / "topologies" / "dgx-a100-hdr-fattree.yaml").string() << "}\n";
  const test::CliResult r = test::run_dtsim("run " + file.string());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("out of memory"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("optimizer"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("iteration time"), std::string::npos) << r.output;  // not simulated
}

}  // namespace
}  // namespace dtsim

// What each framework runs (issue 43): the eager PyTorch, torch.compile and Megatron kernel lists
// against the kernels of the H100 traces counted by hand, the scenario fields that choose them, a
// trace summed by class against its measurer's own sums, and the four measured steps predicted.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "device_spec.hpp"
#include "input_error.hpp"
#include "kernel_builders.hpp"
#include "kineto_trace.hpp"
#include "layer_graph_kernels.hpp"
#include "memory_access.hpp"
#include "resolved_scenario.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "step_summary.hpp"
#include "test_support.hpp"
#include "transformer_ops.hpp"
#include "validation.hpp"

namespace dtsim {
namespace {

const std::filesystem::path kH100Dir = test::data_dir() / "h100-2026-11-26";

// The traced Llama step's shape (tests/data/h100-2026-11-26/README.md) as one rank sees it.
RankShape llama_1b(Framework framework, bool autocast = true) {
  Scenario s;
  s.model = transformer_shape("llama-1b", 16, 2048, 32, 8, 8192, 2048, 128256, MlpKind::swiglu);
  s.training.global_batch = s.training.micro_batch = 4;
  s.training.framework = framework;
  s.training.mixed_precision = autocast ? MixedPrecision::autocast : MixedPrecision::master_weights;
  s.cluster.gpu = "h100-sxm";
  return rank_shape(s);
}

std::map<std::string, int> counts(const std::vector<Operator>& ops) {
  std::map<std::string, int> n;
  for (const Operator& op : ops) n[op.name] += 1;
  return n;
}

double bytes_of(const std::vector<Operator>& ops, const std::string& name) {
  double b = 0;
  for (const Operator& op : ops)
    if (op.name == name) b += op.bytes;
  return b;
}

// The time `m` prices the first operator of that name at (0 without one).
double time_of(const ComputeModel& m, const std::vector<Operator>& ops, const std::string& name) {
  for (const Operator& op : ops)
    if (op.name == name) return m.time_s(op);
  return 0.0;
}

// The traced eager Llama layer's forward (aten::linear's copy_ kernels): every one of its seven
// linears casts its fp32 weight to bf16 (4 + 2 B per parameter), the five fed by a norm's fp32
// output (q, k, v, gate, up) their input too; two RMSNorms on the fp32 stream; two residual adds
// of the bf16 branch into it (4 + 2 + 4 B); SiLU and the gate's multiply; RoPE on q and k.
TEST(EagerKernels, TheLlamaLayerCastsWeightsAndInputsAsAutocastDoes) {
  const RankShape r = llama_1b(Framework::pytorch);
  const std::vector<Operator> f = layer_forward_ops(r);
  const std::map<std::string, int> n = counts(f);
  EXPECT_EQ(n.at("weight_cast"), 7);
  EXPECT_EQ(n.at("input_cast"), 5);
  EXPECT_EQ(n.at("norm"), 2);
  EXPECT_EQ(n.at("residual_add"), 2);
  EXPECT_EQ(n.at("rope_multiply"), 2);  // four broadcast multiplies each for q and k
  const double t = 8192, h = 2048, f_ = 8192, kv = 512;
  EXPECT_DOUBLE_EQ(bytes_of(f, "weight_cast"), (2 * h * h + 2 * h * kv + 3 * h * f_) * 6);
  EXPECT_DOUBLE_EQ(bytes_of(f, "input_cast"), 5 * t * h * 6);
  EXPECT_DOUBLE_EQ(bytes_of(f, "residual_add"), 2 * t * h * (4 + 2 + 4));
  EXPECT_DOUBLE_EQ(bytes_of(f, "silu"), t * f_ * 4);
  EXPECT_DOUBLE_EQ(bytes_of(f, "gate_multiply"), t * f_ * 6);
  // Backward: every weight gradient cast up (2 + 4 B per parameter), the five cast inputs'
  // gradients too, and five fp32 sums (q, k, v's into one; gate and up's; each norm's into the stream).
  const std::map<std::string, int> b = counts(layer_backward_ops(r));
  EXPECT_EQ(b.at("weight_grad_cast"), 7);
  EXPECT_EQ(b.at("input_grad_cast"), 5);
  EXPECT_EQ(b.at("grad_sum"), 5);
  // With the weights held in bf16 (FSDP2's mixed precision) there is nothing to cast.
  const std::map<std::string, int> master = counts(layer_forward_ops(llama_1b(Framework::pytorch, false)));
  EXPECT_EQ(master.count("weight_cast"), 0u);
  EXPECT_EQ(master.count("input_cast"), 0u);
}

// torch.compile fuses the element-wise work: per layer two add+norm kernels, seven weight casts,
// RoPE in one kernel per q and k, SiLU x gate in one; no input casts (the norm kernel writes bf16).
TEST(CompiledKernels, FuseTheLayersElementwiseWork) {
  const std::vector<Operator> f = layer_forward_ops(llama_1b(Framework::torch_compile));
  const std::map<std::string, int> n = counts(f);
  EXPECT_EQ(n.at("add_norm"), 2);
  EXPECT_EQ(n.at("weight_cast"), 7);
  EXPECT_EQ(n.at("rope"), 2);
  EXPECT_EQ(n.at("silu_multiply"), 1);
  EXPECT_EQ(n.count("input_cast"), 0u);
  int memory_bound = 0;
  for (const Operator& op : f) memory_bound += op.kind == OperatorKind::elementwise;
  EXPECT_EQ(memory_bound, 2 + 7 + 2 + 1 + 1);  // and the attention output's transpose
  const std::vector<Operator> eager = layer_forward_ops(llama_1b(Framework::pytorch));
  int eager_memory_bound = 0;
  for (const Operator& op : eager) eager_memory_bound += op.kind == OperatorKind::elementwise;
  EXPECT_GT(eager_memory_bound, 2 * memory_bound);
}

// What the traced Llama layer keeps for its backward pass, per token, from PyTorch's derivative
// formulas (h = 2048, q = 2048, kv = 512, ffn = 8192, 32 heads): eagerly each RMSNorm's fp32 input
// (2 x 4h), the bf16 input casts of q, k, v, gate and up (5 x 2h), SDPA's q, k, v, output (2q + 2kv
// + 2kv + 2q) and fp32 log-sum-exp (4 x 32), the output's transposed copy (2q), SiLU's input, the
// product's two factors and the down projection's input (4 x 2ffn): 116,864 B, plus the seven bf16
// weight casts. Compiled: each norm's fp32 input and bf16 output (2 x 6h), the same attention
// tensors and copy, gate, up and their product (3 x 2ffn): 88,192 B.
TEST(SavedTensors, TheLlamaLayerKeepsWhatAutogradKeeps) {
  const double t = 8192, h = 2048, kv = 512, ffn = 8192;
  const double weights = (2 * h * h + 2 * h * kv + 3 * h * ffn) * 2;
  EXPECT_DOUBLE_EQ(*saved_bytes_per_layer(llama_1b(Framework::pytorch)), 116864 * t + weights);
  EXPECT_DOUBLE_EQ(*saved_bytes_per_layer(llama_1b(Framework::torch_compile)), 88192 * t + weights);
  EXPECT_EQ(116864, 8 * h + 10 * h + 2 * h + 2 * kv + 2 * kv + 2 * h + 4 * 32 + 2 * h + 8 * ffn);
  // The loss (vocab 128256): the final norm's input, the LM head's input and weight casts, the bf16
  // logits the loop holds, log-softmax's fp32 output; in its backward two fp32 gradients besides.
  const double tv = t * 128256;
  EXPECT_DOUBLE_EQ(*saved_bytes_of_logits(llama_1b(Framework::pytorch)),
                   4 * t * h + 2 * t * h + 2 * 128256 * h + 2 * tv + 4 * tv);
  EXPECT_DOUBLE_EQ(loss_backward_bytes(llama_1b(Framework::pytorch)), 8 * tv);
  // Megatron states none: its memory follows Korthikanti et al. (test_memory_model.cpp).
  EXPECT_FALSE(saved_bytes_per_layer(llama_1b(Framework::megatron)).has_value());
}

TEST(ScenarioFields, FrameworkMixedPrecisionAndModelStyle) {
  const Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml");
  EXPECT_EQ(s.training.framework, Framework::megatron);  // a transformer's default
  EXPECT_EQ(resolved_mixed_precision(s.training, 0), MixedPrecision::master_weights);
  TrainingConfig eager = s.training;
  eager.framework = Framework::pytorch;
  EXPECT_EQ(resolved_mixed_precision(eager, 0), MixedPrecision::autocast);
  EXPECT_EQ(resolved_mixed_precision(eager, 3), MixedPrecision::master_weights);  // FSDP's policy
  EXPECT_EQ(resolved_mixed_precision(eager, 2), MixedPrecision::master_weights);  // SHARD_GRAD_OP's too
  // A GeLU model is GPT-like, a SwiGLU one Llama-like, unless the file says otherwise.
  EXPECT_EQ(s.model.norm_kind(), NormKind::layernorm);
  EXPECT_EQ(s.model.position_kind(), PositionKind::learned);
  EXPECT_TRUE(s.model.has_bias());
  const TransformerConfig llama = *find_model_preset("llama3-8b");
  EXPECT_EQ(llama.norm_kind(), NormKind::rmsnorm);
  EXPECT_EQ(llama.position_kind(), PositionKind::rope);
  EXPECT_FALSE(llama.has_fused_qkv());
  // A layer-graph model defaults to eager PyTorch; Megatron runs transformers only.
  const Scenario resnet = load_scenario(test::source_dir() / "scenarios" / "resnet50-32-v100-ddp.yaml");
  EXPECT_EQ(resnet.training.framework, Framework::pytorch);
  const test::ScratchDir dir;
  std::ifstream original(test::source_dir() / "scenarios" / "resnet50-32-v100-ddp.yaml");
  std::string text((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
  text.replace(text.find("precision: fp16"), 15, "precision: fp16\n  framework: megatron");
  text.replace(text.find("../topologies/"), 14, (test::source_dir() / "topologies").string() + "/");
  const auto file = dir.write("resnet-megatron.yaml", text);
  const InputErrorInfo e = test::error_of([&] { load_scenario(file); });
  EXPECT_EQ(e.field, "training.framework");
  EXPECT_EQ(e.found, "megatron");
}

// The traced GPT-350M step with attention written out (tests/data/h100-2026-11-28: 24 layers of
// 1024, 16 heads, micro-batch 8 of 1024 tokens, dropout 0.1; its 8 x 16 x 1024 x 1024 scores):
// autocast's softmax casts the bf16 scores to fp32 first (aten::copy_, 6 B an element: 416 us),
// runs in fp32 (8 B: 365 us); its backward multiplies the gradient by the output (aten::mul, two fp32
// reads and a write: 529 us) before softmax_warp_backward (12 B: 529 us).
TEST(EagerKernels, UnfusedAttentionCastsForSoftmaxAndMultipliesInItsBackward) {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt-350m-1-h100.yaml");
  const RankShape r = rank_shape(s);
  const double scores = 8.0 * 16 * 1024 * 1024;
  const std::vector<Operator> f = layer_forward_ops(r), b = layer_backward_ops(r);
  EXPECT_DOUBLE_EQ(bytes_of(f, "scores_cast"), scores * 6);
  EXPECT_DOUBLE_EQ(bytes_of(f, "attention_softmax"), scores * 8);
  EXPECT_DOUBLE_EQ(bytes_of(b, "attention_softmax_grad_times_output"), scores * 12);
  EXPECT_DOUBLE_EQ(bytes_of(b, "attention_softmax_backward"), scores * 12);
  // Priced on the H100 within 10% of the traced kernels.
  const ComputeModel m = resolve_scenario(s).compute;
  EXPECT_NEAR(time_of(m, f, "scores_cast"), 416e-6, 0.10 * 416e-6);
  EXPECT_NEAR(time_of(m, f, "attention_softmax"), 365e-6, 0.10 * 365e-6);
  EXPECT_NEAR(time_of(m, b, "attention_softmax_grad_times_output"), 529e-6, 0.10 * 529e-6);
  EXPECT_NEAR(time_of(m, b, "attention_softmax_backward"), 529e-6, 0.10 * 529e-6);
}

// The same step's copies and masks (tests/data/h100-2026-11-28, its 24 layers alike): the head-major
// output of the batched GEMM copied token-major for the projection, [8, 1024, 16, 64] bf16 (23.6
// us; its gradient 25.4 us); q, k and v's gradients, once stacked (aten::cat 102.6 us), copied
// token-major for the fused projection ([8, 1024, 3, 16, 64]: 80.4 us). masked_fill_ with the causal
// mask runs forward and backward as one kernel (elementwise_kernel<128, 4>, 391.5 us both): the
// bf16 scores read and written, the 1 MB mask once, at the strided share 0.35 (it reached 0.41).
// The dropout kernels at the dropout share: the fp32 probabilities' 467.4 us, a bf16 [8, 1024,
// 1024] branch's 16.3 us.
TEST(EagerKernels, UnfusedAttentionCopiesAroundItsBatchedGemmsAndMasksTwice) {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt-350m-1-h100.yaml");
  const RankShape r = rank_shape(s);
  const double scores = 8.0 * 16 * 1024 * 1024, tokens = 8.0 * 1024;
  const std::vector<Operator> f = layer_forward_ops(r), b = layer_backward_ops(r);
  EXPECT_DOUBLE_EQ(bytes_of(f, "attention_output_transpose"), 2 * tokens * 1024 * 2);
  EXPECT_DOUBLE_EQ(bytes_of(b, "attention_output_transpose_grad"), 2 * tokens * 1024 * 2);
  EXPECT_DOUBLE_EQ(bytes_of(b, "qkv_grad_permute"), 2 * tokens * 3072 * 2);
  EXPECT_DOUBLE_EQ(bytes_of(f, "causal_mask"), scores * 4 + 1024 * 1024);
  EXPECT_DOUBLE_EQ(bytes_of(b, "causal_mask_backward"), scores * 4 + 1024 * 1024);
  const ComputeModel m = resolve_scenario(s).compute;
  const double mask_s = (scores * 4 + 1024 * 1024) / (3350e9 * 0.35) + kMemoryKernelStartupS;  // 460.6 us
  EXPECT_NEAR(time_of(m, f, "causal_mask"), mask_s, 1e-12);
  EXPECT_NEAR(time_of(m, b, "causal_mask_backward"), mask_s, 1e-12);
  EXPECT_NEAR(mask_s, 391.5e-6, 0.20 * 391.5e-6);
  EXPECT_NEAR(time_of(m, f, "attention_output_transpose"), 23.6e-6, 0.30 * 23.6e-6);
  EXPECT_NEAR(time_of(m, b, "qkv_grad_permute"), 80.4e-6, 0.10 * 80.4e-6);
  EXPECT_NEAR(time_of(m, f, "attention_dropout"), 467.4e-6, 0.01 * 467.4e-6);
  EXPECT_NEAR(time_of(m, f, "dropout"), 16.3e-6, 0.01 * 16.3e-6);
}

// cuDNN's weight gradients of the traced ResNet steps' convolutions (the stem left out): 52 in
// ResNet-50 at batch 256, 5491.0 us (tests/data/h100-2026-11-26), 154 in ResNet-152 at batch 128,
// 8354.1 us (tests/data/h100-2026-11-28); each priced at its forward's time and 14.94 us more.
// (At 0.82 of the forward's rate, as before, ResNet-152's came to 6.8 ms.)
TEST(LayerGraphKernels, TheResNetStepsWeightGradientsTakeWhatTheirTracesMeasured) {
  const auto wgrad_s = [](const char* runs, size_t index, const std::string& id) {
    const ResolvedScenario rs = resolved_published_run(test::source_dir() / "validation" / runs,
                                                       test::source_dir() / "topologies", index);
    EXPECT_EQ(rs.scenario.name, id);
    const LayerGraph& g = rs.scenario.layer_model->graph;
    const LayerGraphRun run = layer_graph_run(rs.scenario);
    double s = 0;
    for (size_t i = 1; i < g.layers.size(); ++i)
      for (const Operator& op : layer_backward_kernels(g.layers[i], &g.layers[i - 1], run))
        if (op.weight_gradient && op.kind == OperatorKind::gemm && g.layers[i].kind == LayerKind::convolution)
          s += rs.compute.time_s(op);
    return s;
  };
  EXPECT_NEAR(wgrad_s("single-gpu-steps.yaml", 3, "h100-resnet50-b256-eager"), 5491.0e-6, 0.10 * 5491.0e-6);
  EXPECT_NEAR(wgrad_s("more-single-gpu-steps.yaml", 3, "h100-resnet152-b128-eager"), 8354.1e-6, 0.10 * 8354.1e-6);
}

// A step of validation/more-single-gpu-steps.yaml as `dtsim validate` predicts it.
ValidationRow more_single_gpu_step(const std::string& id) {
  const ValidationSummary s = validate_published_runs(
      test::source_dir() / "validation" / "more-single-gpu-steps.yaml", test::source_dir() / "topologies");
  for (const ValidationRow& r : s.rows)
    if (r.id == id) return r;
  ADD_FAILURE() << "no step " << id;
  return {};
}

// The report classes kernels as `dtsim import` classes the traced ones: unfused attention's batched
// matmuls (cuBLAS) with the GEMMs, no attention class. The GPT-350M step's trace (tests/data/
// h100-2026-11-28): 38.69 ms of GEMMs, none of fused attention.
TEST(MeasuredSteps, UnfusedAttentionsMatmulsAreReportedAsGemmsAsTheTraceClassesThem) {
  const KernelClassTimes c = more_single_gpu_step("h100-gpt-350m-unfused-s1024-mb8-eager").predicted_classes;
  EXPECT_EQ(c[OperatorKind::attention_gemm], 0);
  EXPECT_NEAR(c[OperatorKind::gemm], 38.69e-3, 0.05 * 38.69e-3);
}

// Non-reentrant checkpointing stops recomputing once the backward's saved tensors are back. The
// Llama step traced with each block checkpointed (tests/data/h100-2026-11-28) reran every matmul of
// a block but the down projection, 5 of its 6 (its k and v are one linear), ending on the SwiGLU
// product and the down projection's weight cast; its GEMMs took 89.27 ms. Reentrant checkpointing
// reruns the whole layer.
TEST(MeasuredSteps, NonReentrantRecomputeStopsBeforeTheLayersLastMatmulAsTheTraceDoes) {
  RankShape r = llama_1b(Framework::pytorch);
  const auto gemms = [](const std::vector<Operator>& ops) {
    return std::count_if(ops.begin(), ops.end(), [](const Operator& op) { return op.kind == OperatorKind::gemm; });
  };
  const std::vector<Operator> forward = layer_forward_ops(r), rerun = layer_recompute_ops(r, Recompute::full);
  ASSERT_GE(rerun.size(), 2u);
  EXPECT_EQ(gemms(rerun), gemms(forward) - 1);
  EXPECT_EQ(std::string(rerun[rerun.size() - 2].name), "gate_multiply");
  EXPECT_EQ(std::string(rerun.back().name), "weight_cast");
  r.recompute_stops_early = false;  // reentrant
  EXPECT_EQ(layer_recompute_ops(r, Recompute::full).size(), forward.size());
  const KernelClassTimes c = more_single_gpu_step("h100-llama-3.2-1b-s8192-mb1-recompute-eager").predicted_classes;
  EXPECT_NEAR(c[OperatorKind::gemm], 89.27e-3, 0.02 * 89.27e-3);
}

// torch.optim.SGD (foreach, momentum) adds the weight decay to the gradients in a pass of its own
// only when weight_decay is set: the traced ResNet-50 step (weight decay on) ran _foreach_add,
// mul_ and add_ twice, 13 launches over its 161 tensors; ResNet-152's (tools/train_steps_pytorch.py,
// no weight decay) only mul_ and add_, 21 launches in 0.799 ms. fp32 bytes per parameter: 12 to
// decay, 8 to scale the buffer, 12 to add the gradient, 12 to update.
TEST(LayerGraphKernels, SgdRunsItsWeightDecayPassOnlyWhenSet) {
  const std::vector<double> tensors = {1000, 3000};
  const auto bytes = [&](double weight_decay) {
    double b = 0;
    for (const Operator& op : layer_graph_optimizer_kernels(LayerModelOptimizer::sgd_momentum, weight_decay, tensors))
      b += op.bytes;
    return b;
  };
  EXPECT_DOUBLE_EQ(bytes(1e-4), 44 * 4000.0);
  EXPECT_DOUBLE_EQ(bytes(0), 32 * 4000.0);
  const KernelClassTimes c = more_single_gpu_step("h100-resnet152-b128-eager").predicted_classes;
  EXPECT_NEAR(c[OperatorKind::optimizer], 0.799e-3, 0.05 * 0.799e-3);
}

// The traced BERT-large step's masked-LM head (tests/data/h100-2026-11-28): [8192 x 1024] x [1024 x
// 30522] in 2024.9 us, its data and weight gradients in 2094.6 and 1960.6, cutlass_80 kernels where
// cuBLAS takes aligned rows to its Hopper ones. 30,522 bf16 elements are not a multiple of 16 bytes
// (30,528 are): priced at 0.256 of the peak on Hopper; an A100's kernels need no TMA alignment, so
// there the flag changes nothing.
TEST(GemmKernels, UnalignedRowsRunHoppersFallbackKernels) {
  const Operator head = cublas_gemm("decoder", 8192, 1024, 30522, 2);
  const Operator padded = cublas_gemm("decoder", 8192, 1024, 30528, 2);
  EXPECT_TRUE(head.unaligned_rows);
  EXPECT_FALSE(padded.unaligned_rows);
  EXPECT_TRUE(gemm_dgrad(head).unaligned_rows);
  EXPECT_TRUE(cublas_gemm("k_not_aligned", 8192, 1001, 1024, 2).unaligned_rows);
  EXPECT_FALSE(cublas_gemm("fp32_rows_of_4", 8192, 1028, 1028, 4).unaligned_rows);
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt-350m-1-h100.yaml");
  const ComputeModel h100 = resolve_scenario(s).compute;
  EXPECT_NEAR(h100.time_s(head), 2024.9e-6, 0.05 * 2024.9e-6);
  EXPECT_NEAR(h100.time_s(gemm_dgrad(head)), 2094.6e-6, 0.05 * 2094.6e-6);
  EXPECT_GT(h100.time_s(head), 2.5 * h100.time_s(padded));
  s.cluster.gpu = "a100-80gb-sxm";
  const ComputeModel a100 = resolve_scenario(s).compute;
  EXPECT_NEAR(a100.time_s(head) / a100.time_s(padded), 30522.0 / 30528, 0.01);
}

// `dtsim import` sums a trace's kernels by the classes the model reports; the measurer summed the
// same traces by kernel name (steps-public.jsonl, kernel_seconds_by_class): GEMMs (cuBLAS's
// nvjet kernels), attention (cuDNN's SDPA and its helpers) and the optimizer (multi-tensor kernels)
// agree to the microsecond.
TEST(TraceClasses, SumTheTracedStepsAsTheirMeasurerDid) {
  std::ifstream in(kH100Dir / "steps-public.jsonl");
  int checked = 0;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("kind", "") != "train_step_classes") continue;
    std::string name = j.at("name");
    if (name.size() > 6 && name.substr(name.size() - 6) == "-trace") name.resize(name.size() - 6);
    const RankStep step = summarize_step(
        read_kineto_trace(kH100Dir / "traces" / (name + ".pt.trace.json.gz")), "ProfilerStep#1");
    const nlohmann::json& c = j.at("kernel_seconds_by_class");
    EXPECT_NEAR(step.classes[OperatorKind::gemm], c.at("gemm").get<double>(), 1e-6) << name;
    EXPECT_NEAR(step.classes[OperatorKind::attention_gemm], c.at("attention").get<double>(), 1e-6) << name;
    EXPECT_NEAR(step.classes[OperatorKind::optimizer], c.at("optimizer").get<double>(), 1e-6) << name;
    // Their "norm" and "other" kernels are dtsim's memory-bound ones, beside the memsets (under 0.5 ms).
    const double other = c.at("norm").get<double>() + c.at("other").get<double>();
    EXPECT_GT(step.classes[OperatorKind::elementwise], other) << name;
    EXPECT_LT(step.classes[OperatorKind::elementwise], other + 0.5e-3) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

// The four steps measured on the H100 (validation/single-gpu-steps.yaml) predicted within 5%, their
// peak allocated memory within 10%, and the LLM steps' kernel classes within 10% of their traces'.
// ResNet-50's GEMM, memory-bound and optimizer kernels within 10% (the optimizer: foreach SGD's 13
// launches over 161 tensors, 0.48 of 0.49 ms); its host/launch share is not yet (2.9 of 1.5 ms:
// its kernels follow each other 1.30 us apart in the trace, the GPT step's 1.87, cuDNN's weight
// gradients launching early).
TEST(MeasuredSteps, TheFourH100StepsArePredictedWithinFivePercent) {
  const ValidationSummary s = validate_published_runs(test::source_dir() / "validation" / "single-gpu-steps.yaml",
                                                      test::source_dir() / "topologies");
  ASSERT_EQ(s.rows.size(), 4u);
  for (const ValidationRow& r : s.rows) {
    EXPECT_LE(r.relative_error, 0.05) << r.id;
    ASSERT_TRUE(r.measured_classes) << r.id;
    const KernelClassTimes& m = *r.measured_classes;
    const KernelClassTimes& p = r.predicted_classes;
    const bool resnet = r.id.find("resnet") != std::string::npos;
    for (OperatorKind k : {OperatorKind::gemm, OperatorKind::attention_gemm, OperatorKind::elementwise,
                           OperatorKind::optimizer}) {
      if (m[k] <= 0) continue;
      EXPECT_NEAR(p[k], m[k], 0.10 * m[k]) << r.id << " " << to_string(k);
    }
    if (!resnet) {
      EXPECT_NEAR(p.launch_s, m.launch_s, 0.10 * m.launch_s) << r.id;
    }
    // Peak allocated (torch.cuda.max_memory_allocated), the allowance left out.
    EXPECT_NEAR(r.predicted_peak_bytes, r.measured_peak_bytes, 0.10 * r.measured_peak_bytes) << r.id;
  }
  ASSERT_EQ(s.by_framework.size(), 2u);
  EXPECT_EQ(s.by_framework[0].name, "pytorch");
  EXPECT_EQ(s.by_framework[0].runs, 3);
  EXPECT_EQ(s.by_framework[1].name, "torch_compile");
}

// The same steps with each calibration measured on an H100 (calibrations/): its back-to-back GEMM
// curve in place of the in-step default; 2026-11-26's 2998 GB/s copy is the reference's (the access
// patterns stay as measured), 2026-11-28's streamed at 2963 GB/s and its probes match the
// reference probes (the same H100 model and day): still within 5%.
TEST(MeasuredSteps, TheFourH100StepsWithEachH100CalibrationAreWithinFivePercent) {
  const std::vector<PublishedRun> runs = read_published_runs(
      test::source_dir() / "validation" / "single-gpu-steps.yaml", test::source_dir() / "topologies");
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& [file, copy] :
       {std::pair{"h100-sxm-2026-11-26.json", "x1.000: this calibration's copy streamed at 2998 GB/s"},
        {"h100-sxm-2026-11-28.json", "x0.988: this calibration's copy streamed at 2963 GB/s; streaming x1.000 from "
                                     "this calibration's probes; unrolled x1.000"}}) {
    for (PublishedRun run : runs) {
      run.scenario.calibration_file = test::source_dir() / "calibrations" / file;
      const ResolvedScenario resolved = resolve_scenario(run.scenario);
      EXPECT_NE(resolved.calibration_provenance.find(copy), std::string::npos) << resolved.calibration_provenance;
      const double step_s = simulate(run.scenario).engine.iteration_s;
      EXPECT_NEAR(step_s, run.measured, 0.05 * run.measured) << run.scenario.name << " with " << file;
    }
  }
}

}  // namespace
}  // namespace dtsim

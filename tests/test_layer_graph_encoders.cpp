// Transformer-encoder layers of layer graphs (BERT, ViT) as eager PyTorch and torch.compile run
// them, beside the transformers' traced kernels: BERT's dropout (BertConfig's hidden_dropout_prob
// and attention_probs_dropout_prob, 0.1), a linear's bias (its cast and its gradient's
// reduction), a fused attention kernel keeping its output and log-sum-exp, not the score matrix,
// the loss over each head, clipping, Inductor's sum-and-norm fusion; each a count of elements
// times their bytes. Last, the traced GPT-1.3B step written as a layer graph against the trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "device_spec.hpp"
#include "layer_graph_builder.hpp"
#include "layer_graph_kernels.hpp"
#include "layer_model_costs.hpp"
#include "memory_model.hpp"
#include "model_zoo.hpp"
#include "resolved_scenario.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

const Operator* find(const std::vector<Operator>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Operator& op) { return op.name == name; });
  return it == ops.end() ? nullptr : &*it;
}

LayerGraphRun bf16_autocast(double samples, AttentionKernel attention = AttentionKernel::cudnn) {
  LayerGraphRun run;
  run.samples = samples;
  run.elem_bytes = 2;
  run.autocast = true;
  run.attention = attention;
  run.device = find_device("h100-sxm");
  return run;
}

TEST(LayerGraphDropout, BertDropsOutAfterItsEmbeddingsAndThreeTimesALayerViTNowhere) {
  const LayerGraph bert = *zoo_model("bert-large", {.sequence_length = 128});
  int with_dropout = 0;
  for (const Layer& l : bert.layers)
    if (l.dropout > 0) {
      EXPECT_DOUBLE_EQ(l.dropout, 0.1) << l.name;
      ++with_dropout;
    }
  EXPECT_EQ(with_dropout, 1 + 3 * 24);  // embeddings.ln; attention.core, attention.out, mlp.fc2 of 24 layers
  const LayerGraph vit = *zoo_model("vit-b-16");
  for (const Layer& l : vit.layers) EXPECT_EQ(l.dropout, 0) << l.name;
}

// torchvision's ViT runs nn.MultiheadAttention(batch_first=True): around it eager PyTorch copies
// strided tensors (the traced ViT-B/16 step, tests/data/h100-2026-11-28; T = 256 x 197 tokens of
// 768). Per block: the in-projection's input copied contiguous and its bias added apart; the
// LayerNorms after a residual sum copy the fp32 stream batch-first (310.2 MB, 132 us), their
// backward the gradient; backward, q, k and v's gradient buffers zero-filled three times and
// summed twice, the out-projection's output gradient copied. BERT's attention (Hugging Face's) has
// none of these.
TEST(LayerGraphAttention, ViTsMultiheadAttentionCopiesItsSequenceFirstTensors) {
  const LayerGraph vit = *zoo_model("vit-b-16");
  const LayerGraphRun run = bf16_autocast(256);
  const auto at = [&](const std::string& name) {
    const auto it = std::find_if(vit.layers.begin(), vit.layers.end(), [&](const Layer& l) { return l.name == name; });
    return size_t(it - vit.layers.begin());
  };
  const auto forward = [&](const std::string& name) {
    const size_t i = at(name);
    return layer_forward_kernels(vit.layers[i], i > 0 ? &vit.layers[i - 1] : nullptr, run);
  };
  const auto backward = [&](const std::string& name) {
    const size_t i = at(name);
    return layer_backward_kernels(vit.layers[i], i > 0 ? &vit.layers[i - 1] : nullptr, run);
  };
  const double th = 256.0 * 197 * 768;
  const std::vector<Operator> qkv = forward("encoder.layer1.attention.qkv");
  EXPECT_DOUBLE_EQ(find(qkv, "mha_input_copy")->bytes, 2 * th * 2);
  EXPECT_DOUBLE_EQ(find(qkv, "mha_bias_add")->bytes, 2 * 3 * th * 2);
  const std::vector<Operator> qkv_b = backward("encoder.layer1.attention.qkv");
  EXPECT_DOUBLE_EQ(find(qkv_b, "mha_qkv_grad_zero")->bytes, 3 * 3 * th * 2);
  EXPECT_EQ(find(qkv_b, "mha_qkv_grad_zero")->kernels, 3);
  EXPECT_DOUBLE_EQ(find(qkv_b, "mha_qkv_grad_sum")->bytes, 2 * 3 * 3 * th * 2);
  EXPECT_DOUBLE_EQ(find(qkv_b, "mha_input_grad_copy")->bytes, 2 * th * 4);
  EXPECT_NE(find(backward("encoder.layer1.attention.out"), "mha_output_grad_copy"), nullptr);
  // The first block's first LayerNorm reads the position embedding's sum, batch-first already.
  EXPECT_EQ(find(forward("encoder.layer0.ln_1"), "batch_first_copy"), nullptr);
  const std::vector<Operator> ln = forward("encoder.layer1.ln_1");
  ASSERT_NE(find(ln, "batch_first_copy"), nullptr);
  EXPECT_DOUBLE_EQ(find(ln, "batch_first_copy")->bytes, 2 * th * 4);
  EXPECT_NE(find(forward("encoder.layer0.ln_2"), "batch_first_copy"), nullptr);
  EXPECT_NE(find(backward("encoder.layer0.ln_2"), "batch_first_grad_copy"), nullptr);
  // Priced on the H100 as traced: the copy 132 us, the fills 70 us each, the sums 229 us each.
  Scenario s;
  s.cluster.gpu = "h100-sxm";
  const ComputeModel m = resolve_scenario(s).compute;
  EXPECT_NEAR(m.time_s(*find(ln, "batch_first_copy")), 132.2e-6, 0.05 * 132.2e-6);
  EXPECT_NEAR(m.time_s(*find(qkv_b, "mha_qkv_grad_zero")), 3 * 70.2e-6, 0.05 * 3 * 70.2e-6);
  EXPECT_NEAR(m.time_s(*find(qkv_b, "mha_qkv_grad_sum")), 2 * 229.1e-6, 0.05 * 2 * 229.1e-6);
  for (const Layer& l : zoo_model("bert-large", {.sequence_length = 128})->layers) EXPECT_FALSE(l.torch_mha) << l.name;
}

TEST(LayerGraphDropout, ALinearsDropoutReadsAndWritesItsOutputAndAMaskEachWay) {
  // BERT-large's attention output projection, 128 tokens x 1024, batch 32, bf16 autocast:
  // forward reads and writes 2-byte elements and writes a 1-byte mask (5 B each), the backward
  // the same, first.
  LayerGraph g;
  TokenLayers t(g, 128, 1024);
  t.linear("qkv", 1024, 3 * 1024);
  t.linear("attention.out", 1024, 1024);
  t.dropout(0.1);
  const LayerGraphRun run = bf16_autocast(32);
  const double elements = 32.0 * 128 * 1024;
  const std::vector<Operator> f = layer_forward_kernels(g.layers[1], &g.layers[0], run);
  ASSERT_EQ(f.back().name, "dropout");
  EXPECT_DOUBLE_EQ(f.back().bytes, elements * (2 * 2 + 1));
  const std::vector<Operator> b = layer_backward_kernels(g.layers[1], &g.layers[0], run);
  ASSERT_EQ(b.front().name, "dropout_backward");
  EXPECT_DOUBLE_EQ(b.front().bytes, elements * (2 * 2 + 1));
  // Kept: the output (2 B) and the mask (1 B).
  EXPECT_DOUBLE_EQ(layer_kept_bytes(g.layers[1], run), elements * (2 + 1));
  // Under torch.compile the mask is drawn inside the fused neighbours: no kernel, the mask kept.
  LayerGraphRun compiled = run;
  compiled.framework = Framework::torch_compile;
  EXPECT_EQ(find(layer_forward_kernels(g.layers[1], &g.layers[0], compiled), "dropout"), nullptr);
  EXPECT_EQ(find(layer_backward_kernels(g.layers[1], &g.layers[0], compiled), "dropout_backward"), nullptr);
  EXPECT_DOUBLE_EQ(layer_kept_bytes(g.layers[1], compiled), elements * (2 + 1));
}

TEST(LayerGraphDropout, ALayerNormsDropoutUnderAutocastMovesFp32) {
  // BERT's embeddings norm outputs fp32 under autocast: 4 B read, 4 B written, 1 B of mask.
  const LayerGraph bert = *zoo_model("bert-large", {.sequence_length = 128});
  const auto ln = std::find_if(bert.layers.begin(), bert.layers.end(),
                               [](const Layer& l) { return l.name == "embeddings.ln"; });
  ASSERT_NE(ln, bert.layers.end());
  const std::vector<Operator> f = layer_forward_kernels(*ln, &*(ln - 1), bf16_autocast(1));
  ASSERT_EQ(f.back().name, "dropout");
  EXPECT_DOUBLE_EQ(f.back().bytes, 128.0 * 1024 * (2 * 4 + 1));
}

TEST(LayerGraphBias, ALinearsBiasIsCastAndItsGradientReducedOverEveryPosition) {
  // BERT-large's fc1, 1024 -> 4096 with a bias, 128 tokens, batch 8, bf16 autocast: forward casts
  // the weight and, by a kernel of its own, the bias; backward sums the output's gradient over
  // the 8 x 128 positions (2 B each) and casts the bias gradient up.
  LayerGraph g;
  TokenLayers t(g, 128, 1024);
  t.layer_norm("ln");
  t.linear("fc1", 1024, 4096);
  const Layer& fc1 = g.layers[1];
  const LayerGraphRun run = bf16_autocast(8);
  const std::vector<Operator> f = layer_forward_kernels(fc1, &g.layers[0], run);
  ASSERT_NE(find(f, "weight_cast"), nullptr);
  EXPECT_DOUBLE_EQ(find(f, "weight_cast")->bytes, 1024.0 * 4096 * (4 + 2));
  ASSERT_NE(find(f, "bias_cast"), nullptr);
  EXPECT_DOUBLE_EQ(find(f, "bias_cast")->bytes, 4096.0 * (4 + 2));
  const std::vector<Operator> b = layer_backward_kernels(fc1, &g.layers[0], run);
  ASSERT_NE(find(b, "bias_grad"), nullptr);
  EXPECT_DOUBLE_EQ(find(b, "bias_grad")->bytes, 8.0 * 128 * 4096 * 2);
  EXPECT_TRUE(find(b, "bias_grad")->weight_gradient);
  ASSERT_NE(find(b, "bias_grad_cast"), nullptr);
  EXPECT_DOUBLE_EQ(find(b, "bias_grad_cast")->bytes, 4096.0 * (2 + 4));
  EXPECT_DOUBLE_EQ(find(b, "weight_grad_cast")->bytes, 1024.0 * 4096 * (2 + 4));
  // Inductor casts the bias with the weight; the gradient's reduction stays a kernel.
  LayerGraphRun compiled = run;
  compiled.framework = Framework::torch_compile;
  EXPECT_EQ(find(layer_forward_kernels(fc1, &g.layers[0], compiled), "bias_cast"), nullptr);
  EXPECT_DOUBLE_EQ(find(layer_forward_kernels(fc1, &g.layers[0], compiled), "weight_cast")->bytes,
                   (1024.0 * 4096 + 4096) * (4 + 2));
  EXPECT_NE(find(layer_backward_kernels(fc1, &g.layers[0], compiled), "bias_grad"), nullptr);
}

TEST(LayerGraphBias, BertsDecoderCastsTheTiedWordEmbeddingsAndAddsItsGradientToTheirs) {
  // BERT-large's masked-LM decoder, 1024 -> 30,522 over 128 tokens, batch 8, bf16 autocast: its
  // weight is the word embeddings' table, which it casts (6 B an element) and whose gradient it
  // casts up and adds to the table's (read two fp32, write one); its own parameters are its bias.
  const LayerGraph bert = *zoo_model("bert-large", {.sequence_length = 128});
  const auto decoder = std::find_if(bert.layers.begin(), bert.layers.end(),
                                    [](const Layer& l) { return l.name == "cls.predictions.decoder"; });
  ASSERT_NE(decoder, bert.layers.end());
  ASSERT_TRUE(decoder->tied);
  const double table = 1024.0 * 30522;
  const LayerGraphRun run = bf16_autocast(8);
  const std::vector<Operator> f = layer_forward_kernels(*decoder, &*(decoder - 1), run);
  EXPECT_DOUBLE_EQ(find(f, "weight_cast")->bytes, table * (4 + 2));
  EXPECT_DOUBLE_EQ(find(f, "bias_cast")->bytes, 30522.0 * (4 + 2));
  const std::vector<Operator> b = layer_backward_kernels(*decoder, &*(decoder - 1), run);
  EXPECT_DOUBLE_EQ(find(b, "weight_grad_cast")->bytes, table * (2 + 4));
  ASSERT_NE(find(b, "tied_grad_sum"), nullptr);
  EXPECT_DOUBLE_EQ(find(b, "tied_grad_sum")->bytes, 3 * table * 4);
  EXPECT_DOUBLE_EQ(find(b, "bias_grad")->bytes, 8.0 * 128 * 30522 * 2);
  // Kept: the logits (2 B) and the table's bf16 cast.
  EXPECT_DOUBLE_EQ(layer_kept_bytes(*decoder, run), 8.0 * 128 * 30522 * 2 + table * 2);
}

TEST(LayerGraphAttention, AFusedKernelKeepsItsOutputAndLogSumExpNotTheScores) {
  // 16 heads over 512 tokens of 1024 features, batch 8, bf16: the output (2 B) and one fp32
  // log-sum-exp per query and head; the 16 x 512 x 512 scores are never written.
  LayerGraph g;
  TokenLayers t(g, 512, 1024);
  t.attention("core", 16);
  t.dropout(0.1);
  const double context = 8.0 * 512 * 1024, scores = 8.0 * 16 * 512 * 512;
  EXPECT_DOUBLE_EQ(layer_kept_bytes(g.layers[0], bf16_autocast(8)), context * 2 + 8.0 * 16 * 512 * 4);
  // Unfused under autocast: the softmax's fp32 output, the dropout's mask and the probabilities'
  // bf16 copy PV reads: 4 + 1 + 2 B per score.
  const LayerGraphRun unfused = bf16_autocast(8, AttentionKernel::unfused);
  EXPECT_DOUBLE_EQ(layer_kept_bytes(g.layers[0], unfused), context * 2 + scores * (4 + 1 + 2));
  // Its dropout runs over the fp32 probabilities each way: 4 B read, 4 B written, 1 B of mask.
  const std::vector<Operator> f = layer_forward_kernels(g.layers[0], nullptr, unfused);
  const std::vector<Operator> b = layer_backward_kernels(g.layers[0], nullptr, unfused);
  const Operator* drop = find(f, "attention_dropout");
  ASSERT_NE(drop, nullptr);
  EXPECT_DOUBLE_EQ(drop->bytes, scores * (2 * 4 + 1));
  ASSERT_NE(find(b, "attention_dropout_backward"), nullptr);
  // Autocast's softmax casts the bf16 scores up first (2 + 4 B), then runs as one warp per row of
  // 512 fp32 keys (4 + 4 B, streaming); its backward multiplies the gradient by the output before
  // reducing (3 x 4 B each).
  EXPECT_DOUBLE_EQ(find(f, "scores_cast")->bytes, scores * 6);
  EXPECT_EQ(find(f, "attention_softmax")->access, MemoryAccess::streaming);
  EXPECT_DOUBLE_EQ(find(f, "attention_softmax")->bytes, scores * 8);
  EXPECT_DOUBLE_EQ(find(b, "attention_softmax_grad_times_output")->bytes, scores * 12);
  EXPECT_DOUBLE_EQ(find(b, "attention_softmax_backward")->bytes, scores * 12);
  // A fused kernel takes the probabilities' dropout inside: no kernel of its own.
  EXPECT_EQ(find(layer_forward_kernels(g.layers[0], nullptr, bf16_autocast(8)), "attention_dropout"), nullptr);
}

TEST(LayerGraphLoss, BertsLossReadsBothHeadsEveryTokensVocabularyAndTheNextSentencePair) {
  // BERT-large at 128 tokens, batch 32, bf16 autocast: the masked-LM loss over 32 x 128 rows of
  // 30,522 logits, then the next-sentence loss over 32 rows of 2, each cast up to fp32 (2 B read,
  // 4 B written), log-softmax (12 B per logit) and NLL.
  const LayerGraph bert = *zoo_model("bert-large", {.sequence_length = 128});
  const std::vector<const Layer*> heads = logits_layers(bert);
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0]->name, "cls.predictions.decoder");
  EXPECT_EQ(heads[1]->name, "cls.seq_relationship");
  const std::vector<Operator> f = loss_forward_kernels(bert, bf16_autocast(32));
  std::vector<double> upcasts;
  for (const Operator& op : f)
    if (std::string(op.name) == "logits_upcast") upcasts.push_back(op.bytes);
  ASSERT_EQ(upcasts.size(), 2u);
  EXPECT_DOUBLE_EQ(upcasts[0], 32.0 * 128 * 30522 * (2 + 4));
  EXPECT_DOUBLE_EQ(upcasts[1], 32.0 * 2 * (2 + 4));
  EXPECT_DOUBLE_EQ(find(f, "log_softmax")->bytes, 12 * 32.0 * 128 * 30522);
  // An image model's loss reads its last layer: ResNet-50's 1,000 classes.
  const LayerGraph resnet = *zoo_model("resnet-50");
  ASSERT_EQ(logits_layers(resnet).size(), 1u);
  EXPECT_EQ(logits_layers(resnet)[0]->name, "fc");
}

TEST(LayerGraphLoss, TheForwardHoldsTheLayersOutputsAndTheLossesTensors) {
  // docs/data-parallel.md's MLP, one sample, bf16 autocast: fc1's 1,024 outputs and fc2's 10
  // logits (2 B each; the in-place ReLU keeps nothing), log-softmax's fp32 output (4 B each) and
  // the loss backward's two fp32 gradients of them (8 B each).
  LayerGraph g;
  TokenLayers t(g, 1, 784);
  t.linear("fc1", 784, 1024);
  t.activation("relu1", 1024);
  g.layers.back().in_place = true;
  t.linear("fc2", 1024, 10);
  EXPECT_DOUBLE_EQ(forward_held_bytes(g, bf16_autocast(1)), (1024 + 10) * 2 + 10 * 4 + 10 * 8);
}

TEST(LayerGraphOptimizer, AdamClipsAsTheTransformersDoWithTheSixScalarKernels) {
  // BERT-base's tensors under fused AdamW after clip_grad_norm_(foreach=True): the norms, six
  // scalar kernels, the scaling, then Adam (add_grad_norm_clipping, the transformers' clipping).
  const LayerGraph bert = *zoo_model("bert-base");
  std::vector<double> tensors;
  for (const Layer& l : bert.layers)
    tensors.insert(tensors.end(), l.parameter_tensors.begin(), l.parameter_tensors.end());
  const std::vector<Operator> ops = layer_graph_optimizer_kernels(LayerModelOptimizer::adam, 0, tensors);
  const Operator* total = find(ops, "grad_norm_total");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->kernels, 6);
  EXPECT_EQ(total->bytes, 0);
  EXPECT_EQ(ops.front().name, "grad_norm");
  EXPECT_EQ(ops.back().name, "adam");
}

TEST(LayerGraphCompiled, InductorFusesTheResidualSumIntoTheNormAndTheNormWritesTheLinearsInput) {
  // BERT's post-norm sum and LayerNorm, 128 tokens x 1024, batch 8, bf16 autocast, compiled as the
  // compiled Llama trace shows a layer's add, norm and cast: one kernel reading the fp32 stream
  // and the bf16 branch and writing the stream and the bf16 normalized tensor (12 B an element),
  // no kernel for the sum, no input cast for the linear after the norm; backward one kernel (the
  // linear's bf16 gradient and the stream's read, the stream's written: 10 B) and the weight
  // gradient's partial sums (512 x 1024 fp32).
  LayerGraph g;
  TokenLayers t(g, 128, 1024);
  t.linear("out", 1024, 1024);
  t.add("residual");
  t.layer_norm("ln");
  t.linear("fc1", 1024, 4096);
  LayerGraphRun run = bf16_autocast(8);
  run.framework = Framework::torch_compile;
  const double elements = 8.0 * 128 * 1024;
  EXPECT_TRUE(layer_forward_kernels(g.layers[1], &g.layers[0], run).empty());
  const std::vector<Operator> norm = layer_forward_kernels(g.layers[2], &g.layers[1], run);
  ASSERT_EQ(norm.size(), 1u);
  EXPECT_EQ(norm[0].name, "add_norm");
  EXPECT_DOUBLE_EQ(norm[0].bytes, elements * (2 * 4 + 2 * 2));
  EXPECT_EQ(find(layer_forward_kernels(g.layers[3], &g.layers[2], run), "input_cast"), nullptr);
  const std::vector<Operator> norm_back = layer_backward_kernels(g.layers[2], &g.layers[1], run);
  ASSERT_EQ(norm_back.size(), 2u);
  EXPECT_EQ(norm_back[0].name, "add_norm_backward");
  EXPECT_DOUBLE_EQ(norm_back[0].bytes, elements * (2 + 2 * 4));
  EXPECT_DOUBLE_EQ(norm_back[1].bytes, 512 * 1024 * 4.0);
  const std::vector<Operator> sum_back = layer_backward_kernels(g.layers[1], &g.layers[0], run);
  ASSERT_EQ(sum_back.size(), 1u);  // the branch's gradient cast down; the sum inside add_norm_backward
  EXPECT_EQ(sum_back[0].name, "residual_grad_cast");
  // Eagerly: the promoting sum, the norm, and the linear's input cast.
  run.framework = Framework::pytorch;
  EXPECT_EQ(layer_forward_kernels(g.layers[1], &g.layers[0], run)[0].name, "residual_add");
  EXPECT_EQ(layer_forward_kernels(g.layers[2], &g.layers[1], run)[0].name, "layer_norm");
  EXPECT_NE(find(layer_forward_kernels(g.layers[3], &g.layers[2], run), "input_cast"), nullptr);
}

// The traced GPT-1.3B step (tests/data/h100-2026-11-26: 24 pre-norm layers of 2048, 16 heads,
// GeLU MLP of 8192, dropout 0.1 on both residual branches, tied LM head over 50,304 logits; seq
// 2048, micro-batch 4, bf16 autocast, fused AdamW) written as a layer graph: its encoder layers
// run the transformers' kernels, so the layer graph's classes and memory come out as the trace
// measured them (its attention has no causal mask: not compared).
LayerGraph gpt_1_3b_as_layer_graph() {
  LayerGraph g{"gpt-1.3b", "sequence", {}};
  TokenLayers t(g, 2048, 2048);
  t.embedding("wte", 50304);
  t.embedding("wpe", 2048);
  t.add("embeddings.add");
  for (int i = 0; i < 24; ++i) {
    const std::string n = "h" + std::to_string(i);
    t.layer_norm(n + ".ln_1");
    t.linear(n + ".qkv", 2048, 3 * 2048);
    t.attention(n + ".attention", 16);
    t.linear(n + ".proj", 2048, 2048);
    t.dropout(0.1);
    t.add(n + ".attention.residual");
    t.layer_norm(n + ".ln_2");
    t.linear(n + ".fc", 2048, 8192);
    t.activation(n + ".gelu", 8192);
    t.linear(n + ".fc2", 8192, 2048);
    t.dropout(0.1);
    t.add(n + ".mlp.residual");
  }
  t.layer_norm("ln_f");
  t.linear("lm_head", 2048, 50304, false);
  set_parameters(g.layers.back(), {0});  // tied to wte
  t.logits();
  return g;
}

TEST(LayerGraphEncoders, TheTracedGptWrittenAsALayerGraphTakesTheTracesKernelTimesAndMemory) {
  const test::ScratchDir dir;
  const auto file = dir.write("gpt.yaml", "name: gpt-as-layer-graph\n"
                                          "model: {zoo: bert-base, optimizer: adam}\n"
                                          "training: {global_batch: 4, micro_batch: 4, precision: bf16}\n"
                                          "parallelism: {dp: 1}\n"
                                          "cluster: {gpu: h100-sxm, nodes: 1, topology: " +
                                              (test::source_dir() / "topologies" / "single-h100-sxm.yaml").string() +
                                              "}\n");
  ResolvedScenario r = resolve_scenario(load_scenario(file));
  r.scenario.layer_model->graph = gpt_1_3b_as_layer_graph();
  const LayerModelPass p = layer_model_pass(r.scenario, r.compute);
  const auto sum = [&](OperatorKind k) {
    return p.forward_classes[k] + p.backward_classes[k] + p.optimizer_classes[k];
  };
  // The trace's classes (validation/single-gpu-steps.yaml): GEMM 81.95 ms, memory-bound 60.73,
  // optimizer 20.15.
  EXPECT_NEAR(sum(OperatorKind::gemm), 81.95e-3, 0.05 * 81.95e-3);
  EXPECT_NEAR(sum(OperatorKind::elementwise), 60.73e-3, 0.07 * 60.73e-3);
  EXPECT_NEAR(sum(OperatorKind::optimizer), 20.15e-3, 0.03 * 20.15e-3);
  // Peak allocated, the allowance apart: 36.95 GiB measured.
  const MemoryBreakdown m = peak_memory_per_gpu(r.scenario);
  EXPECT_NEAR((m.total_bytes - m.fragmentation_bytes) / (1 << 30), 36.95, 0.02 * 36.95);
}

}  // namespace
}  // namespace dtsim

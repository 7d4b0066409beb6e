// Dropout in layer graphs and what an attention layer keeps for the backward pass: BERT's dropout
// (BertConfig's hidden_dropout_prob and attention_probs_dropout_prob, 0.1) priced as the
// transformers' dropout kernels, and a fused attention kernel keeping its output and log-sum-exp,
// not the score matrix. Every figure is a count of elements times their bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "device_spec.hpp"
#include "layer_graph_builder.hpp"
#include "layer_graph_kernels.hpp"
#include "model_zoo.hpp"

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
  for (const Layer& l : zoo_model("vit-b-16")->layers) EXPECT_EQ(l.dropout, 0) << l.name;
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
  const Operator* drop = find(layer_forward_kernels(g.layers[0], nullptr, unfused), "attention_dropout");
  ASSERT_NE(drop, nullptr);
  EXPECT_DOUBLE_EQ(drop->bytes, scores * (2 * 4 + 1));
  ASSERT_NE(find(layer_backward_kernels(g.layers[0], nullptr, unfused), "attention_dropout_backward"), nullptr);
  // A fused kernel takes the probabilities' dropout inside: no kernel of its own.
  EXPECT_EQ(find(layer_forward_kernels(g.layers[0], nullptr, bf16_autocast(8)), "attention_dropout"), nullptr);
}

}  // namespace
}  // namespace dtsim

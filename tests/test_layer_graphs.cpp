// Layer-graph models (issue 18): each zoo model's parameters and forward multiply-accumulates
// against the figures its reference implementation publishes, and the builders' arithmetic
// against sums done by hand.
#include <gtest/gtest.h>

#include "layer_graph_builder.hpp"
#include "model_zoo.hpp"

namespace dtsim {
namespace {

LayerGraph zoo(const std::string& name, const ZooOptions& o = {}) {
  const std::optional<LayerGraph> g = zoo_model(name, o);
  EXPECT_TRUE(g.has_value()) << name;
  return g.value_or(LayerGraph{});
}

// torchvision's model pages (pytorch.org/vision/stable/models, ImageNet-1K weights): num_params
// exactly, and "GFLOPS", which count multiply-accumulates of convolutions, linear layers and
// attention, to the two decimals printed.
struct Published {
  const char* model;
  double parameters;
  double gmacs;
  // Layers the published count leaves out: it was taken in eval mode, where Inception v3's
  // auxiliary classifier does not run (training runs it: 5.7 M more).
  const char* not_in_gmacs = nullptr;
};

double macs_without(const LayerGraph& g, const char* prefix) {
  double sum = 0;
  for (const Layer& l : g.layers)
    if (!prefix || l.name.rfind(prefix, 0) != 0) sum += l.forward_macs;
  return sum;
}

class TorchvisionModels : public testing::TestWithParam<Published> {};

TEST_P(TorchvisionModels, MatchTheirPublishedParametersAndGflops) {
  const Published p = GetParam();
  const LayerGraph g = zoo(p.model);
  EXPECT_EQ(g.parameters(), p.parameters) << p.model;
  EXPECT_NEAR(macs_without(g, p.not_in_gmacs) / 1e9, p.gmacs, 0.005) << p.model;
  EXPECT_EQ(g.sample_unit, "image");
}

INSTANTIATE_TEST_SUITE_P(Zoo, TorchvisionModels,
                         testing::Values(Published{"resnet-50", 25557032, 4.09},
                                         Published{"resnet-101", 44549160, 7.80},
                                         Published{"resnet-152", 60192808, 11.51},
                                         Published{"vgg-16", 138357544, 15.47},
                                         Published{"inception-v3", 27161264, 5.71, "AuxLogits"},
                                         Published{"vit-b-16", 86567656, 17.56},
                                         Published{"vit-l-16", 304326632, 61.55}));

TEST(LayerGraphs, BertMatchesHuggingFacesParameterCountAndTheMatmulsByHand) {
  const LayerGraph base = zoo("bert-base");
  // bert-base-uncased's BertModel has 109,482,240 parameters (Hugging Face); BertForPreTraining
  // adds the masked-LM transform (768x768 + 768), its layer norm (2x768), the decoder's bias
  // (30,522; its weights are the word embeddings) and next-sentence (768x2 + 2).
  EXPECT_EQ(base.parameters(), 109482240.0 + 768 * 768 + 768 + 2 * 768 + 30522 + 768 * 2 + 2);
  // Per token per layer: Q, K, V, output (4 d^2) and the MLP (8 d^2); attention 2 L d; then the
  // MLM transform d^2 and decoder d x vocab per token; pooler d^2 and NSP 2d once.
  const double d = 768, L = 128;
  const double per_sequence = 12 * (L * 12 * d * d + 2 * L * L * d) + L * (d * d + d * 30522) + d * d + 2 * d;
  EXPECT_DOUBLE_EQ(base.forward_macs(), per_sequence);
  EXPECT_EQ(base.sample_unit, "sequence");
  // bert-large-uncased: BertModel 335,141,888 parameters, with the same heads at d = 1024.
  EXPECT_EQ(zoo("bert-large").parameters(), 335141888.0 + 1024 * 1024 + 1024 + 2 * 1024 + 30522 + 1024 * 2 + 2);
  // A longer sequence: linear work grows with L, attention with L^2.
  const LayerGraph long_base = zoo("bert-base", ZooOptions{.sequence_length = 512});
  EXPECT_DOUBLE_EQ(long_base.forward_macs(),
                   12 * (512 * 12 * d * d + 2 * 512.0 * 512 * d) + 512 * (d * d + d * 30522) + d * d + 2 * d);
}

TEST(LayerGraphs, AConvolutionsCostFollowsItsShapes) {
  // 3x3, stride 2, padding 1, 64 -> 128 channels on 56x56: output 28x28.
  LayerGraph g;
  ImageLayers b(g, {64, 56, 56});
  b.conv("c", 128, 3, 2, 1);
  EXPECT_EQ(b.shape().height, 28);
  EXPECT_DOUBLE_EQ(g.layers[0].forward_macs, 128.0 * 28 * 28 * 64 * 3 * 3);
  EXPECT_DOUBLE_EQ(g.layers[0].parameters, 128.0 * 64 * 3 * 3);
  // Backward: input and weight gradients, each as many products as forward.
  EXPECT_DOUBLE_EQ(layer_backward_flops(g.layers[0]), 2 * 2 * g.layers[0].forward_macs);
  b.batch_norm("bn");
  EXPECT_DOUBLE_EQ(g.parameters(), 128.0 * 64 * 9 + 2 * 128);
  EXPECT_DOUBLE_EQ(g.forward_flops(), 2 * 128.0 * 28 * 28 * 64 * 9 + kNormFlopsPerElement * 128 * 28 * 28);
}

TEST(LayerGraphs, UnknownNamesAreNotInTheZoo) {
  EXPECT_FALSE(zoo_model("resnet-51").has_value());
  EXPECT_EQ(zoo_model_names().size(), 10u);
}

}  // namespace
}  // namespace dtsim

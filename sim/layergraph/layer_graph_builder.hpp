#pragma once
// Builders that append layers to a LayerGraph and track the activation's shape, so that a model
// is written as its reference implementation is (torchvision, Hugging Face) and every layer's
// multiply-accumulates and parameters follow from the shapes.
#include <string>

#include "layer_graph.hpp"

namespace dtsim {

// FLOPs per element of the layers that are not products: a convention, as published FLOP counts
// leave these out. Normalisation: mean, variance, normalise, scale, shift.
inline constexpr double kNormFlopsPerElement = 5;
inline constexpr double kActivationFlopsPerElement = 1;
inline constexpr double kSoftmaxFlopsPerElement = 5;  // max, subtract, exp, sum, divide

// Feature maps of one image: channels x height x width.
struct ImageShape {
  int channels = 0, height = 0, width = 0;
  double elements() const { return double(channels) * height * width; }
};

struct ConvSpec {
  int out_channels = 0;
  int kernel_h = 1, kernel_w = 1;
  int stride = 1;
  int pad_h = 0, pad_w = 0;
  bool bias = false;
};

class ImageLayers {
 public:
  ImageLayers(LayerGraph& graph, ImageShape input) : graph_(graph), shape_(input) {}

  void conv(const std::string& name, const ConvSpec& spec);
  // The square convolution most models use: k x k, padding `pad`.
  void conv(const std::string& name, int out_channels, int kernel, int stride, int pad, bool bias = false);
  void batch_norm(const std::string& name);
  void relu(const std::string& name);
  void max_pool(const std::string& name, int kernel, int stride, int pad = 0);
  void avg_pool(const std::string& name, int kernel, int stride, int pad = 0);
  void global_avg_pool(const std::string& name);  // to channels x 1 x 1
  void linear(const std::string& name, int out_features, bool bias = true);  // over the flattened map
  void add(const std::string& name);  // a residual sum of two maps of this shape

  const ImageShape& shape() const { return shape_; }
  // Branches: a block saves the shape, builds each branch from it, and sets the concatenation.
  void set_shape(const ImageShape& s) { shape_ = s; }

 private:
  void pool(const std::string& name, int kernel, int stride, int pad);
  LayerGraph& graph_;
  ImageShape shape_;
};

// Token sequences: `tokens` positions of `hidden` features (a transformer encoder).
class TokenLayers {
 public:
  TokenLayers(LayerGraph& graph, int tokens, int hidden) : graph_(graph), tokens_(tokens), hidden_(hidden) {}

  void embedding(const std::string& name, int rows);  // a table of rows x hidden
  void linear(const std::string& name, int in_features, int out_features, bool bias = true);
  // The two products of multi-head self-attention (Q K^T and the weighted sum of V) and the
  // softmax between them, over all heads.
  void attention(const std::string& name, int heads);
  void layer_norm(const std::string& name);
  void activation(const std::string& name, int features);
  void add(const std::string& name);
  // A parameter tensor used without a product (ViT's class token and position embedding).
  void parameters(const std::string& name, double count);
  // Dropout with probability `p` on the output of the layer added last (Layer::dropout).
  void dropout(double p);
  // The layer added last outputs logits the loss reads (Layer::logits).
  void logits();
  // The layer added last is part of nn.MultiheadAttention(batch_first=True) (Layer::torch_mha).
  void torch_mha();

  int tokens() const { return tokens_; }
  int hidden() const { return hidden_; }

 private:
  LayerGraph& graph_;
  int tokens_, hidden_;
};

}  // namespace dtsim

#include "model_zoo.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "layer_graph_builder.hpp"

namespace dtsim {

namespace {

// torchvision's conv + batch norm (+ ReLU) unit.
void conv_bn(ImageLayers& b, const std::string& name, const ConvSpec& spec, bool relu = true) {
  b.conv(name + ".conv", spec);
  b.batch_norm(name + ".bn");
  if (relu) b.relu(name + ".relu");
}

void conv_bn(ImageLayers& b, const std::string& name, int out, int kernel, int stride, int pad, bool relu = true) {
  conv_bn(b, name, ConvSpec{out, kernel, kernel, stride, pad, pad, false}, relu);
}

// ResNet v1.5 bottleneck: the stride sits on the 3x3 convolution.
void bottleneck(ImageLayers& b, const std::string& name, int width, int stride) {
  const ImageShape in = b.shape();
  const int out = 4 * width;
  if (stride != 1 || in.channels != out) {
    conv_bn(b, name + ".downsample", out, 1, stride, 0, false);
    b.set_shape(in);
  }
  conv_bn(b, name + ".1", width, 1, 1, 0);
  conv_bn(b, name + ".2", width, 3, stride, 1);
  conv_bn(b, name + ".3", out, 1, 1, 0, false);
  b.add(name + ".add");
  b.relu(name + ".relu");
}

LayerGraph resnet(const std::string& name, const std::vector<int>& blocks, const ZooOptions& o) {
  LayerGraph g{name, "image", {}};
  ImageLayers b(g, {3, 224, 224});
  conv_bn(b, "conv1", 64, 7, 2, 3);
  b.max_pool("maxpool", 3, 2, 1);
  const int widths[] = {64, 128, 256, 512};
  for (size_t stage = 0; stage < blocks.size(); ++stage)
    for (int i = 0; i < blocks[stage]; ++i)
      bottleneck(b, fmt::format("layer{}.{}", stage + 1, i), widths[stage], i == 0 && stage > 0 ? 2 : 1);
  b.global_avg_pool("avgpool");
  b.linear("fc", o.classes);
  return g;
}

// VGG-16 (configuration D): 3x3 convolutions with bias, 2x2 max pools, three linear layers.
LayerGraph vgg16(const ZooOptions& o) {
  LayerGraph g{"vgg-16", "image", {}};
  ImageLayers b(g, {3, 224, 224});
  const std::vector<std::vector<int>> blocks = {
      {64, 64}, {128, 128}, {256, 256, 256}, {512, 512, 512}, {512, 512, 512}};
  int n = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    for (int channels : blocks[i]) {
      b.conv(fmt::format("features.conv{}", n), channels, 3, 1, 1, true);
      b.relu(fmt::format("features.relu{}", n++));
    }
    b.max_pool(fmt::format("features.pool{}", i), 2, 2);
  }
  b.linear("classifier.0", 4096);
  b.relu("classifier.1");
  b.linear("classifier.3", 4096);
  b.relu("classifier.4");
  b.linear("classifier.6", o.classes);
  return g;
}

// Inception v3's blocks: branches built from the block's input, concatenated along channels.
class InceptionBlocks {
 public:
  explicit InceptionBlocks(ImageLayers& b) : b_(b) {}

  // BasicConv2d: convolution without bias, batch norm, ReLU.
  void conv_hw(const std::string& name, int out, int kh, int kw, int stride, int pad_h, int pad_w) {
    conv_bn(b_, name, ConvSpec{out, kh, kw, stride, pad_h, pad_w, false});
  }
  void conv(const std::string& name, int out, int k, int stride = 1, int pad = 0) {
    conv_hw(name, out, k, k, stride, pad, pad);
  }

  void inception_a(const std::string& n, int pool_features) {
    branches({[&] { conv(n + ".branch1x1", 64, 1); },
              [&] { conv(n + ".branch5x5_1", 48, 1); conv(n + ".branch5x5_2", 64, 5, 1, 2); },
              [&] { double_3x3(n, 64, 96, 96, 1); },
              [&] { b_.avg_pool(n + ".pool", 3, 1, 1); conv(n + ".branch_pool", pool_features, 1); }});
  }
  void inception_b(const std::string& n) {
    branches({[&] { conv(n + ".branch3x3", 384, 3, 2); }, [&] { double_3x3(n, 64, 96, 96, 2); },
              [&] { b_.max_pool(n + ".pool", 3, 2); }});
  }
  void inception_c(const std::string& n, int c7) {
    branches({[&] { conv(n + ".branch1x1", 192, 1); },
              [&] {
                conv(n + ".branch7x7_1", c7, 1);
                conv_hw(n + ".branch7x7_2", c7, 1, 7, 1, 0, 3);
                conv_hw(n + ".branch7x7_3", 192, 7, 1, 1, 3, 0);
              },
              [&] {
                conv(n + ".branch7x7dbl_1", c7, 1);
                conv_hw(n + ".branch7x7dbl_2", c7, 7, 1, 1, 3, 0);
                conv_hw(n + ".branch7x7dbl_3", c7, 1, 7, 1, 0, 3);
                conv_hw(n + ".branch7x7dbl_4", c7, 7, 1, 1, 3, 0);
                conv_hw(n + ".branch7x7dbl_5", 192, 1, 7, 1, 0, 3);
              },
              [&] { b_.avg_pool(n + ".pool", 3, 1, 1); conv(n + ".branch_pool", 192, 1); }});
  }
  void inception_d(const std::string& n) {
    branches({[&] { conv(n + ".branch3x3_1", 192, 1); conv(n + ".branch3x3_2", 320, 3, 2); },
              [&] {
                conv(n + ".branch7x7x3_1", 192, 1);
                conv_hw(n + ".branch7x7x3_2", 192, 1, 7, 1, 0, 3);
                conv_hw(n + ".branch7x7x3_3", 192, 7, 1, 1, 3, 0);
                conv(n + ".branch7x7x3_4", 192, 3, 2);
              },
              [&] { b_.max_pool(n + ".pool", 3, 2); }});
  }
  void inception_e(const std::string& n) {
    branches({[&] { conv(n + ".branch1x1", 320, 1); },
              [&] {
                conv(n + ".branch3x3_1", 384, 1);
                split_1x3_3x1(n + ".branch3x3_2", 384);
              },
              [&] {
                conv(n + ".branch3x3dbl_1", 448, 1);
                conv(n + ".branch3x3dbl_2", 384, 3, 1, 1);
                split_1x3_3x1(n + ".branch3x3dbl_3", 384);
              },
              [&] { b_.avg_pool(n + ".pool", 3, 1, 1); conv(n + ".branch_pool", 192, 1); }});
  }
  // The auxiliary classifier on Mixed_6e's output (it runs in training; its output is discarded).
  void aux(const std::string& n, int classes) {
    const ImageShape in = b_.shape();
    b_.avg_pool(n + ".pool", 5, 3);
    conv(n + ".conv0", 128, 1);
    conv(n + ".conv1", 768, 5);
    b_.global_avg_pool(n + ".avgpool");
    b_.linear(n + ".fc", classes);
    b_.set_shape(in);
  }

 private:
  void double_3x3(const std::string& n, int c1, int c2, int c3, int stride) {
    conv(n + ".branch3x3dbl_1", c1, 1); conv(n + ".branch3x3dbl_2", c2, 3, 1, 1);
    conv(n + ".branch3x3dbl_3", c3, 3, stride, stride == 1 ? 1 : 0);
  }
  // A 1x3 and a 3x1 convolution side by side on the same input, concatenated.
  void split_1x3_3x1(const std::string& n, int out) {
    const ImageShape in = b_.shape();
    conv_hw(n + "a", out, 1, 3, 1, 0, 1);
    b_.set_shape(in);
    conv_hw(n + "b", out, 3, 1, 1, 1, 0);
    b_.set_shape({2 * out, in.height, in.width});
  }
  void branches(const std::vector<std::function<void()>>& build) {
    const ImageShape in = b_.shape();
    ImageShape out{0, 0, 0};
    for (const auto& branch : build) {
      b_.set_shape(in);
      branch();
      out = {out.channels + b_.shape().channels, b_.shape().height, b_.shape().width};
    }
    b_.set_shape(out);
  }

  ImageLayers& b_;
};

LayerGraph inception_v3(const ZooOptions& o) {
  LayerGraph g{"inception-v3", "image", {}};
  ImageLayers b(g, {3, 299, 299});
  InceptionBlocks m(b);
  m.conv("Conv2d_1a_3x3", 32, 3, 2);
  m.conv("Conv2d_2a_3x3", 32, 3);
  m.conv("Conv2d_2b_3x3", 64, 3, 1, 1);
  b.max_pool("maxpool1", 3, 2);
  m.conv("Conv2d_3b_1x1", 80, 1);
  m.conv("Conv2d_4a_3x3", 192, 3);
  b.max_pool("maxpool2", 3, 2);
  m.inception_a("Mixed_5b", 32);
  m.inception_a("Mixed_5c", 64);
  m.inception_a("Mixed_5d", 64);
  m.inception_b("Mixed_6a");
  m.inception_c("Mixed_6b", 128);
  m.inception_c("Mixed_6c", 160);
  m.inception_c("Mixed_6d", 160);
  m.inception_c("Mixed_6e", 192);
  m.aux("AuxLogits", o.classes);
  m.inception_d("Mixed_7a");
  m.inception_e("Mixed_7b");
  m.inception_e("Mixed_7c");
  b.global_avg_pool("avgpool");
  b.linear("fc", o.classes);
  return g;
}

// One pre-norm (ViT) or post-norm (BERT) transformer encoder layer with a GELU MLP of 4x width,
// with dropout `p` on the attention's probabilities and on both branches before their residual
// sums (0: none); its attention torchvision's nn.MultiheadAttention (batch_first) where `mha`.
void encoder_layer(TokenLayers& t, const std::string& n, int heads, bool pre_norm, double p = 0, bool mha = false) {
  const int d = t.hidden();
  const auto mark = [&] {
    if (mha) t.torch_mha();
  };
  if (pre_norm) t.layer_norm(n + ".ln_1");
  t.linear(n + ".attention.qkv", d, 3 * d);
  mark();
  t.attention(n + ".attention.core", heads);
  t.dropout(p);
  mark();
  t.linear(n + ".attention.out", d, d);
  t.dropout(p);
  mark();
  t.add(n + ".attention.residual");
  mark();
  t.layer_norm(n + (pre_norm ? ".ln_2" : ".attention.ln"));
  t.linear(n + ".mlp.fc1", d, 4 * d);
  t.activation(n + ".mlp.gelu", 4 * d);
  t.linear(n + ".mlp.fc2", 4 * d, d);
  t.dropout(p);
  t.add(n + ".mlp.residual");
  mark();
  if (!pre_norm) t.layer_norm(n + ".output.ln");
}

// ViT with 16x16 patches on 224x224 images: 196 patches and a class token. No dropout:
// torchvision's VisionTransformer defaults dropout and attention_dropout to 0. Its EncoderBlock's
// attention is nn.MultiheadAttention(batch_first=True).
LayerGraph vit(const std::string& name, int layers, int hidden, int heads, const ZooOptions& o) {
  LayerGraph g{name, "image", {}};
  ImageLayers patches(g, {3, 224, 224});
  patches.conv("conv_proj", hidden, 16, 16, 0, true);
  const int tokens = patches.shape().height * patches.shape().width + 1;
  TokenLayers t(g, tokens, hidden);
  t.parameters("class_token", hidden);
  t.parameters("pos_embedding", double(tokens) * hidden);
  for (int i = 0; i < layers; ++i) encoder_layer(t, fmt::format("encoder.layer{}", i), heads, true, 0, true);
  t.layer_norm("encoder.ln");
  TokenLayers head(g, 1, hidden);  // the class token only
  head.linear("heads.head", hidden, o.classes);
  return g;
}

// BertForPreTraining: embeddings, post-norm encoder, pooler, masked-LM head (decoder weights
// tied to the word embeddings: a product without parameters of its own) and next-sentence head.
// Dropout 0.1 after the embeddings' norm, on the attention's probabilities and on both residual
// branches: BertConfig's hidden_dropout_prob and attention_probs_dropout_prob (Hugging Face
// transformers; Google's bert_config.json files alike).
LayerGraph bert(const std::string& name, int layers, int hidden, int heads, const ZooOptions& o) {
  constexpr int kVocab = 30522, kPositions = 512, kTokenTypes = 2;
  constexpr double kDropout = 0.1;
  LayerGraph g{name, "sequence", {}};
  TokenLayers t(g, o.sequence_length, hidden);
  t.embedding("embeddings.word", kVocab);
  t.embedding("embeddings.position", kPositions);
  t.embedding("embeddings.token_type", kTokenTypes);
  t.layer_norm("embeddings.ln");
  t.dropout(kDropout);
  for (int i = 0; i < layers; ++i) encoder_layer(t, fmt::format("encoder.layer{}", i), heads, false, kDropout);
  t.linear("cls.predictions.transform", hidden, hidden);
  t.activation("cls.predictions.gelu", hidden);
  t.layer_norm("cls.predictions.ln");
  t.linear("cls.predictions.decoder", hidden, kVocab, false);
  set_parameters(g.layers.back(), {double(kVocab)});  // tied weights: only the decoder's bias is its own
  g.layers.back().tied = true;
  t.logits();                           // the masked-LM loss over every token's logits
  TokenLayers first(g, 1, hidden);      // the pooler and next-sentence head see the [CLS] token
  first.linear("pooler", hidden, hidden);
  first.linear("cls.seq_relationship", hidden, 2);
  first.logits();                       // and the next-sentence loss
  return g;
}

// DLRM as MLPerf Training v1 ran it on Criteo 1TB (facebookresearch/dlrm, MLPerf config:
// --arch-sparse-feature-size=128 --arch-mlp-bot=13-512-256-128 --arch-mlp-top=1024-1024-512-256-1
// --max-ind-range=40000000): 13 dense features through the bottom MLP, 26 one-hot categorical
// features looked up in tables of 128-wide rows (the README's num_embeddings_per_feature, capped at
// 40M rows), the dot products of the 27 vectors' distinct pairs (351) beside the bottom MLP's
// output into the top MLP. A sample is one click log record.
LayerGraph dlrm(const ZooOptions&) {
  constexpr int kDim = 128, kDense = 13;
  constexpr double kRows[] = {40000000, 39060, 17295, 7424, 20265, 3,     7122,     1543,     63,
                              40000000, 3067956, 405282, 10,   2209,  11938, 155,      4,        976,
                              14,       40000000, 40000000, 40000000, 590152, 12973, 108, 36};
  LayerGraph g{"dlrm", "record", {}};
  auto mlp = [&g](const std::string& name, const std::vector<int>& widths, bool last_relu) {
    for (size_t i = 1; i < widths.size(); ++i) {
      TokenLayers t(g, 1, widths[i]);
      t.linear(fmt::format("{}.{}", name, 2 * (i - 1)), widths[i - 1], widths[i]);
      if (i + 1 < widths.size() || last_relu) t.activation(fmt::format("{}.relu{}", name, i - 1), widths[i]);
    }
  };
  mlp("bot_l", {kDense, 512, 256, kDim}, true);
  for (size_t t = 0; t < std::size(kRows); ++t) {
    Layer l{fmt::format("emb_l.{}", t), LayerKind::embedding};
    l.input_elements = 1;  // one index per sample
    set_parameters(l, {kRows[t] * kDim});
    l.output_elements = kDim;
    l.sharded = true;
    g.layers.push_back(l);
  }
  // The interaction: Z Z^T of the 27 vectors as one batched product (both operands need
  // gradients, as attention's do), then its lower triangle beside the bottom MLP's output.
  constexpr int kVectors = int(std::size(kRows)) + 1;
  constexpr int kPairs = kVectors * (kVectors - 1) / 2;
  Layer interaction{"interact_features", LayerKind::attention};
  interaction.input_elements = double(kVectors) * kDim;
  interaction.forward_macs = double(kVectors) * kVectors * kDim;
  interaction.output_elements = kDim + kPairs;
  g.layers.push_back(interaction);
  mlp("top_l", {kDim + kPairs, 1024, 1024, 512, 256, 1}, false);
  return g;
}

const std::map<std::string, std::function<LayerGraph(const ZooOptions&)>>& zoo() {
  static const std::map<std::string, std::function<LayerGraph(const ZooOptions&)>> models = {
      {"resnet-50", [](const ZooOptions& o) { return resnet("resnet-50", {3, 4, 6, 3}, o); }},
      {"resnet-101", [](const ZooOptions& o) { return resnet("resnet-101", {3, 4, 23, 3}, o); }},
      {"resnet-152", [](const ZooOptions& o) { return resnet("resnet-152", {3, 8, 36, 3}, o); }},
      {"vgg-16", vgg16},
      {"inception-v3", inception_v3},
      {"vit-b-16", [](const ZooOptions& o) { return vit("vit-b-16", 12, 768, 12, o); }},
      {"vit-l-16", [](const ZooOptions& o) { return vit("vit-l-16", 24, 1024, 16, o); }},
      {"bert-base", [](const ZooOptions& o) { return bert("bert-base", 12, 768, 12, o); }},
      {"bert-large", [](const ZooOptions& o) { return bert("bert-large", 24, 1024, 16, o); }},
      {"dlrm", dlrm},
  };
  return models;
}

}  // namespace

std::vector<std::string> zoo_model_names() {
  std::vector<std::string> names;
  for (const auto& [name, build] : zoo()) names.push_back(name);
  return names;
}

std::optional<LayerGraph> zoo_model(const std::string& name, const ZooOptions& options) {
  const auto it = zoo().find(name);
  if (it == zoo().end()) return std::nullopt;
  return it->second(options);
}

}  // namespace dtsim

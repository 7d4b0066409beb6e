#include "layer_graph_builder.hpp"

namespace dtsim {

namespace {

int output_size(int input, int kernel, int stride, int pad) { return (input + 2 * pad - kernel) / stride + 1; }

}  // namespace

void ImageLayers::conv(const std::string& name, const ConvSpec& spec) {
  const ImageShape out{spec.out_channels, output_size(shape_.height, spec.kernel_h, spec.stride, spec.pad_h),
                       output_size(shape_.width, spec.kernel_w, spec.stride, spec.pad_w)};
  const double weights = double(spec.out_channels) * shape_.channels * spec.kernel_h * spec.kernel_w;
  Layer l{name, LayerKind::convolution};
  l.in_channels = shape_.channels;
  l.input_elements = shape_.elements();
  l.forward_macs = out.elements() * shape_.channels * spec.kernel_h * spec.kernel_w;
  set_parameters(l, spec.bias ? std::vector<double>{weights, double(spec.out_channels)} : std::vector<double>{weights});
  l.output_elements = out.elements();
  graph_.layers.push_back(l);
  shape_ = out;
}

void ImageLayers::conv(const std::string& name, int out_channels, int kernel, int stride, int pad, bool bias) {
  conv(name, ConvSpec{out_channels, kernel, kernel, stride, pad, pad, bias});
}

void ImageLayers::batch_norm(const std::string& name) {
  Layer l{name, LayerKind::normalization};
  l.batch_statistics = true;
  l.input_elements = shape_.elements();
  l.forward_other_flops = kNormFlopsPerElement * shape_.elements();
  set_parameters(l, {double(shape_.channels), double(shape_.channels)});
  l.output_elements = shape_.elements();
  graph_.layers.push_back(l);
}

void ImageLayers::relu(const std::string& name) {
  Layer l{name, LayerKind::activation};
  l.in_place = true;  // torchvision's models all use ReLU(inplace=True)
  l.input_elements = shape_.elements();
  l.forward_other_flops = kActivationFlopsPerElement * shape_.elements();
  l.output_elements = shape_.elements();
  graph_.layers.push_back(l);
}

void ImageLayers::pool(const std::string& name, int kernel, int stride, int pad) {
  const ImageShape out{shape_.channels, output_size(shape_.height, kernel, stride, pad),
                       output_size(shape_.width, kernel, stride, pad)};
  Layer l{name, LayerKind::pooling};
  l.input_elements = shape_.elements();
  l.forward_other_flops = out.elements() * kernel * kernel;
  l.output_elements = out.elements();
  graph_.layers.push_back(l);
  shape_ = out;
}

void ImageLayers::max_pool(const std::string& name, int kernel, int stride, int pad) {
  pool(name, kernel, stride, pad);
  graph_.layers.back().argmax = true;
}

void ImageLayers::avg_pool(const std::string& name, int kernel, int stride, int pad) {
  pool(name, kernel, stride, pad);
}

void ImageLayers::global_avg_pool(const std::string& name) {
  Layer l{name, LayerKind::pooling};
  l.input_elements = shape_.elements();
  l.forward_other_flops = shape_.elements();
  l.output_elements = shape_.channels;
  graph_.layers.push_back(l);
  shape_ = ImageShape{shape_.channels, 1, 1};
}

void ImageLayers::linear(const std::string& name, int out_features, bool bias) {
  const double in_features = shape_.elements();
  Layer l{name, LayerKind::linear};
  l.input_elements = in_features;
  l.forward_macs = in_features * out_features;
  set_parameters(l, bias ? std::vector<double>{in_features * out_features, double(out_features)}
                         : std::vector<double>{in_features * out_features});
  l.output_elements = out_features;
  graph_.layers.push_back(l);
  shape_ = ImageShape{out_features, 1, 1};
}

void ImageLayers::add(const std::string& name) {
  Layer l{name, LayerKind::elementwise};
  l.input_elements = 2 * shape_.elements();  // both summands
  l.forward_other_flops = shape_.elements();
  l.output_elements = shape_.elements();
  l.in_place = true;  // torchvision's residual blocks add with `out += identity`
  graph_.layers.push_back(l);
}

void TokenLayers::embedding(const std::string& name, int rows) {
  Layer l{name, LayerKind::embedding};
  l.input_elements = tokens_;  // the indices; the lookup reads one row per token
  set_parameters(l, {double(rows) * hidden_});
  l.output_elements = double(tokens_) * hidden_;
  graph_.layers.push_back(l);
}

void TokenLayers::linear(const std::string& name, int in_features, int out_features, bool bias) {
  Layer l{name, LayerKind::linear};
  l.input_elements = double(tokens_) * in_features;
  l.forward_macs = double(tokens_) * in_features * out_features;
  set_parameters(l, bias ? std::vector<double>{double(in_features) * out_features, double(out_features)}
                         : std::vector<double>{double(in_features) * out_features});
  l.output_elements = double(tokens_) * out_features;
  graph_.layers.push_back(l);
}

void TokenLayers::attention(const std::string& name, int heads) {
  Layer l{name, LayerKind::attention};
  l.input_elements = 3.0 * tokens_ * hidden_;  // Q, K and V
  l.forward_macs = 2.0 * tokens_ * tokens_ * hidden_;  // Q K^T and scores x V, all heads together
  l.forward_other_flops = kSoftmaxFlopsPerElement * heads * double(tokens_) * tokens_;
  l.output_elements = double(heads) * tokens_ * tokens_ + double(tokens_) * hidden_;  // scores and context
  l.heads = heads;
  l.tokens = tokens_;
  graph_.layers.push_back(l);
}

void TokenLayers::layer_norm(const std::string& name) {
  Layer l{name, LayerKind::normalization};
  l.input_elements = double(tokens_) * hidden_;
  l.forward_other_flops = kNormFlopsPerElement * double(tokens_) * hidden_;
  set_parameters(l, {double(hidden_), double(hidden_)});
  l.output_elements = double(tokens_) * hidden_;
  graph_.layers.push_back(l);
}

void TokenLayers::activation(const std::string& name, int features) {
  Layer l{name, LayerKind::activation};
  l.input_elements = double(tokens_) * features;
  l.forward_other_flops = kActivationFlopsPerElement * double(tokens_) * features;
  l.output_elements = double(tokens_) * features;
  graph_.layers.push_back(l);
}

void TokenLayers::add(const std::string& name) {
  Layer l{name, LayerKind::elementwise};
  l.input_elements = 2.0 * tokens_ * hidden_;  // both summands
  l.forward_other_flops = double(tokens_) * hidden_;
  l.output_elements = double(tokens_) * hidden_;
  graph_.layers.push_back(l);
}

void TokenLayers::parameters(const std::string& name, double count) {
  Layer l{name, LayerKind::embedding};
  set_parameters(l, {count});
  graph_.layers.push_back(l);
}

void TokenLayers::dropout(double p) {
  if (!graph_.layers.empty()) graph_.layers.back().dropout = p;
}

void TokenLayers::logits() {
  if (!graph_.layers.empty()) graph_.layers.back().logits = true;
}

void TokenLayers::torch_mha() {
  if (!graph_.layers.empty()) graph_.layers.back().torch_mha = true;
}

}  // namespace dtsim

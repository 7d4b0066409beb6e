#include "layer_graph.hpp"

#include <utility>

namespace dtsim {

const char* to_string(LayerKind k) {
  switch (k) {
    case LayerKind::convolution: return "convolution";
    case LayerKind::linear: return "linear";
    case LayerKind::attention: return "attention";
    case LayerKind::normalization: return "normalization";
    case LayerKind::activation: return "activation";
    case LayerKind::pooling: return "pooling";
    case LayerKind::elementwise: return "elementwise";
    case LayerKind::embedding: return "embedding";
  }
  return "?";
}

bool has_weight_products(LayerKind k) { return k == LayerKind::convolution || k == LayerKind::linear; }

double backward_product_factor(LayerKind k) {
  // Attention's two products have no weights, but both operands need gradients: twice forward.
  return has_weight_products(k) || k == LayerKind::attention ? 2.0 : 1.0;
}

double layer_backward_flops(const Layer& layer) {
  return backward_product_factor(layer.kind) * 2 * layer.forward_macs + layer.forward_other_flops;
}

double LayerGraph::forward_macs() const {
  double sum = 0;
  for (const Layer& l : layers) sum += l.forward_macs;
  return sum;
}

double LayerGraph::parameters() const {
  double sum = 0;
  for (const Layer& l : layers) sum += l.parameters;
  return sum;
}

void set_parameters(Layer& layer, std::vector<double> tensors) {
  layer.parameters = 0;
  for (const double n : tensors) layer.parameters += n;
  layer.parameter_tensors = std::move(tensors);
}

std::vector<double> dense_parameter_tensors(const LayerGraph& g) {
  std::vector<double> tensors;
  for (const Layer& l : g.layers) {
    if (!l.sharded) tensors.insert(tensors.end(), l.parameter_tensors.begin(), l.parameter_tensors.end());
  }
  return tensors;
}

double LayerGraph::sharded_parameters() const {
  double sum = 0;
  for (const Layer& l : layers)
    if (l.sharded) sum += l.parameters;
  return sum;
}

double LayerGraph::sharded_output_elements() const {
  double sum = 0;
  for (const Layer& l : layers)
    if (l.sharded) sum += l.output_elements;
  return sum;
}

double LayerGraph::forward_flops() const {
  double sum = 0;
  for (const Layer& l : layers) sum += 2 * l.forward_macs + l.forward_other_flops;
  return sum;
}

double LayerGraph::backward_flops() const {
  double sum = 0;
  for (const Layer& l : layers) sum += layer_backward_flops(l);
  return sum;
}

std::vector<const Layer*> logits_layers(const LayerGraph& g) {
  std::vector<const Layer*> marked;
  for (const Layer& l : g.layers)
    if (l.logits) marked.push_back(&l);
  if (marked.empty() && !g.layers.empty()) marked.push_back(&g.layers.back());
  return marked;
}

}  // namespace dtsim

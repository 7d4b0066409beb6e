#include "layer_graph.hpp"

namespace dtsim {

double layer_backward_flops(const Layer& layer) {
  const bool has_weights = layer.kind == LayerKind::convolution || layer.kind == LayerKind::linear;
  // Attention's two products have no weights, but both operands need gradients: twice forward.
  const double product_factor = has_weights || layer.kind == LayerKind::attention ? 2.0 : 1.0;
  return product_factor * 2 * layer.forward_macs + layer.forward_other_flops;
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

double LayerGraph::activation_elements() const {
  double sum = 0;
  for (const Layer& l : layers) sum += l.output_elements;
  return sum;
}

}  // namespace dtsim

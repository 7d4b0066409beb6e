#pragma once
// A model as an ordered list of layers, each with what it costs per sample (one image, one
// sequence): the workload family beside the transformer builder for CNNs, BERT, ViT and a
// user's own model (sim/workload/README.md "Layer graphs").
#include <string>
#include <vector>

namespace dtsim {

enum class LayerKind { convolution, linear, attention, normalization, activation, pooling, elementwise, embedding };
inline constexpr LayerKind kLayerKinds[] = {LayerKind::convolution, LayerKind::linear,     LayerKind::attention,
                                            LayerKind::normalization, LayerKind::activation, LayerKind::pooling,
                                            LayerKind::elementwise, LayerKind::embedding};
const char* to_string(LayerKind k);
// Layers with weights whose forward is a product (convolution, linear): their backward pass has
// two products (input and weight gradients).
bool has_weight_products(LayerKind k);
// How many times its forward products a layer's backward pass computes: 2 for the layers above
// and attention (both operands of its products need gradients), 1 for the rest.
double backward_product_factor(LayerKind k);

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::linear;
  // Multiply-accumulates of the forward pass per sample: convolutions, linear layers and the two
  // matrix products of attention. This is what torchvision's and timm's "GFLOPS" count.
  double forward_macs = 0;
  // Other forward FLOPs per sample: normalisation, activations, softmax, residual adds, pooling.
  double forward_other_flops = 0;
  double parameters = 0;       // trainable: weights, biases, norm scales and shifts, embeddings
  // The tensors that hold them, in the order PyTorch registers them (a weight, then its bias; a
  // norm's scale and shift): the optimizer's multi-tensor launches follow them. set_parameters()
  // sets both.
  std::vector<double> parameter_tensors = {};
  double output_elements = 0;  // activation elements the layer writes per sample
  double input_elements = 0;   // activation elements the layer reads per sample
  bool in_place = false;  // writes over its input (ReLU(inplace=True), `out += identity`): keeps nothing new
  // Training-time dropout on the layer's output, as a probability (0: none); on an attention
  // layer, on its probabilities (Hugging Face's attention_probs_dropout_prob).
  double dropout = 0;
  // A linear layer whose weight is another layer's (BERT's masked-LM decoder uses the word
  // embeddings' table): the parameters it holds are its bias.
  bool tied = false;
  // Its outputs are logits a cross-entropy loss reads (BERT's masked-LM decoder and next-sentence
  // head); a graph with no such layer has its last layer's read (logits_layers).
  bool logits = false;
  // An embedding table split table-wise across the data-parallel GPUs (DLRM's model-parallel
  // embeddings): each GPU looks up its tables for every sample, an all-to-all hands each GPU its
  // own samples' vectors (and the backward pass their gradients back), and the rows are updated
  // where they live, so its gradients are never all-reduced.
  bool sharded = false;
  // What picks a layer's kernels beyond its kind: a normalization over the batch (BatchNorm) rather
  // than over each sample's features (LayerNorm); a max pooling (it keeps the argmax indices); an
  // attention layer's heads and tokens per sample (its head dimension follows).
  bool batch_statistics = false;
  bool argmax = false;
  // Part of torchvision's nn.MultiheadAttention with batch_first=True (its in- and out-projections
  // and attention), or a residual sum of its sequence-first output: eager PyTorch lays these
  // tensors out sequence-first (layer_graph_kernels.cpp).
  bool torch_mha = false;
  int in_channels = 0;  // a convolution's input channels (0: not known)
  int heads = 0;
  int tokens = 0;
};

struct LayerGraph {
  std::string name;
  std::string sample_unit;  // "image", "sequence" or "record": what one sample is
  std::vector<Layer> layers;

  double forward_macs() const;
  double parameters() const;
  double sharded_parameters() const;       // of the sharded layers
  double sharded_output_elements() const;  // what the sharded layers look up per sample
  // 2 FLOPs per multiply-accumulate plus the rest.
  double forward_flops() const;
  // The backward pass computes the input gradient and the weight gradient of each layer with
  // weights (twice the forward products) and differentiates the rest once.
  double backward_flops() const;
};

double layer_backward_flops(const Layer& layer);

// The layers whose outputs the loss reads: those marked Layer::logits, else the last (none for an
// empty graph).
std::vector<const Layer*> logits_layers(const LayerGraph& g);

// A layer's parameters as these tensors (Layer::parameter_tensors), their sum its count.
void set_parameters(Layer& layer, std::vector<double> tensors);
// The tensors of the layers that are not sharded, layer by layer: what the data-parallel
// optimizer steps over.
std::vector<double> dense_parameter_tensors(const LayerGraph& g);

}  // namespace dtsim

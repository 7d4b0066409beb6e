#pragma once
// The kernels eager PyTorch runs for the layers of a layer graph (CNNs, BERT, ViT, a user's own
// model; layer_graph.hpp), read off the H100 trace of torchvision's ResNet-50 (channels_last,
// bf16 autocast, cudnn.benchmark; tests/data/h100-2026-11-26/traces) and, for the transformer
// encoders' layers, the GPT trace (eager_kernels.cpp); cuDNN's BatchNorm (fp32, fp16) and, with
// NCHW feature maps, the layout's copies off HTA's A100 trace of ResNet-50 (tests/data/traces/hta,
// fp32). docs/frameworks.md lists them.
#include <vector>

#include "compute_model.hpp"
#include "device_spec.hpp"
#include "layer_graph.hpp"
#include "scenario.hpp"

namespace dtsim {

struct LayerGraphRun {
  double samples = 1;            // per micro-batch
  double elem_bytes = 2;         // the working precision's bytes
  bool autocast = true;          // fp32 weights under torch.autocast (scenario.hpp, MixedPrecision)
  Framework framework = Framework::pytorch;
  bool channels_last = true;     // the feature maps NHWC; false: NCHW (scenario.hpp, MemoryFormat)
  // PyTorch runs BatchNorm through cuDNN unless its input or weights are bf16 (or fp16 weights):
  // fp32, and fp16 under autocast (_select_batch_norm_backend, aten/src/ATen/native/Normalization.cpp).
  bool cudnn_batch_norm = false;
  AttentionKernel attention = AttentionKernel::flash2;  // resolved for the device
  const DeviceSpec* device = nullptr;
};

LayerGraphRun layer_graph_run(const Scenario& s);

// One layer's kernels for one micro-batch; `first`: the model's first layer, whose input comes
// from the data loader (cast, and no input gradient); `previous`: the layer before (null for the
// first), whose output's dtype decides whether a linear casts its input.
std::vector<Operator> layer_forward_kernels(const Layer& l, const Layer* previous, const LayerGraphRun& run);
std::vector<Operator> layer_backward_kernels(const Layer& l, const Layer* previous, const LayerGraphRun& run);

// What a micro-batch's pass through the layer keeps for the backward pass, bytes: its output at
// the working precision (nothing for an in-place layer), a dropout's 1-byte mask; a fused
// attention kernel its output and log-sum-exp, not the score matrix the unfused chain keeps.
double layer_kept_bytes(const Layer& l, const LayerGraphRun& run);

// The loss: a cross-entropy over each logits layer's outputs (logits_layers: BERT's two heads,
// else the last layer), each as the transformers' torch loss (kernel_builders.hpp): the logits cast
// up to fp32, log-softmax and NLL; backward the NLL's gradient zeroed and scattered, log-softmax's
// backward, the gradient cast down.
std::vector<Operator> loss_forward_kernels(const LayerGraph& g, const LayerGraphRun& run);
std::vector<Operator> loss_backward_kernels(const LayerGraph& g, const LayerGraphRun& run);
// What a micro-batch's forward pass leaves held as the backward pass starts, bytes: what every
// layer keeps (layer_kept_bytes; the logits held by the training loop), log-softmax's fp32 output,
// and the largest head's loss backward (the fp32 gradients of that output and its input).
double forward_held_bytes(const LayerGraph& g, const LayerGraphRun& run);

// The optimizer step over fp32 parameter tensors of these sizes (elements), each pass in its
// multi-tensor launches: torch.optim's foreach SGD (momentum: weight decay when `weight_decay` is
// above 0, momentum buffer, update; 44 B per parameter in four passes, 32 B in three without the
// decay) without clipping, as torchvision's recipes run it; Adam as the fused AdamW after
// clip_grad_norm_, as the transformer recipes (Hugging Face's Trainer, the traced steps) run it.
std::vector<Operator> layer_graph_optimizer_kernels(LayerModelOptimizer o, double weight_decay,
                                                    const std::vector<double>& tensors);

}  // namespace dtsim

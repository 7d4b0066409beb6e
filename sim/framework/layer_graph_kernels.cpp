#include "layer_graph_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "kernel_builders.hpp"
#include "multi_tensor_apply.hpp"
#include "rank_shape.hpp"

namespace dtsim {

namespace {

Operator streaming(const char* name, double bytes, int kernels = 1) {
  return memory_op(name, MemoryAccess::streaming, bytes, kernels);
}

Operator weight_work(Operator op) {
  op.weight_gradient = true;
  return op;
}

// A linear layer's positions per sample (a sequence's tokens, 1 for an image's head): it maps
// positions x in to positions x out, so positions = (in x out) / MACs; 1 for other layers.
double linear_positions(const Layer& l) {
  if (l.kind != LayerKind::linear || l.input_elements <= 0 || l.output_elements <= 0) return 1;
  const double in_out = l.forward_macs > 0 ? l.forward_macs : l.input_elements * l.output_elements;
  return std::max(1.0, std::round(l.input_elements * l.output_elements / in_out));
}

// A product layer's weight and bias, elements: its weight, then its bias tensor, as PyTorch
// registers them; a tied layer's weight is another layer's (in x out per position), and what it
// holds is its bias.
struct ProductParameters {
  double weight = 0, bias = 0;
};
ProductParameters product_parameters(const Layer& l) {
  if (l.tied) {
    const double positions = linear_positions(l);
    return {(l.input_elements / positions) * (l.output_elements / positions), l.parameters};
  }
  const double bias = l.parameter_tensors.size() == 2 ? l.parameter_tensors[1] : 0;
  return {l.parameters - bias, bias};
}

// A convolution's implicit-GEMM widths from its counts: k = input channels x kernel area
// (multiply-accumulates per output element), n = output channels (weights / k, the bias left out);
// 0 without MACs.
struct ConvWidths {
  double k = 0, n = 0;
};
ConvWidths conv_widths(const Layer& l) {
  const double k = l.output_elements > 0 ? l.forward_macs / l.output_elements : 0;
  return {k, k > 0 ? std::max(1.0, std::round(product_parameters(l).weight / k)) : 0};
}

// A product layer as the GEMM it runs: a linear layer [samples x in] x [in x out] over each
// sample's positions; a convolution as cuDNN's implicit GEMM, m = samples x output positions,
// n = output channels, k = input channels x kernel area (conv_widths).
Operator product(const Layer& l, const LayerGraphRun& run) {
  double n = 0, m = 0, k = 0;
  if (l.kind == LayerKind::linear && l.input_elements > 0 && l.output_elements > 0) {
    const double positions = linear_positions(l);
    k = l.input_elements / positions, n = l.output_elements / positions, m = run.samples * positions;
  } else if (const ConvWidths w = conv_widths(l); w.k > 0) {
    k = w.k, n = w.n;
    m = run.samples * l.output_elements / n;
  }
  Operator op = cublas_gemm(l.kind == LayerKind::convolution ? "convolution" : "linear", m, k, n, run.elem_bytes);
  op.flops = 2 * l.forward_macs * run.samples;  // exactly the layer's products
  if (l.kind == LayerKind::convolution) {
    op.unaligned_rows = false;  // cuDNN's: its channels padded apart (unaligned_channels)
    // An implicit GEMM reads the feature map, not its k-fold unfolded copy.
    op.bytes = (l.input_elements + l.output_elements) * run.samples * run.elem_bytes + l.parameters * run.elem_bytes;
  }
  return op;
}

// cuDNN's tensor-core convolutions take input channels in multiples of 8; others (an RGB image's 3)
// are padded by a kernel of their own and run on a slow fallback: the traced ResNet-50's 7x7 stem
// (3 channels) took 1534.5 us forward and 882.1 us for its weight gradient, 0.040 and 0.069 of the
// bf16 peak, and 109.9 us for each of its two padding kernels.
constexpr double kUnalignedConvForwardEfficiency = 0.040, kUnalignedConvWgradEfficiency = 0.069;
// cuDNN splits a convolution's weight gradient over the batch (split-K: an init kernel zeroes a
// workspace, the partial sums are reduced after), which costs each convolution about the same time
// beyond its forward's, whatever the batch: in the traced steps, the stem left out, ResNet-50's 52
// weight gradients at batch 256 took 5491.0 us where their forward passes took 4800.0 (13.3 us
// more each; tests/data/h100-2026-11-26), ResNet-152's 154 at batch 128 8354.1 us against 5967.8
// (15.5 us; tests/data/h100-2026-11-28): 14.94 us a convolution over the 206. (As a rate of the
// forward's, 0.87 and 0.71: no one rate fits both batches.)
constexpr double kConvWgradExtraS = 14.94e-6;
// cuDNN's BatchNorm takes maps of fewer elements (32-bit indexing; Normalization.cpp).
constexpr double kCudnnBatchNormMaxElements = 2147483647;
bool unaligned_channels(const Layer& l) { return l.kind == LayerKind::convolution && l.in_channels % 8 != 0; }

// With NCHW feature maps and tensor cores (HTA's trace of ResNet-50 on an A100, fp32 run as TF32,
// cuDNN through PyTorch 2.3: tests/data/traces/hta/nccl_data.json.gz, ProfilerStep#4-6): a 1x1
// convolution of stride 1 runs as a GEMM over the maps as they lie (cutlass tensorop GEMMs, no
// copies); every other one has cuDNN copy its input to NHWC (nchwToNhwc) for a tensor-core kernel,
// and in the backward pass the output's gradient twice (data and weight gradients), the input once
// and the input's gradient back (nhwcToNchw). The first layer's NCHW kernel reads the image as it
// lies and needs no input gradient. (The trace also transposes the weights, and in its last stage
// some 1x1 convolutions' maps; the layout_transpose share, memory_access.cpp, is fitted to its 211
// copies in all.) Without tensor cores (before Volta, or fp32 before Ampere's TF32) NCHW is
// cuDNN's own layout: nothing to copy.
bool gemm_over_nchw(const Layer& l) {
  const ConvWidths w = conv_widths(l);
  return w.k == l.in_channels && l.input_elements / l.in_channels == l.output_elements / w.n;  // 1x1, stride 1
}
bool tensor_core_convolutions(const LayerGraphRun& run) {
  return run.device && (run.device->has_tf32() || (run.device->sm_arch >= 70 && run.elem_bytes < 4));
}
bool layout_transposed(const Layer& l, const LayerGraphRun& run) {
  return !run.channels_last && tensor_core_convolutions(run) && l.kind == LayerKind::convolution &&
         l.in_channels > 0 && !gemm_over_nchw(l);
}

Operator unaligned(Operator op, double efficiency) {
  op.kernel_efficiency = efficiency;  // measured as a whole: no tile or memory term of its own
  op.tile_utilization = 1;
  return op;
}

Operator channel_padding(const Layer& l, const LayerGraphRun& run) {
  const double padded = std::ceil(l.in_channels / 8.0) * 8;
  return streaming("channel_padding", l.input_elements * run.samples * run.elem_bytes * (1 + padded / l.in_channels));
}

bool feature_norm(const Layer* l) {
  return l && l->kind == LayerKind::normalization && !l->batch_statistics;
}

// Under eager autocast a normalization over features (LayerNorm) outputs fp32, so the linear after
// it casts its input; BatchNorm, activations and pooling keep the input's bf16. Under torch.compile
// the norm's kernel writes the bf16 cast itself (compiled_kernels.cpp, add_norm).
bool fp32_input(const Layer* previous, const LayerGraphRun& run) {
  return run.autocast && run.framework != Framework::torch_compile && feature_norm(previous);
}

// Under torch.compile a residual sum (not in place) is fused into the LayerNorm after it, as in
// the compiled Llama trace: one kernel reads the stream and the branch and writes the stream and
// the normalized bf16 tensor; its backward reads the branches' gradients and the stream's and
// writes the stream's, the weight gradient's partial sums reduced by a small kernel of its own.
// (Every zoo encoder's residual sum is followed by a LayerNorm.)
bool fused_into_norm(const Layer& l, const LayerGraphRun& run) {
  return run.framework == Framework::torch_compile && l.kind == LayerKind::elementwise && !l.in_place;
}

// torchvision's nn.MultiheadAttention with batch_first=True (ViT's encoder blocks, Layer::torch_mha)
// transposes its input to sequence-first and its output back, so eager PyTorch meets strided
// tensors around it. The traced ViT-B/16 step (tests/data/h100-2026-11-28; T = 50,432 tokens of
// 768), per block:
//  - the in-projection copies its bf16 input contiguous (103 us) and, a product over a 3-D strided
//    input, adds its bias by a kernel of its own (340 us); backward, q, k and v's gradients gather
//    in zero-filled buffers of the projection's output (three fills of 70 us, two adds of 229 us)
//    and its fp32 input gradient is copied batch-first (133 us);
//  - the out-projection's output gradient is copied contiguous (103 us);
//  - each residual sum comes out sequence-first, so the LayerNorm after it copies its fp32 input
//    batch-first (132 us; row_permute), and its backward the gradient (135 us).
// Under torch.compile none is modelled (no compiled ViT step traced here).
bool eager_mha(const Layer* l, const LayerGraphRun& run) {
  return l && l->torch_mha && run.framework != Framework::torch_compile;
}
bool after_attention(const Layer* previous) { return previous && previous->kind == LayerKind::attention; }
bool mha_in_projection(const Layer& l, const Layer* previous, const LayerGraphRun& run) {
  return eager_mha(&l, run) && l.kind == LayerKind::linear && !after_attention(previous);
}
bool mha_out_projection(const Layer& l, const Layer* previous, const LayerGraphRun& run) {
  return eager_mha(&l, run) && l.kind == LayerKind::linear && after_attention(previous);
}
bool after_sequence_first_sum(const Layer& l, const Layer* previous, const LayerGraphRun& run) {
  return feature_norm(&l) && eager_mha(previous, run) && previous->kind == LayerKind::elementwise;
}

// The fused attention kernel for an encoder layer (no causal mask).
RankShape attention_shape(const Layer& l, const LayerGraphRun& run) {
  RankShape r;
  r.batch = run.samples;
  r.seq = r.kv_seq = l.tokens;
  r.heads = r.kv_heads = l.heads;
  const double hidden = (l.output_elements - double(l.heads) * l.tokens * l.tokens) / l.tokens;
  r.head_dim = hidden / l.heads;
  r.hidden = hidden;
  r.elem_bytes = run.elem_bytes;
  r.attention = run.attention;
  r.causal = false;
  r.device = run.device;
  return r;
}

bool unfused_attention(const LayerGraphRun& run) { return run.attention == AttentionKernel::unfused; }

// The score matrix's elements of an attention layer for one micro-batch.
double score_elements(const RankShape& r) { return r.batch * r.heads * r.seq * r.kv_seq; }

// The unfused chain (QK^T, scale, softmax, dropout where the layer has it, PV) for a layer without
// a fused kernel; the softmax in fp32 under autocast, its input cast up first, and its backward as
// the transformers' (kernel_builders.hpp, attention_softmax); the dropout's as theirs
// (eager_kernels.cpp).
std::vector<Operator> unfused_attention_kernels(const Layer& l, const LayerGraphRun& run, bool backward) {
  const RankShape r = attention_shape(l, run);
  const double scores = score_elements(r), e = run.elem_bytes, p = run.autocast ? 4 : e;
  Operator bmm{"attention_gemm", OperatorKind::attention_gemm, l.forward_macs * run.samples,
               (2 * r.batch * r.seq * r.hidden + scores) * e, head_dim_tile_utilization(r.head_dim)};
  bmm.kernels = 2 * kCublasGemmActivities;
  const Operator dropout =
      dropout_op(backward ? "attention_dropout_backward" : "attention_dropout", scores, p, backward);
  std::vector<Operator> ops;
  if (!backward) {
    ops = {bmm};
    if (run.autocast) ops.push_back(memory_op("scores_cast", MemoryAccess::unrolled, scores * (e + 4)));
    ops.push_back(attention_softmax(scores, r.kv_seq, p, p));
    if (l.dropout > 0) ops.push_back(dropout);
    return ops;
  }
  Operator grads = bmm;
  grads.flops *= 2;
  ops = {grads};
  if (l.dropout > 0) ops.push_back(dropout);
  for (const Operator& op : attention_softmax_backward(scores, r.kv_seq, p)) ops.push_back(op);
  return ops;
}

// The bytes of one element of a layer's output: the working precision's, but fp32 under autocast
// where the layer computes in fp32 (LayerNorm, the embeddings' lookups) or promotes (a
// transformer's residual sum of its fp32 stream and a bf16 branch).
double output_element_bytes(const Layer& l, const LayerGraphRun& run) {
  if (!run.autocast) return run.elem_bytes;
  const bool fp32 =
      feature_norm(&l) || l.kind == LayerKind::embedding || (l.kind == LayerKind::elementwise && !l.in_place);
  return fp32 ? 4 : run.elem_bytes;
}

// Dropout on a layer's output (not an attention layer's: its probabilities' dropout is part of
// the attention kernels), as eager PyTorch runs it: native_dropout reads the output and writes
// the result and a 1-byte mask; its backward reads the gradient and the mask and writes the
// result (the transformers' `dropout` kernels, eager_kernels.cpp). Under torch.compile Inductor
// draws the mask inside the neighbouring fused kernels: no kernel of its own.
bool output_dropout(const Layer& l, const LayerGraphRun& run) {
  return l.dropout > 0 && l.kind != LayerKind::attention && run.framework != Framework::torch_compile;
}
Operator dropout_kernel(bool backward, const Layer& l, const LayerGraphRun& run) {
  return dropout_op(backward ? "dropout_backward" : "dropout", l.output_elements * run.samples,
                    output_element_bytes(l, run), backward);
}

}  // namespace

LayerGraphRun layer_graph_run(const Scenario& s) {
  LayerGraphRun run;
  run.samples = s.training.micro_batch;
  run.elem_bytes = element_bytes(working_precision(s.training.precision));
  run.autocast = s.training.precision != Precision::fp32 &&
                 resolved_mixed_precision(s.training, s.parallelism.zero_stage) == MixedPrecision::autocast;
  run.framework = s.training.framework;
  run.channels_last = resolved_memory_format(s.training) == MemoryFormat::channels_last;
  const Precision p = s.training.precision;
  run.cudnn_batch_norm = p == Precision::fp32 || (p == Precision::fp16 && run.autocast);
  run.device = find_device(s.cluster.gpu);
  run.attention = run.device ? resolve_attention_kernel(s.training.attention, *run.device) : AttentionKernel::unfused;
  return run;
}

std::vector<Operator> layer_forward_kernels(const Layer& l, const Layer* previous, const LayerGraphRun& run) {
  const double n = run.samples, e = run.elem_bytes;
  const double in = l.input_elements * n, out = l.output_elements * n;
  const double stream = run.autocast ? 4 : e;  // a transformer's residual stream under autocast
  const bool compiled = run.framework == Framework::torch_compile;
  std::vector<Operator> ops;
  switch (l.kind) {
    case LayerKind::convolution:
    case LayerKind::linear: {
      // Eager autocast casts the bias by a kernel of its own; Inductor with the weight.
      const ProductParameters w = product_parameters(l);
      const double own_bias_cast = compiled ? 0 : w.bias;
      if (run.autocast) ops.push_back(streaming("weight_cast", (w.weight + w.bias - own_bias_cast) * (4 + e)));
      if (run.autocast && own_bias_cast > 0) ops.push_back(streaming("bias_cast", own_bias_cast * (4 + e)));
      if (run.autocast && (!previous || fp32_input(previous, run))) ops.push_back(streaming("input_cast", in * (4 + e)));
      if (unaligned_channels(l)) {
        if (run.channels_last) ops.push_back(channel_padding(l, run));
        ops.push_back(unaligned(product(l, run), kUnalignedConvForwardEfficiency));
      } else {
        if (layout_transposed(l, run))
          ops.push_back(memory_op("input_to_nhwc", MemoryAccess::layout_transpose, 2 * in * e));
        const bool mha = mha_in_projection(l, previous, run);
        if (mha) ops.push_back(memory_op("mha_input_copy", MemoryAccess::strided, 2 * in * e));
        ops.push_back(product(l, run));
        if (mha) ops.push_back(memory_op("mha_bias_add", MemoryAccess::strided, 2 * out * e));
      }
      break;
    }
    case LayerKind::attention: {
      if (unfused_attention(run)) return unfused_attention_kernels(l, run, false);
      const RankShape r = attention_shape(l, run);
      // The fused projection's output split into heads by a copy (a Triton kernel under
      // torch.compile, at the streaming rate), then the fused kernel.
      ops.push_back(memory_op("qkv_split", compiled ? MemoryAccess::streaming : MemoryAccess::strided,
                              2 * 3 * r.batch * r.seq * r.hidden * e));
      ops.push_back(fused_attention(r, AttentionPass::forward));
      break;
    }
    case LayerKind::normalization:
      if (l.batch_statistics && run.cudnn_batch_norm && in < kCudnnBatchNormMaxElements) {
        // cuDNN's BatchNorm, one kernel that reads the map twice (statistics, then the transform)
        // and writes it, the running statistics updated inside (bn_fw_tr_1C11 in HTA's A100 trace,
        // NCHW fp32: 3.64 ms for ResNet-50's 53 at batch 32, where these bytes at the
        // normalization share take 3.76 with the kernels' start-up), then num_batches_tracked += 1.
        // Its backward runs as the native kernels below are priced (6.9 ms there, cuDNN's 6.85).
        ops.push_back(memory_op("cudnn_batch_norm", MemoryAccess::normalization, (2 * in + out) * e));
        ops.push_back(streaming("num_batches_tracked", 16));
      } else if (l.batch_statistics) {
        // PyTorch's own kernels, as the traced bf16 ResNet-50's BatchNorm2d ran them (channels
        // last; NCHW maps taken alike): a zeroed per-channel buffer, the statistics, the
        // transform, the running statistics' update, and num_batches_tracked += 1 (five kernels;
        // the backward three).
        ops.push_back(memory_op("batch_norm_zero", MemoryAccess::fill, l.parameters * 4));
        ops.push_back(memory_op("batch_norm_statistics", MemoryAccess::batch_norm_statistics, in * e));
        ops.push_back(memory_op("batch_norm_transform", MemoryAccess::batch_norm_transform, (in + out) * e));
        ops.push_back(streaming("running_statistics", l.parameters * 16));
        ops.push_back(streaming("num_batches_tracked", 16));
      } else if (compiled) {
        // The norm with its bf16 cast, and the residual sum before it (fused_into_norm).
        const bool add = previous && fused_into_norm(*previous, run);
        ops.push_back(memory_op(add ? "add_norm" : "norm", MemoryAccess::normalization,
                                out * (add ? 2 * stream + 2 * e : stream + e)));
      } else {
        if (after_sequence_first_sum(l, previous, run))
          ops.push_back(memory_op("batch_first_copy", MemoryAccess::row_permute, 2 * in * stream));
        ops.push_back(memory_op("layer_norm", MemoryAccess::normalization, in * stream + out * stream));
      }
      break;
    case LayerKind::activation:
      if (!compiled || !l.in_place) ops.push_back(streaming(l.in_place ? "relu_" : "activation", (in + out) * e));
      break;
    case LayerKind::pooling:
      // Max pooling also writes its argmax (int64) for the backward pass.
      ops.push_back(memory_op("pool", MemoryAccess::strided, in * e + out * (e + (l.argmax ? 8 : 0))));
      break;
    case LayerKind::elementwise:
      // A residual sum; a transformer's fp32 stream plus a bf16 branch promotes under autocast.
      if (compiled && (l.in_place || fused_into_norm(l, run))) break;
      if (l.in_place) ops.push_back(streaming("residual_add_", 3 * out * e));
      else if (run.autocast) ops.push_back(memory_op("residual_add", MemoryAccess::promoting, out * (2 * stream + e)));
      else ops.push_back(streaming("residual_add", 3 * out * e));
      break;
    case LayerKind::embedding:
      if (l.sharded || out > 0) ops.push_back(streaming("embedding_gather", 2 * out * (run.autocast ? 4 : e)));
      else if (l.parameters > 0) ops.push_back(streaming("parameter_add", 3 * l.parameters * n * stream));
      break;
  }
  if (output_dropout(l, run)) ops.push_back(dropout_kernel(false, l, run));
  return ops;
}

std::vector<Operator> layer_backward_kernels(const Layer& l, const Layer* previous, const LayerGraphRun& run) {
  const double n = run.samples, e = run.elem_bytes;
  const double in = l.input_elements * n, out = l.output_elements * n;
  const double stream = run.autocast ? 4 : e;
  const bool first = previous == nullptr;
  const bool compiled = run.framework == Framework::torch_compile;
  std::vector<Operator> ops;
  if (output_dropout(l, run)) ops.push_back(dropout_kernel(true, l, run));
  switch (l.kind) {
    case LayerKind::convolution:
    case LayerKind::linear: {
      const Operator fwd = product(l, run);
      const bool mha_in = mha_in_projection(l, previous, run);
      if (mha_out_projection(l, previous, run))
        ops.push_back(memory_op("mha_output_grad_copy", MemoryAccess::strided, 2 * out * e));
      if (mha_in) {
        ops.push_back(memory_op("mha_qkv_grad_zero", MemoryAccess::fill, 3 * out * e, 3));
        ops.push_back(memory_op("mha_qkv_grad_sum", MemoryAccess::streaming, 2 * 3 * out * e, 2));
      }
      if (!first) ops.push_back(gemm_dgrad(fwd));  // the data needs no gradient
      if (layout_transposed(l, run)) {
        const double copied = 2 * out + in + (first ? 0 : in);  // dY twice, X, and dX back
        ops.push_back(
            memory_op("grad_layout_transposes", MemoryAccess::layout_transpose, 2 * copied * e, first ? 3 : 4));
      }
      if (unaligned_channels(l)) {
        if (run.channels_last) ops.push_back(channel_padding(l, run));
        ops.push_back(unaligned(gemm_wgrad(fwd), kUnalignedConvWgradEfficiency));
      } else {
        Operator wgrad = gemm_wgrad(fwd);
        if (l.kind == LayerKind::convolution) wgrad.fixed_s = kConvWgradExtraS;
        ops.push_back(wgrad);
      }
      const ProductParameters w = product_parameters(l);
      const double own_bias_cast = compiled ? 0 : w.bias;
      if (run.autocast) {
        if (!first && fp32_input(previous, run))
          ops.push_back(memory_op("input_grad_cast", MemoryAccess::unrolled, in * (e + 4)));
        if (mha_in)
          ops.push_back(memory_op("mha_input_grad_copy", MemoryAccess::row_permute, 2 * in * 4));
        // Eager's unrolled copies; Inductor's vectorized Triton casts run near the streaming rate.
        const MemoryAccess cast = compiled ? MemoryAccess::streaming : MemoryAccess::unrolled;
        ops.push_back(weight_work(memory_op("weight_grad_cast", cast, (w.weight + w.bias - own_bias_cast) * (e + 4))));
      }
      // A tied weight's gradient is added to its owner's (the transformers' tied LM head).
      if (l.tied) ops.push_back(weight_work(streaming("tied_grad_sum", 3 * w.weight * (run.autocast ? 4 : e))));
      // The bias gradient: the output's gradient summed over every position, a reduction of its
      // own (the traced GPT's linears), cast up to the fp32 bias by eager autocast.
      if (w.bias > 0) ops.push_back(weight_work(memory_op("bias_grad", MemoryAccess::norm_backward, out * e)));
      if (run.autocast && own_bias_cast > 0)
        ops.push_back(weight_work(memory_op("bias_grad_cast", MemoryAccess::unrolled, own_bias_cast * (e + 4))));
      break;
    }
    case LayerKind::attention: {
      if (unfused_attention(run)) return unfused_attention_kernels(l, run, true);
      const RankShape r = attention_shape(l, run);
      ops.push_back(fused_attention(r, AttentionPass::backward));
      ops.push_back(memory_op(compiled ? "qkv_grad_concat" : "qkv_grad_stack",
                              compiled ? MemoryAccess::streaming : MemoryAccess::strided,
                              2 * 3 * r.batch * r.seq * r.hidden * e));
      break;
    }
    case LayerKind::normalization:
      if (l.batch_statistics) {
        ops.push_back(memory_op("batch_norm_backward_zero", MemoryAccess::fill, l.parameters * 4));
        ops.push_back(memory_op("batch_norm_backward_reduce", MemoryAccess::norm_backward, 2 * out * e));
        ops.push_back(memory_op("batch_norm_backward_elementwise", MemoryAccess::normalization, 3 * out * e));
      } else if (compiled) {
        // One kernel: the gradient from the linear it fed (bf16) and the stream's read, the
        // stream's written, the weight gradient's partial sums (512 rows of fp32) reduced apart.
        const bool add = previous && fused_into_norm(*previous, run);
        ops.push_back(memory_op(add ? "add_norm_backward" : "norm_backward", MemoryAccess::norm_backward,
                                out * (e + 2 * stream)));
        const double features = l.parameters / 2;  // the scale and the shift
        ops.push_back(weight_work(memory_op("norm_weight_grad", MemoryAccess::normalization, 512 * features * 4)));
      } else {
        if (after_sequence_first_sum(l, previous, run))
          ops.push_back(memory_op("batch_first_grad_copy", MemoryAccess::row_permute, 2 * out * stream));
        ops.push_back(memory_op("layer_norm_backward", MemoryAccess::norm_backward, 3 * out * stream));
        ops.push_back(weight_work(memory_op("layer_norm_weight_grad", MemoryAccess::normalization, 2 * out * stream)));
      }
      break;
    case LayerKind::activation:
      if (!compiled || !l.in_place) ops.push_back(streaming(l.in_place ? "threshold_backward" : "activation_backward", 3 * out * e));
      break;
    case LayerKind::pooling:
      // The input's gradient zeroed, then the output's scattered into it (through the argmax).
      ops.push_back(memory_op("pool_grad_zero", MemoryAccess::fill, in * e));
      ops.push_back(memory_op("pool_backward", l.argmax ? MemoryAccess::max_pool_backward : MemoryAccess::strided,
                              in * e + out * (e + (l.argmax ? 8 : 0))));
      break;
    case LayerKind::elementwise:
      // Its gradient goes to both summands; autograd sums the two branches' gradients where they
      // fork (a transformer's under autocast: the branch's cast down to bf16).
      if (compiled && l.in_place) break;
      if (run.autocast && !l.in_place) ops.push_back(streaming("residual_grad_cast", out * (4 + e)));
      if (!fused_into_norm(l, run)) ops.push_back(streaming("grad_sum", 3 * out * (l.in_place ? e : stream)));
      break;
    case LayerKind::embedding:
      if (l.sharded) {
        // FBGEMM's table-batched backward updates the looked-up rows in place (sparse gradients,
        // the optimizer's row state read and written beside each row).
        ops.push_back(memory_op("embedding_row_update", MemoryAccess::strided, out * (e + 3 * 4)));
      } else if (out > 0) {
        const double table = l.parameters, grad = run.autocast ? 4 : e;
        ops.push_back(memory_op("embedding_grad_zero", MemoryAccess::fill, table * grad));
        ops.push_back(memory_op("embedding_grad_scatter", MemoryAccess::strided, 2 * out * grad, 2));
      } else if (l.parameters > 0) {
        ops.push_back(weight_work(memory_op("parameter_grad", MemoryAccess::norm_backward, l.parameters * n * stream)));
      }
      break;
  }
  return ops;
}

double layer_kept_bytes(const Layer& l, const LayerGraphRun& run) {
  const double n = run.samples, e = run.elem_bytes;
  double kept = l.in_place ? 0 : l.output_elements * n * e;
  if (l.kind == LayerKind::attention) {
    const RankShape r = attention_shape(l, run);
    const double context = r.batch * r.seq * r.hidden * e, scores = score_elements(r), p = run.autocast ? 4 : e;
    if (!unfused_attention(run)) {
      kept = context + r.batch * r.heads * r.seq * 4;  // the output and its fp32 log-sum-exp per query and head
    } else {
      // The softmax's output; the dropout's mask, and its output where PV reads it uncast; under
      // autocast the probabilities' bf16 copy PV reads (eager_kernels.cpp keeps the same).
      kept = context + scores * p;
      if (l.dropout > 0) kept += scores * (1 + (run.autocast ? 0 : p));
      if (run.autocast) kept += scores * e;
    }
  } else if (l.dropout > 0) {
    kept += l.output_elements * n;  // the 1-byte mask (under torch.compile too, as the transformers keep it)
  }
  // A tied weight's cast, kept for the backward pass (a layer's own weights' casts are counted with
  // the weights).
  if (l.tied && run.autocast) kept += product_parameters(l).weight * e;
  return kept;
}

namespace {

// A cross-entropy over a logits layer's outputs as the transformers' torch loss prices one
// (kernel_builders.cpp): each position's classes a row of logits in the working precision.
RankShape loss_shape(const Layer& l, const LayerGraphRun& run) {
  RankShape r;
  r.batch = run.samples;
  r.seq = linear_positions(l);
  r.vocab = l.output_elements / r.seq;
  r.elem_bytes = run.elem_bytes;
  return r;
}

}  // namespace

std::vector<Operator> loss_forward_kernels(const LayerGraph& g, const LayerGraphRun& run) {
  KernelList k;
  for (const Layer* l : logits_layers(g)) cross_entropy_forward(k, loss_shape(*l, run));
  return k.take();
}

std::vector<Operator> loss_backward_kernels(const LayerGraph& g, const LayerGraphRun& run) {
  KernelList k;
  for (const Layer* l : logits_layers(g)) cross_entropy_backward(k, loss_shape(*l, run));
  return k.take();
}

double forward_held_bytes(const LayerGraph& g, const LayerGraphRun& run) {
  // Every layer's output stays held, the logits too: the training loop holds the model's output
  // (as the transformers' loss counts the bf16 logits); the loss keeps log-softmax's fp32 output,
  // and the largest head's backward holds the fp32 gradients of that output and its input at once.
  double held = 0, loss_backward = 0;
  for (const Layer& l : g.layers) held += layer_kept_bytes(l, run);
  for (const Operator& op : loss_forward_kernels(g, run)) held += op.saved_bytes;
  for (const Layer* l : logits_layers(g))
    loss_backward = std::max(loss_backward, cross_entropy_backward_bytes(loss_shape(*l, run)));
  return held + loss_backward;
}

std::vector<Operator> layer_graph_optimizer_kernels(LayerModelOptimizer o, double weight_decay,
                                                    const std::vector<double>& tensors) {
  MultiTensorPasses passes(tensors);
  std::vector<Operator> ops;
  if (o == LayerModelOptimizer::adam) {
    add_grad_norm_clipping(ops, passes);
    add_multi_tensor_pass(ops, "adam", MemoryAccess::optimizer_step, passes.of_depth(4), 28);
    return ops;
  }
  // SGD: weight decay into new gradients (_foreach_add: gradients, parameters and the result;
  // 12 B), only when it is set (torch/optim/sgd.py, _multi_tensor_sgd: the traced ResNet-50 step ran
  // it, the ResNet-152 step, without weight decay, did not); with momentum the buffers scaled
  // (mul_: 8 B) and the gradients added (add_: 12 B); then the parameters less the learning rate
  // times those (add_: 12 B).
  if (weight_decay > 0)
    add_multi_tensor_pass(ops, "sgd_weight_decay", MemoryAccess::multi_tensor, passes.of_depth(3), 12);
  if (o == LayerModelOptimizer::sgd_momentum) {
    add_multi_tensor_pass(ops, "sgd_momentum_scale", MemoryAccess::multi_tensor, passes.of_depth(1), 8);
    add_multi_tensor_pass(ops, "sgd_momentum_add", MemoryAccess::multi_tensor, passes.of_depth(2), 12);
  }
  add_multi_tensor_pass(ops, "sgd_update", MemoryAccess::multi_tensor, passes.of_depth(2), 12);
  return ops;
}

}  // namespace dtsim

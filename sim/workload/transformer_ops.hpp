#pragma once
// The operators one tensor-parallel rank runs for one micro-batch of a Megatron-style
// transformer, with their FLOPs and HBM bytes, and the tensor-parallel all-reduces between them.
#include <cstdint>
#include <vector>

#include "compute_model.hpp"
#include "scenario.hpp"

namespace dtsim {

// Shapes as seen by one TP rank.
struct RankShape {
  double batch = 1;        // micro-batch, sequences
  double seq = 0;          // tokens of each sequence on this rank (seq_len / cp)
  double kv_seq = 0;       // keys each query attends to (seq_len: context parallelism gathers K, V)
  double hidden = 0;
  double heads = 0;        // attention heads on this rank
  double kv_heads = 0;     // key/value heads on this rank (GQA); == heads without GQA
  double head_dim = 0;
  double ffn = 0;          // MLP width on this rank
  double vocab = 0;        // vocabulary slice on this rank
  double elem_bytes = 2;   // activation/weight element size
  bool fp8_gemms = false;  // the layers' GEMMs run in FP8 (Transformer Engine), with its casts
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;
  MlpKind mlp = MlpKind::gelu;
  int tp = 1;
  bool sequence_parallel = false;  // norms, dropout and residuals see tokens / tp
  MoeConfig moe;                   // experts == 0: dense MLP
  double expert_ffn = 0;           // expert MLP width on this rank
  AttentionKernel attention = AttentionKernel::unfused;  // resolved: never automatic
  bool causal = true;              // decoder-only language models mask future tokens
  const DeviceSpec* device = nullptr;  // for the fused kernels' published rates

  double tokens() const { return batch * seq; }
  // Tokens the sequence-sharded (SP) regions of a layer process on this rank.
  double sharded_tokens() const { return sequence_parallel ? tokens() / tp : tokens(); }
  // Token-expert assignments this rank's experts process (balanced routing, padded to capacity).
  double expert_tokens() const { return tokens() * moe.top_k * moe.capacity_factor; }
};

RankShape rank_shape(const Scenario& s);

// One transformer layer. Backward ops hold dgrad + wgrad; recompute ops are the forward work
// redone at the start of the backward pass (full: the whole layer; selective: core attention).
// Core attention is one fused operator (flash2, cudnn) or the unfused GEMMs, softmax and dropout.
std::vector<Operator> layer_forward_ops(const RankShape& r);
std::vector<Operator> layer_backward_ops(const RankShape& r);
// The backward split as zero-bubble schedules split it: input gradients (B: every dgrad, the
// backward of attention and elementwise ops) and weight gradients (W: every wgrad).
std::vector<Operator> layer_backward_input_ops(const RankShape& r);
std::vector<Operator> layer_backward_weight_ops(const RankShape& r);
std::vector<Operator> layer_recompute_ops(const RankShape& r, Recompute mode);

std::vector<Operator> embedding_forward_ops(const RankShape& r);
std::vector<Operator> embedding_backward_ops(const RankShape& r);
// LM head (logits GEMM, tied to the embedding) and the vocab-parallel cross-entropy loss.
std::vector<Operator> logits_forward_ops(const RankShape& r);
std::vector<Operator> logits_backward_ops(const RankShape& r);

// Megatron's TP all-reduces (or, with SP, all-gathers and reduce-scatters) carry one activation
// tensor: batch*seq*hidden elements.
double tp_allreduce_bytes(const RankShape& r);
// Context parallelism all-gathers K and V of the whole sequence (and reduce-scatters their
// gradients): 2 * batch * seq_len * kv_heads_on_rank * head_dim elements.
double cp_kv_bytes(const RankShape& r);
// Expert parallelism's all-to-all (dispatch, combine) buffer per rank: expert_tokens * hidden.
double ep_all_to_all_bytes(const RankShape& r);
constexpr int kTpAllReducesPerLayerForward = 2;   // after attention projection and after MLP
constexpr int kTpAllReducesPerLayerBackward = 2;  // input grads of QKV and MLP-up
int tp_allreduces_per_layer_recompute(Recompute mode);

// Adam with fp32 master weights: HBM bytes per parameter of the optimizer step.
double optimizer_bytes_per_parameter(Precision p, OptimizerKernels kernels);
// Bytes per gradient element in the data-parallel all-reduce (Megatron reduces bf16 grads in fp32).
double gradient_element_bytes(Precision p);

double sum_flops(const std::vector<Operator>& ops);

// A fused attention kernel's FLOPs as FlashAttention's benchmarks count them: forward
// 4*b*heads*s_q*s_kv*head_dim, halved under a causal mask; backward 2.5x the forward (five
// matmuls to the forward's two, QK^T recomputed).
double fused_attention_flops(const RankShape& r, AttentionPass pass);

// Model FLOPs of one iteration without recompute, summed from the operators above with
// attention counted as the unfused GEMMs (all GPUs together): equals
// 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) for a GPT model, the convention MFU is quoted in.
double model_flops_per_iteration(const Scenario& s);
// The FLOPs the GPUs perform: recompute included, causal blocks skipped by a fused attention
// kernel left out (the "hardware FLOPs").
double hardware_flops_per_iteration(const Scenario& s);

}  // namespace dtsim

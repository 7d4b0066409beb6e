#pragma once
// A transformer's shapes as one tensor-parallel rank sees them, with what decides which kernels
// its framework runs (scenario.hpp: Framework, MixedPrecision; transformer_config.hpp).
#include "attention_kernel.hpp"
#include "device_spec.hpp"
#include "precision.hpp"
#include "scenario.hpp"

namespace dtsim {

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
  // The sequence-parallel all-gathers carry FP8 (fp8_tp_all_gather): the casts they need run on
  // this rank's sequence shard, before the gather (kernel_builders.hpp, fp8_casts).
  bool fp8_tp_gather = false;
  // FSDP all-gathers the weights already cast to FP8 (fp8_weight_all_gather): no layer casts them.
  bool fp8_weight_gather = false;
  MlpKind mlp = MlpKind::gelu;
  int tp = 1;
  bool sequence_parallel = false;  // norms, dropout and residuals see tokens / tp
  MoeConfig moe;                   // experts == 0: dense MLP
  double expert_ffn = 0;           // expert MLP width on this rank
  AttentionKernel attention = AttentionKernel::unfused;  // resolved: never automatic
  bool attention_varlen = false;   // through flash-attn's varlen API (TrainingConfig::attention_varlen)
  bool causal = true;              // decoder-only language models mask future tokens
  const DeviceSpec* device = nullptr;  // for the fused kernels' measured rates

  // What decides the kernels beyond the shapes.
  Framework framework = Framework::megatron;
  // A fully recomputed layer's rerun ends after its last operator that keeps a tensor: PyTorch's
  // non-reentrant checkpointing (not Megatron's, nor TrainingConfig::recompute_reentrant).
  bool recompute_stops_early = false;
  // torch.autocast over fp32 weights: every use of a weight casts it, the residual stream stays
  // fp32 (the embedding's output is fp32 and every add promotes), gradients come back in fp32.
  bool autocast = false;
  NormKind norm = NormKind::layernorm;
  PositionKind position = PositionKind::learned;
  bool bias = true;
  bool fused_qkv = true;
  double dropout = 0;
  bool tied_embeddings = true;
  bool fused_cross_entropy = false;  // the loss in one kernel each way (CrossEntropyKernel::fused)
  int loss_metrics = 0;              // forward-only cross-entropies beside the loss (TrainingConfig)
  // Micro-batches per optimizer step: every one after the first adds its weight gradients to the
  // ones already held, unless the framework accumulates in its GEMMs (Megatron).
  int micro_batches = 1;

  double tokens() const { return batch * seq; }
  // Tokens the sequence-sharded (SP) regions of a layer process on this rank.
  double sharded_tokens() const { return sequence_parallel ? tokens() / tp : tokens(); }
  // Token-expert assignments this rank's experts process (balanced routing, padded to capacity).
  double expert_tokens() const { return tokens() * moe.top_k * moe.capacity_factor; }
  // Bytes per element of the residual stream: fp32 under autocast, else the working precision.
  double stream_bytes() const { return autocast ? 4 : elem_bytes; }
  // Bytes per element of a weight as the model holds it, and of its gradient: the fp32 master
  // under autocast, else the working precision.
  double weight_bytes() const { return autocast ? 4 : elem_bytes; }
};

RankShape rank_shape(const Scenario& s);

}  // namespace dtsim

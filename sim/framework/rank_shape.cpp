#include "rank_shape.hpp"

namespace dtsim {

RankShape rank_shape(const Scenario& s) {
  const TransformerConfig& m = s.model;
  const int tp = s.parallelism.tp;
  RankShape r;
  r.batch = s.training.micro_batch;
  r.seq = double(m.seq_len) / s.parallelism.cp;
  r.kv_seq = m.seq_len;
  r.hidden = m.hidden;
  r.heads = double(m.heads) / tp;
  r.kv_heads = double(m.kv_heads > 0 ? m.kv_heads : m.heads) / tp;
  r.head_dim = m.head_dim();
  r.ffn = double(m.ffn_hidden) / tp;
  r.vocab = double(m.vocab) / tp;
  r.elem_bytes = element_bytes(working_precision(s.training.precision));
  r.fp8_gemms = s.training.precision == Precision::fp8;
  r.fp8_recipe = s.training.fp8_recipe;
  r.mlp = m.mlp;
  r.tp = tp;
  r.sequence_parallel = s.parallelism.sequence_parallel && tp > 1;
  r.fp8_tp_gather = r.fp8_gemms && r.sequence_parallel && s.parallelism.fp8_tp_all_gather;
  r.fp8_weight_gather = r.fp8_gemms && s.parallelism.fp8_weight_all_gather;
  r.moe = m.moe;
  r.expert_ffn = double(m.moe.expert_ffn_hidden) / tp;
  r.device = find_device(s.cluster.gpu);
  r.attention = r.device ? resolve_attention_kernel(s.training.attention, *r.device) : AttentionKernel::unfused;
  r.attention_varlen = s.training.attention_varlen;
  r.framework = s.training.framework;
  r.recompute_stops_early = s.training.framework != Framework::megatron && !s.training.recompute_reentrant;
  r.autocast = s.training.precision != Precision::fp32 &&
               resolved_mixed_precision(s.training, s.parallelism.zero_stage) == MixedPrecision::autocast;
  r.norm = m.norm_kind();
  r.position = m.position_kind();
  r.bias = m.has_bias();
  r.fused_qkv = m.has_fused_qkv();
  r.dropout = m.dropout;
  r.tied_embeddings = m.tied_embeddings;
  r.fused_cross_entropy = s.training.cross_entropy == CrossEntropyKernel::fused;
  r.loss_metrics = s.training.loss_metrics;
  r.micro_batches = s.micro_batches_per_replica();
  return r;
}

}  // namespace dtsim

#include "scenario_sections.hpp"

#include <fmt/format.h>

#include "hf_config.hpp"
#include "input_file.hpp"
#include "yaml_choice.hpp"

namespace dtsim {

namespace fs = std::filesystem;

fs::path read_existing_file(const YamlFields& f, const YAML::Node& map, const std::string& path,
                            const std::string& key) {
  const fs::path written = f.string(map, path, key);
  const fs::path resolved = (f.file().parent_path() / written).lexically_normal();
  if (!is_existing_file(resolved))
    f.fail(map[key], YamlFields::join(path, key), "an existing file", resolved.string());
  return resolved;
}

namespace {

TransformerConfig read_model_base(const YamlFields& f, const YAML::Node& model, const std::string& at) {
  const bool has_preset = f.has(model, "preset");
  const bool has_hf_config = f.has(model, "hf_config");
  if (has_preset && has_hf_config)
    f.fail(model["hf_config"], YamlFields::join(at, "hf_config"), "either model.preset or model.hf_config, not both",
           "both");
  if (has_hf_config) return load_hf_config(read_existing_file(f, model, at, "hf_config"));
  if (has_preset) {
    const std::string name = f.string(model, at, "preset");
    if (auto preset = find_model_preset(name)) return *preset;
    f.fail(model["preset"], YamlFields::join(at, "preset"),
           fmt::format("one of [{}]", fmt::join(model_preset_names(), ", ")), "'" + name + "'");
  }

  // No preset: the shape is spelled out in full.
  TransformerConfig m;
  m.layers = f.positive_int(model, at, "layers");
  m.hidden = f.positive_int(model, at, "hidden");
  m.heads = f.positive_int(model, at, "heads");
  m.kv_heads = m.heads;
  m.ffn_hidden = 4 * m.hidden;
  m.seq_len = f.positive_int(model, at, "seq_len");
  m.vocab = f.positive_int(model, at, "vocab");
  m.mlp = MlpKind::gelu;
  return m;
}

MoeConfig read_moe(const YamlFields& f, const YAML::Node& moe, const std::string& at, const TransformerConfig& m) {
  f.require_map(moe, at);
  f.require_known_keys(moe, at, {"experts", "top_k", "expert_ffn_hidden", "capacity_factor"});
  MoeConfig c = m.moe;
  c.experts = f.positive_int_or(moe, at, "experts", c.experts);
  c.top_k = f.positive_int_or(moe, at, "top_k", c.top_k);
  c.expert_ffn_hidden =
      f.positive_int_or(moe, at, "expert_ffn_hidden", c.expert_ffn_hidden > 0 ? c.expert_ffn_hidden : m.ffn_hidden);
  if (f.has(moe, "capacity_factor")) c.capacity_factor = f.positive_number(moe, at, "capacity_factor");
  if (c.experts == 0) f.fail(moe, YamlFields::join(at, "experts"), "a positive integer", "nothing");
  return c;
}

}  // namespace

TransformerConfig read_model_section(const YamlFields& f, const YAML::Node& model, const std::string& path,
                                     const std::string& name) {
  const std::string at = YamlFields::join(path, "model");
  f.require_known_keys(model, at,
                       {"preset", "hf_config", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "seq_len",
                        "vocab", "mlp", "moe", "norm", "position", "bias", "fused_qkv", "dropout",
                        "tied_embeddings"});
  TransformerConfig m = read_model_base(f, model, at);
  if (m.name.empty()) m.name = name;

  const bool multi_head_attention = m.kv_heads == m.heads;  // then overriding heads moves kv_heads along
  m.layers = f.positive_int_or(model, at, "layers", m.layers);
  m.hidden = f.positive_int_or(model, at, "hidden", m.hidden);
  m.heads = f.positive_int_or(model, at, "heads", m.heads);
  m.kv_heads = f.positive_int_or(model, at, "kv_heads", multi_head_attention ? m.heads : m.kv_heads);
  m.ffn_hidden = f.positive_int_or(model, at, "ffn_hidden", m.ffn_hidden);
  m.seq_len = f.positive_int_or(model, at, "seq_len", m.seq_len);
  m.vocab = f.positive_int_or(model, at, "vocab", m.vocab);
  if (f.has(model, "mlp"))
    m.mlp = f.choice(model, at, "mlp", {"gelu", "swiglu"}) == "swiglu" ? MlpKind::swiglu : MlpKind::gelu;
  if (f.has(model, "moe")) m.moe = read_moe(f, model["moe"], YamlFields::join(at, "moe"), m);
  if (f.has(model, "norm")) m.norm = read_choice(f, model, at, "norm", kNormKinds);
  if (f.has(model, "position")) m.position = read_choice(f, model, at, "position", kPositionKinds);
  if (f.has(model, "bias")) m.bias = f.boolean_or(model, at, "bias", false);
  if (f.has(model, "fused_qkv")) m.fused_qkv = f.boolean_or(model, at, "fused_qkv", false);
  if (f.has(model, "dropout")) m.dropout = f.number_in(model, at, "dropout", 0, 0.99, "a probability in [0, 0.99]");
  m.tied_embeddings = f.boolean_or(model, at, "tied_embeddings", m.tied_embeddings);
  return m;
}

TrainingConfig read_training_section(const YamlFields& f, const YAML::Node& training, const std::string& path,
                                     Framework framework) {
  const std::string at = YamlFields::join(path, "training");
  f.require_known_keys(training, at,
                       {"global_batch", "micro_batch", "precision", "recompute", "recompute_layers",
                        "recompute_reentrant", "attention", "attention_varlen", "fp8_recipe", "optimizer",
                        "cross_entropy", "loss_metrics", "cuda_graphs", "framework", "mixed_precision",
                        "memory_format"});
  TrainingConfig t;
  t.global_batch = f.positive_int(training, at, "global_batch");
  t.micro_batch = f.positive_int_or(training, at, "micro_batch", 1);

  t.precision = read_choice(f, training, at, "precision", kPrecisions, Precision::bf16);
  t.recompute = read_choice(f, training, at, "recompute", kRecomputeModes, Recompute::none);
  if (f.has(training, "recompute_layers")) t.recompute_layers = f.non_negative_int(training, at, "recompute_layers");
  t.recompute_reentrant = f.boolean_or(training, at, "recompute_reentrant", false);
  t.attention = read_choice(f, training, at, "attention", kAttentionKernels, AttentionKernel::automatic);
  t.attention_varlen = f.boolean_or(training, at, "attention_varlen", false);
  t.fp8_recipe = read_choice(f, training, at, "fp8_recipe", kFp8Recipes, Fp8Recipe::delayed);
  t.optimizer = read_choice(f, training, at, "optimizer", kOptimizerKernels, OptimizerKernels::fused);
  t.cross_entropy = read_choice(f, training, at, "cross_entropy", kCrossEntropyKernels, CrossEntropyKernel::torch);
  if (f.has(training, "loss_metrics")) t.loss_metrics = f.int_in(training, at, "loss_metrics", 0, 8, "0 to 8");
  t.cuda_graphs = f.boolean_or(training, at, "cuda_graphs", false);
  t.framework = read_choice(f, training, at, "framework", kFrameworks, framework);
  t.mixed_precision = read_choice(f, training, at, "mixed_precision", kMixedPrecisions, MixedPrecision::automatic);
  t.memory_format = read_choice(f, training, at, "memory_format", kMemoryFormats, MemoryFormat::automatic);
  return t;
}

ParallelismConfig read_parallelism_section(const YamlFields& f, const YAML::Node& holder, const std::string& path) {
  ParallelismConfig p;
  if (!f.has(holder, "parallelism")) return p;
  const YAML::Node par = holder["parallelism"];
  const std::string at = YamlFields::join(path, "parallelism");
  f.require_known_keys(par, at,
                       {"tp", "pp", "dp", "cp", "ep", "schedule", "virtual_stages", "first_stage_layers",
                        "last_stage_layers", "sequence_parallel", "tp_comm_overlap", "zero_stage",
                        "overlap_grad_reduce", "overlap_param_gather", "grad_reduce_in_bf16", "fp8_weight_all_gather",
                        "fp8_tp_all_gather", "bucket_mb", "fsdp_prefetch", "fsdp_version"});
  p.tp = f.positive_int_or(par, at, "tp", 1);
  p.pp = f.positive_int_or(par, at, "pp", 1);
  p.dp = f.positive_int_or(par, at, "dp", 1);
  p.cp = f.positive_int_or(par, at, "cp", 1);
  p.ep = f.positive_int_or(par, at, "ep", 1);
  p.schedule = read_choice(f, par, at, "schedule", kPipelineSchedules, PipelineScheduleKind::one_f_one_b);
  p.virtual_stages = f.positive_int_or(par, at, "virtual_stages", 1);
  // Megatron-LM interleaves whenever a GPU holds several model chunks.
  if (!f.has(par, "schedule") && p.virtual_stages > 1) p.schedule = PipelineScheduleKind::interleaved_1f1b;
  if (f.has(par, "first_stage_layers")) p.first_stage_layers = f.non_negative_int(par, at, "first_stage_layers");
  if (f.has(par, "last_stage_layers")) p.last_stage_layers = f.non_negative_int(par, at, "last_stage_layers");
  p.sequence_parallel = f.boolean_or(par, at, "sequence_parallel", false);
  p.tp_comm_overlap = f.boolean_or(par, at, "tp_comm_overlap", false);
  if (f.has(par, "zero_stage")) p.zero_stage = f.non_negative_int(par, at, "zero_stage");
  p.overlap_grad_reduce = f.boolean_or(par, at, "overlap_grad_reduce", false);
  p.overlap_param_gather = f.boolean_or(par, at, "overlap_param_gather", false);
  p.grad_reduce_in_bf16 = f.boolean_or(par, at, "grad_reduce_in_bf16", false);
  p.fp8_weight_all_gather = f.boolean_or(par, at, "fp8_weight_all_gather", false);
  p.fp8_tp_all_gather = f.boolean_or(par, at, "fp8_tp_all_gather", false);
  if (f.has(par, "bucket_mb")) p.bucket_mb = f.positive_number(par, at, "bucket_mb");
  p.fsdp_prefetch = f.boolean_or(par, at, "fsdp_prefetch", true);
  if (f.has(par, "fsdp_version")) p.fsdp_version = f.int_in(par, at, "fsdp_version", 1, 2);
  return p;
}

}  // namespace dtsim

#include "transformer_config.hpp"

namespace dtsim {

TransformerConfig transformer_shape(const std::string& name, int layers, int hidden, int heads, int kv_heads,
                                    int ffn_hidden, int seq_len, int vocab, MlpKind mlp, MoeConfig moe) {
  TransformerConfig m;
  m.name = name, m.layers = layers, m.hidden = hidden, m.heads = heads, m.kv_heads = kv_heads;
  m.ffn_hidden = ffn_hidden, m.seq_len = seq_len, m.vocab = vocab, m.mlp = mlp, m.moe = moe;
  return m;
}

const char* to_string(NormKind k) { return k == NormKind::rmsnorm ? "rmsnorm" : "layernorm"; }
const char* to_string(PositionKind k) { return k == PositionKind::rope ? "rope" : "learned"; }

namespace {

const std::vector<TransformerConfig>& all_presets() {
  // Fields: name, layers, hidden, heads, kv_heads, ffn_hidden, seq_len, vocab, mlp.
  static const std::vector<TransformerConfig> presets = {
      // GPT-3: Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1 (n_layers,
      // d_model, n_heads, n_ctx = 2048; d_ff = 4 * d_model). Vocab 50257 padded to 51200 as
      // Megatron-LM does (a multiple of 128 x TP 8).
      transformer_shape("gpt3-175b", 96, 12288, 96, 96, 49152, 2048, 51200, MlpKind::gelu),
      transformer_shape("gpt3-13b", 40, 5120, 40, 40, 20480, 2048, 51200, MlpKind::gelu),
      transformer_shape("gpt3-6.7b", 32, 4096, 32, 32, 16384, 2048, 51200, MlpKind::gelu),
      transformer_shape("gpt3-1.3b", 24, 2048, 16, 16, 8192, 2048, 51200, MlpKind::gelu),
      // Llama 2: Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models", and the
      // Hugging Face config.json of meta-llama/Llama-2-{7b,13b,70b}-hf. Only 70B uses GQA (8 KV heads).
      transformer_shape("llama2-7b", 32, 4096, 32, 32, 11008, 4096, 32000, MlpKind::swiglu),
      transformer_shape("llama2-13b", 40, 5120, 40, 40, 13824, 4096, 32000, MlpKind::swiglu),
      transformer_shape("llama2-70b", 80, 8192, 64, 8, 28672, 4096, 32000, MlpKind::swiglu),
      // Llama 3: Meta "The Llama 3 Herd of Models" (2024), Table 3, and the Hugging Face config.json
      // of meta-llama/Meta-Llama-3-{8B,70B}.
      transformer_shape("llama3-8b", 32, 4096, 32, 8, 14336, 8192, 128256, MlpKind::swiglu),
      transformer_shape("llama3-70b", 80, 8192, 64, 8, 28672, 8192, 128256, MlpKind::swiglu),
      // Llama 3.1 405B: the same paper, Table 3 (126 layers, 16,384 wide, 128 heads, 8 KV heads,
      // FFN 53,248); 8K sequences in pre-training.
      transformer_shape("llama3-405b", 126, 16384, 128, 8, 53248, 8192, 128256, MlpKind::swiglu),
      // Mixtral: Jiang et al. 2024, "Mixtral of Experts", Table 1, and the Hugging Face
      // config.json of mistralai/Mixtral-8x7B-v0.1 and -8x22B-v0.1: 8 SwiGLU experts, top-2.
      // Sequence 4096 for training here (the models accept 32K/64K).
      transformer_shape("mixtral-8x7b", 32, 4096, 32, 8, 14336, 4096, 32000, MlpKind::swiglu, {8, 2, 14336, 1.0}),
      transformer_shape("mixtral-8x22b", 56, 6144, 48, 8, 16384, 4096, 32768, MlpKind::swiglu, {8, 2, 16384, 1.0}),
  };
  return presets;
}

int64_t attention_parameters(const TransformerConfig& m) {
  const int64_t hidden = m.hidden;
  const int64_t qkv_width = int64_t{m.heads + 2 * m.kv_heads} * m.head_dim();
  const bool has_biases = m.has_bias();
  const int64_t qkv = hidden * qkv_width + (has_biases ? qkv_width : 0);
  const int64_t output_projection = hidden * hidden + (has_biases ? hidden : 0);
  return qkv + output_projection;
}

int64_t one_mlp_parameters(const TransformerConfig& m, int64_t ffn) {
  const int64_t hidden = m.hidden;
  const int64_t biases = m.has_bias() ? (m.mlp == MlpKind::swiglu ? 2 * ffn : ffn) + hidden : 0;
  if (m.mlp == MlpKind::swiglu) return 3 * hidden * ffn + biases;  // gate, up, down
  return 2 * hidden * ffn + biases;
}

// A MoE layer: `experts_used` expert MLPs plus the router (hidden x experts).
int64_t mlp_parameters(const TransformerConfig& m, int experts_used) {
  if (!m.moe.enabled()) return one_mlp_parameters(m, m.ffn_hidden);
  return experts_used * one_mlp_parameters(m, m.moe.expert_ffn_hidden) + int64_t{m.hidden} * m.moe.experts;
}

// LayerNorm (GPT) has a scale and a bias per channel; RMSNorm (Llama) only a scale.
int64_t norm_parameters(const TransformerConfig& m) {
  return m.norm_kind() == NormKind::layernorm ? 2 * int64_t{m.hidden} : int64_t{m.hidden};
}

}  // namespace

std::optional<TransformerConfig> find_model_preset(const std::string& name) {
  for (const auto& preset : all_presets())
    if (preset.name == name) return preset;
  return std::nullopt;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& preset : all_presets()) names.push_back(preset.name);
  return names;
}

// gpt3-175b: 96 x 1,812,099,072 per layer + 629,145,600 token embedding + 25,165,824 position
// embedding + 24,576 final norm = 174,615,846,912 (the paper's "175B").
// llama2-70b: 68,714,504,192 (68.98e9 in the released checkpoint, whose output layer is untied).
namespace {
int64_t parameters_with_experts(const TransformerConfig& m, int experts_used) {
  const int64_t per_layer = attention_parameters(m) + mlp_parameters(m, experts_used) + 2 * norm_parameters(m);
  const int64_t token_embedding = int64_t{m.vocab} * m.hidden;
  const int64_t output_layer = m.tied_embeddings ? 0 : token_embedding;  // tied: the embedding's weights
  const int64_t position_embedding =
      m.position_kind() == PositionKind::learned ? int64_t{m.seq_len} * m.hidden : 0;  // GPT only
  return m.layers * per_layer + token_embedding + output_layer + position_embedding + norm_parameters(m);
}
}  // namespace

int64_t parameter_count(const TransformerConfig& m) { return parameters_with_experts(m, m.moe.experts); }

// mixtral-8x7b: 46.70e9 total (the paper's "47B", its untied output layer adds 0.13e9), 12.88e9
// active ("13B").
int64_t active_parameter_count(const TransformerConfig& m) { return parameters_with_experts(m, m.moe.top_k); }

std::vector<double> layer_parameter_tensors(const TransformerConfig& m) {
  const double h = m.hidden, head_dim = m.head_dim(), kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;
  std::vector<double> tensors;
  const auto norm = [&] {
    tensors.push_back(h);
    if (m.norm_kind() == NormKind::layernorm) tensors.push_back(h);
  };
  const auto linear = [&](double in, double out) {
    tensors.push_back(in * out);
    if (m.has_bias()) tensors.push_back(out);
  };
  const auto mlp = [&](double ffn) {
    linear(h, ffn);
    if (m.mlp == MlpKind::swiglu) linear(h, ffn);  // gate and up
    linear(ffn, h);
  };
  norm();
  if (m.has_fused_qkv()) {
    linear(h, (m.heads + 2 * kv_heads) * head_dim);
  } else {
    linear(h, m.heads * head_dim);
    linear(h, kv_heads * head_dim);
    linear(h, kv_heads * head_dim);
  }
  linear(m.heads * head_dim, h);
  norm();
  if (m.moe.enabled()) {
    tensors.push_back(h * m.moe.experts);  // the router
    for (int e = 0; e < m.moe.experts; ++e) mlp(m.moe.expert_ffn_hidden);
  } else {
    mlp(m.ffn_hidden);
  }
  return tensors;
}

}  // namespace dtsim

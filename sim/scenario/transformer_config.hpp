#pragma once
// Shape of a decoder-only transformer (GPT / Llama family).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim {

enum class MlpKind { gelu, swiglu };  // gelu: 2 matrices h->f->h; swiglu: 3 (gate, up, down)
enum class NormKind { layernorm, rmsnorm };
enum class PositionKind { learned, rope };  // learned position embeddings (GPT) or rotary (Llama)
inline constexpr NormKind kNormKinds[] = {NormKind::layernorm, NormKind::rmsnorm};
inline constexpr PositionKind kPositionKinds[] = {PositionKind::learned, PositionKind::rope};
const char* to_string(NormKind k);
const char* to_string(PositionKind k);

// Mixture of experts: every MLP becomes `experts` expert MLPs of width `expert_ffn_hidden`, of
// which a learned router sends each token to `top_k`. experts == 0 means a dense model.
struct MoeConfig {
  int experts = 0;
  int top_k = 1;
  int expert_ffn_hidden = 0;
  // Tokens an expert accepts = capacity_factor x its balanced share (GShard/Switch); excess
  // tokens are dropped. With balanced routing it sets the padded GEMM and all-to-all size.
  double capacity_factor = 1.0;
  bool enabled() const { return experts > 0; }
};

struct TransformerConfig {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;  // == heads unless grouped-query attention
  int ffn_hidden = 0;
  int seq_len = 0;
  int vocab = 0;
  MlpKind mlp = MlpKind::gelu;
  MoeConfig moe;
  // Details that change which kernels run but not the matmul shapes. Unset, they follow the MLP:
  // a GeLU model is GPT-like (LayerNorm, learned positions, biases, one fused QKV projection), a
  // SwiGLU model Llama-like (RMSNorm, rotary positions, no biases, separate q, k and v projections).
  std::optional<NormKind> norm;
  std::optional<PositionKind> position;
  std::optional<bool> bias;
  std::optional<bool> fused_qkv;
  double dropout = 0;           // probability of the dropouts after attention and after the MLP
  bool tied_embeddings = true;  // the logits layer reuses the token embedding's weights

  int head_dim() const { return hidden / heads; }
  bool gpt_like() const { return mlp == MlpKind::gelu; }
  NormKind norm_kind() const { return norm.value_or(gpt_like() ? NormKind::layernorm : NormKind::rmsnorm); }
  PositionKind position_kind() const { return position.value_or(gpt_like() ? PositionKind::learned : PositionKind::rope); }
  bool has_bias() const { return bias.value_or(gpt_like()); }
  bool has_fused_qkv() const { return fused_qkv.value_or(gpt_like()); }
};

// A model of these shapes, its other fields at their defaults.
TransformerConfig transformer_shape(const std::string& name, int layers, int hidden, int heads, int kv_heads,
                                    int ffn_hidden, int seq_len, int vocab, MlpKind mlp, MoeConfig moe = {});

// Built-in presets, e.g. "gpt3-175b", "llama2-70b"; nullopt if unknown.
std::optional<TransformerConfig> find_model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

// Parameters of the whole model (embedding counted once, as tied with the logits); for MoE
// models every expert counts.
int64_t parameter_count(const TransformerConfig& m);
// Parameters one token passes through (MoE: top_k experts instead of all).
int64_t active_parameter_count(const TransformerConfig& m);

// The parameter tensors of one transformer layer, in the order GPT's and Megatron's layers
// register them: the first norm (scale, LayerNorm's shift), q, k and v (or one fused qkv) and the
// output projection, each with its bias where the model has biases, the second norm, the MLP's
// matrices (MoE: the router, then every expert's). Their sum is one layer's parameters.
std::vector<double> layer_parameter_tensors(const TransformerConfig& m);

}  // namespace dtsim

#pragma once
// Shape of a decoder-only transformer (GPT / Llama family).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim {

enum class MlpKind { gelu, swiglu };  // gelu: 2 matrices h->f->h; swiglu: 3 (gate, up, down)

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

  int head_dim() const { return hidden / heads; }
};

// Built-in presets, e.g. "gpt3-175b", "llama2-70b"; nullopt if unknown.
std::optional<TransformerConfig> find_model_preset(const std::string& name);
std::vector<std::string> model_preset_names();

// Parameters of the whole model (embedding counted once, as tied with the logits).
int64_t parameter_count(const TransformerConfig& m);

}  // namespace dtsim

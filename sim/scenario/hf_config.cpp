#include "hf_config.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>

#include "input_error.hpp"
#include "json_input.hpp"

namespace dtsim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HfConfigReader {
 public:
  HfConfigReader(fs::path file, json config) : file_(std::move(file)), config_(std::move(config)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& expected, const std::string& found) const {
    throw InputError({file_.string(), 0, key, expected, found});
  }

  bool has(const std::string& key) const { return config_.contains(key) && !config_[key].is_null(); }

  // The first of `keys` present (GPT-2 configs name things differently from Llama ones).
  int positive_int(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
      if (!has(key)) continue;
      const json& value = config_[key];
      if (!value.is_number_integer() || value.get<long long>() <= 0 || value.get<long long>() > 1'000'000'000)
        fail(key, "a positive integer", value.dump());
      return value.get<int>();
    }
    fail(*keys.begin(), "a positive integer (this key is required)", "nothing");
  }

  int positive_int_or(const char* key, int fallback) const { return has(key) ? positive_int({key}) : fallback; }

  bool boolean_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!config_[key].is_boolean()) fail(key, "true or false", config_[key].dump());
    return config_[key].get<bool>();
  }

  std::string string_or(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!config_[key].is_string()) fail(key, "a string", config_[key].dump());
    return config_[key].get<std::string>();
  }

 private:
  fs::path file_;
  json config_;
};

}  // namespace

TransformerConfig load_hf_config(const fs::path& file) {
  const json config = parse_json_input(file);
  if (!config.is_object()) throw InputError({file.string(), 0, "", "a JSON object", config.type_name()});
  const HfConfigReader hf(file, config);

  TransformerConfig m;
  m.name = hf.string_or("_name_or_path", file.stem().string());
  if (m.name.empty()) m.name = file.stem().string();
  m.hidden = hf.positive_int({"hidden_size", "n_embd"});
  m.layers = hf.positive_int({"num_hidden_layers", "n_layer"});
  m.heads = hf.positive_int({"num_attention_heads", "n_head"});
  m.kv_heads = hf.positive_int_or("num_key_value_heads", m.heads);
  m.ffn_hidden = hf.has("intermediate_size") ? hf.positive_int({"intermediate_size"})
                                              : hf.positive_int_or("n_inner", 4 * m.hidden);
  m.vocab = hf.positive_int({"vocab_size"});
  m.seq_len = hf.positive_int({"max_position_embeddings", "n_positions"});
  m.mlp = hf.string_or("hidden_act", "") == "silu" ? MlpKind::swiglu : MlpKind::gelu;
  // Transformers' PretrainedConfig ties the output layer to the embedding unless it says otherwise.
  m.tied_embeddings = hf.boolean_or("tie_word_embeddings", true);

  if (m.hidden % m.heads != 0)
    hf.fail("hidden_size", fmt::format("a multiple of num_attention_heads ({})", m.heads),
            std::to_string(m.hidden));
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    hf.fail("num_key_value_heads", fmt::format("a divisor of num_attention_heads ({})", m.heads),
            std::to_string(m.kv_heads));
  return m;
}

}  // namespace dtsim

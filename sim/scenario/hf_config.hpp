#pragma once
// Hugging Face config.json (LlamaForCausalLM, GPT2, Mistral, ...) as a TransformerConfig.
#include <filesystem>

#include "transformer_config.hpp"

namespace dtsim {

// seq_len comes from max_position_embeddings unless the caller overrides it afterwards. Bad input
// throws InputError naming the file and key.
TransformerConfig load_hf_config(const std::filesystem::path& file);

}  // namespace dtsim

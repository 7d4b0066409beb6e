#pragma once
// Built-in layer graphs of the models distributed-training measurements are published for, with
// the shapes of their reference implementations: torchvision's ResNet (v1.5), VGG and Inception
// v3 and ViT, Hugging Face's BertForPreTraining (masked-LM and next-sentence heads).
#include <optional>
#include <string>
#include <vector>

#include "layer_graph.hpp"

namespace dtsim {

struct ZooOptions {
  int sequence_length = 128;  // BERT: tokens per sequence (pretraining phase 1: 128, phase 2: 512)
  int classes = 1000;         // image models: ImageNet-1k
};

std::vector<std::string> zoo_model_names();
// nullopt for a name not in zoo_model_names().
std::optional<LayerGraph> zoo_model(const std::string& name, const ZooOptions& options = {});

}  // namespace dtsim

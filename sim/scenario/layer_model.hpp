#pragma once
// A model given as a layer graph (sim/workload/README.md "Layer graphs") instead of a transformer shape: a
// zoo model or a user's layer file, trained data-parallel, optionally scaled to a throughput the
// user measured.
#include <filesystem>
#include <optional>
#include <string>

#include "layer_graph.hpp"
#include "model_zoo.hpp"

namespace dtsim {

// sgd: plain SGD, no state (DLRM's MLPerf reference). sgd_momentum: torchvision's and the image
// benchmarks' optimizer (one momentum buffer). adam: Adam, AdamW and LAMB (two moment buffers), as
// BERT pretraining runs.
enum class LayerModelOptimizer { sgd, sgd_momentum, adam };
inline constexpr LayerModelOptimizer kLayerModelOptimizers[] = {
    LayerModelOptimizer::sgd, LayerModelOptimizer::sgd_momentum, LayerModelOptimizer::adam};
const char* to_string(LayerModelOptimizer o);

// torch.optim.SGD's weight_decay as each model's usual recipe sets it: torchvision's classification
// reference (references/classification/train.py @ 017e9b99, --wd default 1e-4) for image models;
// none in DLRM's reference (facebookresearch/dlrm dlrm_s_pytorch.py @ 090956ee: SGD(parameters, lr)).
inline constexpr double kTorchvisionWeightDecay = 1e-4;

struct LayerModel {
  std::string zoo;             // a zoo_model_names() entry; empty for a layer file
  std::filesystem::path file;  // the user's layer file; empty for a zoo model
  ZooOptions options;          // for a zoo model
  LayerModelOptimizer optimizer = LayerModelOptimizer::sgd_momentum;
  // SGD's weight_decay: above 0 the step adds it times the parameters to the gradients, one more
  // pass over them (Adam's runs inside its update kernel).
  double weight_decay = kTorchvisionWeightDecay;
  LayerGraph graph;            // what the zoo or the file describes
};

// What the user measured one data-parallel group of `gpus` GPUs (1: one GPU alone) do with the
// scenario's batch per GPU and precision. The compute is scaled so that the modelled step of
// that group takes the measured time; only the parallel part is predicted (DESIGN.md
// "Layer graphs").
struct ThroughputReference {
  int gpus = 1;
  double samples_per_s = 0;  // images or sequences per second, all `gpus` together
};

}  // namespace dtsim

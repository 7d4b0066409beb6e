#include "scenario.hpp"

#include <algorithm>

namespace dtsim {

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::selective_op: return "selective_op";
    case Recompute::full: return "full";
  }
  return "?";
}

const char* to_string(Framework f) {
  switch (f) {
    case Framework::megatron: return "megatron";
    case Framework::pytorch: return "pytorch";
    case Framework::torch_compile: return "torch_compile";
  }
  return "?";
}

const char* to_string(MixedPrecision m) {
  switch (m) {
    case MixedPrecision::automatic: return "auto";
    case MixedPrecision::autocast: return "autocast";
    case MixedPrecision::master_weights: return "master_weights";
  }
  return "?";
}

bool runs_pytorch_fsdp(const TrainingConfig& t, int zero_stage) {
  return t.framework != Framework::megatron && zero_stage >= 2;
}

MixedPrecision resolved_mixed_precision(const TrainingConfig& t, int zero_stage) {
  if (t.mixed_precision != MixedPrecision::automatic) return t.mixed_precision;
  if (t.framework == Framework::megatron || runs_pytorch_fsdp(t, zero_stage)) return MixedPrecision::master_weights;
  return MixedPrecision::autocast;
}

const char* to_string(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::automatic: return "auto";
    case MemoryFormat::channels_last: return "channels_last";
    case MemoryFormat::contiguous: return "contiguous";
  }
  return "?";
}

MemoryFormat resolved_memory_format(const TrainingConfig& t) {
  if (t.memory_format != MemoryFormat::automatic) return t.memory_format;
  return t.framework == Framework::torch_compile ? MemoryFormat::channels_last : MemoryFormat::contiguous;
}

int recomputed_layers(const TrainingConfig& t, int layers) {
  if (t.recompute != Recompute::full || t.recompute_layers <= 0) return layers;
  return std::min(layers, t.recompute_layers);
}

const char* to_string(OptimizerKernels k) {
  switch (k) {
    case OptimizerKernels::fused: return "fused";
    case OptimizerKernels::foreach: return "foreach";
    case OptimizerKernels::per_tensor: return "per_tensor";
  }
  return "?";
}

const char* to_string(CrossEntropyKernel k) {
  switch (k) {
    case CrossEntropyKernel::torch: return "torch";
    case CrossEntropyKernel::fused: return "fused";
  }
  return "?";
}

const char* to_string(PipelineScheduleKind k) {
  switch (k) {
    case PipelineScheduleKind::gpipe: return "gpipe";
    case PipelineScheduleKind::one_f_one_b: return "1f1b";
    case PipelineScheduleKind::interleaved_1f1b: return "interleaved_1f1b";
    case PipelineScheduleKind::zero_bubble: return "zero_bubble";
  }
  return "?";
}

const char* to_string(LayerModelOptimizer o) {
  switch (o) {
    case LayerModelOptimizer::sgd: return "sgd";
    case LayerModelOptimizer::sgd_momentum: return "sgd_momentum";
    case LayerModelOptimizer::adam: return "adam";
  }
  return "?";
}

const char* to_string(DataParallelStrategy s) {
  switch (s) {
    case DataParallelStrategy::allreduce: return "allreduce";
    case DataParallelStrategy::parameter_server: return "parameter_server";
    case DataParallelStrategy::hierarchical: return "hierarchical";
  }
  return "?";
}

const char* to_string(ServerPlacement p) {
  switch (p) {
    case ServerPlacement::colocated: return "colocated";
    case ServerPlacement::dedicated: return "dedicated";
  }
  return "?";
}

const char* to_string(TensorSharding t) {
  switch (t) {
    case TensorSharding::greedy: return "greedy";
    case TensorSharding::round_robin: return "round_robin";
  }
  return "?";
}

const char* to_string(UpdateMode m) {
  switch (m) {
    case UpdateMode::sync: return "sync";
    case UpdateMode::async: return "async";
    case UpdateMode::ssp: return "ssp";
  }
  return "?";
}

const char* to_string(GradientCompression c) {
  switch (c) {
    case GradientCompression::none: return "none";
    case GradientCompression::fp16: return "fp16";
    case GradientCompression::bf16: return "bf16";
    case GradientCompression::int8: return "int8";
    case GradientCompression::onebit: return "onebit";
    case GradientCompression::topk: return "topk";
    case GradientCompression::randomk: return "randomk";
    case GradientCompression::powersgd: return "powersgd";
  }
  return "?";
}

const char* to_string(AllreduceLibrary l) {
  switch (l) {
    case AllreduceLibrary::nccl: return "nccl";
    case AllreduceLibrary::horovod: return "horovod";
    case AllreduceLibrary::mpi: return "mpi";
  }
  return "?";
}

double usual_training_amount(const std::string& unit) {
  if (unit == "token") return 300e9;
  if (unit == "image") return 90.0 * 1'281'167;
  if (unit == "sequence") return 1e6 * 256;
  if (unit == "record") return 4'195'197'692.0;
  return 0;
}

}  // namespace dtsim

#pragma once
// A scenario: what to train, how it is split, on what cluster, and what goes wrong.
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attention_kernel.hpp"
#include "data_parallel_config.hpp"
#include "input_pipeline_config.hpp"
#include "layer_model.hpp"
#include "precision.hpp"
#include "topology_spec.hpp"
#include "transformer_config.hpp"

namespace dtsim {

// Activation recomputation. selective: Megatron-LM's, core attention only. selective_op:
// TorchTitan's per-op policy, which saves the matmul outputs but every second one and the
// attention kernel's, and recomputes the rest. full: every layer from its input.
enum class Recompute { none, selective, selective_op, full };
// How the optimizer's Adam(W) update runs. fused: one kernel over each parameter (Apex/Transformer
// Engine FusedAdam as Megatron-LM runs it, torch.optim.AdamW(fused=True)). foreach: PyTorch's
// multi-tensor AdamW, one pass over all parameters per elementwise step. per_tensor: a Python
// loop of in-place ops per tensor (Composer's DecoupledAdamW, which llm-foundry runs).
enum class OptimizerKernels { fused, foreach, per_tensor };
inline constexpr OptimizerKernels kOptimizerKernels[] = {OptimizerKernels::fused, OptimizerKernels::foreach,
                                                         OptimizerKernels::per_tensor};
// The language-model loss over the logits. torch: F.cross_entropy as PyTorch runs it eagerly,
// log-softmax and NLL over an fp32 copy of the logits (Hugging Face, TorchTitan until 2025). fused:
// one kernel each way over the logits as they are (flash-attn's CrossEntropyLoss, the default
// loss_fn fused_crossentropy of llm-foundry's MPT; F.cross_entropy under torch.compile, as
// TorchTitan compiles its loss since 2025). Megatron prices its own vocab-parallel cross-entropy.
enum class CrossEntropyKernel { torch, fused };
inline constexpr CrossEntropyKernel kCrossEntropyKernels[] = {CrossEntropyKernel::torch, CrossEntropyKernel::fused};
inline constexpr Recompute kRecomputeModes[] = {Recompute::none, Recompute::selective, Recompute::selective_op,
                                                Recompute::full};
// gpipe: all forwards, then all backwards. one_f_one_b: PipeDream-Flush. interleaved_1f1b:
// Megatron-LM's schedule with `virtual_stages` model chunks per GPU. zero_bubble: ZB-H1
// (Qi et al. 2024), backward split into input-gradient (B) and weight-gradient (W) passes.
enum class PipelineScheduleKind { gpipe, one_f_one_b, interleaved_1f1b, zero_bubble };
inline constexpr PipelineScheduleKind kPipelineSchedules[] = {
    PipelineScheduleKind::gpipe, PipelineScheduleKind::one_f_one_b, PipelineScheduleKind::interleaved_1f1b,
    PipelineScheduleKind::zero_bubble};

// The software that runs each GPU's step: it decides which kernels each layer, the loss and the
// optimizer launch (docs/frameworks.md, one table per framework, each kernel with its source).
// megatron: Megatron-LM, Megatron-Core or NeMo with Transformer Engine (or Apex) fused kernels.
// pytorch: eager PyTorch (Hugging Face, TorchTitan without compile, llm-foundry, torchvision):
//   one kernel per operator, the optimizer's multi-tensor kernels.
// torch_compile: torch.compile(model): Inductor fuses the element-wise work between matmuls and
//   attention into Triton kernels; the loss outside the model and the optimizer stay eager.
enum class Framework { megatron, pytorch, torch_compile };
inline constexpr Framework kFrameworks[] = {Framework::megatron, Framework::pytorch, Framework::torch_compile};
// Where the weights of mixed-precision training live. autocast: fp32 weights under torch.autocast,
// each use of a weight casts it to the training precision and its gradient comes back in fp32
// (torch.amp, PyTorch's single-GPU and DDP recipe). master_weights: the layers hold their weights
// in the training precision and the optimizer an fp32 master copy (Megatron's bf16 optimizer,
// FSDP2's MixedPrecisionPolicy(param_dtype=bf16)). automatic: master_weights for megatron and for
// PyTorch with zero_stage 2 or 3 (FSDP, whose mixed precision gathers the weights in bf16 at both:
// Composer's DEFAULT, TorchTitan's mixed_precision_param), autocast for PyTorch otherwise.
enum class MixedPrecision { automatic, autocast, master_weights };
inline constexpr MixedPrecision kMixedPrecisions[] = {MixedPrecision::automatic, MixedPrecision::autocast,
                                                      MixedPrecision::master_weights};

// How a layer graph's feature maps lie in memory, which decides the kernels around its
// convolutions (docs/frameworks.md). channels_last: NHWC, the layout cuDNN's tensor-core
// convolutions take (model.to(memory_format=torch.channels_last), NVIDIA's recipes). contiguous:
// NCHW, PyTorch's own default: cuDNN copies the maps to NHWC and back around most convolutions.
// automatic: contiguous for eager PyTorch, channels_last under torch_compile (Inductor's
// layout_optimization, on by default on CUDA, makes convolution models channels-last).
enum class MemoryFormat { automatic, channels_last, contiguous };
inline constexpr MemoryFormat kMemoryFormats[] = {MemoryFormat::automatic, MemoryFormat::channels_last,
                                                  MemoryFormat::contiguous};

struct TrainingConfig {
  int global_batch = 0;  // sequences per iteration, all replicas together
  int micro_batch = 1;   // sequences per micro-batch
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
  // With recompute full: the layers of each model chunk that are recomputed, the others keeping
  // their activations (Megatron-LM's --recompute-method block --recompute-num-layers; TorchTitan's
  // selective layer checkpointing of every k-th layer recomputes layers / k); 0: all of them.
  int recompute_layers = 0;
  // With recompute full outside Megatron: torch.utils.checkpoint's reentrant variant, which reruns
  // a layer's whole forward. The default, non-reentrant checkpointing (TorchTitan, llm-foundry),
  // stops rerunning it once the backward's saved tensors are back (PyTorch >= 2.1). Megatron's
  // recompute is always reentrant.
  bool recompute_reentrant = false;
  AttentionKernel attention = AttentionKernel::automatic;  // automatic: the device's default fused kernel
  // The fused kernel called through flash-attn's variable-length API, behind its bert_padding
  // helpers: q, k and v gathered to the tokens a padding mask keeps, the output scattered back,
  // two host syncs per gather (llm-foundry's MPT with attn_impl: flash, flash_attn_fn). flash1 or
  // flash2 outside Megatron.
  bool attention_varlen = false;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;              // with precision fp8: how tensors are scaled
  OptimizerKernels optimizer = OptimizerKernels::fused;
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::torch;
  // Forward-only cross-entropies over each micro-batch's logits that the training loop computes as
  // metrics, beside the loss (torch's F.cross_entropy under autocast, no gradient): Composer, which
  // llm-foundry runs, computes its model's train metrics LanguageCrossEntropy and LanguagePerplexity
  // after every micro-batch (composer/trainer/trainer.py _eval_train_metrics at v0.16.3), 2.
  int loss_metrics = 0;
  // Each pass launched as one CUDA graph instead of kernel by kernel (sim/framework/launch_model.hpp). Off by
  // default, as in Megatron-Core (--enable-cuda-graph), Megatron Bridge and TorchTitan.
  bool cuda_graphs = false;
  Framework framework = Framework::megatron;
  MixedPrecision mixed_precision = MixedPrecision::automatic;
  MemoryFormat memory_format = MemoryFormat::automatic;  // layer graphs only
};

struct ParallelismConfig {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;  // context parallel: the sequence split across cp GPUs (all-gathered K and V)
  int ep = 1;  // expert parallel: experts split across ep GPUs of a data-parallel group
  PipelineScheduleKind schedule = PipelineScheduleKind::one_f_one_b;
  int virtual_stages = 1;      // model chunks per pipeline GPU (interleaved_1f1b only)
  int first_stage_layers = 0;  // 0 = an even split; otherwise layers on the first stage
  int last_stage_layers = 0;   // 0 = an even split; otherwise layers on the last stage
  bool sequence_parallel = false;  // Megatron SP: reduce-scatter + all-gather, sharded norms
  bool tp_comm_overlap = false;    // TP collectives hidden behind the GEMMs next to them
  int zero_stage = 0;              // 0: DDP all-reduce; 1: sharded optimizer; 2: + grads; 3: + params
  bool overlap_grad_reduce = false;  // gradient buckets reduced during the last backward pass
  // ZeRO-1/2: the updated weights' all-gather runs beside the next iteration's first forward pass
  // instead of after the optimizer (Megatron-LM's --overlap-param-gather, NeMo's overlap_param_sync).
  bool overlap_param_gather = false;
  // Data-parallel gradient reduction in bf16 instead of fp32 (Megatron-LM's --grad-reduce-in-bf16,
  // NeMo's grad_sync_dtype: bf16): half the bytes on the wire.
  bool grad_reduce_in_bf16 = false;
  // With precision fp8: the FP8 GEMMs' weights all-gathered (ZeRO) in FP8, one byte each (torchao's
  // enable_fsdp_float8_all_gather, Transformer Engine's fp8 parameters).
  bool fp8_weight_all_gather = false;
  // With precision fp8 and sequence parallelism: the tensor-parallel all-gathers (inputs forward,
  // output gradients backward) in FP8, cast before the gather (torchao's Float8 TP styles); the
  // reduce-scatters stay bf16.
  bool fp8_tp_all_gather = false;
  bool fsdp_prefetch = true;         // ZeRO-3: weights all-gathered ahead, beside the compute
  // ZeRO-2/3 outside Megatron: PyTorch's FSDP1 (FullyShardedDataParallel: Composer, llm-foundry)
  // or FSDP2 (fully_shard: TorchTitan), whose copies of the gathered weights and gradients differ.
  int fsdp_version = 2;
  double bucket_mb = 25;             // gradient bucket, MB (1e6 B); PyTorch DDP's bucket_cap_mb
};

struct ClusterConfig {
  std::string gpu;                      // a DeviceSpec id, e.g. "a100-80gb-sxm"
  int nodes = 0;
  std::filesystem::path topology_file;  // resolved against the scenario's folder
  TopologySpec topology;                // loaded from topology_file
  // The topology's nodes hold another GPU (another NVLink generation) and the user means it:
  // without it such a pair is an error (check_scenario_consistency).
  bool gpu_differs_from_topology = false;
};

// What-if events. New kinds are new alternatives of Event, applied to the SimGrid
// platform in events.cpp. Times are simulated seconds from the start of the iteration; a
// window without end_s lasts to the end.
constexpr double kForever_s = 1e30;
// Bounds on what-if events (scenario_loader checks them): beyond them the event means something
// else (a GPU 1000x slower has stopped: a failure event) or nothing (times past 1e9 s, 31
// years, never come; rates past 100 TB/s exceed any link).
constexpr double kMaxSlowdown = 1000;         // also bounds a slow link: bandwidth_fraction >= 1/1000
constexpr double kMaxEventTime_s = 1e9;
constexpr double kMinEventRate_Bps = 1e6;     // 1 MB/s
constexpr double kMaxEventRate_Bps = 1e14;    // 100 TB/s

// A GPU (or with `node` >= 0 every GPU of that node: thermal throttling, a bad host) computing
// `slowdown` times slower during [start_s, end_s).
struct StragglerEvent {
  int gpu = 0;            // global rank; ignored when node >= 0
  double slowdown = 1.0;  // compute takes `slowdown` times longer
  double start_s = 0, end_s = kForever_s;
  int node = -1;
};

// A link at `bandwidth_fraction` of its bandwidth during [start_s, end_s): a degraded NIC or
// one renegotiated to a lower speed (link: nic, with node and nic), or a GPU's NVLink
// (link: nvlink, with gpu).
enum class EventLink { nic, nvlink };
struct SlowLinkEvent {
  EventLink link = EventLink::nic;
  int node = 0, nic = 0, gpu = 0;
  double bandwidth_fraction = 1.0;
  double start_s = 0, end_s = kForever_s;
};

// A resource that stops at at_s: a GPU, a whole node (its GPUs and NICs), one NIC, a GPU's
// NVLink, or a leaf switch (fat_tree, spine_leaf: the NICs of the nodes under leaf `leaf`;
// rail_optimized: leaf `leaf` = group * nics + rail, NIC `rail` of the group's nodes).
// Synchronous training cannot finish the iteration; the report says what failed when.
enum class FailedResource { gpu, node, nic, nvlink, leaf_switch };
struct ResourceFailureEvent {
  FailedResource resource = FailedResource::gpu;
  int gpu = 0, node = 0, nic = 0, leaf = 0;
  double at_s = 0;
};

// Another job's traffic from one node to another at `rate_Bps` during [start_s, end_s), through
// NIC 0 of each (GPU 0's rail), sharing the links it crosses with this job's flows.
struct BackgroundTrafficEvent {
  int from_node = 0, to_node = 0;
  double rate_Bps = 0;
  double start_s = 0, end_s = kForever_s;
};

using Event = std::variant<StragglerEvent, SlowLinkEvent, ResourceFailureEvent, BackgroundTrafficEvent>;

struct Scenario {
  std::string name;
  std::filesystem::path source_file;  // empty when built in code
  TransformerConfig model;  // with a layer model, only its name (the layer graph's) is set
  // A CNN, BERT, ViT or a user's layers (sim/workload/README.md "Layer graphs") in place of `model`'s
  // transformer: data-parallel only, synchronised as `data_parallel` says.
  std::optional<LayerModel> layer_model;
  DataParallelConfig data_parallel;
  std::optional<ThroughputReference> reference;  // layer models only
  std::optional<InputPipelineConfig> input_pipeline;  // layer models only; none: data never waits
  TrainingConfig training;
  ParallelismConfig parallelism;
  ClusterConfig cluster;
  std::optional<std::filesystem::path> calibration_file;
  std::vector<Event> events;

  int gpu_count() const { return parallelism.tp * parallelism.cp * parallelism.pp * parallelism.dp; }
  // What its throughput counts: "token" for a transformer, a layer model's sample unit otherwise.
  std::string throughput_unit() const { return layer_model ? layer_model->graph.sample_unit : "token"; }
  // Those units in one iteration: global batch x sequence length, or the global batch of samples.
  double throughput_units_per_iteration() const {
    return layer_model ? double(training.global_batch) : double(training.global_batch) * model.seq_len;
  }
  int micro_batches_per_replica() const {
    return training.global_batch / (parallelism.dp * training.micro_batch);
  }
};

const char* to_string(Recompute r);
const char* to_string(Framework f);
const char* to_string(MixedPrecision m);
// Whether PyTorch's FSDP shards the model: ZeRO-2 (SHARD_GRAD_OP) or 3 (FULL_SHARD) outside
// Megatron, whose distributed optimizer shards only the optimizer state and gradients.
bool runs_pytorch_fsdp(const TrainingConfig& t, int zero_stage);
// `automatic` resolved as MixedPrecision says, for a scenario's framework and ZeRO stage.
MixedPrecision resolved_mixed_precision(const TrainingConfig& t, int zero_stage);
const char* to_string(MemoryFormat m);
// `automatic` resolved as MemoryFormat says, for the scenario's framework.
MemoryFormat resolved_memory_format(const TrainingConfig& t);
// Of a model chunk's `layers`, how many run their recompute ops in the backward pass: all of them
// but with recompute full and recompute_layers fewer than them, that many.
int recomputed_layers(const TrainingConfig& t, int layers);
const char* to_string(OptimizerKernels k);
const char* to_string(CrossEntropyKernel k);
const char* to_string(PipelineScheduleKind k);

// A usual training run's length in `unit`, for a front end's default (0 for an unknown unit):
// token: GPT-3's 300 B (Brown et al. 2020, section 2.2). image: 90 epochs of ImageNet-1k's
// 1,281,167 training images (the ResNet schedule; Goyal et al. 2017). sequence: BERT's
// pre-training, 1,000,000 steps of 256 sequences (Devlin et al. 2019, appendix A.2). record: one
// epoch of Criteo 1TB's days 0-22, 4,195,197,692 records (MLPerf Training's DLRM).
double usual_training_amount(const std::string& unit);

}  // namespace dtsim

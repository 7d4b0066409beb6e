#pragma once
// Time of one operator on one GPU from its compute time c = flops / (peak * eff.compute) and its
// memory time m = bytes / (hbm_bw * eff.memory): a matmul takes sqrt(c^2 + m^2), a fused kernel
// of measured rate max(c, m). Near the ridge point both bound a GEMM: on the H100 (traced steps,
// tests/data/h100-2026-11-26) ResNet-50's 1x1 convolutions [m 50176, n 1024, k 256] took 51.9 us,
// where max(c, m) gives 41 and c + m 73, sqrt(c^2 + m^2) 52; the Llama step's k and v projections
// [8192 x 2048 x 512] 25.1 us (sqrt: 25.1), its MLP's [8192 x 2048 x 8192] 328-356 us (sqrt: 337).
// eff comes from the measured curve of the operator's kind at its size where a calibration has one
// (measured_efficiency.hpp), else from the per-kind table for the device (efficiency_defaults.hpp).
// A memory-bound operator (elementwise, optimizer) reaches the share of bandwidth its access
// pattern reaches (memory_access.hpp), scaled per pattern by a calibration's probe of it or its
// copy (calibration.hpp, measured_access_scales), and each of its kernels adds its start-up time.
// Efficiencies are fractions of the device's own peaks, so a curve measured on one GPU type and
// applied to another scales compute-bound times by the peak FLOP/s ratio and memory-bound ones by
// the HBM bandwidth ratio.
// Only the transformer layers' dense GEMMs run in FP8 when training in fp8 (Transformer Engine's
// recipe: attention and everything else stay bf16), so other kinds, and GEMMs marked as kept in
// the working precision (the LM head), use the bf16 peak then. The FP8 GEMMs reach their recipe's
// measured share of the rate the bf16 efficiency gives at the FP8 peak (DeviceSpec::fp8_gemm_share),
// unless a calibration measured them.
#include <array>
#include <cstddef>
#include <optional>

#include "device_spec.hpp"
#include "efficiency_defaults.hpp"
#include "measured_efficiency.hpp"
#include "memory_access.hpp"

namespace dtsim {

struct Operator {
  const char* name;  // "qkv_gemm", "attention_scores", ...
  OperatorKind kind;
  double flops = 0;  // matmul FLOPs only (elementwise work is memory-bound and not counted, as in
                     // the 72*B*s*l*h^2 convention)
  double bytes = 0;  // HBM bytes read + written
  // Fraction of the tensor-core tiles' work that is useful when a dimension is not a multiple
  // of the tile (tile quantization); scales the compute efficiency.
  double tile_utilization = 1;
  // Fraction of peak FLOP/s a fused kernel reaches at this shape, from its published benchmark
  // (attention_kernel.hpp); 0: the kind's measured curve or default table decides.
  double kernel_efficiency = 0;
  // Dense GEMMs: [m x k] x [k x n] (0 for other operators).
  double m = 0, n = 0, k = 0;
  // A cuBLAS GEMM whose k or n rows are not a multiple of 16 bytes (a vocabulary of 30,522 or
  // 50,257): no Hopper TMA kernel takes it (kUnalignedGemmEfficiency).
  bool unaligned_rows = false;
  // A dense GEMM that stays in the working precision (bf16) when the layers' GEMMs run in FP8.
  bool working_precision_gemm = false;
  // GPU activities the operator launches (a GEMM's backward: dgrad and wgrad; a cuBLAS GEMM's
  // workspace memset counts as one); launch_model.hpp.
  int kernels = 1;
  // Memory-bound operators: how their kernels walk memory.
  MemoryAccess access = MemoryAccess::streaming;
  // A weight-gradient GEMM, or work that only a weight gradient needs (its cast, its
  // accumulation): what a zero-bubble schedule defers to its W pass.
  bool weight_gradient = false;
  // Part of core attention (scores, softmax, dropout, values, or the fused kernel): what
  // Megatron's selective recompute redoes.
  bool core_attention = false;
  // Forward operators: bytes of the tensors autograd keeps from this operator until the backward
  // pass (its output, or inputs no earlier operator's count holds), as PyTorch's derivative
  // formulas keep them. Set by the frameworks that list them (eager PyTorch, torch.compile);
  // the memory model sums them.
  double saved_bytes = 0;
  // The host waits for the GPU to finish this operator's kernels before it launches the next (a
  // copy to the host: .item(), nonzero's count), so the GPU then waits for that launch.
  bool host_sync = false;
  // GEMMs: time the kernels take beyond their FLOPs and bytes (cuDNN's split-K weight gradient of
  // a convolution: its workspace and partial sums); 0 for most.
  double fixed_s = 0;
  // Multi-tensor launches (framework/multi_tensor_apply.hpp; `kernels` equal ones): the largest
  // chunk's share of a full 65,536-element chunk in each, which one thread block streams alone
  // (kMultiTensorChunkS); 0 for other operators.
  double chunk_fill = 0;
};

inline bool is_memory_bound(OperatorKind k) { return k == OperatorKind::elementwise || k == OperatorKind::optimizer; }

// A fused attention kernel (FlashAttention, cuDNN's SDPA): an attention matmul priced at its
// kernel's own rate. Unfused attention's batched matmuls are cuBLAS GEMMs at the attention_gemm rate.
inline bool is_fused_attention(const Operator& op) {
  return op.kind == OperatorKind::attention_gemm && op.kernel_efficiency > 0;
}

// The class a trace's summary puts an operator's kernels in (sim/trace/kernel_class.cpp,
// kernel_role): its kind, but unfused attention's batched matmuls, cuBLAS kernels, are GEMMs.
inline OperatorKind reported_class(const Operator& op) {
  return op.kind == OperatorKind::attention_gemm && !is_fused_attention(op) ? OperatorKind::gemm : op.kind;
}

// A step's (or a pass's) GPU time by the class of its kernels, the classes a report and a trace's
// summary give: GEMM, attention, memory-bound (elementwise) and optimizer, each an OperatorKind,
// and launching: the GPU's gaps between activities and its waits on the host.
struct KernelClassTimes {
  std::array<double, kOperatorKindCount> by_kind{};
  double launch_s = 0;

  double operator[](OperatorKind k) const { return by_kind[size_t(k)]; }
  double& operator[](OperatorKind k) { return by_kind[size_t(k)]; }
  double kernels_s() const {
    double t = 0;
    for (double s : by_kind) t += s;
    return t;
  }
  double total_s() const { return kernels_s() + launch_s; }
  KernelClassTimes& operator+=(const KernelClassTimes& o) {
    for (size_t i = 0; i < by_kind.size(); ++i) by_kind[i] += o.by_kind[i];
    launch_s += o.launch_s;
    return *this;
  }
  KernelClassTimes scaled(double f) const {
    KernelClassTimes t = *this;
    for (double& s : t.by_kind) s *= f;
    t.launch_s *= f;
    return t;
  }
};

class ComputeModel {
 public:
  // `access_scales`: per memory access pattern, how this GPU's shares compare with the H100's the
  // patterns were measured on (measured_access_scales of a calibration; 1 unmeasured).
  ComputeModel(const DeviceSpec& device, Precision precision, EfficiencyTable efficiencies,
               MeasuredEfficiencies measured = {}, MemoryAccessScales access_scales = uniform_access_scales(1),
               Fp8Recipe fp8_recipe = Fp8Recipe::delayed);

  double time_s(const Operator& op) const;
  // The same model with the tensor cores (GEMMs, attention) at `clock` of their rate: a GPU held
  // at its power limit (DeviceSpec::tensor_clock).
  ComputeModel with_tensor_clock(double clock) const;
  double tensor_clock() const { return tensor_clock_; }
  // The model for passes whose kernels took `t` at this one's rates on a GPU held at its power
  // limit: its tensor cores at the clock that their share of `t` (matmuls and attention) gives
  // (DeviceSpec::tensor_clock); nullopt when that clock is 1 or nothing ran, nothing to re-price.
  std::optional<ComputeModel> under_power_limit(const KernelClassTimes& t) const;
  // The fraction of HBM bandwidth a memory-bound operator reaches (before its start-up time).
  double memory_efficiency(const Operator& op) const;
  double peak_flops() const { return peak_flops_; }  // of dense GEMMs at the training precision
  const DeviceSpec& device() const { return *device_; }
  const EfficiencyTable& efficiencies() const { return eff_; }
  const MeasuredEfficiencies& measured() const { return measured_; }

 private:
  const DeviceSpec* device_;  // a datasheet entry (device_spec.cpp), never null
  double peak_flops_;
  double non_gemm_peak_flops_;  // attention's batched GEMMs: bf16 when training in fp8
  double fp8_gemm_share_ = 1;   // of the FP8 GEMMs' rate; 1 unless training in fp8
  double gemm_sustained_scale_ = 1;  // DeviceSpec::sustained_tensor_scale, or fp8_tensor_scale()
  EfficiencyTable eff_;
  MeasuredEfficiencies measured_;
  double tensor_clock_ = 1;
  MemoryAccessScales access_scales_;
};

}  // namespace dtsim

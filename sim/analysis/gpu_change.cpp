#include "gpu_change.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "calibration.hpp"
#include "efficiency_defaults.hpp"
#include "input_error.hpp"
#include "measured_efficiency.hpp"

namespace dtsim {

namespace {

// Fractions of peak: half and TF32 matmuls of the tensor-core FLOP/s, CUDA-core fp32 matmuls of
// theirs, memory-bound kernels of HBM bandwidth.
struct ClassEfficiency {
  double half = 0, tf32 = 0, cuda_core = 0, memory = 0;
};

struct ClassRates {
  double half_flops = 0, tf32_flops = 0, cuda_core_flops = 0, memory_Bps = 0;
};

ClassEfficiency default_class_efficiency() {
  const EfficiencyTable d = default_efficiencies();
  const double gemm = d[OperatorKind::gemm].compute;
  return {gemm, gemm, gemm, d[OperatorKind::elementwise].memory};
}

// A calibration's efficiency of a kind: its measured curve's at the largest size measured (a traced
// kernel's size is not known), else its per-kind table's (format 1, or the defaults).
double calibrated(const Calibration& c, Precision p, OperatorKind kind) {
  const MeasuredEfficiencies measured = measured_efficiencies(c, p);
  const EfficiencyCurve& curve = measured[kind];
  if (!curve.empty()) return curve.at(std::numeric_limits<double>::max());
  return measured_by_flops(kind) ? c.efficiencies[kind].compute : c.efficiencies[kind].memory;
}

// The sustained clock of a power-limited part slows its CUDA cores as it does its tensor cores.
ClassRates rates_of(const DeviceSpec& d, const ClassEfficiency& eff) {
  // A GPU without half-precision units (K80) runs fp16 at its fp32 rate.
  const double half = std::max({d.bf16_flops, d.fp16_flops, d.fp32_flops});
  const double clock = d.sustained_tensor_scale;
  return {half * clock * eff.half, d.fp32_flops * clock * eff.tf32, d.fp32_cuda_core_flops * clock * eff.cuda_core,
          d.hbm_bw_Bps * eff.memory};
}

std::string device_list() { return fmt::format("{}", fmt::join(device_ids(), ", ")); }

}  // namespace

GpuChange gpu_change(const std::string& recorded_gpu_name, double recorded_memory_bytes, const std::string& target_id,
                     const std::filesystem::path& target_calibration) {
  GpuChange out;
  const std::optional<std::string> recorded_id = device_id_of_name(recorded_gpu_name, recorded_memory_bytes);
  out.recorded = recorded_id ? find_device(*recorded_id) : nullptr;
  if (!out.recorded)
    throw InputError({"<command line>", 0, "--gpu", "a trace recorded on a GPU dtsim knows (" + device_list() + ")",
                      "'" + (recorded_gpu_name.empty() ? std::string("unrecorded") : recorded_gpu_name) + "'"});
  out.target = find_device(target_id);
  if (!out.target) throw InputError({"<command line>", 0, "--gpu", "one of " + device_list(), "'" + target_id + "'"});
  const ClassEfficiency defaults = default_class_efficiency();
  ClassEfficiency target_eff = defaults;
  out.efficiency_source = "datasheet peaks, default efficiencies";
  if (!target_calibration.empty()) {
    const Calibration c = load_calibration(target_calibration, default_efficiencies());
    if (device_id_of_name(c.device) != target_id)
      throw InputError({target_calibration.string(), 0, "device", "a calibration measured on " + target_id,
                        "'" + c.device + "'"});
    // The CUDA cores keep the default: a calibration's plain fp32 GEMMs are not loaded (calibration.cpp),
    // so their ratio stays the datasheets'.
    target_eff.half = calibrated(c, Precision::bf16, OperatorKind::gemm);
    target_eff.tf32 = calibrated(c, Precision::fp32, OperatorKind::gemm);
    // A trace's memory-bound kernels are mostly streaming ones: that pattern's scale (probed, or the copy's).
    target_eff.memory = defaults.memory * measured_access_scales(c)[size_t(MemoryAccess::streaming)];
    out.efficiency_source = "efficiencies measured in " + target_calibration.string();
  }
  const ClassRates from = rates_of(*out.recorded, defaults), to = rates_of(*out.target, target_eff);
  out.scale[KernelClass::half_matmul] = from.half_flops / to.half_flops;
  // On a GPU without TF32 the TF32 rate is its CUDA cores' (device_spec.hpp).
  out.scale[KernelClass::tf32_matmul] = from.tf32_flops / to.tf32_flops;
  out.scale[KernelClass::fp32_matmul] = from.cuda_core_flops / to.cuda_core_flops;
  // PyTorch lets cuDNN use TF32 for fp32 convolutions by default (torch.backends.cudnn.allow_tf32),
  // but not cuBLAS for fp32 matmuls since 1.12 (torch.backends.cuda.matmul.allow_tf32): a convolution
  // recorded on CUDA cores before Ampere runs on TF32 tensor cores on a GPU that has them; one that
  // ran on CUDA cores on a TF32 GPU (cuDNN chose it) stays on them.
  const bool conv_gains_tf32 = !out.recorded->has_tf32() && out.target->has_tf32();
  out.scale[KernelClass::fp32_convolution] =
      from.cuda_core_flops / (conv_gains_tf32 ? to.tf32_flops : to.cuda_core_flops);
  out.scale[KernelClass::memory_bound] = from.memory_Bps / to.memory_Bps;
  out.scale[KernelClass::host_copy] = 1;
  return out;
}

std::array<double, kKernelClassCount> kernel_time_by_class_s(const std::vector<RankStep>& ranks) {
  std::array<double, kKernelClassCount> out{};
  for (const RankStep& r : ranks)
    for (const StepKernel& k : r.compute_kernels) out[size_t(k.kind)] += k.duration_us * 1e-6;
  return out;
}

}  // namespace dtsim

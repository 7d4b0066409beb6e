#pragma once
// A recorded step's kernels carried to another GPU: per class of kernel (kernel_class.hpp), the
// time it takes there over the time it took here is the ratio of the rates that bound it, the
// recorded GPU's over the other's: datasheet peaks (device_spec.hpp) times the efficiency of the
// operator kind: the defaults (efficiency_defaults.hpp) on both, or for the other GPU what a
// calibration measured on it (the efficiency of its largest measured runs of the kind: a traced
// kernel's size is not known).
//   fp16/bf16 matmul  tensor-core half rate x sustained_tensor_scale x gemm compute efficiency
//   TF32 matmul       TF32 tensor-core rate (the CUDA cores' fp32 on GPUs without TF32) x the same
//   fp32 matmul       CUDA cores' fp32 rate x sustained_tensor_scale x the default gemm efficiency
//                     (PyTorch runs fp32 matmuls without TF32 by default since 1.12)
//   fp32 convolution  as fp32 matmul, except recorded before Ampere and carried to a GPU with TF32:
//                     recorded CUDA-core rate over the TF32 rate (cuDNN's TF32 is on by default)
//   memory-bound      HBM bandwidth x elementwise memory efficiency
//   host copy         unchanged (PCIe is not modelled per GPU)
// With the defaults on both sides the efficiencies cancel and the ratios are the datasheets'.
#include <filesystem>
#include <string>
#include <vector>

#include "device_spec.hpp"
#include "kernel_class.hpp"
#include "step_summary.hpp"

namespace dtsim {

struct GpuChange {
  const DeviceSpec* recorded = nullptr;
  const DeviceSpec* target = nullptr;
  std::string efficiency_source;  // defaults, or the target's calibration file
  KernelTimeScale scale;          // time on target / time as recorded, per class
};

// `recorded_gpu_name` as CUDA names it ("Tesla V100-SXM2-32GB"), with its memory (0: unknown;
// device_id_of_name); `target_id` a dtsim device id
// ("h100-sxm"); `target_calibration` empty, or a calibration measured on the target. Throws
// InputError for a recorded GPU dtsim does not know, an unknown id (listing them), or a
// calibration of another GPU.
GpuChange gpu_change(const std::string& recorded_gpu_name, double recorded_memory_bytes, const std::string& target_id,
                     const std::filesystem::path& target_calibration);

// The steps' kernel time (not collectives) per class, summed over the ranks, seconds.
std::array<double, kKernelClassCount> kernel_time_by_class_s(const std::vector<RankStep>& ranks);

}  // namespace dtsim

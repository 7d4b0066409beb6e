#pragma once
// What bounds a recorded GPU kernel's time, from its name, so that its time can be carried to
// another GPU (sim/analysis/gpu_change): a matmul or convolution runs at the tensor-core (or, on
// GPUs without TF32, CUDA-core) rate of its precision; every other kernel, device-to-device copy
// and memset streams through HBM; a copy between host and device crosses PCIe.
#include <array>
#include <string>

#include "kineto_trace.hpp"

namespace dtsim {

enum class KernelClass {
  half_matmul,   // fp16/bf16 GEMM, convolution or fused attention ("h884", "f16", "bf16" in its name)
  fp32_matmul,   // fp32 GEMM or convolution: TF32 tensor cores since Ampere, CUDA cores before
  memory_bound,  // elementwise, reductions, normalization, layout changes, D2D copies, memsets
  host_copy,     // host-to-device and device-to-host copies
};
constexpr int kKernelClassCount = 4;
const char* to_string(KernelClass c);  // "fp16/bf16 matmul", for people
const char* key_of(KernelClass c);     // "half_matmul", for JSON

KernelClass kernel_class(const std::string& name, GpuActivityKind kind);

// How much longer (> 1) or shorter (< 1) each class of kernel runs on another GPU.
struct KernelTimeScale {
  std::array<double, kKernelClassCount> factor{1, 1, 1, 1};
  double operator[](KernelClass c) const { return factor[size_t(c)]; }
  double& operator[](KernelClass c) { return factor[size_t(c)]; }
  bool is_identity() const { return factor == std::array<double, kKernelClassCount>{1, 1, 1, 1}; }
};

}  // namespace dtsim

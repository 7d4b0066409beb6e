#pragma once
// What bounds a recorded GPU kernel's time, from its name, so that its time can be carried to
// another GPU (sim/analysis/gpu_change): a matmul or convolution runs at the tensor-core rate of its
// precision, TF32 for fp32 data where the kernel used TF32, else the CUDA cores' fp32 rate; every
// other kernel, device-to-device copy and memset streams through HBM; a copy between host and
// device crosses PCIe.
#include <algorithm>
#include <array>
#include <string>

#include "compute_model.hpp"
#include "kineto_trace.hpp"

namespace dtsim {

enum class KernelClass {
  half_matmul,       // fp16/bf16 GEMM, convolution or fused attention ("h884", "f16", "bf16" in its name)
  tf32_matmul,       // fp32 GEMM or convolution on TF32 tensor cores ("tf32", "tensorop_s1688")
  fp32_matmul,       // fp32 GEMM on CUDA cores ("sgemm")
  fp32_convolution,  // fp32 cuDNN convolution on CUDA cores ("scudnn", "fprop", "implicit_convolve")
  memory_bound,      // elementwise, reductions, normalization, layout changes, D2D copies, memsets
  host_copy,         // host-to-device and device-to-host copies
};
constexpr int kKernelClassCount = 6;
const char* to_string(KernelClass c);  // "fp16/bf16 matmul", for people
const char* key_of(KernelClass c);     // "half_matmul", for JSON

KernelClass kernel_class(const std::string& name, GpuActivityKind kind);

// The class a kernel's time is reported in, the one dtsim's model prices it as (compute_model.hpp):
// GEMM (cuBLAS, CUTLASS and cuDNN matmuls and convolutions), attention (fused attention kernels and
// their helpers), optimizer (PyTorch's multi-tensor kernels, fused Adam), memory-bound (the rest:
// element-wise, normalization, copies, memsets).
OperatorKind kernel_role(const std::string& name, GpuActivityKind kind);

// How much longer (> 1) or shorter (< 1) each class of kernel runs on another GPU.
struct KernelTimeScale {
  std::array<double, kKernelClassCount> factor{1, 1, 1, 1, 1, 1};
  double operator[](KernelClass c) const { return factor[size_t(c)]; }
  double& operator[](KernelClass c) { return factor[size_t(c)]; }
  bool is_identity() const { return std::all_of(factor.begin(), factor.end(), [](double f) { return f == 1; }); }
};

}  // namespace dtsim

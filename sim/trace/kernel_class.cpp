#include "kernel_class.hpp"

#include <algorithm>
#include <cctype>

namespace dtsim {

namespace {

bool has_any(const std::string& s, std::initializer_list<const char*> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](const char* p) { return s.find(p) != std::string::npos; });
}

}  // namespace

const char* to_string(KernelClass c) {
  switch (c) {
    case KernelClass::half_matmul: return "fp16/bf16 matmul";
    case KernelClass::fp32_matmul: return "fp32 matmul";
    case KernelClass::memory_bound: return "memory-bound";
    case KernelClass::host_copy: return "host copy";
  }
  return "?";
}

const char* key_of(KernelClass c) {
  switch (c) {
    case KernelClass::half_matmul: return "half_matmul";
    case KernelClass::fp32_matmul: return "fp32_matmul";
    case KernelClass::memory_bound: return "memory_bound";
    case KernelClass::host_copy: return "host_copy";
  }
  return "?";
}

KernelClass kernel_class(const std::string& name, GpuActivityKind kind) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (kind == GpuActivityKind::memcpy)
    return has_any(n, {"htod", "dtoh", "htoh"}) ? KernelClass::host_copy : KernelClass::memory_bound;
  if (kind == GpuActivityKind::memset) return KernelClass::memory_bound;
  // cuBLAS/CUTLASS GEMMs ("volta_sgemm", "tensorop_s1688gemm", "implicit_gemm"), cuDNN's
  // convolutions ("scudnn", "xmma_fprop", "dgrad", "wgrad"), fused attention on tensor cores
  // ("flash_fwd_kernel", "fmha_cutlassF"); not cuDNN's batch norm ("bn_fw").
  const bool matmul = has_any(n, {"gemm", "scudnn", "hcudnn", "fprop", "dgrad", "wgrad", "winograd", "convolution",
                                  "flash", "fmha"});
  if (!matmul) return KernelClass::memory_bound;
  return has_any(n, {"bf16", "bfloat16", "f16", "fp16", "half", "h884", "h1688", "h16816", "hcudnn"})
             ? KernelClass::half_matmul
             : KernelClass::fp32_matmul;
}

}  // namespace dtsim

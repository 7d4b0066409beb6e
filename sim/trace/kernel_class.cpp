#include "kernel_class.hpp"

#include <algorithm>
#include <cctype>

namespace dtsim {

namespace {

bool has_any(const std::string& s, std::initializer_list<const char*> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](const char* p) { return s.find(p) != std::string::npos; });
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  return s;
}

std::string erase_all(std::string s, const std::string& part) {
  for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at)) s.erase(at, part.size());
  return s;
}

}  // namespace

const char* to_string(KernelClass c) {
  switch (c) {
    case KernelClass::half_matmul: return "fp16/bf16 matmul";
    case KernelClass::tf32_matmul: return "TF32 matmul";
    case KernelClass::fp32_matmul: return "fp32 matmul";
    case KernelClass::fp32_convolution: return "fp32 convolution";
    case KernelClass::memory_bound: return "memory-bound";
    case KernelClass::host_copy: return "host copy";
  }
  return "?";
}

const char* key_of(KernelClass c) {
  switch (c) {
    case KernelClass::half_matmul: return "half_matmul";
    case KernelClass::tf32_matmul: return "tf32_matmul";
    case KernelClass::fp32_matmul: return "fp32_matmul";
    case KernelClass::fp32_convolution: return "fp32_convolution";
    case KernelClass::memory_bound: return "memory_bound";
    case KernelClass::host_copy: return "host_copy";
  }
  return "?";
}

KernelClass kernel_class(const std::string& name, GpuActivityKind kind) {
  const std::string n = lower(name);
  if (kind == GpuActivityKind::memcpy)
    return has_any(n, {"htod", "dtoh", "htoh"}) ? KernelClass::host_copy : KernelClass::memory_bound;
  if (kind == GpuActivityKind::memset) return KernelClass::memory_bound;
  // cuBLAS/CUTLASS GEMMs ("volta_sgemm", "tensorop_s1688gemm"), cuDNN's convolutions ("scudnn",
  // "xmma_fprop", "dgrad", "wgrad", "implicit_convolve_sgemm"), fused attention on tensor cores
  // ("flash_fwd_kernel", "fmha_cutlassF"); not cuDNN's batch norm ("bn_fw") or its sum of partial
  // weight gradients ("reduce_wgrad_nchw_helper"), nor FBGEMM's embedding and permute kernels
  // ("fbgemm_gpu::permute_2D_data_kernel").
  if (has_any(n, {"reduce_wgrad"})) return KernelClass::memory_bound;
  const std::string without_fbgemm = erase_all(n, "fbgemm");
  const bool convolution = has_any(n, {"scudnn", "hcudnn", "fprop", "dgrad", "wgrad", "winograd", "convol"});
  // cuBLAS's Hopper GEMMs are "nvjet_sm90_tst_...".
  const bool matmul = convolution || has_any(without_fbgemm, {"gemm", "flash", "fmha", "nvjet"});
  if (!matmul) return KernelClass::memory_bound;
  if (has_any(n, {"bf16", "bfloat16", "f16", "fp16", "half", "h884", "h1688", "h16816", "hcudnn"}))
    return KernelClass::half_matmul;
  // TF32: cuBLAS "ampere_tf32_s1688gemm", CUTLASS "tensorop_s1688gemm" (single-precision data on
  // tensor cores), cuDNN "xmma_..._tf32f32", CUTLASS templates over cutlass::tfloat32_t.
  if (has_any(n, {"tf32", "tfloat32", "tensorop_s", "s1688", "s16816"})) return KernelClass::tf32_matmul;
  return convolution ? KernelClass::fp32_convolution : KernelClass::fp32_matmul;
}

OperatorKind kernel_role(const std::string& name, GpuActivityKind kind) {
  if (kind != GpuActivityKind::kernel) return OperatorKind::elementwise;
  const std::string n = lower(name);
  // Fused attention: FlashAttention ("flash_fwd_kernel"), xFormers/PyTorch ("fmha_cutlassF"), cuDNN's
  // SDPA ("cudnn_generated_fort_native_sdpa_...") and the helpers its backward launches
  // ("cudnn::fusion::compute_dot_do_o_specialized", "convert_dq_to_16bits", "fmha_reduce_head").
  if (has_any(n, {"sdpa", "flash", "fmha", "cudnn::fusion", "attention"})) return OperatorKind::attention_gemm;
  // PyTorch's fused and foreach optimizers and clip_grad_norm_ run multi_tensor_apply_kernel; Apex's
  // and Transformer Engine's Adam "multi_tensor_adam".
  if (has_any(n, {"multi_tensor_apply", "multi_tensor_adam", "multi_tensor_l2norm", "multi_tensor_scale"}))
    return OperatorKind::optimizer;
  // cuBLASLt's split-k reduction finishes its GEMM.
  if (has_any(n, {"splitkreduce"})) return OperatorKind::gemm;
  const KernelClass c = kernel_class(name, kind);
  return c == KernelClass::memory_bound || c == KernelClass::host_copy ? OperatorKind::elementwise : OperatorKind::gemm;
}

}  // namespace dtsim

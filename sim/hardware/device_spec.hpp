#pragma once
// Datasheet numbers of the GPUs dtsim knows. Every value cites its source in device_spec.cpp.
#include <optional>
#include <string>
#include <vector>

#include "precision.hpp"

namespace dtsim {

struct DeviceSpec {
  std::string id;            // "a100-80gb-sxm"
  std::string display_name;  // "NVIDIA A100 80GB SXM"
  // Dense (no structured sparsity) tensor-core peak, FLOP/s. 0 = not supported.
  double bf16_flops = 0;
  double fp16_flops = 0;
  double fp8_flops = 0;
  double fp32_flops = 0;  // TF32 tensor-core rate: what fp32 matmuls run at
  // FP32 on the CUDA cores (no tensor cores): what an fp32 matmul runs at where TF32 is not used,
  // and on GPUs without TF32 (before Ampere) the same as fp32_flops.
  double fp32_cuda_core_flops = 0;
  double hbm_bytes = 0;
  double hbm_bw_Bps = 0;
  double nvlink_bw_Bps = 0;  // per GPU, one direction (datasheet bidirectional figure / 2)
  int sm_arch = 80;          // compute capability x 10: 80 Ampere, 90 Hopper, 100 Blackwell
  int sms = 0;               // streaming multiprocessors
  // Tensor-core rate this part sustains at its power limit, as a fraction of the rate of the
  // datasheet part at its full TDP (whose measured rates the default efficiencies hold): 1 for
  // datasheet parts; below 1 for a part run at a lower power limit, whose clock drops under load.
  double sustained_tensor_scale = 1;
  // Measured by this project (0: not measured, the default table's 0.80 applies): the fraction of
  // the bf16 peak at which a large GEMM runs inside a training step, beside its element-wise work.
  double in_step_gemm_efficiency = 0;
  // Measured by this project (1: not measured): the tensor-core rate a GPU keeps when it runs
  // matmuls and nothing else, its clock lowered by its power limit, as a fraction of that in-step
  // rate. tensor_clock() says how a step between the two is priced.
  double tensor_clock_under_load = 1;
  // Measured by this project (1: not measured): what an FP8 GEMM reaches of twice the bf16 GEMM's
  // rate at the same shape (the FP8 peak is twice the bf16 one), with per-tensor scales (cuBLASLt:
  // Transformer Engine's delayed scaling, torchao's tensorwise) and with per-row scales (PyTorch's
  // CUTLASS rowwise kernel). fp8_gemm_share() picks one for a recipe.
  double fp8_gemm_share_tensorwise = 1;
  double fp8_gemm_share_rowwise = 1;
  // sustained_tensor_scale for FP8 GEMMs, where a part's power limit was measured to slow them
  // less than its bf16 ones (0: the same scale). fp8_tensor_scale() says which applies.
  double sustained_fp8_tensor_scale = 0;
  // The board's maximum power (TDP) from its datasheet, W: what it draws through a training run,
  // which keeps it near its power limit (kHostSide in device_spec.cpp; 0: not known).
  double board_power_w = 0;
  // One direction of the board's x16 PCIe link to its host, B/s, by its generation
  // (kHostSide in device_spec.cpp; 0: not known).
  double pcie_Bps = 0;
  // A copy of pinned memory from the GPU to its host: pcie_Bps at the efficiency measured here.
  double host_copy_Bps() const;

  // Fraction of the GPU's SMs an NCCL collective kernel of `ctas` CTAs (one per channel,
  // nccl_collective_channels) occupies while it runs beside compute, each CTA on its own SM, at
  // most all of them: compute then runs at (1 - share) of its rate.
  double collective_sm_share(int ctas) const;
  bool has_tf32() const { return sm_arch >= 80; }  // TF32 tensor cores: Ampere and later
  // The NVLink generation of an SXM part, by architecture: Pascal 1, Volta 2, Ampere 3, Hopper 4,
  // Blackwell 5 (NVIDIA's NVLink page); 0 for a PCIe part (no NVLink bandwidth).
  int nvlink_generation() const;

  double peak_flops(Precision p) const;
  // fp8_gemm_share_rowwise for rowwise scales, else the per-tensor figure: blockwise and mxfp8 were
  // not measured and are taken at it.
  double fp8_gemm_share(Fp8Recipe r) const {
    return r == Fp8Recipe::rowwise ? fp8_gemm_share_rowwise : fp8_gemm_share_tensorwise;
  }
  double fp8_tensor_scale() const {
    return sustained_fp8_tensor_scale > 0 ? sustained_fp8_tensor_scale : sustained_tensor_scale;
  }
  // The clock factor on the tensor-core rate of a step whose GPU time is `tensor_share` matmuls
  // and attention: 1 up to the largest share in_step_gemm_efficiency was measured at
  // (kInStepTensorShare), tensor_clock_under_load at 1, linear between.
  double tensor_clock(double tensor_share) const;
};

// The share of matmuls and attention in the traced H100 steps: Llama 0.46, GPT 0.53, Llama compiled
// 0.59 of the measured step. The compiled step's GEMMs ran 1.2% longer than the eager one's, the
// same GEMMs (76.8 against 75.9 ms): the in-step rate holds up to 0.59.
inline constexpr double kInStepTensorShare = 0.59;
// Measured on the H100 SXM lent to this project (2026-11-26, dtsim-profile's 1 GiB pinned copies in
// tests/data/profiler/h100-sxm-2026-11-26.raw.json): device to host 55.176 GB/s (host to device the
// same), of PCIe Gen5 x16's 63.015.
inline constexpr double kPinnedCopyEfficiency = 55.176e9 / 63.015e9;

const DeviceSpec* find_device(const std::string& id);
std::vector<std::string> device_ids();

// The dtsim device id a driver device name stands for ("NVIDIA H100 80GB HBM3" -> "h100-sxm"), if
// dtsim knows it. `memory_bytes` (the driver's total, 0 when unknown) tells an A100 whose name
// does not say its size ("NVIDIA A100-PG509-200"): under 60 GiB the 40 GB part.
std::optional<std::string> device_id_of_name(const std::string& driver_name, double memory_bytes = 0);

}  // namespace dtsim

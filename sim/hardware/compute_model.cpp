#include "compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace dtsim {

ComputeModel::ComputeModel(const DeviceSpec& device, Precision precision, EfficiencyTable efficiencies,
                           MeasuredEfficiencies measured, MemoryAccessScales access_scales, Fp8Recipe fp8_recipe)
    : device_(&device),
      peak_flops_(device.peak_flops(precision)),
      non_gemm_peak_flops_(device.peak_flops(working_precision(precision))),
      fp8_gemm_share_(precision == Precision::fp8 ? device.fp8_gemm_share(fp8_recipe) : 1),
      gemm_sustained_scale_(precision == Precision::fp8 ? device.fp8_tensor_scale() : device.sustained_tensor_scale),
      eff_(efficiencies),
      measured_(std::move(measured)),
      access_scales_(access_scales) {}

ComputeModel ComputeModel::with_tensor_clock(double clock) const {
  ComputeModel m = *this;
  m.tensor_clock_ = clock;
  return m;
}

std::optional<ComputeModel> ComputeModel::under_power_limit(const KernelClassTimes& t) const {
  if (t.total_s() <= 0) return std::nullopt;
  const double share = (t[OperatorKind::gemm] + t[OperatorKind::attention_gemm]) / t.total_s();
  const double clock = device_->tensor_clock(share);
  if (clock >= 1) return std::nullopt;
  return with_tensor_clock(tensor_clock_ * clock);
}

double ComputeModel::memory_efficiency(const Operator& op) const {
  // A per-kind value (a format-1 calibration's summary) against the table's, and a measured copy.
  const double summary = eff_[op.kind].memory / default_efficiencies()[op.kind].memory;
  // The shares were measured kernel by kernel: an operator of several kernels (an optimizer's
  // per-tensor loop) streams each kernel's bytes at that kernel's size.
  const double kernel_bytes = op.bytes / std::max(1, op.kernels);
  return memory_access_efficiency(op.access, kernel_bytes) * summary * access_scales_[size_t(op.access)];
}

namespace {
// On Hopper, cuBLAS runs a GEMM whose operands' rows are not 16-byte aligned with Ampere's
// cutlass_80 kernels instead of its TMA ones: the traced BERT-large step's masked-LM head
// (tests/data/h100-2026-11-28, vocabulary 30,522), 2 x 8192 x 1024 x 30522 FLOP forward in 2024.9
// us, data gradient 2094.6, weight gradient 1960.6: 0.256 of the 989.4 TFLOP/s peak, where the
// step's aligned GEMMs ran at about 0.7.
constexpr double kUnalignedGemmEfficiency = 0.256;
}  // namespace

double ComputeModel::time_s(const Operator& op) const {
  if (is_memory_bound(op.kind)) {
    const double memory_s = op.bytes > 0 ? op.bytes / (device_->hbm_bw_Bps * memory_efficiency(op)) : 0.0;
    // Each multi-tensor launch takes at least the time one block streams its largest chunk; the
    // two combine as compute and memory do below.
    const int kernels = std::max(1, op.kernels);
    const double streamed_s =
        op.chunk_fill > 0 ? kernels * std::hypot(op.chunk_fill * kMultiTensorChunkS, memory_s / kernels) : memory_s;
    return streamed_s + op.kernels * kMemoryKernelStartupS;
  }
  OperatorEfficiency e = eff_[op.kind];
  const EfficiencyCurve& curve = measured_[op.kind];
  const bool low_precision = op.kind == OperatorKind::gemm && !op.working_precision_gemm;
  // A measured curve holds its GPU's power behaviour; published and default rates are the
  // datasheet part's at full TDP, so a part run at a lower power limit scales them.
  const double sustained = low_precision ? gemm_sustained_scale_ : device_->sustained_tensor_scale;
  if (op.kernel_efficiency > 0) {
    e.compute = op.kernel_efficiency * sustained;
  } else if (op.unaligned_rows && device_->sm_arch >= 90) {
    e.compute = kUnalignedGemmEfficiency * sustained;
  } else if (!curve.empty()) {
    e.compute = curve.at(op.flops);
  } else {
    e.compute *= sustained;
  }
  if (low_precision && curve.empty()) e.compute *= fp8_gemm_share_;
  const double peak = low_precision ? peak_flops_ : non_gemm_peak_flops_;
  const double compute_s = op.flops > 0 ? op.flops / (peak * e.compute * op.tile_utilization * tensor_clock_) : 0.0;
  const double memory_s = op.bytes > 0 ? op.bytes / (device_->hbm_bw_Bps * e.memory) : 0.0;
  // A fused kernel runs at its measured rate, bound by the slower of the two.
  const double kernel_s = op.kernel_efficiency > 0 ? std::max(compute_s, memory_s) : std::hypot(compute_s, memory_s);
  return kernel_s + op.fixed_s;
}

}  // namespace dtsim

#include "datasheet_peaks.hpp"

#include "device_spec.hpp"

namespace dtsim::calib {

std::optional<Peaks> datasheet_peaks(const std::string& driver_name) {
  const std::optional<std::string> id = device_id_of_name(driver_name);
  const DeviceSpec* d = id ? find_device(*id) : nullptr;
  if (!d) return std::nullopt;
  Peaks p;
  p.fp32_flops = d->fp32_cuda_core_flops;
  p.tf32_flops = d->has_tf32() ? d->fp32_flops : 0;  // DeviceSpec::fp32_flops: what fp32 matmuls run at
  p.fp16_flops = d->fp16_flops;
  p.bf16_flops = d->bf16_flops;
  p.fp8_flops = d->fp8_flops;
  p.hbm_Bps = d->hbm_bw_Bps;
  return p;
}

std::optional<double> peak_flops_of(const Peaks& peaks, const std::string& dtype) {
  if (dtype == "fp32") return peaks.fp32_flops;
  if (dtype == "tf32") return peaks.tf32_flops;
  if (dtype == "fp16") return peaks.fp16_flops;
  if (dtype == "bf16") return peaks.bf16_flops;
  if (dtype == "fp8") return peaks.fp8_flops;
  return std::nullopt;
}

}  // namespace dtsim::calib

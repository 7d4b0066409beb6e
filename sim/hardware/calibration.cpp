#include "calibration.hpp"

#include "memory_access.hpp"

#include <algorithm>
#include <stdexcept>

#include "calibration_file_reader.hpp"

namespace dtsim {

namespace {

std::optional<Precision> precision_of(const std::string& dtype) {
  if (dtype == "bf16") return Precision::bf16;
  if (dtype == "fp16") return Precision::fp16;
  if (dtype == "fp8") return Precision::fp8;
  if (dtype == "tf32") return Precision::fp32;
  return std::nullopt;  // plain fp32 (CUDA cores): not what any training precision runs at
}

}  // namespace

OperatorKind operator_kind_of(const std::string& name) {
  for (int k = 0; k < kOperatorKindCount; ++k)
    if (name == to_string(OperatorKind(k))) return OperatorKind(k);
  throw std::logic_error("calibration: operator kind '" + name + "' is not one of the model's");
}

CollectiveKind collective_kind_of(const std::string& name) {
  for (CollectiveKind k : {CollectiveKind::all_reduce, CollectiveKind::all_gather, CollectiveKind::reduce_scatter,
                           CollectiveKind::all_to_all, CollectiveKind::broadcast, CollectiveKind::send_recv})
    if (name == to_string(k)) return k;
  throw std::logic_error("calibration: collective '" + name + "' is not one of the model's");
}

Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults) {
  const calib::CalibrationFile f = calib::read_calibration_file(file);
  Calibration c;
  c.file = file;
  c.device = f.device;
  c.date = f.date;
  c.efficiencies = defaults;
  for (const calib::KindEfficiency& k : f.efficiency) {
    OperatorEfficiency& e = c.efficiencies[operator_kind_of(k.kind)];
    if (k.compute) e.compute = *k.compute;
    if (k.memory) e.memory = *k.memory;
  }
  for (const calib::CalibratedOperator& o : f.operators) {
    const std::optional<Precision> precision = precision_of(o.dtype);
    if (!precision) continue;  // fp32 on CUDA cores: kept in the file, not used by the model
    MeasuredOperator m;
    m.op = o.op;
    m.kind = operator_kind_of(o.kind);
    m.precision = *precision;
    m.flops = o.flops;
    m.bytes = o.bytes;
    m.time_s = o.time_s;
    m.compute_efficiency = o.compute_efficiency;
    m.memory_efficiency = o.memory_efficiency;
    if (!o.access.empty()) {
      m.access = memory_access_named(o.access);
      if (!m.access) throw std::logic_error("calibration: access pattern '" + o.access + "' is not one of the model's");
    }
    c.operators.push_back(m);
  }
  for (const calib::CalibratedCollective& o : f.collectives)
    c.collectives.push_back({collective_kind_of(o.op), o.gpus, o.fit.latency_s, o.fit.busbw_Bps});
  c.d2d_Bps = f.copies.d2d_Bps;
  return c;
}

namespace {

// Each probe's share against the same probe's on the H100 at its size, by pattern.
std::array<std::vector<double>, kMemoryAccessCount> probe_ratios(const Calibration& c) {
  std::array<std::vector<double>, kMemoryAccessCount> ratios;
  for (const MeasuredOperator& o : c.operators) {
    if (!o.access || o.bytes <= 0 || o.memory_efficiency <= 0) continue;
    const std::optional<double> reference = probe_reference_efficiency(*o.access, o.bytes);
    const double transfer_s = o.time_s - kMemoryKernelStartupS;
    if (!reference || transfer_s <= 0) continue;
    const double share = o.memory_efficiency * o.time_s / transfer_s;
    ratios[size_t(*o.access)].push_back(share / *reference);
  }
  return ratios;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

MemoryAccessScales measured_access_scales(const Calibration& c) {
  MemoryAccessScales scales = uniform_access_scales(measured_copy_scale(c));
  const auto ratios = probe_ratios(c);
  for (size_t a = 0; a < ratios.size(); ++a)
    if (!ratios[a].empty()) scales[a] = median(ratios[a]);
  return scales;
}

std::vector<MemoryAccess> probed_accesses(const Calibration& c) {
  std::vector<MemoryAccess> probed;
  const auto ratios = probe_ratios(c);
  for (size_t a = 0; a < ratios.size(); ++a)
    if (!ratios[a].empty()) probed.push_back(MemoryAccess(a));
  return probed;
}

double measured_copy_scale(const Calibration& c) {
  const std::optional<std::string> id = device_id_of_name(c.device);
  if (c.d2d_Bps <= 0 || !id) return 1;
  return c.d2d_Bps / find_device(*id)->hbm_bw_Bps / kReferenceCopyShare;
}

}  // namespace dtsim

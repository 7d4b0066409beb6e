#include "calibration.hpp"

#include "memory_access.hpp"

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
    c.operators.push_back(m);
  }
  for (const calib::CalibratedCollective& o : f.collectives)
    c.collectives.push_back({collective_kind_of(o.op), o.gpus, o.fit.latency_s, o.fit.busbw_Bps});
  c.d2d_Bps = f.copies.d2d_Bps;
  return c;
}

double measured_copy_scale(const Calibration& c) {
  const std::optional<std::string> id = device_id_of_name(c.device);
  if (c.d2d_Bps <= 0 || !id) return 1;
  return c.d2d_Bps / find_device(*id)->hbm_bw_Bps / kReferenceCopyShare;
}

}  // namespace dtsim

#pragma once
// What the profiler measured on a real GPU (profiler/ writes it; format "dtsim-calibration-2"),
// and the older per-kind summary (format 1), which files may still carry:
//   {"device": "NVIDIA H100 80GB HBM3", "date": "2026-11-21",
//    "efficiency": {"gemm": {"compute": 0.78}, "elementwise": {"memory": 0.88}}}
// Format 2 adds, per measured operator run, its kind, dtype, FLOPs, bytes, time and achieved
// efficiencies ("operators"), and fitted collective curves over the node's GPUs
// ("collectives": op, gpus, fit.latency_s, fit.busbw_Bps). See profiler/README.md.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "efficiency_defaults.hpp"
#include "program.hpp"
#include "precision.hpp"

namespace dtsim {

struct MeasuredOperator {
  std::string op;             // "gemm", "layernorm", ...
  OperatorKind kind = OperatorKind::gemm;
  Precision precision = Precision::bf16;  // tf32 runs count as fp32 (the TF32 tensor-core rate)
  double flops = 0, bytes = 0, time_s = 0;
  double compute_efficiency = 0;  // flops / time / peak of the measured device
  double memory_efficiency = 0;   // bytes / time / HBM bandwidth of the measured device
};

struct MeasuredCollective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  int gpus = 0;
  double latency_s = 0;
  double busbw_Bps = 0;  // large-message bus bandwidth (nccl-tests definition)
};

struct Calibration {
  std::filesystem::path file;
  std::string device;  // as the driver names it
  std::string date;
  EfficiencyTable efficiencies;  // per-kind values: the defaults, overridden by "efficiency"
  std::vector<MeasuredOperator> operators;
  std::vector<MeasuredCollective> collectives;
};

// Starts from `defaults` and overrides what the file gives; bad input throws InputError naming
// the file and the field.
Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults);

// The dtsim device id (device_spec.hpp) a driver device name stands for ("NVIDIA H100 80GB HBM3"
// -> "h100-sxm"), if dtsim knows it. `memory_bytes` (the driver's total, 0 when unknown) tells
// an A100 whose name does not say its size ("NVIDIA A100-PG509-200"): under 60 GiB the 40 GB part.
std::optional<std::string> device_id_of_name(const std::string& driver_name, double memory_bytes = 0);

}  // namespace dtsim

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

#include "device_spec.hpp"  // device_id_of_name, for the callers that place a calibration's device
#include "efficiency_defaults.hpp"
#include "memory_access.hpp"
#include "program.hpp"
#include "precision.hpp"

namespace dtsim {

struct MeasuredOperator {
  std::string op;             // "gemm", "layernorm", ...
  OperatorKind kind = OperatorKind::gemm;
  Precision precision = Precision::bf16;  // tf32 runs count as fp32 (the TF32 tensor-core rate)
  double flops = 0, bytes = 0, time_s = 0;
  // Measured rate over the measured device's datasheet peak; may exceed 1 (a tensor served from
  // L2, a clock above the datasheet's) up to sim/base/size_limits.hpp's bounds.
  double compute_efficiency = 0;  // flops / time / peak of the measured device
  double memory_efficiency = 0;   // bytes / time / HBM bandwidth of the measured device
  // A probe of one of the simulator's memory access patterns (kernels' access_* operators).
  std::optional<MemoryAccess> access;
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
  double d2d_Bps = 0;  // a 1 GiB device-to-device copy, bytes read + written per second; 0: not measured
};

// Starts from `defaults` and overrides what the file gives; bad input throws InputError naming
// the file and the field. The file is read by the one reader profiler and simulator share
// (calibration_file_reader.hpp); this keeps what the model uses.
Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults);

// A calibration's measured copy as a share of its own GPU's HBM peak, against the share of the H100
// whose kernels the memory access patterns were measured on (kReferenceCopyShare): what scales them
// on the calibrated GPU. 1 without a copy or for a GPU dtsim does not know.
double measured_copy_scale(const Calibration& c);

// Per memory access pattern, what scales the H100-measured shares on the calibrated GPU: where the
// calibration probed the pattern (operators with an `access`), the median over the probes of
// their share (bytes over their time less kMemoryKernelStartupS, over the measured GPU's HBM
// peak) against the same probe's share on the H100 at that size (probe_reference_efficiency);
// elsewhere measured_copy_scale.
MemoryAccessScales measured_access_scales(const Calibration& c);
// The patterns measured_access_scales took from probes.
std::vector<MemoryAccess> probed_accesses(const Calibration& c);

// The simulator's kinds for a file's names, which the reader has checked; std::logic_error for
// another name (the reader and the model disagree: a bug).
OperatorKind operator_kind_of(const std::string& name);
CollectiveKind collective_kind_of(const std::string& name);

}  // namespace dtsim

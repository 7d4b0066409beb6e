#pragma once
// The calibration the profiler writes (format "dtsim-calibration-2"; the simulator reads it in
// sim/hardware/calibration.cpp). Plain data; calibration_writer.hpp turns it into JSON, field names as
// in profiler/README.md.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::profiler {

inline constexpr const char* kCalibrationFormat = "dtsim-calibration-2";

// Datasheet dense peaks the efficiencies are fractions of (device_peaks.hpp).
struct Peaks {
  double fp32_flops = 0, tf32_flops = 0, fp16_flops = 0, bf16_flops = 0, fp8_flops = 0;  // FLOP/s
  double hbm_Bps = 0;
};

// The non-zero fields of kernels' OpShape, in its order ("m", "n", "k", "batch", "seq", ...).
using ShapeFields = std::vector<std::pair<std::string, int64_t>>;

// What an operator run is, as the raw profile and the calibration both name it.
struct OperatorIdentity {
  std::string op;     // OpShape::op: "gemm", "layernorm", ...
  std::string kind;   // "gemm", "attention_gemm", "elementwise", "optimizer"
  std::string dtype;  // "fp32", "tf32", "fp16", "bf16", "fp8"
  ShapeFields shape;
  double flops = 0, bytes = 0;
};

struct CalibratedOperator : OperatorIdentity {
  double time_s = 0;  // median kernel time of one run (CUPTI), or median event time without CUPTI
  int runs = 0;
  double compute_efficiency = 0;  // flops / time_s / peak(dtype); 0 when flops == 0
  double memory_efficiency = 0;   // bytes / time_s / hbm_Bps
  std::vector<std::string> kernels;  // distinct kernel names (empty without CUPTI)
};

struct CollectivePoint {
  double bytes = 0;  // nccl-tests' size column
  double time_s = 0;
  double algbw_Bps = 0, busbw_Bps = 0;
};

struct CollectiveFit {
  double latency_s = 0;
  double busbw_Bps = 0;
};

struct CalibratedCollective {
  std::string op;  // "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"
  int gpus = 0;
  std::string dtype;
  std::vector<CollectivePoint> points;
  CollectiveFit fit;
};

// Copy bandwidths at 1 GiB. d2d counts bytes read plus bytes written (2 x size / time), as CUDA's
// bandwidthTest does, so it compares with hbm_Bps; h2d and d2h are size / time over PCIe.
struct CopyBandwidths {
  double d2d_Bps = 0, h2d_Bps = 0, d2h_Bps = 0;
};

struct ProfilerSettings {
  bool cupti = true;
  int iterations = 0, warmup = 0;
  std::optional<double> overhead_percent;  // CUPTI on vs off, when measured; null otherwise
};

struct Calibration {
  std::string format = kCalibrationFormat;
  std::string device;              // cudaDeviceProp::name
  std::string compute_capability;  // "9.0"
  int gpus = 0;                    // local GPUs used for NCCL
  std::string driver, cuda_runtime, nccl;
  std::string date;                // UTC date of the measurement, YYYY-MM-DD
  Peaks peaks;
  std::vector<CalibratedOperator> operators;
  std::vector<CalibratedCollective> collectives;
  CopyBandwidths copies;
  ProfilerSettings profiler;
};

}  // namespace dtsim::profiler

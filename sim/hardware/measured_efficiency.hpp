#pragma once
// Efficiencies measured by the profiler, as curves over operator size: for each operator kind,
// piecewise linear in log(size) between the measured runs (runs of equal size averaged), constant
// beyond the smallest and largest. Size is FLOPs for the matmul kinds (gemm, attention_gemm),
// whose measured efficiency is a fraction of peak FLOP/s, and bytes for the memory-bound kinds
// (elementwise, optimizer), a fraction of HBM bandwidth. Size stands for shape: a GEMM's FLOPs
// grow with all of m, n and k, and small GEMMs are the ones that fall short of peak.
#include <array>
#include <utility>
#include <vector>

#include "calibration.hpp"
#include "log_size_curve.hpp"

namespace dtsim {

class EfficiencyCurve {
 public:
  void add(double size, double efficiency);
  bool empty() const { return points_.empty(); }
  size_t size() const { return points_.size(); }
  double at(double size) const;

 private:
  LogSizeCurve points_;      // (size, efficiency)
  std::vector<int> counts_;  // runs averaged into each point
};

struct MeasuredEfficiencies {
  std::array<EfficiencyCurve, kOperatorKindCount> by_kind;
  const EfficiencyCurve& operator[](OperatorKind k) const { return by_kind[int(k)]; }
};

// True for the kinds whose curve is over FLOPs (compute efficiency).
bool measured_by_flops(OperatorKind k);

// The curves of the matmul runs measured at `precision`; bf16 and fp16 stand in for each other (same
// tensor-core rate). The profiler's memory-bound operators (its own kernels, not a framework's) are
// kept in the file but price nothing: a calibration's copy bandwidth scales the measured access
// patterns instead (ComputeModel::memory_efficiency). Kinds without runs get an empty curve.
MeasuredEfficiencies measured_efficiencies(const Calibration& c, Precision precision);

}  // namespace dtsim

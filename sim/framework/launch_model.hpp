#pragma once
// How the host's launches and the GPU's gaps between kernels add to a pass. The host launches
// every GPU activity (kernel, memset) one by one, at its framework's host cost each; the GPU runs
// them in order, each starting a fixed gap after the one before, or when the host has launched
// it, whichever is later: a two-stage pipeline. Where the GPU's kernels are long the host runs
// ahead and only the gaps remain; where they are short the GPU waits on the host. A host sync
// (Operator::host_sync: .item(), nonzero) stops the host until the GPU has caught up, so the GPU
// then waits for the next launches. A CUDA graph launches a captured pass at once: no host cost
// per activity.
//
// Measured on an H100 with PyTorch 2.11 (tests/data/h100-2026-11-26):
// - the gap: the traced steps' GPU time beyond their kernels' (measured step less the kernels'
//   sum and the step's start and end, below), per GPU activity: Llama 2.06 us (2,539 activities),
//   GPT 1.94 us (2,114), Llama compiled 2.07 us (1,414): 2.0 us. (ResNet-50's cuDNN and
//   batch-norm kernels follow each other faster: 0.87 us.)
// - the host: a Python loop of single-kernel ops launches one every 15.2 us (microbenchmark
//   "launch_overhead"); Inductor's generated code launches at half eager's interval (the compiled
//   trace's median launch interval 23.4 us against the eager trace's 47.4, both under the
//   profiler): 7.5 us; the same loop as one CUDA graph 2.0 us per kernel, its kernels included.
// - the step's start and end: the first kernel starts 0.54 ms after the step begins (eager; 1.47
//   ms compiled: guards and graph lookup), and the step ends 0.17 ms after the last kernel
//   (eager 0.19, 0.17, ResNet 0.16; compiled 0.15): 0.71 ms a step eager, 1.62 ms compiled.
#include <vector>

#include "compute_model.hpp"
#include "scenario.hpp"

namespace dtsim {

inline constexpr double kGpuActivityGapS = 2.0e-6;
inline constexpr double kEagerLaunchHostS = 15.2e-6;
inline constexpr double kCompiledLaunchHostS = 7.5e-6;
inline constexpr double kEagerStepOverheadS = 0.71e-3;
inline constexpr double kCompiledStepOverheadS = 1.62e-3;

// The host's time per launched activity for a scenario's framework (0 under CUDA graphs), and
// what each step adds at its start and end.
double host_launch_s(const TrainingConfig& t);
double step_overhead_s(const TrainingConfig& t);

// `repeat` runs of `ops` (a layer's, once per layer) launched one activity after another from a
// host that costs `host_s` each, the pass starting with the host and the GPU together: the
// kernels' time by class, and what launching them adds (gaps, waits on the host).
KernelClassTimes launched_pass(const std::vector<Operator>& ops, const ComputeModel& compute, double host_s,
                               int repeat = 1);

}  // namespace dtsim

#pragma once
// Kernel launch overhead. In eager execution the host launches every kernel of a pass one by one;
// launches queue up ahead of the GPU, so a pass takes the longer of its kernels' GPU time and
// its launches' host time (a two-stage pipeline with a deep queue): small kernels leave the GPU
// waiting on the host. A CUDA graph launches a whole captured pass at once, so only the GPU
// time remains (the graph's one launch and the device-side gaps between its kernels are left out).
#include <algorithm>

namespace dtsim {

// Host time of one kernel launch in eager execution. HolisticTraceAnalysis's kernel-launch
// statistics (facebookresearch/HolisticTraceAnalysis docs/source/features/cuda_kernel_launch_stats.rst)
// put the CPU side of a launch at 5-20 us; dtsim takes the low end, so launch-bound passes are
// a lower bound (the framework's own dispatch per operator comes on top).
inline constexpr double kEagerKernelLaunchHostS = 5e-6;

// A pass of `gpu_s` GPU time in `kernels` kernels, launched eagerly or as one CUDA graph.
inline double launched_pass_s(double gpu_s, double kernels, bool cuda_graphs) {
  return cuda_graphs ? gpu_s : std::max(gpu_s, kernels * kEagerKernelLaunchHostS);
}

}  // namespace dtsim

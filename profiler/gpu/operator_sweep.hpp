#pragma once
// Runs kernels/ operators on device 0 and records what calibration_builder needs: with CUPTI, a
// timestamp window per timed run and the kernel records; without, CUDA-event times per run.
#include <vector>

#include "operator.hpp"
#include "raw_profile.hpp"

namespace dtsim::profiler::gpu {

class CuptiKernelCollector;

// The default sweep, deduplicated: layer_shapes of GPT-style (GeLU, LayerNorm) and Llama-style
// (SwiGLU, RMSNorm) layers with hidden 1024, 2048, 4096, 8192 (head_dim 128, tp 1, seq 2048,
// micro-batch 1, vocab 50304) in each dtype, plus square GEMMs 1024..16384. `gemm_only` keeps
// the "gemm" shapes.
std::vector<kernels::OpShape> default_shapes(const std::vector<kernels::DType>& dtypes, bool gemm_only);

// The square GEMMs alone (the --overhead sweep).
std::vector<kernels::OpShape> square_gemm_shapes(kernels::DType dtype);

// The OpShape fields that describe the shape: non-zero ones, batch only for attention_* or when
// it is not 1 (a GEMM's batch of 1 says nothing).
ShapeFields shape_fields(const kernels::OpShape& s);

struct SweepSettings {
  int iterations = 20;
  int warmup = 5;
};

// One RawOperator per shape that could be measured. A shape the GPU or its libraries refuse (fp8
// before compute capability 8.9, cuBLASLt's CUBLAS_STATUS_NOT_SUPPORTED at the first run: kernels'
// Unsupported), or that does not fit in memory, is skipped with one line saying so (op, dtype,
// shape, the library's status), and the sweep goes on. `collector` null: CUDA events.
std::vector<RawOperator> measure_operators(const std::vector<kernels::OpShape>& shapes, const SweepSettings& settings,
                                           CuptiKernelCollector* collector);

// CUDA-event time of `iterations` runs back to back after `warmup`, s (the overhead comparison).
double time_back_to_back_s(kernels::Operator& op, int iterations, int warmup);

}  // namespace dtsim::profiler::gpu

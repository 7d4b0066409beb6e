#pragma once
// The dtypes an operator runs in. Plain C++ (no CUDA headers): the CPU-side plans
// (lt_matmul_plan.hpp) and their tests use it without the CUDA toolkit.
namespace dtsim::kernels {

enum class DType { fp32, tf32, fp16, bf16, fp8 };  // tf32: fp32 storage, TF32 tensor cores; fp8: e4m3 inputs, bf16 output
const char* to_string(DType d);                    // describe.cpp

}  // namespace dtsim::kernels

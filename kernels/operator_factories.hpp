#pragma once
// One factory per operator family (each in its own file); make_operator dispatches on OpShape::op.
#include <memory>

#include "operator.hpp"

namespace dtsim::kernels {

std::unique_ptr<Operator> make_gemm(const OpShape& s);       // gemm_operator.cpp
std::unique_ptr<Operator> make_attention(const OpShape& s);  // attention_operator.cpp: scores and values
std::unique_ptr<Operator> make_softmax(const OpShape& s);    // softmax.cu
std::unique_ptr<Operator> make_layernorm(const OpShape& s);  // layernorm.cu
std::unique_ptr<Operator> make_rmsnorm(const OpShape& s);    // rmsnorm.cu
std::unique_ptr<Operator> make_gelu(const OpShape& s);       // gelu.cu
std::unique_ptr<Operator> make_swiglu(const OpShape& s);     // swiglu.cu
std::unique_ptr<Operator> make_dropout(const OpShape& s);    // dropout.cu
std::unique_ptr<Operator> make_embedding(const OpShape& s);  // embedding.cu
std::unique_ptr<Operator> make_adam(const OpShape& s);       // adam.cu
std::unique_ptr<Operator> make_memory_access_probe(const OpShape& s);  // memory_access_probes.cu: access_*

}  // namespace dtsim::kernels

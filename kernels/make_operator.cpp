#include <stdexcept>

#include "operator.hpp"
#include "operator_factories.hpp"

namespace dtsim::kernels {

std::unique_ptr<Operator> make_operator(const OpShape& s) {
  if (s.op == "gemm") return make_gemm(s);
  if (s.op == "attention_scores" || s.op == "attention_values") return make_attention(s);
  if (s.op == "softmax") return make_softmax(s);
  if (s.op == "layernorm") return make_layernorm(s);
  if (s.op == "rmsnorm") return make_rmsnorm(s);
  if (s.op == "gelu") return make_gelu(s);
  if (s.op == "swiglu") return make_swiglu(s);
  if (s.op == "dropout") return make_dropout(s);
  if (s.op == "embedding") return make_embedding(s);
  if (s.op == "adam") return make_adam(s);
  if (s.op.starts_with("access_")) return make_memory_access_probe(s);
  throw std::runtime_error(describe(s) + ": unknown operator '" + s.op + "'");
}

}  // namespace dtsim::kernels

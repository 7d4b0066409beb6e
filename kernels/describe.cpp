// Names of dtypes and one-line descriptions of operator shapes ("gemm bf16 m=8192 n=8192 k=8192").
#include <string>
#include <utility>

#include "operator.hpp"

namespace dtsim::kernels {

const char* to_string(DType d) {
  switch (d) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8: return "fp8";
  }
  return "unknown";
}

namespace {
void field(std::string& out, const char* name, long long value) {
  out += ' ';
  out += name;
  out += '=';
  out += std::to_string(value);
}
}  // namespace

std::string describe(const OpShape& s) {
  std::string out = s.op + ' ' + to_string(s.dtype);
  if (s.op == "gemm") {
    field(out, "m", s.m), field(out, "n", s.n), field(out, "k", s.k);
  } else if (s.op == "attention_scores" || s.op == "attention_values") {
    field(out, "batch", s.batch), field(out, "seq", s.seq), field(out, "head_dim", s.head_dim);
  } else if (s.op == "adam") {
    field(out, "count", s.count);
  } else if (s.op == "embedding") {
    field(out, "rows", s.rows), field(out, "cols", s.cols), field(out, "vocab", s.vocab);
  } else if (s.op == "softmax" || s.op == "layernorm" || s.op == "rmsnorm" || s.op == "gelu" || s.op == "swiglu" ||
             s.op == "dropout" || s.op.starts_with("access_")) {
    field(out, "rows", s.rows), field(out, "cols", s.cols);
  } else {  // unknown op: every field that is set, so an error message shows what was asked for
    const std::pair<const char*, long long> all[] = {{"m", s.m},       {"n", s.n},       {"k", s.k},
                                                     {"batch", s.batch}, {"seq", s.seq}, {"head_dim", s.head_dim},
                                                     {"rows", s.rows}, {"cols", s.cols}, {"vocab", s.vocab},
                                                     {"count", s.count}};
    for (const auto& [name, value] : all)
      if (value != 0 && !(name == std::string("batch") && value == 1)) field(out, name, value);
  }
  return out;
}

}  // namespace dtsim::kernels

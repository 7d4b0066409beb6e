#include "precision.hpp"

namespace dtsim {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp32: return "fp32";
  }
  return "?";
}

double element_bytes(Precision p) {
  switch (p) {
    case Precision::fp8: return 1;  // fp8 GEMM inputs; activations between ops stay bf16 in practice
    case Precision::bf16:
    case Precision::fp16: return 2;
    case Precision::fp32: return 4;
  }
  return 2;
}

}  // namespace dtsim

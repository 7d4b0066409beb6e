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

const char* to_string(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::delayed: return "delayed";
    case Fp8Recipe::tensorwise: return "tensorwise";
    case Fp8Recipe::rowwise: return "rowwise";
    case Fp8Recipe::blockwise: return "blockwise";
    case Fp8Recipe::mxfp8: return "mxfp8";
  }
  return "?";
}

double fp8_cast_transpose_bytes_per_element(Fp8Recipe r) {
  constexpr double kCastTranspose = 2 + 1 + 1;
  switch (r) {
    case Fp8Recipe::delayed: return kCastTranspose;
    case Fp8Recipe::tensorwise:
    case Fp8Recipe::rowwise: return kCastTranspose + 2;
    case Fp8Recipe::blockwise: return kCastTranspose + 2 * 4.0 / 128;
    case Fp8Recipe::mxfp8: return kCastTranspose + 2 * 1.0 / 32;
  }
  return kCastTranspose;
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

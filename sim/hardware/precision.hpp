#pragma once
// The number formats a training run computes in, and what each costs per element.

namespace dtsim {

enum class Precision { bf16, fp16, fp8, fp32 };

const char* to_string(Precision p);

// Bytes per element of activations and weights for a training precision.
double element_bytes(Precision p);

}  // namespace dtsim

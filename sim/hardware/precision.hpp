#pragma once
// The number formats a training run computes in, and what each costs per element.

namespace dtsim {

enum class Precision { bf16, fp16, fp8, fp32 };
inline constexpr Precision kPrecisions[] = {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32};

const char* to_string(Precision p);

// Bytes per element of activations and weights for a training precision.
double element_bytes(Precision p);

// The format of activations, working weights and every operator but the dense GEMMs: training
// in fp8 keeps them in bf16 (Transformer Engine's recipe); other precisions are their own.
inline Precision working_precision(Precision p) { return p == Precision::fp8 ? Precision::bf16 : p; }

// How FP8 training scales a tensor into FP8's range (Megatron-Core's --fp8-recipe names, and
// torchao's rowwise). delayed: from the amax history of earlier iterations, so the cast needs no
// pass of its own over the tensor (Transformer Engine's DelayedScaling). tensorwise, rowwise:
// from this tensor's own amax (current scaling; torchao's dynamic Float8 linears), computed in a
// pass over the tensor before the cast. blockwise (1 x 128 blocks, fp32 scales) and mxfp8 (32
// elements per E8M0 scale, Blackwell): per-block amax inside the cast kernel, plus the scales.
enum class Fp8Recipe { delayed, tensorwise, rowwise, blockwise, mxfp8 };
inline constexpr Fp8Recipe kFp8Recipes[] = {Fp8Recipe::delayed, Fp8Recipe::tensorwise, Fp8Recipe::rowwise,
                                            Fp8Recipe::blockwise, Fp8Recipe::mxfp8};
const char* to_string(Fp8Recipe r);

// HBM bytes per element of casting a bf16 tensor to FP8 with a transposed copy (the FP8 GEMMs
// on Hopper take TN operands only, and a weight-gradient GEMM needs the other layout): read 2,
// write 1 + 1, plus the recipe's amax pass (reads 2) or scales (two copies).
double fp8_cast_transpose_bytes_per_element(Fp8Recipe r);

}  // namespace dtsim

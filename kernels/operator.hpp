#pragma once
// The operators of one transformer training step, runnable on the current CUDA device at a given
// shape: what the profiler (profiler/) times and what kernels' own correctness check verifies.
// Interface only; kernels/*.cu implement it. Host-side types only here, so that code including
// this header needs no CUDA headers except cuda_runtime_api.h for cudaStream_t.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "unsupported.hpp"

namespace dtsim::kernels {

// Operator names (OpShape::op) and the simulator's OperatorKind each maps to (sim/hardware/efficiency_defaults.hpp):
//   gemm             C[m,n] = A[m,k] B[k,n] (cuBLASLt): QKV, projection, MLP up/down, logits, and the
//                    two backward GEMMs of each, which are the same call with other m, n, k  -> "gemm"
//   attention_scores batched Q K^T: batch x heads of [seq, head_dim] x [head_dim, seq]          -> "attention_gemm"
//   attention_values batched P V: batch x heads of [seq, seq] x [seq, head_dim]                  -> "attention_gemm"
//   softmax          row softmax of [rows, cols] (scaled, causal mask)                           -> "elementwise"
//   layernorm        LayerNorm of [rows, cols] with gamma, beta                                  -> "elementwise"
//   rmsnorm          RMSNorm of [rows, cols] with gamma                                          -> "elementwise"
//   gelu             tanh-approximated GeLU over rows x cols                                     -> "elementwise"
//   swiglu           silu(a) * b, a and b of rows x cols                                         -> "elementwise"
//   dropout          y = x * mask / (1 - p), p = 0.1, Philox mask                                -> "elementwise"
//   embedding        gather rows (tokens) of a [vocab, hidden] table                             -> "elementwise"
//   adam             Adam update of n fp32 parameters (weight, grad, m, v)                       -> "optimizer"
//   access_*         a memory access pattern of the simulator's, as PyTorch's element-wise kernels
//                    move memory (memory_access_probes.cu): streaming, unrolled, promoting,
//                    strided, fill; bf16, rows x cols                                             -> "elementwise"
struct OpShape {
  std::string op;
  DType dtype = DType::bf16;
  int64_t m = 0, n = 0, k = 0;  // gemm
  int64_t batch = 1;            // attention_*: batch x heads matrices
  int64_t seq = 0, head_dim = 0;  // attention_*
  int64_t rows = 0, cols = 0;   // softmax, norms, gelu, swiglu, dropout, embedding (rows = tokens, cols = hidden)
  int64_t vocab = 0;            // embedding
  int64_t count = 0;            // adam: parameters
};
std::string describe(const OpShape& s);  // "gemm bf16 m=8192 n=8192 k=8192"

// What one run does, for efficiencies: FLOPs (2mnk for a GEMM) and bytes read + written once.
struct OpWork {
  double flops = 0;
  double bytes = 0;
  std::string kind;  // "gemm", "attention_gemm", "elementwise", "optimizer"
};

struct CheckResult {
  bool passed = false;
  double max_relative_error = 0;  // over the compared outputs, |gpu - ref| / max(|ref|, floor)
  double bound = 0;               // allowed for this dtype
  std::string detail;             // what was compared, or why it failed
};

class Operator {
 public:
  virtual ~Operator() = default;
  virtual const OpShape& shape() const = 0;
  virtual OpWork work() const = 0;
  // The simulator's memory access pattern (sim/hardware/memory_access.hpp) an access_* probe
  // reproduces; empty for the other operators (dtsim's own kernels, not a framework's).
  virtual std::string memory_access() const { return {}; }
  // Enqueues one run on `stream`; inputs stay as prepared, so runs can repeat.
  virtual void run(cudaStream_t stream) = 0;
  // Runs once, copies the result back and compares with a CPU reference in double precision on
  // the same random (never zero) inputs.
  virtual CheckResult check() = 0;
};

// Allocates and fills the operator's buffers on the current device with random values. Throws
// std::runtime_error naming the shape if the op is unknown or the shape invalid, and Unsupported
// if the device or its libraries refuse the dtype or shape (fp8 needs compute capability 8.9 or
// newer, and cuBLASLt's FP8 layout rules); run() and check() throw Unsupported when cuBLASLt
// refuses the call itself.
std::unique_ptr<Operator> make_operator(const OpShape& shape);

// The operator shapes one micro-batch of a GPT/Llama-style layer implies on one GPU: tokens =
// micro_batch x seq, TP-split widths, forward GEMMs and both backward GEMMs, attention, norms,
// activations, dropout, embedding, logits and an Adam update of the layer's parameters.
struct LayerDims {
  int64_t hidden = 0, heads = 0, kv_heads = 0, ffn = 0, seq = 0, vocab = 0, micro_batch = 1, tp = 1;
  bool swiglu = false, rmsnorm = false;
};
std::vector<OpShape> layer_shapes(const LayerDims& d, DType dtype);

// The memory access probes at the sizes the profiler measures (memory_access_probes.cu).
std::vector<OpShape> memory_access_probe_shapes();

}  // namespace dtsim::kernels

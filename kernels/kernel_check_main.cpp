// dtsim-kernel-check: runs check() of every operator of a small GPT layer (hidden 1024, 16 heads,
// ffn 4096, seq 512, micro-batch 2) on the current GPU, in bf16, fp32 and fp16, with tf32 GEMMs,
// fp8 GEMMs where the device has them, and RMSNorm / SwiGLU; prints one row per operator. A case
// the GPU's libraries refuse (cuBLASLt's CUBLAS_STATUS_NOT_SUPPORTED: kernels' Unsupported) is a
// SKIP row with the library's status, and the other checks go on.
// Exit codes: 0 every check ran and passed; 1 a check failed or threw; 2 no CUDA device; 3 none
// failed but the libraries refused some (SKIP rows): what ran is right, not everything ran.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "lt_matmul.hpp"
#include "operator.hpp"

namespace {

using namespace dtsim::kernels;

std::vector<OpShape> shapes_to_check(bool fp8) {
  LayerDims gpt;
  gpt.hidden = 1024, gpt.heads = 16, gpt.kv_heads = 16, gpt.ffn = 4096, gpt.seq = 512, gpt.vocab = 50304;
  gpt.micro_batch = 2, gpt.tp = 1;
  LayerDims llama = gpt;  // the same layer with Llama's RMSNorm and SwiGLU
  llama.swiglu = llama.rmsnorm = true;

  std::vector<OpShape> shapes;
  std::set<std::string> seen;  // by description: layer_shapes of each dtype repeats the fp32 adam
  const auto add = [&](const std::vector<OpShape>& from, auto keep) {
    for (const OpShape& s : from)
      if (keep(s) && seen.insert(describe(s)).second) shapes.push_back(s);
  };
  const auto all = [](const OpShape&) { return true; };
  const auto matmuls = [](const OpShape& s) { return s.op == "gemm" || s.op.starts_with("attention_"); };
  add(layer_shapes(gpt, DType::bf16), all);
  add(layer_shapes(llama, DType::bf16), [](const OpShape& s) { return s.op == "rmsnorm" || s.op == "swiglu"; });
  add(layer_shapes(gpt, DType::fp32), all);
  add(layer_shapes(gpt, DType::tf32), matmuls);
  add(layer_shapes(gpt, DType::fp16), all);
  if (fp8) add(layer_shapes(gpt, DType::fp8), [](const OpShape& s) { return s.op == "gemm"; });
  // The memory access probes at their smallest size (4M elements): checked whole on the CPU.
  add(memory_access_probe_shapes(), [](const OpShape& s) { return s.rows == 1024; });
  return shapes;
}

// describe() without its leading "op dtype".
std::string dims(const OpShape& s) {
  const std::string d = describe(s);
  const std::size_t first = d.find(' '), second = d.find(' ', first + 1);
  return second == std::string::npos ? "" : d.substr(second + 1);
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "dtsim-kernel-check: no CUDA device (%s); nothing checked\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "device count 0");
    return 2;
  }
  int device = 0, major = 0, minor = 0;
  char name[256] = "?";
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&props, device) == cudaSuccess) {
    std::snprintf(name, sizeof name, "%s", props.name);
    major = props.major, minor = props.minor;
  }
  const bool fp8 = 10 * major + minor >= 89;
  std::printf("device %d: %s, compute capability %d.%d, cuBLASLt %s%s\n\n", device, name, major, minor,
              lt_version().c_str(), fp8 ? "" : " (no fp8: fp8 GEMMs skipped)");

  std::printf("%-17s %-5s %-38s %12s %9s  %s\n", "op", "dtype", "shape", "max rel err", "bound", "result");
  int failures = 0, checks = 0, skipped = 0;
  for (const OpShape& s : shapes_to_check(fp8)) {
    ++checks;
    try {
      const CheckResult r = make_operator(s)->check();
      std::printf("%-17s %-5s %-38s %12.3e %9.1e  %s\n", s.op.c_str(), to_string(s.dtype), dims(s).c_str(),
                  r.max_relative_error, r.bound, r.passed ? "PASS" : "FAIL");
      if (!r.passed) {
        ++failures;
        std::printf("    %s\n", r.detail.c_str());
      }
    } catch (const Unsupported& e) {
      ++skipped;
      cudaGetLastError();
      std::printf("%-17s %-5s %-38s %12s %9s  SKIP: %s\n", s.op.c_str(), to_string(s.dtype), dims(s).c_str(), "-", "-",
                  e.reason().c_str());
    } catch (const std::exception& e) {
      ++failures;
      cudaGetLastError();  // clear a non-sticky error (a failed allocation) before the next check
      std::printf("%-17s %-5s %-38s %12s %9s  FAIL\n    %s\n", s.op.c_str(), to_string(s.dtype), dims(s).c_str(), "-",
                  "-", e.what());
    }
    std::fflush(stdout);
  }
  std::printf("\n%d of %d checks passed", checks - failures - skipped, checks);
  if (skipped > 0) std::printf(", %d skipped (refused by the GPU's libraries)", skipped);
  std::printf("\n");
  if (failures > 0) return 1;
  return skipped > 0 ? 3 : 0;
}

#include "lt_matmul.hpp"

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "cuda_check.hpp"
#include "lt_matmul_plan.hpp"
#include "unsupported.hpp"

namespace dtsim::kernels {

namespace {

// NVIDIA recommends 32 MiB of cuBLASLt workspace on Hopper (4 MiB suffices before it).
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;
// Algorithms asked of the heuristic. NVIDIA's FP8 sample (CUDALibrarySamples,
// cuBLASLt/LtFp8Matmul) on its single one: "There is no guarantee this will work ... you can
// request more (e.g. 32) algos and try to run them one by one until something works".
constexpr int kHeuristicAlgorithms = 8;

bool is_fp8(cudaDataType_t t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }

// "cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED (the requested functionality is not supported)".
std::string refusal(const char* call, cublasStatus_t status) {
  return std::string(call) + ": " + cublasLtGetStatusName(status) + " (" + cublasLtGetStatusString(status) + ")";
}

}  // namespace

std::string lt_version() {
  const std::size_t v = cublasLtGetVersion();
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

namespace {

// A stored matrix of rows x cols (column-major, leading dimension ld), optionally batched.
cublasLtMatrixLayout_t make_layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                   std::int64_t batch, std::int64_t stride, const std::string& context) {
  cublasLtMatrixLayout_t layout = nullptr;
  DTSIM_CHECK(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                         static_cast<std::uint64_t>(cols), ld),
              context);
  if (batch > 1) {
    const auto count = static_cast<std::int32_t>(batch);
    const cublasStatus_t set_count =
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    const cublasStatus_t set_stride =
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    if (set_count != CUBLAS_STATUS_SUCCESS || set_stride != CUBLAS_STATUS_SUCCESS) cublasLtMatrixLayoutDestroy(layout);
    DTSIM_CHECK(set_count, context);
    DTSIM_CHECK(set_stride, context);
  }
  return layout;
}

}  // namespace

LtMatmul::LtMatmul(const MatmulSpec& s, std::string context) : context_(std::move(context)), fp8_(is_fp8(s.ab_type)) {
  cublasLtHandle_t handle = nullptr;
  DTSIM_CHECK(cublasLtCreate(&handle), context_);
  handle_.reset(handle);

  // Scale type CUDA_R_32F for every dtype (alpha, beta and the fp8 scales are floats), as the FP8
  // kernels require (lt_matmul_plan.hpp).
  cublasLtMatmulDesc_t desc = nullptr;
  DTSIM_CHECK(cublasLtMatmulDescCreate(&desc, s.compute, CUDA_R_32F), context_);
  desc_.reset(desc);
  const cublasOperation_t trans_a = s.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = s.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a), context_);
  DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b), context_);
  if (fp8_) {
    // The scales as cublasLt.h describes them: device pointers to one float each
    // (A_SCALE_POINTER, B_SCALE_POINTER), read as whole-tensor scalars. Scale mode SCALAR_32F
    // and fast accumulation off are cuBLASLt's defaults, set anyway as Transformer Engine's
    // cublaslt_gemm.cu and PyTorch's scaled_gemm (which ran FP8 GEMMs on the H100 of 2026-11-26)
    // set them, so that nothing rests on a default.
    if (s.a_scale == nullptr || s.b_scale == nullptr)
      throw std::logic_error("LtMatmul: fp8 needs the A and B scales [" + context_ + "]");
    DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s.a_scale, sizeof s.a_scale),
                context_);
    DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s.b_scale, sizeof s.b_scale),
                context_);
#if CUBLAS_VERSION >= 120800
    if (cublasLtGetVersion() >= 120800) {  // the scale modes came with cuBLAS 12.8: compiled and loaded
      const int32_t scalar_mode = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
      DTSIM_CHECK(
          cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &scalar_mode, sizeof scalar_mode),
          context_);
      DTSIM_CHECK(
          cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &scalar_mode, sizeof scalar_mode),
          context_);
    }
#endif
    const int8_t fast_accumulation = 0;
    DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accumulation,
                                               sizeof fast_accumulation),
                context_);
  }

  // Stored shapes before op(): A is k x m when transposed, B is n x k when transposed.
  a_layout_.reset(make_layout(s.ab_type, s.transpose_a ? s.k : s.m, s.transpose_a ? s.m : s.k, s.lda, s.batch,
                              s.stride_a, context_));
  b_layout_.reset(make_layout(s.ab_type, s.transpose_b ? s.n : s.k, s.transpose_b ? s.k : s.n, s.ldb, s.batch,
                              s.stride_b, context_));
  d_layout_.reset(make_layout(s.cd_type, s.m, s.n, s.ldd, s.batch, s.stride_d, context_));

  cublasLtMatmulPreference_t preference = nullptr;
  DTSIM_CHECK(cublasLtMatmulPreferenceCreate(&preference), context_);
  const Owned<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> owned_preference(preference);
  const std::uint64_t workspace_bytes = kWorkspaceBytes;
  DTSIM_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &workspace_bytes, sizeof workspace_bytes),
              context_);
  cublasLtMatmulHeuristicResult_t results[kHeuristicAlgorithms] = {};
  int returned = 0;
  DTSIM_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, desc, a_layout_.get(), b_layout_.get(), d_layout_.get(),
                                             d_layout_.get(), preference, kHeuristicAlgorithms, results, &returned),
              context_);
  for (int i = 0; i < returned; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS) algos_.push_back(results[i].algo);
  if (algos_.empty()) throw Unsupported(context_, "cublasLtMatmulAlgoGetHeuristic: no algorithm for this layout");
  workspace_ = DeviceBuffer(kWorkspaceBytes, context_);
}

cublasStatus_t LtMatmul::launch(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d,
                                cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  // C = D with D's layout: in place, beta 0 (as Transformer Engine runs its FP8 GEMMs with a
  // bf16 output).
  return cublasLtMatmul(handle_.get(), desc_.get(), &alpha, a, a_layout_.get(), b, b_layout_.get(), &beta, d,
                        d_layout_.get(), d, d_layout_.get(), &algo, workspace_.get(), workspace_.size_bytes(), stream);
}

void LtMatmul::run(const void* a, const void* b, void* d, cudaStream_t stream) {
  if (fp8_ && !(is_16_byte_aligned(a) && is_16_byte_aligned(b) && is_16_byte_aligned(d)))
    throw std::logic_error("LtMatmul: fp8 needs 16-byte aligned A, B and D [" + context_ + "]");
  if (settled_) {
    DTSIM_CHECK(launch(algos_.front(), a, b, d, stream), context_);
    return;
  }
  // First run: cuBLASLt checks the pointers only now, and may refuse an algorithm the heuristic
  // offered; a refused call launches nothing, so the next one can be tried.
  cublasStatus_t status = CUBLAS_STATUS_NOT_SUPPORTED;
  for (const cublasLtMatmulAlgo_t& algo : algos_) {
    status = launch(algo, a, b, d, stream);
    if (status == CUBLAS_STATUS_SUCCESS) {
      algos_ = {algo};
      settled_ = true;
      return;
    }
    if (status != CUBLAS_STATUS_NOT_SUPPORTED) break;
  }
  if (status == CUBLAS_STATUS_NOT_SUPPORTED)
    throw Unsupported(context_, refusal("cublasLtMatmul", status) + " for each of the " +
                                    std::to_string(algos_.size()) + " algorithms the heuristic offered (cuBLASLt " + lt_version() + ")");
  DTSIM_CHECK(status, context_);
}

}  // namespace dtsim::kernels

#include "lt_matmul.hpp"

#include <stdexcept>
#include <utility>

#include "cuda_check.hpp"

namespace dtsim::kernels {

namespace {

// NVIDIA recommends 32 MiB of cuBLASLt workspace on Hopper (4 MiB suffices before it).
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

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

LtMatmul::LtMatmul(const MatmulSpec& s, std::string context) : context_(std::move(context)) {
  cublasLtHandle_t handle = nullptr;
  DTSIM_CHECK(cublasLtCreate(&handle), context_);
  handle_.reset(handle);

  cublasLtMatmulDesc_t desc = nullptr;
  DTSIM_CHECK(cublasLtMatmulDescCreate(&desc, s.compute, CUDA_R_32F), context_);
  desc_.reset(desc);
  const cublasOperation_t trans_a = s.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t trans_b = s.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof trans_a), context_);
  DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof trans_b), context_);
  if (s.a_scale != nullptr)
    DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &s.a_scale, sizeof s.a_scale),
                context_);
  if (s.b_scale != nullptr)
    DTSIM_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &s.b_scale, sizeof s.b_scale),
                context_);

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
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  DTSIM_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, desc, a_layout_.get(), b_layout_.get(), d_layout_.get(),
                                             d_layout_.get(), preference, 1, &result, &returned),
              context_);
  if (returned == 0) throw std::runtime_error("cublasLtMatmulAlgoGetHeuristic found no algorithm [" + context_ + "]");
  algo_ = result.algo;
  workspace_ = DeviceBuffer(kWorkspaceBytes, context_);
}

void LtMatmul::run(const void* a, const void* b, void* d, cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  DTSIM_CHECK(cublasLtMatmul(handle_.get(), desc_.get(), &alpha, a, a_layout_.get(), b, b_layout_.get(), &beta, d,
                             d_layout_.get(), d, d_layout_.get(), &algo_, workspace_.get(), workspace_.size_bytes(),
                             stream),
              context_);
}

}  // namespace dtsim::kernels

// A recorded step carried to another GPU (sim/trace/kernel_class, sim/analysis/gpu_change,
// `dtsim import --gpu`): kernels classed by their names as recorded in the shipped traces, the
// time ratios from the datasheets (device_spec.cpp) by hand, with a calibration's efficiencies,
// and the replay's compute scaled by hand on a written trace.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gpu_change.hpp"
#include "kernel_class.hpp"
#include "kineto_trace.hpp"
#include "replay_program.hpp"
#include "step_summary.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

TEST(KernelClass, NamesOfCublasCutlassAndCudnnKernels) {
  const auto kernel = [](const char* name) { return kernel_class(name, GpuActivityKind::kernel); };
  EXPECT_EQ(kernel("volta_sgemm_128x32_nt"), KernelClass::fp32_matmul);   // DLRM, V100
  EXPECT_EQ(kernel("ampere_sgemm_128x64_nn"), KernelClass::fp32_matmul);  // HTA's recommender, A100
  EXPECT_EQ(kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>"),
            KernelClass::tf32_matmul);  // HTA ResNet-50, A100
  EXPECT_EQ(kernel("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw"),
            KernelClass::tf32_matmul);
  EXPECT_EQ(kernel("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_nhwc_"
                   "align4>"),
            KernelClass::tf32_matmul);
  // Its mangled CUTLASS convolutions name their element type, cutlass::tfloat32_t (cut short here).
  EXPECT_EQ(kernel("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22"
                   "ImplicitGemmMultistageINS_11MatrixShapeILi128ELi32EEENS_10tfloat32_tENS_9trans"),
            KernelClass::tf32_matmul);
  EXPECT_EQ(kernel("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1"), KernelClass::fp32_convolution);
  EXPECT_EQ(kernel("void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, true, false, true>"),
            KernelClass::fp32_convolution);
  // cuDNN's sum of partial weight gradients and FBGEMM's embedding and permute kernels move data.
  EXPECT_EQ(kernel("void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>"), KernelClass::memory_bound);
  EXPECT_EQ(kernel("void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>"),
            KernelClass::memory_bound);
  EXPECT_EQ(kernel("volta_h884gemm_64x64_ldg8_nn"), KernelClass::half_matmul);
  EXPECT_EQ(kernel("ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_nn"), KernelClass::half_matmul);
  EXPECT_EQ(kernel("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 4, false, cutlass::bfloat16_t>>"),
            KernelClass::half_matmul);
  EXPECT_EQ(kernel("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>"), KernelClass::memory_bound);
  EXPECT_EQ(kernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"),
            KernelClass::memory_bound);
  EXPECT_EQ(kernel_class("Memcpy HtoD (Pageable -> Device)", GpuActivityKind::memcpy), KernelClass::host_copy);
  EXPECT_EQ(kernel_class("Memcpy DtoD (Device -> Device)", GpuActivityKind::memcpy), KernelClass::memory_bound);
  EXPECT_EQ(kernel_class("Memset (Device)", GpuActivityKind::memset), KernelClass::memory_bound);
}

// HTA's ResNet-50 step on an A100 (tests/data/traces/hta, ProfilerStep#6), its kernels summed by
// name with Python: TF32 ("tf32", "tfloat32", "s1688") 13,010.515 us, cuDNN's CUDA-core
// convolution ("scudnn") 462.522 us, cuBLAS's CUDA-core GEMM ("sgemm") 55.775 us.
TEST(KernelClass, TimeOfEachClassInARecordedStep) {
  const KinetoTrace t = read_kineto_trace(test::data_dir() / "traces" / "hta" / "nccl_data.json.gz");
  const std::array<double, kKernelClassCount> s = kernel_time_by_class_s({summarize_step(t, "ProfilerStep#6")});
  EXPECT_NEAR(s[size_t(KernelClass::tf32_matmul)], 13010.515e-6, 1e-12);
  EXPECT_NEAR(s[size_t(KernelClass::fp32_convolution)], 462.522e-6, 1e-12);
  EXPECT_NEAR(s[size_t(KernelClass::fp32_matmul)], 55.775e-6, 1e-12);
  EXPECT_EQ(s[size_t(KernelClass::half_matmul)], 0);
}

// V100 SXM2 to H100 SXM5, datasheets: fp16 tensor 125 -> 989.4 TFLOP/s, fp32 on CUDA cores 15.7 ->
// 67, TF32 494.7 (the V100 has none: its CUDA cores), HBM 900 -> 3350 GB/s; the default
// efficiencies cancel. A V100's fp32 convolutions take the H100's TF32 (cuDNN's default).
TEST(GpuChange, DatasheetRatiosByHand) {
  const GpuChange c = gpu_change("Tesla V100-SXM2-32GB", 0, "h100-sxm", "");
  EXPECT_EQ(c.recorded->id, "v100-sxm2-32gb");
  EXPECT_DOUBLE_EQ(c.scale[KernelClass::half_matmul], 125 / 989.4);
  EXPECT_DOUBLE_EQ(c.scale[KernelClass::tf32_matmul], 15.7 / 494.7);
  EXPECT_DOUBLE_EQ(c.scale[KernelClass::fp32_matmul], 15.7 / 67);
  EXPECT_DOUBLE_EQ(c.scale[KernelClass::fp32_convolution], 15.7 / 494.7);
  EXPECT_DOUBLE_EQ(c.scale[KernelClass::memory_bound], 900.0 / 3350);
  EXPECT_DOUBLE_EQ(c.scale[KernelClass::host_copy], 1);
  // Its calibration (tests/data/calibration/h100-measured.json): largest bf16 GEMM 0.8 of peak,
  // the tf32 GEMM 0.7, a 2.9 TB/s copy (0.866 of the peak, 0.9672 of the 0.895 the access patterns'
  // H100 copied at); the V100's the defaults (0.8, 0.93).
  // The CUDA cores keep the default GEMM efficiency on both.
  const auto calibration = test::data_dir() / "calibration" / "h100-measured.json";
  const GpuChange m = gpu_change("Tesla V100-SXM2-32GB", 0, "h100-sxm", calibration);
  EXPECT_DOUBLE_EQ(m.scale[KernelClass::half_matmul], 125 * 0.8 / (989.4 * 0.8));
  EXPECT_DOUBLE_EQ(m.scale[KernelClass::tf32_matmul], 15.7 * 0.8 / (494.7 * 0.7));
  EXPECT_DOUBLE_EQ(m.scale[KernelClass::fp32_matmul], 15.7 / 67);
  EXPECT_DOUBLE_EQ(m.scale[KernelClass::fp32_convolution], 15.7 * 0.8 / (494.7 * 0.7));
  EXPECT_NEAR(m.scale[KernelClass::memory_bound], 900 / (3350 * (2.9e12 / 3.35e12) / (2.0 * 1073741824 / 716.256e-6 / 3350e9)), 1e-12);
  // Both with TF32: A100 (datasheet TF32 156, CUDA cores 19.5) to H100: a convolution cuDNN ran on
  // the CUDA cores stays there.
  const GpuChange ampere = gpu_change("NVIDIA A100-SXM4-80GB", 0, "h100-sxm", "");
  EXPECT_DOUBLE_EQ(ampere.scale[KernelClass::tf32_matmul], 156 / 494.7);
  EXPECT_DOUBLE_EQ(ampere.scale[KernelClass::fp32_matmul], 19.5 / 67);
  EXPECT_DOUBLE_EQ(ampere.scale[KernelClass::fp32_convolution], 19.5 / 67);
  // And back to a V100: TF32 work runs on its CUDA cores, 156 -> 15.7.
  const GpuChange volta = gpu_change("NVIDIA A100-SXM4-80GB", 0, "v100-sxm2-32gb", "");
  EXPECT_DOUBLE_EQ(volta.scale[KernelClass::tf32_matmul], 156 / 15.7);
  EXPECT_DOUBLE_EQ(volta.scale[KernelClass::fp32_convolution], 19.5 / 15.7);
  EXPECT_EQ(test::error_of([] { gpu_change("Tesla V100-SXM2-32GB", 0, "h999", ""); }).field, "--gpu");
  // HTA's A100-PG509-200 (tests/data/traces/hta) reports 42,297,524,224 B: the 40 GB part, whose HBM
  // runs at 1,555 GB/s (A100 datasheet), not the 80 GB part's 2,039.
  const GpuChange a100 = gpu_change("NVIDIA A100-PG509-200", 42297524224.0, "h100-sxm", "");
  EXPECT_EQ(a100.recorded->id, "a100-40gb-sxm");
  EXPECT_DOUBLE_EQ(a100.scale[KernelClass::memory_bound], 1555.0 / 3350);
  EXPECT_EQ(test::error_of([] { gpu_change("Radeon", 0, "h100-sxm", ""); }).found, "'Radeon'");
  EXPECT_EQ(test::error_of([&] {
              gpu_change("Tesla V100-SXM2-32GB", 0, "a100-80gb-sxm", calibration);
            }).field,
            "device");
}

// A 40 µs step: "gemm" kernels (fp32 matmul) over [0, 10] and [20, 30] µs, an all-reduce over
// [5, 25]. Twice as fast a GPU for fp32 matmuls: the 5 µs of GEMM before the all-reduce take 2.5,
// the 10 µs of GEMM beside it take 5, the 15 µs after it (5 of GEMM, 10 idle) take 12.5.
TEST(ReplayProgram, KernelTimeScaledByClassIdleKept) {
  RankStep step;
  step.step_s = 40e-6;
  step.gpu_step_end_us = 40;
  TraceCollective all_reduce;
  all_reduce.bytes = 4000;
  all_reduce.size_source = SizeSource::kernel_args;
  step.collectives.push_back({all_reduce, 40, 5, 20});
  step.compute_kernels = {{0, 10, KernelClass::fp32_matmul}, {20, 10, KernelClass::fp32_matmul}};
  KernelTimeScale half_time;
  half_time[KernelClass::fp32_matmul] = 0.5;
  const ReplayProgram p = replay_program({step, step}, half_time);
  const std::vector<Task>& tasks = p.workload.ranks[0].tasks;
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_DOUBLE_EQ(tasks[0].compute_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(tasks[2].compute_s, 5e-6);
  EXPECT_DOUBLE_EQ(tasks[4].compute_s, 12.5e-6);
  EXPECT_NE(p.assumed.back().find("scaled by its class"), std::string::npos);
}

// `dtsim import --gpu`: the DLRM step on H100s, with the ratios above, no slower than the replay
// on its V100s (every kernel class and the fabric are faster).
TEST(ImportCommand, ReplaysTheStepOnAnotherGpu) {
  const test::ScratchDir dir;
  const auto json_file = dir.path() / "import.json";
  const test::CliResult r = test::run_dtsim("import " + (test::data_dir() / "traces" / "dlrm_kineto").string() +
                                            " --gpu h100-sxm --json " + json_file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_file);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& g = j["gpu_what_if"];
  EXPECT_EQ(g["recorded_gpu"], "v100-sxm2-32gb");
  EXPECT_DOUBLE_EQ(g["time_scale"]["memory_bound"].get<double>(), 900.0 / 3350);
  EXPECT_DOUBLE_EQ(g["time_scale"]["fp32_matmul"].get<double>(), 15.7 / 67);
  EXPECT_LE(g["replayed_step_s"].get<double>(), j["replayed_step_s"].get<double>());
  const test::CliResult bad = test::run_dtsim("import " + (test::data_dir() / "traces" / "dlrm_kineto").string() +
                                              " --calibration x.json");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  const test::CliResult no_replay = test::run_dtsim(
      "import " + (test::data_dir() / "traces" / "dlrm_kineto").string() + " --gpu h100-sxm --no-replay");
  EXPECT_EQ(no_replay.exit_code, 2) << no_replay.output;
  EXPECT_NE(no_replay.output.find("--no-replay"), std::string::npos) << no_replay.output;
}

}  // namespace
}  // namespace dtsim

// The calibration contract on measured data: the raw profile dtsim-profile recorded on an H100
// SXM on 2026-11-26 (tests/data/profiler/h100-sxm-2026-11-26.raw.json, SOURCES.md there) becomes
// a calibration that the one reader accepts and `dtsim run` uses. Expected numbers are worked out
// by hand from the raw file (each run's kernel records inside its window, summed; the median of
// the 10 runs) and NVIDIA's H100 SXM datasheet (989.4 TFLOP/s dense bf16, 3.35 TB/s).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "calibration.hpp"
#include "calibration_file_reader.hpp"
#include "calibration_writer.hpp"
#include "device_spec.hpp"
#include "measured_efficiency.hpp"
#include "raw_conversion.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;
using profiler::convert_raw_profile;

const fs::path kRaw = test::data_dir() / "profiler" / "h100-sxm-2026-11-26.raw.json";
// What nvidia-smi reported on that machine (measurements/h100-2026-11-26/microbenchmarks.jsonl).
const std::string kDriver = "580.159.04";

// operators[0], gemm bf16 m=2048 n=3072 k=1024: its runs' kernel times are 21120, 20129, 20032,
// 19873, 19969, 19905, 19969, 19936, 19905, 20064 ns, median (19969 + 19969) / 2 = 19969 ns;
// 2 * 2048 * 3072 * 1024 = 12,884,901,888 FLOP / 19.969 us / 989.4e12 = 0.652158.
constexpr size_t kGemm = 0;
constexpr double kGemmTime_s = 19969e-9, kGemmEfficiency = 0.652158;
// operators[45], embedding bf16 rows=2048 cols=2048 vocab=50304: runs 4161, 3936, 3936, 3936, 3937,
// 4096, 3936, 3905, 4000, 4032 ns, median (3936 + 3937) / 2 = 3936.5 ns; 16,785,408 bytes (2048 x
// 2048 x 2 read, as many written, 2048 x 4 of indices) / 3.9365 us / 3.35e12 = 1.272849: above the
// HBM peak (the tensors stay in the 50 MB L2), kept as measured.
constexpr size_t kEmbedding = 45;
constexpr double kEmbeddingTime_s = 3936.5e-9, kEmbeddingEfficiency = 1.272849;

TEST(H100Calibration, RawProfileConvertsAsWorkedOutByHand) {
  const profiler::Conversion conversion = convert_raw_profile(kRaw, {std::nullopt, kDriver});
  EXPECT_TRUE(conversion.warnings.empty());
  const profiler::Calibration& c = conversion.calibration;
  EXPECT_EQ(c.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.compute_capability, "9.0");
  EXPECT_EQ(c.driver, kDriver);
  EXPECT_EQ(c.cuda_runtime, "13.0");
  EXPECT_EQ(c.nccl, "2.28.3");
  EXPECT_EQ(c.cudnn, "");  // not recorded by the profiler of that day
  EXPECT_EQ(c.date, "2026-11-26");
  EXPECT_EQ(c.gpus, 1);
  EXPECT_EQ(c.peaks.bf16_flops, 989.4e12);  // the datasheet table (sim/hardware/device_spec.cpp)
  EXPECT_EQ(c.peaks.hbm_Bps, 3.35e12);
  ASSERT_EQ(c.operators.size(), 119u);
  EXPECT_TRUE(c.collectives.empty());  // one GPU

  const profiler::CalibratedOperator& gemm = c.operators[kGemm];
  EXPECT_EQ(gemm.shape, (profiler::ShapeFields{{"m", 2048}, {"n", 3072}, {"k", 1024}}));
  EXPECT_EQ(gemm.runs, 10);
  EXPECT_NEAR(gemm.time_s, kGemmTime_s, 1e-15);
  EXPECT_NEAR(gemm.compute_efficiency, kGemmEfficiency, 1e-6);
  EXPECT_EQ(gemm.kernels, (std::vector<std::string>{"nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_TNT"}));

  const profiler::CalibratedOperator& embedding = c.operators[kEmbedding];
  EXPECT_EQ(embedding.op, "embedding");
  EXPECT_NEAR(embedding.time_s, kEmbeddingTime_s, 1e-15);
  EXPECT_NEAR(embedding.memory_efficiency, kEmbeddingEfficiency, 1e-6);

  // d2d counts read + write: 2 x 2^30 B / 716.256 us = 2.998207e12 B/s (the log's "d2d 2998 GB/s");
  // h2d 2^30 B / 19.459 ms = 55.1795e9 B/s.
  EXPECT_NEAR(c.copies.d2d_Bps, 2.998207e12, 1e6);
  EXPECT_NEAR(c.copies.h2d_Bps, 55.1795e9, 1e5);
  // d2h 2^30 B / 19.4603 ms = 55.176e9 B/s: the pinned-copy efficiency the goodput model's host
  // copies use (device_spec.hpp), of PCIe Gen5 x16's 32 GT/s x 16 x 128/130 / 8 = 63.015 GB/s.
  EXPECT_NEAR(c.copies.d2h_Bps, 55.176e9, 1e6);
  const DeviceSpec* h100 = find_device("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_NEAR(h100->pcie_Bps, 63.015e9, 1e6);
  EXPECT_NEAR(h100->host_copy_Bps(), c.copies.d2h_Bps, 0.001 * c.copies.d2h_Bps);
  ASSERT_TRUE(c.profiler.overhead_percent);
  EXPECT_NEAR(*c.profiler.overhead_percent, 2.508571, 1e-6);
}

// The profile of 2026-11-28 on another H100 SXM of the same kind (SOURCES.md), with the fixed
// profiler: bf16 and fp8 (`--dtype bf16,fp8`), the memory access probes, the versions read right.
const fs::path kRaw28 = test::data_dir() / "profiler" / "h100-sxm-2026-11-28.raw.json";
// operators[189], gemm fp8 m = n = k = 16384: runs 5992984, 6023161, 6145497, 6467133, 6473597,
// 6467484, 6461661, 6485405, 6459965, 6413500 ns (the first three before the clock fell under the
// 700 W limit), median (6459965 + 6461661) / 2 = 6460813 ns; 2 x 16384^3 = 8.796e12 FLOP / 6.460813
// ms = 1361.5 TFLOP/s, / 1978.9 (the datasheet's dense fp8) = 0.687985.
constexpr size_t kFp8Gemm = 189;
constexpr double kFp8GemmTime_s = 6460813e-9, kFp8GemmEfficiency = 0.687985;

TEST(H100Calibration, Bf16AndFp8ProfileConvertsWithItsVersionsAndIsUsedForFp8) {
  const profiler::Conversion conversion = convert_raw_profile(kRaw28);
  EXPECT_TRUE(conversion.warnings.empty());  // the driver read as nvidia-smi reports it
  const profiler::Calibration& c = conversion.calibration;
  EXPECT_EQ(c.driver, kDriver);
  EXPECT_EQ(c.cudnn, "9.14.0");  // the cuDNN the profiler linked (PyTorch there carried 9.19)
  EXPECT_EQ(c.date, "2026-11-28");
  EXPECT_EQ(c.peaks.fp8_flops, 1978.9e12);
  ASSERT_EQ(c.operators.size(), 215u);
  int fp8_gemms = 0;
  for (const profiler::CalibratedOperator& o : c.operators) fp8_gemms += o.op == "gemm" && o.dtype == "fp8";
  EXPECT_EQ(fp8_gemms, 71);  // every bf16 GEMM shape again in fp8: none refused
  const profiler::CalibratedOperator& fp8 = c.operators[kFp8Gemm];
  EXPECT_EQ(fp8.shape, (profiler::ShapeFields{{"m", 16384}, {"n", 16384}, {"k", 16384}}));
  EXPECT_NEAR(fp8.time_s, kFp8GemmTime_s, 1e-15);
  EXPECT_NEAR(fp8.compute_efficiency, kFp8GemmEfficiency, 1e-6);

  // The simulator takes the fp8 GEMMs' curve for an fp8 step: 24 distinct FLOP counts, as in bf16.
  test::ScratchDir dir;
  const fs::path file = dir.path() / "h100.json";
  profiler::write_calibration(file, c);
  const MeasuredEfficiencies m = measured_efficiencies(load_calibration(file, default_efficiencies()), Precision::fp8);
  EXPECT_EQ(m[OperatorKind::gemm].size(), 24u);
  EXPECT_NEAR(m[OperatorKind::gemm].at(2.0 * 16384 * 16384 * 16384), kFp8GemmEfficiency, 1e-6);
}

TEST(H100Calibration, MisreadDriverIsRecordedAsUnknownWithOneWarning) {
  const profiler::Conversion conversion = convert_raw_profile(kRaw);
  EXPECT_EQ(conversion.calibration.driver, "unknown");
  ASSERT_EQ(conversion.warnings.size(), 1u);
  const std::string& w = conversion.warnings[0];
  EXPECT_NE(w.find(kRaw.string()), std::string::npos) << w;
  EXPECT_NE(w.find("field 'device.driver'"), std::string::npos) << w;
  EXPECT_NE(w.find("found 'for'"), std::string::npos) << w;
  // A --driver that is not a version is refused, naming the flag.
  const InputErrorInfo e = test::error_of([] { convert_raw_profile(kRaw, {std::nullopt, "for"}); });
  EXPECT_EQ(e.field, "--driver");
  EXPECT_EQ(e.found, "'for'");
}

TEST(H100Calibration, SimulatorReadsAndUsesTheWrittenFile) {
  test::ScratchDir dir;
  const fs::path file = dir.path() / "h100.json";
  profiler::write_calibration(file, convert_raw_profile(kRaw, {std::nullopt, kDriver}).calibration);

  // The one reader: every field back, the efficiency above 1 included.
  const calib::CalibrationFile f = calib::read_calibration_file(file);
  EXPECT_EQ(f.driver, kDriver);
  ASSERT_EQ(f.operators.size(), 119u);
  EXPECT_NEAR(f.operators[kEmbedding].memory_efficiency, kEmbeddingEfficiency, 1e-6);

  // The simulator keeps the 111 bf16 runs (the 8 fp32 Adam runs are CUDA-core fp32: not a
  // training precision) and builds a curve for each matmul kind over their distinct sizes: 24 GEMM
  // FLOP counts, 4 attention ones. The 28 element-wise byte counts (dtsim's own kernels) price
  // nothing: the copy's 2998.2 GB/s scales the measured access patterns instead, by 1 here (the
  // patterns' own H100).
  const Calibration c = load_calibration(file, default_efficiencies());
  EXPECT_EQ(c.device, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(c.operators.size(), 111u);
  EXPECT_EQ(c.operators[kGemm].kind, OperatorKind::gemm);
  EXPECT_NEAR(c.operators[kGemm].compute_efficiency, kGemmEfficiency, 1e-6);
  const MeasuredEfficiencies m = measured_efficiencies(c, Precision::bf16);
  EXPECT_EQ(m[OperatorKind::gemm].size(), 24u);
  EXPECT_EQ(m[OperatorKind::attention_gemm].size(), 4u);
  EXPECT_TRUE(m[OperatorKind::elementwise].empty());
  EXPECT_TRUE(m[OperatorKind::optimizer].empty());
  EXPECT_NEAR(c.d2d_Bps, 2.998207e12, 1e6);
  EXPECT_NEAR(measured_copy_scale(c), 1.0, 1e-6);
  // Runs of one size are averaged. 12,884,901,888 FLOP: operators[0..2], the same GEMM with m, n, k
  // permuted; medians 19969, 17984 and 18880 ns: (0.652158 + 0.724120 + 0.689756) / 3 = 0.688678.
  EXPECT_NEAR(m[OperatorKind::gemm].at(2.0 * 2048 * 3072 * 1024), 0.688678, 1e-6);
}

TEST(H100Calibration, DtsimCalibrateWritesWhatDtsimRunUses) {
  test::ScratchDir dir;
  const fs::path cal = dir.path() / "h100.json";
  const test::CliResult r = test::run_dtsim("calibrate " + kRaw.string() + " --out " + cal.string() + " --driver " + kDriver);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("119 operators, 0 collectives"), std::string::npos) << r.output;
  // As dtsim-profile printed it on that machine (profile-bf16.log): "d2d 2998 GB/s (read + write),
  // h2d 55.2 GB/s, d2h 55.2 GB/s".
  EXPECT_NE(r.output.find("d2d 2998 GB/s (read + write), h2d 55.2 GB/s, d2h 55.2 GB/s"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(cal.string() + ".tmp"));
  const calib::CalibrationFile f = calib::read_calibration_file(cal);
  EXPECT_EQ(f.driver, kDriver);
  ASSERT_EQ(f.operators.size(), 119u);
  EXPECT_NEAR(f.operators[kGemm].compute_efficiency, kGemmEfficiency, 1e-6);

  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  const test::CliResult run = test::run_dtsim("run " + scenario + " --calibration " + cal.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // The report names where each kind's efficiency came from: the curves worked out above.
  for (const char* line : {"  gemm             measured, 24 sizes (bf16)", "  attention_gemm   measured, 4 sizes (bf16)",
                           "  elementwise      access patterns measured on an H100 SXM, x1.000: this calibration's copy "
                           "streamed at 2998 GB/s",
                           "  optimizer        access patterns measured on an H100 SXM, x1.000"})
    EXPECT_NE(run.output.find(line), std::string::npos) << line << "\n" << run.output;

  // Without --driver: written all the same, the driver "unknown", one warning naming the field.
  const test::CliResult plain = test::run_dtsim("calibrate " + kRaw.string() + " --out " + cal.string());
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("dtsim: warning: " + kRaw.string() + ": field 'device.driver'"), std::string::npos)
      << plain.output;
  EXPECT_EQ(calib::read_calibration_file(cal).driver, "unknown");
}

TEST(H100Calibration, DtsimCalibrateRefusesBadInputWithExitCode2) {
  test::ScratchDir dir;
  const fs::path cal = dir.path() / "calibration.json";
  profiler::write_calibration(cal, convert_raw_profile(kRaw, {std::nullopt, kDriver}).calibration);
  const fs::path out = dir.path() / "out.json";

  // A calibration where the raw profile belongs: the file, the field, expected and found.
  const test::CliResult swapped = test::run_dtsim("calibrate " + cal.string() + " --out " + out.string());
  EXPECT_EQ(swapped.exit_code, 2) << swapped.output;
  EXPECT_NE(swapped.output.find(cal.string() + ": field 'format': expected \"dtsim-raw-profile-1\", found "
                                              "\"dtsim-calibration-2\""),
            std::string::npos)
      << swapped.output;

  const fs::path missing = dir.path() / "no-such-raw.json";
  const test::CliResult none = test::run_dtsim("calibrate " + missing.string() + " --out " + out.string());
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find(missing.string()), std::string::npos) << none.output;

  const test::CliResult driver = test::run_dtsim("calibrate " + kRaw.string() + " --out " + out.string() + " --driver for");
  EXPECT_EQ(driver.exit_code, 2) << driver.output;
  EXPECT_NE(driver.output.find("field '--driver'"), std::string::npos) << driver.output;

  const test::CliResult folder = test::run_dtsim("calibrate " + kRaw.string() + " --out " + dir.path().string());
  EXPECT_EQ(folder.exit_code, 2) << folder.output;
  EXPECT_NE(folder.output.find("field '--out'"), std::string::npos) << folder.output;

  EXPECT_EQ(test::run_dtsim("calibrate " + kRaw.string()).exit_code, 2);  // no --out
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace dtsim

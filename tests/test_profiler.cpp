// The profiler's CPU side (profiler/, dtsim_profile_core): kernel aggregation, nccl-tests
// definitions, the latency/bandwidth fit, efficiencies, the calibration JSON and recorded raw
// profiles. No GPU needed: the raw profiles under tests/data/profiler/ are synthetic, made up by
// hand, and every expected number below is derived by hand from them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "byte_size.hpp"
#include "calibration.hpp"
#include "device_spec.hpp"  // the simulator's view of a calibration
#include "calibration_builder.hpp"
#include "calibration_file_reader.hpp"  // the one reader, the profiler's and the simulator's
#include "calibration_writer.hpp"
#include "device_peaks.hpp"
#include "input_error.hpp"
#include "kernel_records.hpp"
#include "latency_bandwidth_fit.hpp"
#include "library_versions.hpp"
#include "nccl_perf_format.hpp"
#include "raw_conversion.hpp"
#include "recorded_run.hpp"
#include "test_support.hpp"

namespace dtsim::profiler {
namespace {

std::filesystem::path profiler_data(const std::string& name) {
  return std::filesystem::path(DTSIM_SOURCE_DIR) / "tests" / "data" / "profiler" / name;
}

// A fresh, empty folder for files a test writes.
std::filesystem::path scratch_dir(const std::string& test) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("dtsim-test-profiler-" + test);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

using ::dtsim::test::error_of;

KernelRecord kernel(const std::string& name, uint64_t start_ns, uint64_t end_ns, uint32_t correlation_id = 0) {
  KernelRecord k;
  k.name = name;
  k.start_ns = start_ns;
  k.end_ns = end_ns;
  k.correlation_id = correlation_id;
  return k;
}

// ---- nccl-tests definitions ----

TEST(NcclPerfFormat, BusbwFactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_reduce, 8), 14.0 / 8);   // 2(n-1)/n
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_gather, 8), 7.0 / 8);    // (n-1)/n
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::reduce_scatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_to_all, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::reduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::send_recv, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_reduce, 2), 1.0);  // 2 * 1 / 2
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::all_reduce, 1), 0.0);
}

TEST(NcclPerfFormat, AllReduceOnEightGpusBusbwIsAlgbwTimes14Over8) {
  // 1 GiB in 4.5 ms: algbw = 2^30 / 4.5e-3 = 238.609e9 B/s, busbw = algbw * 14/8 = 417.566e9 B/s.
  const NcclPerfRow row = make_perf_row(CollectiveOp::all_reduce, 8, 1073741824.0, 536870912, "bfloat16", 4.5e-3);
  EXPECT_NEAR(row.algbw_Bps, 238.609294e9, 1e3);
  EXPECT_NEAR(row.busbw_Bps, 417.566265e9, 1e3);
  EXPECT_DOUBLE_EQ(row.busbw_Bps, row.algbw_Bps * 14 / 8);
  EXPECT_EQ(row.redop, "sum");
  EXPECT_EQ(row.root, -1);
}

TEST(NcclPerfFormat, RowAndFooterHaveNcclTestsColumns) {
  const NcclPerfRow row = make_perf_row(CollectiveOp::all_reduce, 8, 1073741824.0, 536870912, "bfloat16", 4.5e-3);
  const std::string line = format_perf_row(row);
  // size, count, type, redop, root, time (us), algbw, busbw (GB/s), #wrong (not checked: N/A)
  for (const char* column : {"1073741824", "536870912", "bfloat16", "sum", "-1", "4500.00", "238.61", "417.57", "N/A"})
    EXPECT_NE(line.find(column), std::string::npos) << column << " not in: " << line;
  const NcclPerfRow gather = make_perf_row(CollectiveOp::all_gather, 8, 1024, 512, "bfloat16", 20e-6);
  EXPECT_EQ(gather.redop, "none");
  // Footer: mean busbw in GB/s of (417.566 + 1024 / 20e-6 * 7/8 / 1e9 = 0.0448) / 2 = 208.805.
  const std::string footer = format_perf_footer({row, gather});
  EXPECT_NE(footer.find("# Avg bus bandwidth"), std::string::npos);
  EXPECT_NE(footer.find("208.8"), std::string::npos) << footer;
  const std::string table = format_perf_table(CollectiveOp::all_reduce, 8, {row});
  EXPECT_NE(table.find("#       size         count      type   redop    root     time   algbw   busbw #wrong"),
            std::string::npos);
}

TEST(NcclPerfFormat, SizesParseLikeNcclTestsFlags) {
  EXPECT_EQ(parse_byte_size("8"), 8u);
  EXPECT_EQ(parse_byte_size("64K"), 65536u);
  EXPECT_EQ(parse_byte_size("1M"), 1048576u);
  EXPECT_EQ(parse_byte_size("8G"), 8589934592u);
  EXPECT_EQ(parse_byte_size("8g"), 8589934592u);
  EXPECT_FALSE(parse_byte_size("8GB"));
  EXPECT_FALSE(parse_byte_size("G"));
  EXPECT_FALSE(parse_byte_size("-8"));
  // 8 B to 8 GiB by factor 2: 2^3 .. 2^33, 31 sizes.
  const std::vector<uint64_t> sizes = byte_sweep(8, 8589934592u, 2);
  ASSERT_EQ(sizes.size(), 31u);
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 8589934592u);
  EXPECT_EQ(byte_sweep(1, 4, 1.5), (std::vector<uint64_t>{1, 2, 3}));  // ceil(1.5) = 2, 3, ceil(4.5) = 5 > 4
  EXPECT_THROW(byte_sweep(8, 4, 2), std::invalid_argument);
  EXPECT_THROW(byte_sweep(8, 64, 1), std::invalid_argument);
}

// ---- latency / bandwidth fit ----

TEST(LatencyBandwidthFit, RecoversLatencyAndBandwidthOfAnExactLine) {
  // all_reduce on 8 GPUs, 8 B to 8 GiB by factor 2, t = 25 us + bus bytes / 370 GB/s exactly.
  const double latency_s = 25e-6, busbw_Bps = 370e9, factor = 14.0 / 8;
  std::vector<BusPoint> points;
  for (double bytes = 8; bytes <= 8.0 * (1ull << 30); bytes *= 2)
    points.push_back({bytes * factor, latency_s + bytes * factor / busbw_Bps});
  ASSERT_EQ(points.size(), 31u);
  const LatencyBandwidthFit fit = fit_latency_bandwidth(points);
  EXPECT_NEAR(fit.latency_s, latency_s, 0.01 * latency_s);
  EXPECT_NEAR(fit.busbw_Bps, busbw_Bps, 0.01 * busbw_Bps);
  EXPECT_LT(fit.max_relative_error, 1e-6);
}

TEST(LatencyBandwidthFit, SmallSizesDoNotSwampTheBandwidthUnderNoise) {
  // The same line with +-3% alternating noise: relative weighting keeps both within 5%.
  const double latency_s = 20e-6, busbw_Bps = 360e9;
  std::vector<BusPoint> points;
  int i = 0;
  for (double bytes = 8; bytes <= 4.0 * (1ull << 30); bytes *= 2, ++i)
    points.push_back({bytes, (latency_s + bytes / busbw_Bps) * (i % 2 == 0 ? 1.03 : 0.97)});
  const LatencyBandwidthFit fit = fit_latency_bandwidth(points);
  EXPECT_NEAR(fit.latency_s, latency_s, 0.05 * latency_s);
  EXPECT_NEAR(fit.busbw_Bps, busbw_Bps, 0.05 * busbw_Bps);
}

TEST(LatencyBandwidthFit, NegativeLatencyIsClampedToZero) {
  // 100 GB/s with the smallest point 10% fast: a free line would cross zero below the origin, so
  // the fit goes through it, t = x / B. Minimising sum((x_i / B - t_i) / t_i)^2 over 1/B with
  // c_i = x_i / t_i = {1e11 / 0.9, 1e11, 1e11} gives B = sum(c^2) / sum(c) = 3.23457e22 / 3.11111e11
  // = 103.968e9 B/s.
  const std::vector<BusPoint> points = {{1e6, 0.9 * 1e6 / 100e9}, {1e8, 1e8 / 100e9}, {1e9, 1e9 / 100e9}};
  const LatencyBandwidthFit fit = fit_latency_bandwidth(points);
  EXPECT_EQ(fit.latency_s, 0.0);
  EXPECT_NEAR(fit.busbw_Bps, 103.968e9, 0.001e9);
}

TEST(LatencyBandwidthFit, RefusesFewerThanTwoSizes) {
  EXPECT_THROW(fit_latency_bandwidth({{1024, 1e-5}}), std::invalid_argument);
  EXPECT_THROW(fit_latency_bandwidth({{1024, 1e-5}, {1024, 2e-5}}), std::invalid_argument);
  EXPECT_THROW(fit_latency_bandwidth({{1024, 2e-5}, {4096, 1e-5}}), std::invalid_argument);  // time falls with size
}

// ---- kernel records ----

TEST(ProfilerKernelRecords, SumsKernelDurationsPerRunAndTakesTheMedian) {
  const std::vector<RunWindow> windows = {
      {WindowKind::timestamp_ns, 1000, 1300}, {WindowKind::timestamp_ns, 2000, 2300}, {WindowKind::timestamp_ns, 3000, 3300}};
  const std::vector<KernelRecord> kernels = {
      kernel("warmup_gemm", 100, 400),                                   // before every window: ignored
      kernel("gemm", 1010, 1110), kernel("reduce", 1120, 1170),          // run 0: 100 + 50 = 150 ns
      kernel("gemm", 2010, 2130), kernel("reduce", 2140, 2180),          // run 1: 120 + 40 = 160 ns
      kernel("gemm", 3010, 3100), kernel("reduce", 3110, 3165),          // run 2:  90 + 55 = 145 ns
      kernel("straddles", 3250, 3400),                                   // ends after run 2: not inside
  };
  const std::vector<RunKernelTime> runs = attribute_kernels(windows, kernels);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].kernel_ns, 150u);
  EXPECT_EQ(runs[1].kernel_ns, 160u);
  EXPECT_EQ(runs[2].kernel_ns, 145u);
  EXPECT_EQ(runs[0].kernels, 2u);

  const OperatorKernelTiming t = aggregate_operator_runs(windows, kernels);
  EXPECT_DOUBLE_EQ(t.time_s, 150e-9);  // median of 145, 150, 160
  EXPECT_EQ(t.runs, 3);
  EXPECT_TRUE(t.empty_runs.empty());
  EXPECT_EQ(t.kernel_names, (std::vector<std::string>{"gemm", "reduce"}));
}

TEST(ProfilerKernelRecords, CorrelationIdWindowsAttributeByLaunch) {
  // Timestamps do not matter here: runs are launches 10-11 and 12-13.
  const std::vector<RunWindow> windows = {{WindowKind::correlation_id, 10, 11}, {WindowKind::correlation_id, 12, 13}};
  const std::vector<KernelRecord> kernels = {kernel("a", 0, 300, 9), kernel("a", 500, 700, 10), kernel("b", 800, 850, 11),
                                             kernel("a", 100, 280, 12), kernel("b", 900, 960, 13)};
  const std::vector<RunKernelTime> runs = attribute_kernels(windows, kernels);
  EXPECT_EQ(runs[0].kernel_ns, 250u);  // 200 + 50
  EXPECT_EQ(runs[1].kernel_ns, 240u);  // 180 + 60
  EXPECT_DOUBLE_EQ(aggregate_operator_runs(windows, kernels).time_s, 245e-9);  // median of two: their mean
}

TEST(ProfilerKernelRecords, MedianAndEmptyWindows) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_THROW(median({}), std::invalid_argument);
  const std::vector<RunWindow> windows = {{WindowKind::timestamp_ns, 0, 100}, {WindowKind::timestamp_ns, 200, 300}};
  const OperatorKernelTiming t = aggregate_operator_runs(windows, {kernel("k", 10, 60)});
  EXPECT_EQ(t.runs, 1);
  EXPECT_EQ(t.empty_runs, (std::vector<size_t>{1}));
}

// ---- efficiencies and peaks ----

TEST(ProfilerEfficiency, ComputeIsFlopsOverTimeOverPeak) {
  // 8192^3 bf16 GEMM: 2 * 8192^3 = 1.0995e12 FLOP in 1.38 ms on an H100 (989.4 TFLOP/s): 0.80528.
  EXPECT_NEAR(compute_efficiency(2.0 * 8192 * 8192 * 8192, 1.38e-3, 989.4e12), 0.805284, 1e-6);
  // 33,570,816 bytes in 12.05 us against 3.35 TB/s: 0.83163.
  EXPECT_NEAR(memory_efficiency(33570816, 12.05e-6, 3.35e12), 0.831630, 1e-6);
  EXPECT_EQ(compute_efficiency(0, 1e-3, 989.4e12), 0.0);  // no FLOPs (a copy, an embedding gather)
  EXPECT_EQ(compute_efficiency(1e9, 1e-3, 0), 0.0);       // fp8 on an A100: no peak
}

TEST(ProfilerPeaks, TableHoldsDatasheetDensePeaks) {
  // The simulator's table (sim/hardware/device_spec.cpp): fp32 the CUDA cores' rate, tf32 the
  // TF32 tensor cores' (DeviceSpec::fp32_flops).
  const Peaks h100 = *peaks_of_device("NVIDIA H100 80GB HBM3");
  const ::dtsim::DeviceSpec& spec = *::dtsim::find_device("h100-sxm");
  EXPECT_EQ(h100.fp32_flops, spec.fp32_cuda_core_flops);
  EXPECT_EQ(h100.tf32_flops, spec.fp32_flops);
  EXPECT_EQ(h100.bf16_flops, spec.bf16_flops);
  EXPECT_EQ(h100.hbm_Bps, spec.hbm_bw_Bps);
  EXPECT_EQ(h100.fp32_flops, 67e12);
  EXPECT_EQ(h100.tf32_flops, 494.7e12);
  EXPECT_EQ(h100.bf16_flops, 989.4e12);
  EXPECT_EQ(h100.fp16_flops, 989.4e12);
  EXPECT_EQ(h100.fp8_flops, 1978.9e12);
  EXPECT_EQ(h100.hbm_Bps, 3.35e12);
  const Peaks h200 = *peaks_of_device("NVIDIA H200");
  EXPECT_EQ(h200.bf16_flops, 989.4e12);
  EXPECT_EQ(h200.hbm_Bps, 4.8e12);
  const Peaks a100 = *peaks_of_device("NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(a100.bf16_flops, 312e12);
  EXPECT_EQ(a100.fp8_flops, 0.0);
  EXPECT_EQ(a100.hbm_Bps, 2.039e12);
  EXPECT_FALSE(peaks_of_device("NVIDIA H100 PCIe"));  // other clocks: not guessed
  EXPECT_FALSE(peaks_of_device("NVIDIA H100 NVL"));
  // A 40 GB A100 (1,555 GB/s) and a V100 (no TF32: 0) the profiler's own table did not have.
  EXPECT_EQ(peaks_of_device("NVIDIA A100-SXM4-40GB")->hbm_Bps, 1555e9);
  EXPECT_EQ(peaks_of_device("Tesla V100-SXM2-32GB")->tf32_flops, 0.0);
  EXPECT_EQ(peaks_of_device("Tesla V100-SXM2-32GB")->fp32_flops, 15.7e12);
  EXPECT_EQ(peak_flops(h100, "tf32", "f", "dtype"), 494.7e12);
  const InputErrorInfo e = error_of([&] { peak_flops(h100, "int8", "f.json", "operators[0].dtype"); });
  EXPECT_EQ(e.field, "operators[0].dtype");
}

TEST(ProfilerPeaks, UnknownDeviceIsRefusedUnlessPeaksAreGiven) {
  const std::filesystem::path raw_file = profiler_data("unknown-device-raw.json");
  const InputErrorInfo e = error_of([&] { calibrate_recorded_run(raw_file); });
  EXPECT_EQ(e.file, raw_file.string());
  EXPECT_EQ(e.field, "device.name");
  EXPECT_NE(e.expected.find("--peaks-from-spec"), std::string::npos);
  EXPECT_NE(e.found.find("RTX 4090"), std::string::npos);

  const Peaks spec = load_peaks_spec(profiler_data("rtx4090-peaks-spec.json"));
  EXPECT_EQ(spec.bf16_flops, 165.2e12);
  EXPECT_EQ(spec.hbm_Bps, 1.008e12);
  const Calibration c = calibrate_recorded_run(raw_file, spec);
  ASSERT_EQ(c.operators.size(), 1u);
  // gelu: kernel time median of (152000 - 2000) and (323000 - 172000) ns = 150500 ns;
  // 134,217,728 bytes / 150.5 us / 1.008e12 B/s = 0.88476.
  EXPECT_NEAR(c.operators[0].time_s, 150500e-9, 1e-15);
  EXPECT_NEAR(c.operators[0].memory_efficiency, 0.884734, 1e-6);
}

// ---- recorded raw profile -> calibration ----

TEST(ProfilerRecordedRun, SyntheticH100ProfileCalibratesAsDerivedByHand) {
  const Calibration c = calibrate_recorded_run(profiler_data("h100-synthetic-raw.json"));
  EXPECT_EQ(c.format, "dtsim-calibration-2");
  EXPECT_EQ(c.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.compute_capability, "9.0");
  EXPECT_EQ(c.gpus, 8);
  EXPECT_EQ(c.date, "2026-11-22");
  EXPECT_EQ(c.peaks.bf16_flops, 989.4e12);  // from the device table
  EXPECT_TRUE(c.profiler.cupti);
  EXPECT_EQ(c.profiler.iterations, 5);
  EXPECT_FALSE(c.profiler.overhead_percent);

  ASSERT_EQ(c.operators.size(), 3u);
  // gemm 8192^3: kernels of 1.380, 1.376, 1.384, 1.379, 1.390 ms (the 1.5 ms warm-up is outside
  // every window): median 1.380 ms; 1.0995e12 / 1.38e-3 / 989.4e12 = 0.80528.
  const CalibratedOperator& big = c.operators[0];
  EXPECT_EQ(big.op, "gemm");
  EXPECT_EQ(big.kind, "gemm");
  EXPECT_EQ(big.dtype, "bf16");
  EXPECT_EQ(big.shape, (ShapeFields{{"m", 8192}, {"n", 8192}, {"k", 8192}}));
  EXPECT_NEAR(big.time_s, 1.380e-3, 1e-12);
  EXPECT_EQ(big.runs, 5);
  EXPECT_NEAR(big.compute_efficiency, 0.805284, 1e-6);
  EXPECT_NEAR(big.memory_efficiency, 402653184 / 1.38e-3 / 3.35e12, 1e-9);
  ASSERT_EQ(big.kernels.size(), 1u);
  EXPECT_EQ(big.kernels[0].rfind("sm90_xmma_gemm_bf16bf16", 0), 0u);

  // split-K gemm: per run gemm + reduce = 100000, 99100, 101700, 99700, 100500 ns; median 100 us;
  // 2 * 2048 * 1024 * 16384 = 68.72e9 FLOP / 100e-6 / 989.4e12 = 0.69456.
  const CalibratedOperator& split = c.operators[1];
  EXPECT_NEAR(split.time_s, 100e-6, 1e-12);
  EXPECT_NEAR(split.compute_efficiency, 0.694557, 1e-6);
  ASSERT_EQ(split.kernels.size(), 2u);
  EXPECT_NE(split.kernels[1].find("splitKreduce"), std::string::npos);

  // layernorm, correlation-id windows, four runs of 12100, 11900, 12300, 12000 ns: median (11900 +
  // ... sorted 11900, 12000, 12100, 12300) = (12000 + 12100) / 2 = 12050 ns; 33,570,816 bytes /
  // 12.05 us / 3.35e12 = 0.83163.
  const CalibratedOperator& ln = c.operators[2];
  EXPECT_EQ(ln.kind, "elementwise");
  EXPECT_EQ(ln.runs, 4);
  EXPECT_NEAR(ln.time_s, 12050e-9, 1e-15);
  EXPECT_NEAR(ln.memory_efficiency, 0.831630, 1e-6);

  ASSERT_EQ(c.collectives.size(), 3u);
  const CalibratedCollective& ar = c.collectives[0];
  EXPECT_EQ(ar.op, "all_reduce");
  EXPECT_EQ(ar.gpus, 8);
  ASSERT_EQ(ar.points.size(), 5u);
  for (const CollectivePoint& p : ar.points) {
    EXPECT_DOUBLE_EQ(p.algbw_Bps, p.bytes / p.time_s);
    EXPECT_DOUBLE_EQ(p.busbw_Bps, p.algbw_Bps * 14 / 8);
  }
  // The file's all_reduce points lie on t = 18 us + bytes * 14/8 / 360 GB/s.
  EXPECT_NEAR(ar.fit.latency_s, 18e-6, 0.01 * 18e-6);
  EXPECT_NEAR(ar.fit.busbw_Bps, 360e9, 0.01 * 360e9);
  const CalibratedCollective& ag = c.collectives[1];
  EXPECT_DOUBLE_EQ(ag.points.back().busbw_Bps, 1073741824 / 2.71e-3 * 7 / 8);
  EXPECT_GT(ag.fit.latency_s, 10e-6);  // measured-looking points: a plausible line, not exact
  EXPECT_LT(ag.fit.latency_s, 30e-6);
  const CalibratedCollective& sr = c.collectives[2];
  EXPECT_EQ(sr.op, "send_recv");
  EXPECT_DOUBLE_EQ(sr.points.back().busbw_Bps, sr.points.back().algbw_Bps);  // factor 1

  // d2d counts read + write: 2 * 2^30 / 0.716 ms = 2.9993e12; h2d 2^30 / 20.1 ms = 53.42e9.
  EXPECT_NEAR(c.copies.d2d_Bps, 2.999279e12, 1e6);
  EXPECT_NEAR(c.copies.h2d_Bps, 53.419991e9, 1e3);
  EXPECT_NEAR(c.copies.d2h_Bps, 54.504661e9, 1e3);
}

TEST(ProfilerRecordedRun, RawProfileRoundTripsThroughItsJson) {
  const std::filesystem::path dir = scratch_dir("raw-round-trip");
  const RawProfile raw = load_raw_profile(profiler_data("h100-synthetic-raw.json"));
  write_raw_profile(dir / "raw.json", raw);
  const Calibration a = build_calibration(raw, "a");
  const Calibration b = calibrate_recorded_run(dir / "raw.json");
  EXPECT_EQ(calibration_to_json(a), calibration_to_json(b));
  std::filesystem::remove_all(dir);
}

TEST(ProfilerRecordedRun, MalformedInputNamesTheFileAndTheField) {
  struct Case {
    const char* file;
    const char* field;
    const char* expected_part;
    const char* found_part;
  };
  const Case cases[] = {
      {"bad-kernel-missing-end.json", "operators[0].kernels[1].end_ns", "integer", "nothing"},
      {"bad-gpus-type.json", "device.gpus", "an integer", "eight"},
      {"bad-empty-window.json", "operators[0].runs[1]", "at least one kernel", "none"},
      {"bad-syntax.json", "", "valid JSON", "parse"},
      {"no-such-file.json", "", "readable", "no such file"},
  };
  for (const Case& k : cases) {
    const std::filesystem::path file = profiler_data(k.file);
    const InputErrorInfo e = error_of([&] { calibrate_recorded_run(file); });
    EXPECT_EQ(e.file, file.string()) << k.file;
    EXPECT_EQ(e.field, k.field) << k.file;
    EXPECT_NE(e.expected.find(k.expected_part), std::string::npos) << k.file << ": " << e.expected;
    EXPECT_NE(e.found.find(k.found_part), std::string::npos) << k.file << ": " << e.found;
    // The message itself carries them too.
    try {
      calibrate_recorded_run(file);
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find(file.string()), std::string::npos);
      if (*k.field) {
        EXPECT_NE(std::string(err.what()).find(k.field), std::string::npos) << err.what();
      }
    }
  }
}

// ---- calibration JSON ----

TEST(CalibrationWriter, JsonRoundTripsAndHoldsEverySchemaField) {
  const std::filesystem::path dir = scratch_dir("writer");
  Calibration c = calibrate_recorded_run(profiler_data("h100-synthetic-raw.json"));
  c.profiler.overhead_percent = 2.5;
  const std::filesystem::path file = dir / "calibration.json";
  write_calibration(file, c);
  EXPECT_FALSE(std::filesystem::exists(dir / "calibration.json.tmp"));

  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in);
  for (const char* key : {"format", "device", "compute_capability", "gpus", "driver", "cuda_runtime", "nccl", "date",
                          "peaks", "operators", "collectives", "copies", "profiler"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["format"], "dtsim-calibration-2");
  for (const char* key : {"fp32_flops", "tf32_flops", "fp16_flops", "bf16_flops", "fp8_flops", "hbm_Bps"})
    EXPECT_TRUE(j["peaks"][key].is_number()) << key;
  const nlohmann::json& op = j["operators"][0];
  for (const char* key : {"op", "kind", "dtype", "shape", "flops", "bytes", "time_s", "runs", "compute_efficiency",
                          "memory_efficiency", "kernels"})
    EXPECT_TRUE(op.contains(key)) << key;
  EXPECT_EQ(op["shape"]["m"], 8192);
  EXPECT_TRUE(op["kernels"].is_array());
  const nlohmann::json& coll = j["collectives"][0];
  for (const char* key : {"op", "gpus", "dtype", "points", "fit"}) EXPECT_TRUE(coll.contains(key)) << key;
  for (const char* key : {"bytes", "time_s", "algbw_Bps", "busbw_Bps"}) EXPECT_TRUE(coll["points"][0].contains(key)) << key;
  EXPECT_TRUE(coll["fit"]["latency_s"].is_number());
  EXPECT_TRUE(coll["fit"]["busbw_Bps"].is_number());
  for (const char* key : {"d2d_Bps", "h2d_Bps", "d2h_Bps"}) EXPECT_TRUE(j["copies"][key].is_number()) << key;
  for (const char* key : {"cupti", "iterations", "warmup", "overhead_percent"})
    EXPECT_TRUE(j["profiler"].contains(key)) << key;
  EXPECT_EQ(j["profiler"]["overhead_percent"], 2.5);

  // Read back: every value as written (doubles print with round-trip precision).
  const Calibration back = calib::read_calibration_file(file);
  EXPECT_EQ(calibration_to_json(back), calibration_to_json(c));
  EXPECT_EQ(back.operators[0].shape, c.operators[0].shape);  // order kept: m, n, k
  EXPECT_EQ(back.operators[1].time_s, c.operators[1].time_s);
  EXPECT_EQ(back.collectives[0].fit.busbw_Bps, c.collectives[0].fit.busbw_Bps);

  // Not measured: null, read back as none.
  c.profiler.overhead_percent.reset();
  write_calibration(file, c);
  EXPECT_TRUE(calib::read_calibration_file(file).profiler.overhead_percent == std::nullopt);
  std::filesystem::remove_all(dir);
}

TEST(CalibrationWriter, FailedWriteNamesTheFileAndLeavesNothing) {
  const std::filesystem::path dir = scratch_dir("writer-fail");
  const std::filesystem::path file = dir / "missing-folder" / "calibration.json";
  try {
    write_calibration(file, Calibration{});
    ADD_FAILURE() << "no error for a folder that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("calibration.json"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(file));
  std::filesystem::remove_all(dir);
}

TEST(CalibrationWriter, SimulatorReadsTheWrittenFile) {
  const std::filesystem::path dir = scratch_dir("writer-sim");
  write_calibration(dir / "calibration.json", calibrate_recorded_run(profiler_data("h100-synthetic-raw.json")));
  const ::dtsim::Calibration sim = ::dtsim::load_calibration(dir / "calibration.json", ::dtsim::default_efficiencies());
  EXPECT_EQ(sim.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(sim.date, "2026-11-22");
  ASSERT_EQ(sim.operators.size(), 3u);  // all bf16
  EXPECT_NEAR(sim.operators[0].compute_efficiency, 0.805284, 1e-6);
  ASSERT_EQ(sim.collectives.size(), 3u);
  EXPECT_EQ(sim.collectives[0].gpus, 8);
  EXPECT_NEAR(sim.collectives[0].busbw_Bps, 360e9, 0.01 * 360e9);
  EXPECT_NEAR(sim.collectives[0].latency_s, 18e-6, 0.01 * 18e-6);
  std::filesystem::remove_all(dir);
}

TEST(CalibrationWriter, FormatOneFileIsWrittenBackAsFormatTwo) {
  // A hand-written per-kind summary (no "format"): written back as format 2, its values kept.
  const std::filesystem::path dir = scratch_dir("format-one");
  const Calibration summary =
      calib::read_calibration_file(std::filesystem::path(DTSIM_SOURCE_DIR) / "tests/data/calibration/gemm-half.json");
  EXPECT_EQ(summary.format, "");
  write_calibration(dir / "cal.json", summary);
  const Calibration back = calib::read_calibration_file(dir / "cal.json");
  EXPECT_EQ(back.format, "dtsim-calibration-2");
  EXPECT_EQ(back.device, "test GPU");
  ASSERT_EQ(back.efficiency.size(), 2u);  // read in key order: elementwise, gemm
  EXPECT_EQ(back.efficiency[0].kind, "elementwise");
  EXPECT_EQ(back.efficiency[0].memory, 0.5);
  EXPECT_FALSE(back.efficiency[0].compute);
  EXPECT_EQ(back.efficiency[1].kind, "gemm");
  EXPECT_EQ(back.efficiency[1].compute, 0.4);
  std::filesystem::remove_all(dir);
}

TEST(CalibrationReader, MissingSchemaFieldIsNamed) {
  const std::filesystem::path dir = scratch_dir("reader");
  Calibration c = calibrate_recorded_run(profiler_data("h100-synthetic-raw.json"));
  nlohmann::ordered_json j = calibration_to_json(c);
  j["collectives"][0]["fit"].erase("busbw_Bps");
  std::ofstream(dir / "cal.json") << j.dump();
  const InputErrorInfo e = error_of([&] { calib::read_calibration_file(dir / "cal.json"); });
  EXPECT_EQ(e.field, "collectives[0].fit.busbw_Bps");
  EXPECT_EQ(e.found, "nothing");
  std::filesystem::remove_all(dir);
}

// ---- versions ----

TEST(ProfilerVersions, DriverVersionIsReadFromBothKernelModulesLines) {
  // The proprietary module's line, and the open module's (the H100 of 2026-11-26 runs the open
  // 580.159.04, which nvidia-smi reports in microbenchmarks.jsonl); the word after "Kernel Module"
  // is "for" there, which the profiler recorded as the driver before issue 43.
  EXPECT_EQ(driver_version_of_proc_line("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 "
                                        "09:55:41 UTC 2025"),
            "580.95.05");
  EXPECT_EQ(driver_version_of_proc_line("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
                                        "Release Build  (dvs-builder@U22-I3-AF03-09-1)  Thu Nov 13 2025"),
            "580.159.04");
  EXPECT_EQ(driver_version_of_proc_line("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.173.02  "
                                        "Release Build"),
            "580.173.02");
  EXPECT_FALSE(driver_version_of_proc_line("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64"));
  EXPECT_TRUE(is_recorded_driver("580.159.04"));
  EXPECT_TRUE(is_recorded_driver("CUDA 13.0"));
  EXPECT_TRUE(is_recorded_driver("unknown"));
  EXPECT_FALSE(is_recorded_driver("for"));
  EXPECT_FALSE(is_recorded_driver("580."));
  EXPECT_FALSE(is_recorded_driver("1.2.3.4.5"));
}

TEST(ProfilerVersions, LibraryVersionNumbersAreSpelledAsTheLibrariesDefineThem) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");   // 1000 major + 10 minor
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(nccl_version_text(22803), "2.28.3");  // since 2.9: 10000 major + 100 minor + patch
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");
  EXPECT_EQ(nccl_version_text(2804), "2.8.4");    // before: 1000 major + 100 minor + patch
  EXPECT_EQ(cudnn_version_text(91900), "9.19.0");  // cuDNN 9: 10000 major + 100 minor + patch
  EXPECT_EQ(cudnn_version_text(8907), "8.9.7");    // cuDNN 8: 1000 major + 100 minor + patch
}

// ---- rates above the datasheet peak ----

// An H100 raw profile without CUPTI holding one elementwise operator of `bytes` in `time_s`.
RawProfile one_elementwise_run(double bytes, double time_s) {
  RawProfile raw;
  raw.device = {"NVIDIA H100 80GB HBM3", "9.0", 1, "580.159.04", "13.0", "9.19.0", "2.28.3", "2026-11-26"};
  raw.profiler.cupti = false;
  raw.profiler.iterations = 1;
  RawOperator op;
  op.op = "embedding";
  op.kind = "elementwise";
  op.dtype = "bf16";
  op.shape = {{"rows", 2048}, {"cols", 2048}, {"vocab", 50304}};
  op.bytes = bytes;
  op.event_times_s = {time_s};
  raw.operators.push_back(op);
  return raw;
}

TEST(ProfilerRatesAbovePeak, AreKeptAsMeasuredUpToThePhysicalBound) {
  // The embedding gather of 2026-11-26: 16,785,408 bytes in 3.9365 us against 3.35 TB/s = 1.27285
  // (its 16.8 MB stay in the 50 MB L2). Kept, not clamped, and read back by the one reader.
  const Calibration c = build_calibration(one_elementwise_run(16785408, 3.9365e-6), "raw.json");
  EXPECT_NEAR(c.operators[0].memory_efficiency, 1.272849, 1e-6);
  const std::filesystem::path dir = scratch_dir("above-peak");
  write_calibration(dir / "cal.json", c);
  EXPECT_NEAR(calib::read_calibration_file(dir / "cal.json").operators[0].memory_efficiency, 1.272849, 1e-6);
  EXPECT_EQ(calib::read_calibration_file(dir / "cal.json").cudnn, "9.19.0");

  // 10x the bytes: 12.73x HBM, past L2's 5x: a byte count or time is wrong, the operator is named.
  const InputErrorInfo e = error_of([] { build_calibration(one_elementwise_run(167854080, 3.9365e-6), "raw.json"); });
  EXPECT_EQ(e.file, "raw.json");
  EXPECT_EQ(e.field, "operators[0]");
  EXPECT_NE(e.expected.find("[0, 5]"), std::string::npos) << e.expected;
  EXPECT_EQ(e.found.rfind("12.73 (embedding bf16 rows=2048 cols=2048 vocab=50304", 0), 0u) << e.found;
  std::filesystem::remove_all(dir);
}

// A memory access probe keeps the pattern it reproduces from the raw profile to the file the
// simulator reads: a streaming probe of 1.58 GB in 0.6 ms (0.786 of 3.35 TB/s), through the raw
// profile's JSON, the calibration and its JSON. An unknown pattern in a raw profile is named.
TEST(ProfilerAccessProbes, ThePatternTravelsFromRawProfileToTheSimulator) {
  const std::filesystem::path dir = scratch_dir("access-probe");
  RawProfile raw = one_elementwise_run(1.58e9, 6e-4);
  raw.operators[0].op = "access_streaming";
  raw.operators[0].shape = {{"rows", 65536}, {"cols", 4096}};
  raw.operators[0].access = "streaming";
  raw.copies = {{1073741824, 7.16256e-4}, {1073741824, 0.02}, {1073741824, 0.02}};
  write_raw_profile(dir / "raw.json", raw);
  write_calibration(dir / "cal.json", calibrate_recorded_run(dir / "raw.json"));
  const ::dtsim::Calibration sim = ::dtsim::load_calibration(dir / "cal.json", ::dtsim::default_efficiencies());
  ASSERT_EQ(sim.operators.size(), 1u);
  EXPECT_EQ(sim.operators[0].access, ::dtsim::MemoryAccess::streaming);
  EXPECT_NEAR(sim.operators[0].memory_efficiency, 1.58e9 / 6e-4 / 3.35e12, 1e-9);

  raw.operators[0].access = "sideways";
  write_raw_profile(dir / "bad.json", raw);
  const InputErrorInfo e = error_of([&] { calibrate_recorded_run(dir / "bad.json"); });
  EXPECT_EQ(e.field, "operators[0].access");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtsim::profiler

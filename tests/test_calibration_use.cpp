// Measured calibrations (format 2) in the model: efficiency curves over operator size, their
// scaling to another GPU type, NVLink bandwidth from a measured all-reduce, and the report's
// account of what was measured. Data: tests/data/calibration/h100-measured.json (synthetic).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "calibration.hpp"
#include "kernel_builders.hpp"
#include "resolved_scenario.hpp"
#include "collective_model.hpp"
#include "report.hpp"
#include "simulation.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

std::filesystem::path calibration(const std::string& name) { return test::data_dir() / "calibration" / name; }

Scenario with_calibration(const std::string& gpu) {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  s.cluster.gpu = gpu;
  s.calibration_file = calibration("h100-measured.json");
  return s;
}

Operator gemm(double flops) { return {"gemm", OperatorKind::gemm, flops, 1, 1}; }
Operator elementwise(double bytes) { return {"gelu", OperatorKind::elementwise, 0, bytes, 1}; }

TEST(CalibrationFormat2, ReadsOperatorsOfTrainingPrecisionsAndCollectives) {
  const Calibration c = load_calibration(calibration("h100-measured.json"), default_efficiencies());
  EXPECT_EQ(c.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.operators.size(), 6u);  // the CUDA-core fp32 GEMM is not a training precision's rate
  EXPECT_EQ(c.operators[5].precision, Precision::fp32);  // tf32 stands for fp32 training
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].gpus, 8);
  EXPECT_DOUBLE_EQ(c.collectives[0].busbw_Bps, 4e11);
  EXPECT_EQ(device_id_of_name(c.device), "h100-sxm");
  EXPECT_EQ(device_id_of_name("NVIDIA A100-SXM4-40GB"), "a100-40gb-sxm");
  EXPECT_FALSE(device_id_of_name("NVIDIA H100 PCIe"));
}

// GEMM points (1e9 FLOP, 0.3), (1e11, 0.6), (1e13, 0.8): 1e10 is halfway in log between the
// first two, so 0.45; beyond the ends the nearest point holds.
TEST(MeasuredEfficiency, PiecewiseLinearInLogSizeAndFlatBeyondTheEnds) {
  const ComputeModel m = resolve_scenario(with_calibration("h100-sxm")).compute;
  const double peak = 989.4e12;
  EXPECT_NEAR(m.time_s(gemm(1e10)), 1e10 / (peak * 0.45), 1e-9 * m.time_s(gemm(1e10)));
  EXPECT_NEAR(m.time_s(gemm(1e12)), 1e12 / (peak * 0.7), 1e-9 * m.time_s(gemm(1e12)));
  EXPECT_NEAR(m.time_s(gemm(1e8)), 1e8 / (peak * 0.3), 1e-9 * m.time_s(gemm(1e8)));
  EXPECT_NEAR(m.time_s(gemm(1e14)), 1e14 / (peak * 0.8), 1e-9 * m.time_s(gemm(1e14)));
  // The profiler's element-wise kernels (dtsim's own) price nothing; its 2.9 TB/s copy, 0.866 of
  // the H100's peak against the 0.895 the access patterns' H100 copied at, scales them: 0.9672.
  const double copy_scale = 2.9e12 / 3.35e12 / (2.0 * 1073741824 / 716.256e-6 / 3350e9);
  EXPECT_NEAR(m.time_s(elementwise(1e7)), 1e7 / (3.35e12 * 0.93 * copy_scale) + kMemoryKernelStartupS,
              1e-9 * m.time_s(elementwise(1e7)));
  Operator adam{"adam", OperatorKind::optimizer, 0, 1e9, 1};
  adam.access = MemoryAccess::optimizer_step;
  EXPECT_NEAR(m.time_s(adam), 1e9 / (3.35e12 * 0.77 * copy_scale) + kMemoryKernelStartupS, 1e-15);
}

// The profiler's memory access probes (kernels' access_* operators) scale their own pattern against
// the same probes on the H100 (memory_access.cpp: its streaming probe reached 0.919 of the peak at
// 1.007e8 B, 0.917 at 1.611e9 and 0.912 at 3.221e9): three streaming probes of those sizes reaching
// 0.9, 0.8 and 0.95 of those give their median, 0.9; the unprobed patterns keep the copy's scale.
TEST(MeasuredEfficiency, AccessProbesScaleTheirOwnPattern) {
  test::ScratchDir dir;
  std::string ops;
  for (const auto& [bytes, share] :
       {std::pair{1.007e8, 0.919 * 0.9}, {1.611e9, 0.917 * 0.8}, {3.221e9, 0.912 * 0.95}}) {
    const double time_s = kMemoryKernelStartupS + bytes / (share * 3.35e12);
    ops += fmt::format(R"({}{{"op": "access_streaming", "kind": "elementwise", "dtype": "bf16", "flops": 0, "bytes": {},
                       "time_s": {}, "compute_efficiency": 0, "memory_efficiency": {}, "access": "streaming"}})",
                       ops.empty() ? "" : ",", bytes, time_s, bytes / time_s / 3.35e12);
  }
  Scenario s = with_calibration("h100-sxm");
  s.calibration_file = dir.write("probes.json", R"({"device": "NVIDIA H100 80GB HBM3", "date": "2026-11-26",
      "copies": {"d2d_Bps": 2.9e12}, "operators": [)" + ops + "]}");
  const ResolvedScenario r = resolve_scenario(s);
  const double copy_scale = 2.9e12 / 3.35e12 / (2.0 * 1073741824 / 716.256e-6 / 3350e9);
  const MemoryAccessScales scales = measured_access_scales(load_calibration(*s.calibration_file, default_efficiencies()));
  EXPECT_NEAR(scales[size_t(MemoryAccess::streaming)], 0.9, 1e-9);
  EXPECT_NEAR(scales[size_t(MemoryAccess::unrolled)], copy_scale, 1e-12);
  Operator cast = memory_op("cast", MemoryAccess::streaming, 1e8);
  EXPECT_NEAR(r.compute.time_s(cast), 1e8 / (3.35e12 * 0.93 * 0.9) + kMemoryKernelStartupS, 1e-15);
  cast.access = MemoryAccess::unrolled;
  EXPECT_NEAR(r.compute.time_s(cast), 1e8 / (3.35e12 * 0.57 * copy_scale) + kMemoryKernelStartupS, 1e-15);
  EXPECT_NE(r.calibration_provenance.find("streaming x0.900 from this calibration's probes"), std::string::npos)
      << r.calibration_provenance;
}

// Measured on H100, applied to A100: a compute-bound time grows by the peak ratio 989.4 / 312,
// a memory-bound one by the bandwidth ratio 3350 / 2039 (the copy's share of the peak carries over).
TEST(MeasuredEfficiency, AnotherGpuScalesByPeakAndBandwidthRatios) {
  const ComputeModel h100 = resolve_scenario(with_calibration("h100-sxm")).compute;
  const ComputeModel a100 = resolve_scenario(with_calibration("a100-80gb-sxm")).compute;
  EXPECT_NEAR(a100.time_s(gemm(1e10)) / h100.time_s(gemm(1e10)), 989.4 / 312, 1e-9);
  EXPECT_NEAR((a100.time_s(elementwise(1e7)) - kMemoryKernelStartupS) /
                  (h100.time_s(elementwise(1e7)) - kMemoryKernelStartupS),
              3350.0 / 2039, 1e-9);
  const std::string provenance = resolve_scenario(with_calibration("a100-80gb-sxm")).calibration_provenance;
  EXPECT_NE(provenance.find("scaled from 3 measured on NVIDIA H100 80GB HBM3: peak FLOP/s x0.315"), std::string::npos)
      << provenance;
  EXPECT_NE(provenance.find("access patterns measured on an H100 SXM, x0.967: this calibration's copy streamed at "
                            "2900 GB/s"),
            std::string::npos)
      << provenance;
}

// With the link calibrated, the collective model's 8 GiB all-reduce over the node's 8 GPUs has
// the measured bus bandwidth, 400 GB/s; on another GPU type the topology's NVLink stays.
TEST(LinkCalibration, NodeAllReduceMatchesTheMeasuredBusBandwidth) {
  const Scenario s = with_calibration("h100-sxm");
  const NodeSpec node = resolve_scenario(s).node();
  EXPECT_NE(node.nvlink_bw_Bps, s.cluster.topology.node.nvlink_bw_Bps);
  const double bytes = 8.0 * (1ull << 30);
  const CollectiveEstimate e = choose_collective(CollectiveKind::all_reduce, {8, 1, 8}, bytes, node);
  EXPECT_NEAR(bytes / e.time_s * 14 / 8, 400e9, 0.001 * 400e9);
  EXPECT_DOUBLE_EQ(resolve_scenario(with_calibration("a100-80gb-sxm")).node().nvlink_bw_Bps,
                   with_calibration("a100-80gb-sxm").cluster.topology.node.nvlink_bw_Bps);
}

TEST(CalibrationProvenance, SaysWhatWasMeasuredAndWhatIsDefault) {
  const std::string p = resolve_scenario(with_calibration("h100-sxm")).calibration_provenance;
  EXPECT_NE(p.find("NVIDIA H100 80GB HBM3, 2026-11-22"), std::string::npos) << p;
  EXPECT_NE(p.find("gemm             measured, 3 sizes (bf16)"), std::string::npos) << p;
  EXPECT_NE(p.find("elementwise      access patterns measured on an H100 SXM, x0.967"), std::string::npos) << p;
  EXPECT_NE(p.find("optimizer        access patterns measured on an H100 SXM, x0.967"), std::string::npos) << p;
  EXPECT_NE(p.find("nvlink           measured all_reduce busbw 400 GB/s over 8 GPUs"), std::string::npos) << p;
}

// FP8 GEMMs without a measured curve are priced the same way with a calibration as without one,
// and both reports say so in the same words: the H100's measured share of twice the bf16 rate,
// and on the 500 W part its FP8 scale beside the bf16 one (device_spec.cpp).
TEST(CalibrationProvenance, Fp8GemmsWithoutACurveSayTheirShareAndPowerScaleAlike) {
  Scenario s = with_calibration("h100-96gb-500w");
  s.training.precision = Precision::fp8;
  s.training.fp8_recipe = Fp8Recipe::tensorwise;
  const std::string share = "fp8 gemm         per-tensor scales measured on an H100 SXM, 2026-11-26: 0.834 of twice "
                            "the bf16 rate at the same shape (not measured on this GPU)";
  const std::string power = "x0.835 of the 700 W part's FP8 rate at this part's power limit (bf16 x0.734)";
  const std::string calibrated = resolve_scenario(s).calibration_provenance;
  s.calibration_file.reset();
  const std::string defaults = resolve_scenario(s).calibration_provenance;
  for (const std::string& p : {calibrated, defaults}) {
    EXPECT_NE(p.find(share), std::string::npos) << p;
    EXPECT_NE(p.find(power), std::string::npos) << p;
  }
}

TEST(CalibrationFormat2, BadInputNamesTheField) {
  InputErrorInfo e = test::error_of([] { load_calibration(calibration("bad-operator-kind.json"), default_efficiencies()); });
  EXPECT_EQ(e.field, "operators[1].kind");
  EXPECT_EQ(e.found, "'convolution'");
  e = test::error_of([] { load_calibration(calibration("bad-format.json"), default_efficiencies()); });
  EXPECT_EQ(e.field, "format");
}

// A run reads its calibration file once, in resolve_scenario: the simulation, the what-if
// baseline, the analytic estimate and the report take everything from the resolution (the file
// is deleted before they run), and what they say matches a resolution made with the file there.
TEST(ResolvedScenario, ARunReadsTheCalibrationFileOnce) {
  test::ScratchDir dir;
  const std::filesystem::path file = dir.path() / "measured.json";
  std::filesystem::copy_file(calibration("h100-measured.json"), file);
  Scenario s = with_calibration("h100-sxm");
  s.calibration_file = file;
  const ResolvedScenario resolved = resolve_scenario(s);
  const double expected_nvlink_Bps = resolved.node().nvlink_bw_Bps;
  std::filesystem::remove(file);

  const SimulationResult result = simulate(resolved);
  ResolvedScenario healthy = resolved;
  healthy.scenario.events.clear();
  EXPECT_GT(simulate(healthy).engine.iteration_s, 0);
  const Report report = make_report(resolved, result);
  EXPECT_EQ(report.efficiency_source, resolved.calibration_provenance);
  EXPECT_NE(report.efficiency_source.find("gemm             measured, 3 sizes (bf16)"), std::string::npos);
  EXPECT_NE(expected_nvlink_Bps, s.cluster.topology.node.nvlink_bw_Bps);  // the measured all-reduce applied
  EXPECT_DOUBLE_EQ(resolved.topology.node.nvlink_bw_Bps, expected_nvlink_Bps);
  // Resolving again would need the file: nothing above did.
  EXPECT_THROW(resolve_scenario(s), InputError);
}

// Without a calibration the report says where each class's price comes from: on the H100 SXM the
// GEMM rate measured in its training steps (0.84 of the peak, the tensor clock at 0.81 under
// load); on an A100, nobody measured here, the datasheet default 0.80 and the H100's access
// patterns as shares of the A100's 2039 GB/s, each marked as not measured on it.
TEST(ResolvedScenario, TheReportSaysWhichPricesWereMeasured) {
  Scenario s = with_calibration("h100-sxm");
  s.calibration_file.reset();
  const std::string h100 = resolve_scenario(s).calibration_provenance;
  EXPECT_NE(h100.find("gemm             measured on an H100 SXM, 2026-11-26: 0.84 of the peak in a training step, "
                      "the tensor clock at 0.81 under sustained load\n"),
            std::string::npos)
      << h100;
  EXPECT_EQ(h100.find("not measured"), std::string::npos) << h100;
  s.cluster.gpu = "a100-80gb-sxm";
  const std::string a100 = resolve_scenario(s).calibration_provenance;
  EXPECT_NE(a100.find("gemm             datasheet default: 0.80 of the peak (not measured on this GPU)"),
            std::string::npos)
      << a100;
  EXPECT_NE(a100.find("as shares of this GPU's 2039 GB/s (not measured on this GPU)"), std::string::npos) << a100;
}

}  // namespace
}  // namespace dtsim

// Calibration files override default efficiencies; topology files are checked field by field.
#include <gtest/gtest.h>

#include <iterator>

#include "calibration.hpp"
#include "calibration_file.hpp"
#include "input_error.hpp"
#include "measured_efficiency.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

std::filesystem::path calibration(const std::string& name) { return test::data_dir() / "calibration" / name; }

using test::error_of;

TEST(Calibration, OverridesOnlyWhatTheFileGives) {
  const EfficiencyTable defaults = default_efficiencies();
  const Calibration c = load_calibration(calibration("gemm-half.json"), defaults);
  EXPECT_EQ(c.device, "test GPU");
  EXPECT_DOUBLE_EQ(c.efficiencies[OperatorKind::gemm].compute, 0.4);
  EXPECT_DOUBLE_EQ(c.efficiencies[OperatorKind::gemm].memory, defaults[OperatorKind::gemm].memory);
  EXPECT_DOUBLE_EQ(c.efficiencies[OperatorKind::elementwise].memory, 0.5);
  EXPECT_DOUBLE_EQ(c.efficiencies[OperatorKind::attention_gemm].compute, defaults[OperatorKind::attention_gemm].compute);
}

TEST(Calibration, EfficiencyPastThePhysicalBoundIsRejected) {
  // 1.5 x the tensor-core peak: more than any SM clock above the datasheet's gives (1.2, size_limits.hpp).
  const InputErrorInfo e = error_of([] { load_calibration(calibration("out-of-range.json"), default_efficiencies()); });
  EXPECT_EQ(e.field, "efficiency.gemm.compute");
  EXPECT_EQ(e.expected, "measured / peak FLOP/s in [0.0001, 1.2] (above 1: a clock above the datasheet's)");
  EXPECT_EQ(e.found, "1.5");
}

// Rates above the datasheet peak are measurements (tensors served from L2), up to L2 / HBM.
TEST(Calibration, EfficiencyAboveOneIsAMeasurement) {
  test::ScratchDir dir;
  const auto file = dir.write("c.json", R"({"efficiency": {"elementwise": {"memory": 1.27}},
      "operators": [{"op": "embedding", "kind": "elementwise", "dtype": "bf16", "flops": 0, "bytes": 16785408,
                     "time_s": 3.9365e-6, "compute_efficiency": 0, "memory_efficiency": 1.2728}]})");
  const Calibration c = load_calibration(file, default_efficiencies());
  EXPECT_DOUBLE_EQ(c.efficiencies[OperatorKind::elementwise].memory, 1.27);
  EXPECT_DOUBLE_EQ(c.operators.at(0).memory_efficiency, 1.2728);
  const auto too_fast = dir.write("d.json", R"({"efficiency": {"elementwise": {"memory": 5.5}}})");
  const InputErrorInfo e = error_of([&] { load_calibration(too_fast, default_efficiencies()); });
  EXPECT_EQ(e.field, "efficiency.elementwise.memory");
  EXPECT_EQ(e.expected, "measured / peak HBM bytes/s in [0.0001, 5] (above 1: served from L2)");
}

// The one reader checks names against lists of its own (plain C++, no program.hpp); they are the
// model's kinds, every one.
TEST(Calibration, ReaderNamesAreTheModelsKinds) {
  ASSERT_EQ(std::size(calib::kOperatorKinds), size_t(kOperatorKindCount));
  for (int k = 0; k < kOperatorKindCount; ++k) {
    EXPECT_STREQ(calib::kOperatorKinds[k], to_string(OperatorKind(k)));
    EXPECT_EQ(operator_kind_of(calib::kOperatorKinds[k]), OperatorKind(k));
    EXPECT_EQ(calib::is_matmul_kind(calib::kOperatorKinds[k]), measured_by_flops(OperatorKind(k)));
  }
  for (const char* op : calib::kCollectiveOps) EXPECT_STREQ(to_string(collective_kind_of(op)), op);
  ASSERT_EQ(std::size(calib::kMemoryAccesses), size_t(kMemoryAccessCount));
  for (int a = 0; a < kMemoryAccessCount; ++a) {
    EXPECT_STREQ(calib::kMemoryAccesses[a], to_string(MemoryAccess(a)));
    EXPECT_EQ(memory_access_named(calib::kMemoryAccesses[a]), MemoryAccess(a));
  }
}

// An operator may name the access pattern its kernel reproduces: one of the model's, and never
// for a matmul.
TEST(Calibration, AnAccessPatternIsOneOfTheModels) {
  test::ScratchDir dir;
  const auto probe = [&](const std::string& kind, const std::string& access) {
    return dir.write("p.json", R"({"device": "NVIDIA H100 80GB HBM3", "operators": [{"op": "access_streaming", "kind": ")" +
                                   kind + R"(", "dtype": "bf16", "flops": 0, "bytes": 1.6e9, "time_s": 0.0006, "compute_efficiency": 0, "memory_efficiency": 0.8, "access": ")" +
                                   access + R"("}]})");
  };
  const Calibration ok = load_calibration(probe("elementwise", "streaming"), default_efficiencies());
  EXPECT_EQ(ok.operators.at(0).access, MemoryAccess::streaming);
  InputErrorInfo e = error_of([&] { load_calibration(probe("elementwise", "sideways"), default_efficiencies()); });
  EXPECT_EQ(e.field, "operators[0].access");
  EXPECT_EQ(e.found, "'sideways'");
  e = error_of([&] { load_calibration(probe("gemm", "streaming"), default_efficiencies()); });
  EXPECT_EQ(e.field, "operators[0].access");
}

TEST(Calibration, UnknownOperatorKindIsRejected) {
  const InputErrorInfo e = error_of([] { load_calibration(calibration("unknown-kind.json"), default_efficiencies()); });
  EXPECT_EQ(e.field, "efficiency.convolution");
}

TEST(Calibration, MissingFile) {
  const InputErrorInfo e = error_of([] { load_calibration(calibration("nope.json"), default_efficiencies()); });
  EXPECT_EQ(e.found, "no such file");
}

TEST(Topology, StockFilesLoadWithTheirUnitsConverted) {
  const TopologySpec t = load_topology(test::source_dir() / "topologies" / "dgx-a100-hdr-fattree.yaml");
  EXPECT_EQ(t.node.gpus, 8);
  EXPECT_DOUBLE_EQ(t.node.nvlink_bw_Bps, 240e9);
  EXPECT_DOUBLE_EQ(t.node.nic_bw_Bps, 25e9);  // 200 Gb/s
  EXPECT_DOUBLE_EQ(t.node.nic_latency_s, 1.5e-6);
  EXPECT_EQ(t.fabric.nodes_per_leaf, 16);
  const TopologySpec h = load_topology(test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml");
  EXPECT_DOUBLE_EQ(h.node.nic_bw_Bps, 50e9);  // 400 Gb/s
}

TEST(Topology, MissingSectionNamesItsParent) {
  const InputErrorInfo e =
      error_of([] { load_topology(test::data_dir() / "topologies" / "bad-missing-nics.yaml"); });
  EXPECT_EQ(e.field, "node.nics");
  EXPECT_EQ(e.line, 5);  // the first line of the node mapping
  EXPECT_EQ(e.found, "nothing");
}

TEST(Topology, OversubscriptionBelowOne) {
  const InputErrorInfo e =
      error_of([] { load_topology(test::data_dir() / "topologies" / "bad-oversubscription.yaml"); });
  EXPECT_EQ(e.field, "fabric.oversubscription");
  EXPECT_EQ(e.line, 10);
  EXPECT_EQ(e.found, "'0.5'");
}

TEST(Topology, RoutingIsOneOfThree) {
  const InputErrorInfo e = error_of([] { load_topology(test::data_dir() / "topologies" / "bad-routing.yaml"); });
  EXPECT_EQ(e.field, "fabric.routing");
  EXPECT_EQ(e.line, 10);
  EXPECT_NE(e.expected.find("static, ecmp"), std::string::npos) << e.expected;
  EXPECT_NE(e.expected.find("adaptive"), std::string::npos) << e.expected;
}

TEST(Topology, EveryStockFileLoads) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() / "topologies"))
    if (entry.path().extension() == ".yaml") {
      const TopologySpec t = load_topology(entry.path());
      EXPECT_EQ(t.name + ".yaml", entry.path().filename().string());
      EXPECT_FALSE(t.description.empty()) << entry.path();
      ++files;
    }
  EXPECT_GE(files, 10);
}

TEST(Topology, SpineLeafOversubscriptionFollowsFromItsLinks) {
  // 4 nodes x 8 NICs x 400 Gb/s = 12.8 Tb/s down; 8 spines x 800 Gb/s = 6.4 Tb/s up: 2:1.
  const TopologySpec t = load_topology(test::source_dir() / "topologies" / "dgx-h100-roce-spine-leaf.yaml");
  EXPECT_EQ(t.fabric.kind, FabricKind::spine_leaf);
  EXPECT_DOUBLE_EQ(t.fabric.oversubscription, 2.0);
}

TEST(Topology, DragonflyAndTorusCapacity) {
  EXPECT_EQ(load_topology(test::source_dir() / "topologies" / "dgx-h100-dragonfly.yaml").fabric.capacity_nodes(),
            8 * 1 * 4 * 4);
  EXPECT_EQ(load_topology(test::source_dir() / "topologies" / "dgx-h100-torus-3d.yaml").fabric.capacity_nodes(), 64);
}

TEST(Topology, RailFabricNeedsOneNicPerGpu) {
  const InputErrorInfo e = error_of([] { load_topology(test::data_dir() / "topologies" / "bad-rail-fewer-nics.yaml"); });
  EXPECT_EQ(e.field, "fabric.kind");
  EXPECT_EQ(e.line, 8);
  EXPECT_EQ(e.found, "rail_optimized with 4 NICs");
}

TEST(Topology, NvlinkSharpNeedsGenerationFour) {
  const InputErrorInfo e = error_of([] { load_topology(test::data_dir() / "topologies" / "bad-sharp-nvlink3.yaml"); });
  EXPECT_EQ(e.field, "node.nvlink.sharp");
  EXPECT_EQ(e.found, "true with generation 3");
}

TEST(Topology, TorusDimensionMustBePositive) {
  const InputErrorInfo e = error_of([] { load_topology(test::data_dir() / "topologies" / "bad-torus-dimension.yaml"); });
  EXPECT_EQ(e.field, "fabric.dimensions[1]");
  EXPECT_EQ(e.expected, "an integer in [1, 65536]");
  EXPECT_EQ(e.found, "'0'");
}

}  // namespace
}  // namespace dtsim

// Chakra execution traces (.et protobuf; sim/trace/chakra_trace): the GPU nodes and collectives of
// Chakra's own test trace (tests/data/traces/chakra, with its source), the laying out of nodes
// without start times by hand on a trace written here, and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "chakra_et.pb.h"
#include "chakra_trace.hpp"
#include "replay_program.hpp"
#include "step_summary.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

// Chakra's ResNet-50 DDP iteration: 1,216 GPU nodes, 329,543 µs in all (SOURCES.md), laid end to end.
TEST(ChakraTrace, GivesTheGpuNodesAndTheCollectivesBytes) {
  const KinetoTrace t = read_chakra_trace(test::data_dir() / "traces" / "chakra" / "chakra.0.et.gz");
  EXPECT_FALSE(t.times_recorded);
  EXPECT_EQ(t.rank, -1);
  EXPECT_EQ(t.world_size, 0);
  EXPECT_EQ(t.gpu.size(), 1216u);
  const RankStep r = summarize_step(t, "iteration");
  EXPECT_DOUBLE_EQ(r.step_s, 329543e-6);
  EXPECT_FALSE(r.times_recorded);
  std::vector<double> bytes;
  for (const StepCollective& c : r.collectives) {
    bytes.push_back(c.collective.bytes);
    EXPECT_EQ(c.collective.size_source, SizeSource::chakra_node);
    EXPECT_EQ(c.stream, 14);
  }
  EXPECT_EQ(bytes, (std::vector<double>{212480, 424, 8196000, 31502336, 26255360, 26550272, 9724160}));
  EXPECT_EQ(r.collectives[0].collective.kind, TraceCollectiveKind::broadcast);
  EXPECT_EQ(r.collectives[2].collective.kind, TraceCollectiveKind::all_reduce);
}

void add_attr(chakra::Node& node, const std::string& name, long long value) {
  chakra::AttributeProto* a = node.add_attr();
  a->set_name(name);
  a->set_int64_val(value);
}

chakra::Node gpu_node(uint64_t id, const std::string& name, uint64_t duration_us) {
  chakra::Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(chakra::COMP_NODE);
  n.set_duration_micros(duration_us);
  chakra::AttributeProto* cpu = n.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(false);
  add_attr(n, "tid", 7);
  return n;
}

// Messages as a .et holds them: each after its length as a varint.
std::string delimited(const std::vector<std::string>& messages) {
  std::string out;
  for (const std::string& m : messages) {
    size_t n = m.size();
    do {
      out += char((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>= 7;
    } while (n > 0);
    out += m;
  }
  return out;
}

// A CPU op, a 10 µs kernel, an all-reduce of 4000 B taking 5 µs, a 20 µs kernel (ids out of order
// in the file): laid end to end, compute 30 µs, the collective over [10, 15] µs, the step 35 µs.
std::string small_et() {
  chakra::GlobalMetadata meta;
  chakra::Node cpu;
  cpu.set_id(1);
  cpu.set_name("aten::mm");
  cpu.set_duration_micros(100);
  chakra::AttributeProto* is_cpu = cpu.add_attr();
  is_cpu->set_name("is_cpu_op");
  is_cpu->set_bool_val(true);
  chakra::Node coll = gpu_node(3, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 5);
  coll.set_type(chakra::COMM_COLL_NODE);
  add_attr(coll, "comm_type", chakra::ALL_REDUCE);
  add_attr(coll, "comm_size", 4000);
  return delimited({meta.SerializeAsString(), cpu.SerializeAsString(), gpu_node(4, "gemm", 20).SerializeAsString(),
                    gpu_node(2, "gemm", 10).SerializeAsString(), coll.SerializeAsString()});
}

TEST(ChakraTrace, LaysNodesWithoutStartTimesEndToEndByHand) {
  const test::ScratchDir dir;
  const RankStep r = summarize_step(read_chakra_trace(dir.write("small.et", small_et())), "iteration");
  EXPECT_DOUBLE_EQ(r.step_s, 35e-6);
  EXPECT_DOUBLE_EQ(r.compute_s, 30e-6);
  EXPECT_EQ(r.kernels, 3);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_DOUBLE_EQ(r.collectives[0].start_us, 10);
  EXPECT_EQ(r.collectives[0].collective.bytes, 4000);
  // Replayed: 10 µs of compute, the all-reduce and the wait for it (nothing ran beside it: the
  // nodes are laid end to end), 20 µs; the laying out is said.
  const ReplayProgram p = replay_program({r, r});
  ASSERT_EQ(p.workload.ranks[0].tasks.size(), 4u);
  EXPECT_DOUBLE_EQ(p.workload.ranks[0].tasks[0].compute_s, 10e-6);
  EXPECT_EQ(p.workload.ranks[0].tasks[2].kind, TaskKind::wait_overlapped);
  EXPECT_DOUBLE_EQ(p.workload.ranks[0].tasks[3].compute_s, 20e-6);
  EXPECT_NE(p.assumed.back().find("laid end to end"), std::string::npos);
}

TEST(ChakraTrace, BadFilesNameTheFile) {
  const test::ScratchDir dir;
  const std::string et = small_et();
  InputErrorInfo e = test::error_of([&] { read_chakra_trace(dir.write("cut.et", et.substr(0, et.size() - 3))); });
  EXPECT_EQ(e.found, "the file cut short");
  EXPECT_NE(e.file.find("cut.et"), std::string::npos);
  e = test::error_of([&] { read_chakra_trace(dir.write("text.et", std::string("\x05") + "\xff\xff\xff\xff\xff")); });
  EXPECT_EQ(e.found, "bytes that do not parse");
  EXPECT_EQ(e.field, "message 0");
  chakra::GlobalMetadata meta;
  e = test::error_of([&] { read_chakra_trace(dir.write("empty.et", delimited({meta.SerializeAsString()}))); });
  EXPECT_EQ(e.found, "none: a trace without GPU times");
  e = test::error_of([&] { read_chakra_trace(dir.write("none.et", "")); });
  EXPECT_EQ(e.found, "no message");
}

// `dtsim import` of a .et: nothing measured (JSON null); replayed on two ranks, at least its compute
// laid end to end: 329,543 µs of GPU nodes less the collectives' 28 + 5 + 5,572 + 9,093 + 8,512 +
// 8,178 + 5,327 µs = 292,828 µs.
TEST(ImportCommand, ReplaysAChakraTraceOnAGivenTopology) {
  const test::ScratchDir dir;
  const auto json_file = dir.path() / "import.json";
  const test::CliResult r = test::run_dtsim(
      "import " + (test::data_dir() / "traces" / "chakra" / "chakra.0.et.gz").string() + " --topology " +
      (test::source_dir() / "topologies" / "dgx-a100-hdr-fattree.yaml").string() + " --ranks 2 --json " +
      json_file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("not recorded"), std::string::npos) << r.output;
  std::ifstream in(json_file);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["measured_step_s"].is_null());
  EXPECT_GE(j["replayed_step_s"].get<double>(), 292828e-6);
  const test::CliResult no_topology =
      test::run_dtsim("import " + (test::data_dir() / "traces" / "chakra").string());
  EXPECT_EQ(no_topology.exit_code, 2) << no_topology.output;
  EXPECT_NE(no_topology.output.find("--topology"), std::string::npos) << no_topology.output;
}

}  // namespace
}  // namespace dtsim

// PyTorch execution traces (sim/trace/pytorch_et, et_pairing; `dtsim import` with ETs): the
// collectives of both node layouts with the sizes their tensors say (tests/data/traces, with
// their sources), sizes a Kineto step lacks taken from its rank's ET, and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "et_pairing.hpp"
#include "pytorch_et.hpp"
#include "step_summary.hpp"
#include "test_support.hpp"
#include "trace_files.hpp"
#include "trace_json.hpp"

namespace dtsim {
namespace {

std::filesystem::path trace_dir() { return test::data_dir() / "traces"; }

PyTorchEt read_et(const std::filesystem::path& file) {
  return pytorch_et_from_json(file, read_trace_json(file, "a PyTorch ET"));
}

std::vector<double> bytes_of(const EtStep& step) {
  std::vector<double> out;
  for (const TraceCollective& c : step.collectives) out.push_back(c.bytes);
  return out;
}

// Schema 1.0.1 (flat inputs), DLRM rank 3: one iteration, no ProfilerStep node, no group size.
TEST(PyTorchEt, OldSchemaGivesTheTensorsSizes) {
  const PyTorchEt et = read_et(trace_dir() / "dlrm_pytorch_et" / "dlrm_eg_3.json.gz");
  EXPECT_EQ(et.schema, "1.0.1");
  EXPECT_EQ(et.rank, 3);
  EXPECT_EQ(et.world_size, 0);
  ASSERT_EQ(et.steps.size(), 1u);
  EXPECT_EQ(et.steps[0].name, "");
  // All-to-alls of 6144 float, 24 int64, 384 and 3392 int32; DDP buckets of 394,241 float; ...
  EXPECT_EQ(bytes_of(et.steps[0]), (std::vector<double>{6144 * 4.0, 24 * 8.0, 384 * 4.0, 3392 * 4.0, 394241 * 4.0,
                                                         6144 * 4.0, 112 * 4.0, 226960 * 4.0}));
  const TraceCollective& first = et.steps[0].collectives[0];
  EXPECT_EQ(first.kind, TraceCollectiveKind::all_to_all);
  EXPECT_EQ(first.size_source, SizeSource::execution_trace);
  EXPECT_EQ(first.group_size, 0);
  EXPECT_EQ(et.steps[0].collectives[4].kind, TraceCollectiveKind::all_reduce);
}

// Schema 1.1.0-chakra: attrs, three profiler steps; the autograd thread's all-reduces belong to the
// step whose node precedes them; rank 1 (a broadcast's rank input is its root, 0).
TEST(PyTorchEt, NewSchemaSplitsCollectivesIntoSteps) {
  const PyTorchEt et = read_et(trace_dir() / "param_et" / "resnet_2gpu_et.json.gz");
  EXPECT_EQ(et.schema, "1.1.0-chakra.0.0.4");
  EXPECT_EQ(et.rank, 1);
  EXPECT_EQ(et.world_size, 2);
  ASSERT_EQ(et.steps.size(), 3u);
  for (const EtStep& step : et.steps) {
    EXPECT_EQ(bytes_of(step), (std::vector<double>{53120 * 4.0, 53 * 8.0, 2049000 * 4.0, 7875584 * 4.0,
                                                   6563840 * 4.0, 6637568 * 4.0, 2431040 * 4.0}))
        << step.name;
    for (const TraceCollective& c : step.collectives) {
      EXPECT_EQ(c.group_size, 2);
      EXPECT_EQ(c.process_group, "0");
    }
  }
  EXPECT_EQ(et.steps[1].name, "ProfilerStep#5");
  EXPECT_EQ(et.steps[1].collectives[0].kind, TraceCollectiveKind::broadcast);
  EXPECT_EQ(et.steps[1].collectives[2].kind, TraceCollectiveKind::all_reduce);
}

// The DLRM pair: every rank's ET agrees with the sizes its Kineto step recorded.
TEST(EtPairing, DlrmKinetoAndEtAgree) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(trace_dir() / "dlrm_pytorch_et")) files.push_back(e.path());
  files.push_back(trace_dir() / "dlrm_kineto" / "worker3_step_12.1694128201557.pt.trace.json.gz");
  const TraceFiles read = read_trace_files(files);
  ASSERT_EQ(read.timed.size(), 1u);
  ASSERT_EQ(read.execution_traces.size(), 8u);
  RankStep step = summarize_step(read.timed[0], "ProfilerStep#10");
  for (const PyTorchEt& et : read.execution_traces) {
    if (et.rank != 3) continue;
    const EtPairing p = fill_from_execution_trace(step, et);
    EXPECT_EQ(p.unpaired, "");
    EXPECT_EQ(p.agreed, 8);
    EXPECT_EQ(p.filled, 0);
    EXPECT_EQ(p.differed, 0);
  }
}

// A 2023-style step whose all-reduce bucket (a TensorList) has no recorded size, and its ET: the
// bucket of 1000 and 24 float is 4096 B, its group of 4 ranks.
constexpr const char* kStepWithoutSizes = R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 40, "pid": 1, "tid": 1},
  {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 3, "dur": 3, "pid": 1, "tid": 1,
   "args": {"Input Dims": [[]], "Input type": ["GenericList"]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 4, "dur": 1, "pid": 1, "tid": 1,
   "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "ts": 5, "dur": 20,
   "args": {"stream": 40, "correlation": 2}}
]})";
constexpr const char* kItsEt = R"({"schema": "1.1.0-chakra.0.0.4", "nodes": [
  {"id": 2, "name": "ProfilerStep#1", "ctrl_deps": 1, "inputs": {"values": []}, "attrs": []},
  {"id": 5, "name": "record_param_comms", "ctrl_deps": 4,
   "inputs": {"values": [[[9, 9, 0, 1000, 4, "cuda:0"], [10, 10, 0, 24, 4, "cuda:0"]], 7, ["0", "default_pg"],
                         0, "allreduce", [], [], 0, 1, 4]},
   "attrs": [{"name": "pg_name", "type": "string", "value": "0"}, {"name": "pg_size", "type": "uint64", "value": 4}]}
]})";

TEST(EtPairing, FillsWhatTheProfilerTraceLacks) {
  const test::ScratchDir dir;
  const TraceFiles read = read_trace_files({dir.write("kineto.json", kStepWithoutSizes), dir.write("et.json", kItsEt)});
  ASSERT_EQ(read.timed.size(), 1u);
  RankStep step = summarize_step(read.timed[0], "ProfilerStep#1");
  ASSERT_EQ(step.unknown_sizes(), 1);
  const EtPairing p = fill_from_execution_trace(step, read.execution_traces.at(0));
  EXPECT_EQ(p.filled, 1);
  EXPECT_EQ(step.unknown_sizes(), 0);
  EXPECT_EQ(step.collectives[0].collective.bytes, 4096);
  EXPECT_EQ(step.collectives[0].collective.size_source, SizeSource::execution_trace);
  EXPECT_EQ(step.collectives[0].collective.group_size, 4);
  EXPECT_EQ(read.execution_traces[0].world_size, 4);
  // An ET of another sequence (a broadcast where the step ran an all-reduce) is not used.
  std::string other = kItsEt;
  other.replace(other.find("\"allreduce\""), 11, "\"broadcast\"");
  RankStep again = summarize_step(read.timed[0], "ProfilerStep#1");
  const EtPairing q = fill_from_execution_trace(again, read_et(dir.write("other.json", other)));
  EXPECT_EQ(q.unpaired, "its 1 collectives are not the step's 1 (kinds in order)");
  EXPECT_EQ(again.unknown_sizes(), 1);
}

TEST(PyTorchEt, BadTracesNameTheFile) {
  const test::ScratchDir dir;
  const char* no_name = R"({"schema": "1.0.1", "nodes": [{"id": 1, "name": "record_param_comms", "inputs": [1, 2]}]})";
  InputErrorInfo e = test::error_of([&] { read_et(dir.write("a.json", no_name)); });
  EXPECT_EQ(e.field, "nodes[0].inputs");
  const char* no_id = R"({"schema": "1.0.1", "nodes": [{"name": "ProfilerStep#1"}]})";
  e = test::error_of([&] { read_et(dir.write("b.json", no_id)); });
  EXPECT_EQ(e.field, "nodes[0].id");
  e = test::error_of([&] { read_trace_files({dir.write("c.json", R"({"nodes": []})")}); });
  EXPECT_EQ(e.field, "traceEvents");
  EXPECT_NE(e.file.find("c.json"), std::string::npos);
}

// `dtsim import` of both DLRM folders pairs each rank with its ET; of ETs alone, lists their
// collectives and replays nothing.
TEST(ImportCommand, PairsKinetoTracesWithTheirEts) {
  const test::ScratchDir dir;
  const auto json_file = dir.path() / "import.json";
  const test::CliResult r = test::run_dtsim("import " + (trace_dir() / "dlrm_kineto").string() + " " +
                                            (trace_dir() / "dlrm_pytorch_et").string() + " --no-replay --json " +
                                            json_file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_file);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j["execution_trace_pairing"].size(), 8u);
  for (const nlohmann::json& p : j["execution_trace_pairing"]) EXPECT_EQ(p["agreed"], 8) << p.dump();

  const test::CliResult alone =
      test::run_dtsim("import " + (trace_dir() / "param_et").string() + " --step 5 --json " + json_file.string());
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_NE(alone.output.find("nothing to replay"), std::string::npos) << alone.output;
  std::ifstream in2(json_file);
  const nlohmann::json k = nlohmann::json::parse(in2);
  EXPECT_TRUE(k["measured_step_s"].is_null());
  EXPECT_EQ(k["execution_traces"][0]["steps"][0]["collectives"][2]["bytes"], 2049000 * 4.0);
  // A replay flag with ETs alone is refused, not ignored.
  const test::CliResult flagged = test::run_dtsim("import " + (trace_dir() / "param_et").string() + " --ranks 4");
  EXPECT_EQ(flagged.exit_code, 2);
  EXPECT_NE(flagged.output.find("--ranks"), std::string::npos) << flagged.output;
  EXPECT_NE(flagged.output.find("execution traces only"), std::string::npos) << flagged.output;
}

}  // namespace
}  // namespace dtsim

// dtsim-profile record without a GPU: the NCCL profiler plugin driven through its ncclProfiler_v4
// table, the recording's process files read strictly, turned into Kineto traces and read back by
// dtsim import, and the job run with the recorder's variables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "kineto_from_recording.hpp"
#include "kineto_trace.hpp"
#include "nccl_profiler_abi.hpp"
#include "recorded_process.hpp"
#include "recording_session.hpp"
#include "recording_sink.hpp"
#include "step_summary.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

using namespace dtsim::profiler::record;
using json = nlohmann::json;

// The descriptor's layout by the C rules on LP64: uint8_t at 0, the pointer at 8, int at 16, the
// union (8-aligned) at 24; coll: seqNumber 24, func 32, sendBuff 40, recvBuff 48, count 56,
// root 64, datatype 72, nChannels 80, nWarps 81, algo 88, proto 96; p2p: func 24, buff 32,
// datatype 40, count 48, peer 56.
TEST(NcclProfilerPlugin, DescriptorHasTheV4Layout) {
  using D = ncclProfilerEventDescr_v4_t;
  EXPECT_EQ(offsetof(D, parentObj), 8u);
  EXPECT_EQ(offsetof(D, rank), 16u);
  EXPECT_EQ(offsetof(D, coll.seqNumber), 24u);
  EXPECT_EQ(offsetof(D, coll.count), 56u);
  EXPECT_EQ(offsetof(D, coll.root), 64u);
  EXPECT_EQ(offsetof(D, coll.datatype), 72u);
  EXPECT_EQ(offsetof(D, coll.proto), 96u);
  EXPECT_EQ(offsetof(D, p2p.count), 48u);
  EXPECT_EQ(offsetof(D, p2p.peer), 56u);
  EXPECT_EQ(sizeof(D), 104u);
  EXPECT_EQ(offsetof(ncclProfiler_v4_t, finalize), 5 * sizeof(void*));
}

uint64_t g_fake_ns = 0;
uint64_t fake_clock() { return g_fake_ns += 1000; }

// NCCL's calls as a v4 NCCL makes them: a communicator of 4 ranks (this one rank 2), a group with
// an all-reduce of 1,024 floats, then a lone send; the file read back has both, in their groups.
TEST(NcclProfilerPlugin, WritesCommunicatorAndCallsThroughItsTable) {
  const test::ScratchDir dir;
  const auto file = dir.path() / "process-1.jsonl";
  auto sink = std::make_unique<RecordingSink>(file);
  sink->set_clock(fake_clock);
  replace_process_sink(std::move(sink));
  g_fake_ns = 0;

  ncclProfiler_v4_t& p = ncclProfiler_v4;
  void* context = nullptr;
  int mask = 0;
  ASSERT_EQ(p.init(&context, &mask, "", 0xabcull, 1, 4, 2, nullptr), 0);
  EXPECT_EQ(mask, kNcclProfileGroup | kNcclProfileColl | kNcclProfileP2p);
  ncclProfilerEventDescr_v4_t group{};
  group.type = kNcclProfileGroup;
  void* group_handle = nullptr;
  p.startEvent(context, &group_handle, &group);
  ASSERT_NE(group_handle, nullptr);
  ncclProfilerEventDescr_v4_t coll{};
  coll.type = kNcclProfileColl;
  coll.parentObj = group_handle;
  coll.rank = 2;
  coll.coll.func = "AllReduce";
  coll.coll.count = 1024;
  coll.coll.datatype = "ncclFloat32";
  coll.coll.seqNumber = 7;
  void* handle = nullptr;
  p.startEvent(context, &handle, &coll);
  p.stopEvent(handle);
  p.stopEvent(group_handle);
  ncclProfilerEventDescr_v4_t send{};
  send.type = kNcclProfileP2p;
  send.p2p.func = "Send";
  send.p2p.count = 16;
  send.p2p.datatype = "ncclBfloat16";
  send.p2p.peer = 3;
  p.startEvent(context, &handle, &send);
  p.finalize(context);
  replace_process_sink(nullptr);

  const RecordedProcess r = read_recorded_process(file);
  ASSERT_EQ(r.communicators.size(), 1u);
  EXPECT_EQ(r.communicators[0].comm, 0xabcu);
  EXPECT_EQ(r.communicators[0].ranks, 4);
  EXPECT_EQ(r.communicators[0].rank, 2);
  ASSERT_EQ(r.nccl.size(), 2u);
  EXPECT_EQ(r.nccl[0].func, "AllReduce");
  EXPECT_EQ(r.nccl[0].count, 1024);
  EXPECT_EQ(r.nccl[0].group, reinterpret_cast<uintptr_t>(group_handle));
  EXPECT_EQ(r.nccl[0].start_ns, 2000u);  // the fake clock's second reading (the first: init)
  EXPECT_EQ(r.nccl[1].func, "Send");
  EXPECT_EQ(r.nccl[1].peer, 3);
  EXPECT_EQ(r.nccl[1].group, 0u);
  EXPECT_EQ(nccl_datatype_bytes(r.nccl[1].datatype), 2);
}

constexpr uint64_t kBaseNs = 1'000'000'000'000;
constexpr uint64_t kStepNs = 1'200'000;  // a 1,000 us GEMM, then a 200 us all-reduce

// CUPTI names kernels as compiled: NCCL 2.19+'s all-reduce kernel, mangled.
constexpr const char* kNcclKernelMangled =
    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";

// One rank of a 2-rank DDP job as the recorder writes it: three steps, each a GEMM launched at
// T, an all-reduce of 1 Mi floats called at T + 20 us and launched at T + 30 us; the GEMM runs
// T + 10 .. T + 1,010 us, the NCCL kernel T + 1,010 .. T + 1,210 us.
std::string ddp_rank_lines(int rank, int steps = 3) {
  std::string s = fmt::format(
      R"({{"type":"process","pid":{},"host":"node0","rank":"{}","world_size":"2","local_rank":"{}"}})"
      "\n"
      R"({{"type":"device","id":{},"name":"NVIDIA H100 80GB HBM3","memory_bytes":85520809984}})"
      "\n"
      R"({{"type":"communicator","comm":77,"name":"","ranks":2,"rank":{},"nodes":1}})"
      "\n",
      100 + rank, rank, rank, rank, rank);
  for (int i = 0; i < steps; ++i) {
    const uint64_t t = kBaseNs + i * kStepNs;
    s += fmt::format(
        R"({{"type":"api","name":"cudaLaunchKernel","start_ns":{},"end_ns":{},"thread":1,"correlation":{}}})"
        "\n"
        R"({{"type":"kernel","name":"ampere_sgemm_128x64_nn","start_ns":{},"end_ns":{},"device":{},"stream":7,)"
        R"("correlation":{}}})"
        "\n"
        R"({{"type":"nccl","comm":77,"rank":{},"group":{},"func":"AllReduce","count":1048576,)"
        R"("datatype":"ncclFloat32","root":0,"start_ns":{}}})"
        "\n"
        R"({{"type":"api","name":"cuLaunchKernelEx","start_ns":{},"end_ns":{},"thread":1,"correlation":{}}})"
        "\n"
        R"({{"type":"kernel","name":"{}","start_ns":{},"end_ns":{},)"
        R"("device":{},"stream":13,"correlation":{}}})"
        "\n",
        t, t + 5'000, 2 * i + 1, t + 10'000, t + 1'010'000, rank, 2 * i + 1, rank, 100 + i, t + 20'000, t + 30'000,
        t + 35'000, 2 * i + 2, kNcclKernelMangled, t + 1'010'000, t + 1'210'000, rank, 2 * i + 2);
  }
  return s;
}

// A process forked while recording (a data-loader worker) does not write its parent's buffered
// lines again when it exits (stdio copies the buffer into the child), and has no sink of its own
// until it records (DTSIM_RECORD_DIR is not set here). The file keeps the process line and the
// one line the parent wrote, once.
TEST(RecordingSink, AForkedChildLeavesItsParentsLines) {
  const test::ScratchDir dir;
  const auto file = dir.path() / "process-1.jsonl";
  replace_process_sink(std::make_unique<RecordingSink>(file));
  process_sink()->write({{"type", "dropped"}, {"records", 5}});  // buffered, not yet in the file
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool own_sink = process_sink() != nullptr;
    std::fflush(nullptr);  // what exit() does with every open stream
    _exit(own_sink ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  process_sink()->write({{"type", "dropped"}, {"records", 6}});
  replace_process_sink(nullptr);
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(json::parse(lines[1])["records"], 5);
  EXPECT_EQ(json::parse(lines[2])["records"], 6);
}

// Steps from the period of the NCCL calls (one all-reduce each): from the call at T_i + 20 us to
// the next, 1,200 us, ProfilerStep#0 and #1 (the third call has no next). ProfilerStep#1 holds the
// all-reduce called in it and the GEMM launched at T_2: 1,000 us of compute, 200 us of NCCL.
TEST(RecordingConversion, GivesNcclKernelsTheirCallsAndFindsStepsFromThePeriod) {
  const test::ScratchDir dir;
  const RecordedProcess p = read_recorded_process(dir.write("process-100.jsonl", ddp_rank_lines(1)));
  const ConvertedRecording c = kineto_from_recording(p, {});
  EXPECT_EQ(c.rank, 1);
  EXPECT_EQ(c.world_size, 2);
  EXPECT_EQ(c.nccl_launches, 3u);
  EXPECT_EQ(c.nccl_kernels, 3u);
  EXPECT_EQ(c.matched, 3u);
  EXPECT_EQ(c.steps, 2u);
  EXPECT_NE(c.steps_from.find("every 1 launches"), std::string::npos) << c.steps_from;

  const KinetoTrace t = kineto_trace_from_json(dir.path() / "rank1.json", c.trace);
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.world_size, 2);
  EXPECT_EQ(t.gpu_name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(step_names(t), (std::vector<std::string>{"ProfilerStep#0", "ProfilerStep#1"}));
  for (const GpuActivity& a : t.gpu) {  // demangled, as Kineto writes it, and cut at '(' by the reader
    if (a.collective) {
      EXPECT_EQ(a.name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    }
  }
  const RankStep r = summarize_step(t, "ProfilerStep#1");
  EXPECT_NEAR(r.step_s, 1200e-6, 1e-9);
  EXPECT_NEAR(r.compute_s, 1000e-6, 1e-9);
  EXPECT_NEAR(r.collective_s, 200e-6, 1e-9);
  ASSERT_EQ(r.collectives.size(), 1u);
  const TraceCollective& ar = r.collectives[0].collective;
  EXPECT_EQ(ar.kind, TraceCollectiveKind::all_reduce);
  EXPECT_EQ(ar.bytes, 1048576.0 * 4);
  EXPECT_EQ(ar.group_size, 2);
  EXPECT_EQ(ar.size_source, SizeSource::kernel_args);
}

// A DDP-like run: a broadcast first, then buckets A, B, C three times: the period is 3 launches
// from launch 1, steps start at launches 1 and 4 (named by launch index over 3: #0 and #1).
TEST(RecordingConversion, PeriodSkipsTheWarmUpAndARecurringBucketSize) {
  RecordedProcess p;
  p.communicators.push_back({5, "", 4, 0, 1});
  auto call = [&](const char* func, double count, uint64_t t) {
    p.nccl.push_back({5, t, func, "ncclFloat32", count, 0, -1, t});  // one group per call
  };
  call("Broadcast", 10, 1);
  for (int i = 0; i < 3; ++i) {
    call("AllReduce", 100, 10 + 3 * i);
    call("AllReduce", 200, 11 + 3 * i);
    call("AllReduce", 200, 12 + 3 * i);  // B == C: a period of 1 would fit the last two alone
  }
  p.gpu.push_back({RecordedActivityKind::kernel, "k", 0, 0, 50, 0, 0, 0});
  const ConvertedRecording c = kineto_from_recording(p, {});
  EXPECT_EQ(c.steps, 2u);
  EXPECT_NE(c.steps_from.find("every 3 launches"), std::string::npos) << c.steps_from;
  std::vector<std::pair<std::string, long long>> steps;  // name, start in ns
  for (const json& e : c.trace["traceEvents"])
    if (e["cat"] == "user_annotation") steps.emplace_back(e["name"], std::llround(e["ts"].get<double>() * 1e3));
  EXPECT_EQ(steps, (std::vector<std::pair<std::string, long long>>{{"ProfilerStep#0", 10}, {"ProfilerStep#1", 13}}));
}

// NVTX ranges named by --step-range mark the steps; a group of sends and receives to every rank
// is an all-to-all of the bytes sent; a reduce-scatter's input is its count times the ranks.
TEST(RecordingConversion, StepRangesAllToAllAndReduceScatterSizes) {
  RecordedProcess p;
  p.communicators.push_back({9, "tp", 2, 0, 1});
  p.ranges.push_back({"train_step", 0, 1000, 1});
  p.ranges.push_back({"train_step", 1000, 2500, 1});
  for (int peer : {0, 1}) {
    p.nccl.push_back({9, 3, "Send", "ncclBfloat16", 100, -1, peer, 10});
    p.nccl.push_back({9, 3, "Recv", "ncclBfloat16", 100, -1, peer, 11});
  }
  p.nccl.push_back({9, 4, "ReduceScatter", "ncclFloat32", 50, 0, -1, 1100});
  p.gpu.push_back({RecordedActivityKind::kernel, "ncclDevKernel_SendRecv", 0, 20, 60, 0, 3, 1});
  p.gpu.push_back(
      {RecordedActivityKind::kernel, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", 0, 1200, 1300, 0, 3, 2});
  const ConvertedRecording c = kineto_from_recording(p, {"train_step"});
  EXPECT_EQ(c.steps, 2u);
  EXPECT_EQ(c.matched, 2u);
  std::vector<json> kernels;
  for (const json& e : c.trace["traceEvents"])
    if (e["cat"] == "kernel") kernels.push_back(e["args"]);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0]["Collective name"], "all_to_all");
  EXPECT_EQ(kernels[0]["In msg nelems"], 200);  // 2 sends of 100
  EXPECT_EQ(kernels[0]["Process Group Name"], "tp");
  EXPECT_EQ(kernels[1]["Collective name"], "reduce_scatter");
  EXPECT_EQ(kernels[1]["In msg nelems"], 100);  // 50 x 2 ranks
}

TEST(RecordedProcess, RefusesBadLinesNamingLineAndField) {
  const test::ScratchDir dir;
  const std::string head = R"({"type":"process","pid":1,"host":"h","rank":null,"world_size":null})" "\n";
  InputErrorInfo e = test::error_of([&] {
    read_recorded_process(dir.write("a.jsonl", head + R"({"type":"kernel","name":"k","start_ns":9,"end_ns":3,)"
                                                      R"("device":0,"stream":7,"correlation":1})" "\n"));
  });
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.field, "end_ns");
  e = test::error_of([&] { read_recorded_process(dir.write("b.jsonl", head + R"({"type":"kernel","name":"k",)")); });
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.found, "text that is not JSON (cut off?)");
  e = test::error_of([&] { read_recorded_process(dir.write("c.jsonl", head + R"({"type":"kernal"})" "\n")); });
  EXPECT_EQ(e.field, "type");
  e = test::error_of([&] {
    read_recorded_process(dir.write("d.jsonl", R"({"type":"process","pid":1,"host":"h","rank":"x"})" "\n"));
  });
  EXPECT_EQ(e.field, "rank");
  e = test::error_of([&] { read_recorded_process(dir.write("e.jsonl", "")); });
  EXPECT_EQ(e.found, "an empty file");
}

// The two ranks' process files become rank0/rank1 traces that dtsim import replays; the measured
// step is the period, 1,200 us; the replay runs at least the step's 1,000 us GEMM.
TEST(RecordingSession, WritesRankTracesDtsimImportReplays) {
  const test::ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "raw");
  dir.write("raw/process-100.jsonl", ddp_rank_lines(0));
  dir.write("raw/process-101.jsonl", ddp_rank_lines(1));
  dir.write("raw/process-102.jsonl", R"({"type":"process","pid":102,"host":"h","rank":null,"world_size":null})" "\n");
  const std::vector<RankTrace> traces = write_rank_traces(dir.path(), {});
  ASSERT_EQ(traces.size(), 2u);  // the process without GPU work is left out
  EXPECT_EQ(traces[0].file, dir.path() / "rank0.pt.trace.json");
  const auto json_file = dir.path() / "import.json";
  const test::CliResult r = test::run_dtsim("import " + traces[0].file.string() + " " + traces[1].file.string() +
                                            " --json " + json_file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_file);
  const json j = json::parse(in);
  EXPECT_NEAR(j["measured_step_s"].get<double>(), 1200e-6, 1e-9);
  EXPECT_GE(j["replayed_step_s"].get<double>(), 1000e-6);

  dir.write("raw/process-103.jsonl", ddp_rank_lines(1));
  const InputErrorInfo e = test::error_of([&] { write_rank_traces(dir.path(), {}); });
  EXPECT_EQ(e.field, "rank");
}

// The command runs with the recorder's variables (both libraries the same absolute path) and its
// exit status comes back; a command that does not exist gives 127.
TEST(RecordingSession, RunsTheCommandWithTheRecorderInjected) {
  const test::ScratchDir dir;
  const RecordSettings s{dir.path() / "out", dir.path() / "libdtsim_record.so", "/opt/cupti/libcupti.so"};
  const std::string probe = (dir.path() / "env.txt").string();
  const int status = run_recorded(
      {"/bin/sh", "-c", "echo \"$CUDA_INJECTION64_PATH $NCCL_PROFILER_PLUGIN $NVTX_INJECTION64_PATH\" > " + probe +
                            "; test -d \"$DTSIM_RECORD_DIR/raw\" && exit 3"},
      s);
  EXPECT_EQ(status, 3);
  std::ifstream in(probe);
  std::string line;
  std::getline(in, line);
  const std::string lib = (dir.path() / "libdtsim_record.so").string();
  EXPECT_EQ(line, lib + " " + lib + " /opt/cupti/libcupti.so");
  EXPECT_EQ(run_recorded({"/nonexistent/dtsim-test-command"}, s), 127);
}

}  // namespace
}  // namespace dtsim

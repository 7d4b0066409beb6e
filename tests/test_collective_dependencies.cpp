// Collectives keep NCCL's data dependencies (issue 46): no rank's all-reduce, all-gather,
// reduce-scatter or all-to-all ends before the last rank of its group has entered it and the data
// has gone round from there, folded or not; work after a collective waits for a late rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

// `nodes` DGX H100 nodes on the NDR fat-tree, 8 layers of GPT-3 1.3B, micro-batch 1.
Scenario gpt_on_h100_nodes(int nodes, int tp, int pp, int dp, int global_batch) {
  Scenario s = test::preset_on_h100_nodes("gpt3-1.3b", nodes, global_batch);
  s.model.layers = 8;
  s.parallelism.tp = tp, s.parallelism.pp = pp, s.parallelism.dp = dp;
  return s;
}

EngineResult traced(const Scenario& s, bool fold) {
  SimulationOptions options;
  options.record_trace = true;
  options.fold_replicas = fold;
  return simulate(s, options).engine;
}

// Per rank, the collective spans (blocking or on the communication stream) of the group kind
// ("dp", "tp"), in time order.
std::map<int, std::vector<TraceSpan>> collectives_of(const EngineResult& r, const std::string& group_kind) {
  std::map<int, std::vector<TraceSpan>> out;
  for (const TraceSpan& s : r.spans)
    if ((s.kind == SpanKind::collective || s.kind == SpanKind::overlapped_collective) && s.group >= 0 &&
        r.group_kinds[size_t(s.group)] == group_kind)
      out[s.rank].push_back(s);
  for (auto& [rank, spans] : out)
    std::sort(spans.begin(), spans.end(), [](const TraceSpan& a, const TraceSpan& b) { return a.start_s < b.start_s; });
  return out;
}

// The case: GPT-3 1.3B on 16 A100 (2 DGX A100, DP 16, 4 micro-batches of 4), GPU 3
// computing 1.5x slower. Its ring neighbours are GPUs 2 and 4; before the fix the other 13 left
// the gradient all-reduce before GPU 3 entered it.
TEST(CollectiveDependencies, NoRankLeavesTheAllReduceBeforeTheStragglerEntered) {
  Scenario s = test::preset_on_h100_nodes("gpt3-1.3b", 2, 64);
  s.training.micro_batch = 4;
  s.parallelism.dp = 16;
  s.cluster.gpu = "a100-80gb-sxm";
  s.cluster.topology = load_topology(test::source_dir() / "topologies" / "dgx-a100-hdr-fattree.yaml");
  const EngineResult healthy = traced(s, false);
  s.events.push_back(StragglerEvent{.gpu = 3, .slowdown = 1.5});
  const EngineResult slowed = traced(s, false);
  const auto healthy_dp = collectives_of(healthy, "dp"), dp = collectives_of(slowed, "dp");
  ASSERT_EQ(dp.size(), 16u);
  const TraceSpan& late = dp.at(3).back();
  // The ring's own time: the last all-reduce of the healthy run, where every rank enters at once.
  const double ring_s = healthy_dp.at(0).back().end_s - healthy_dp.at(0).back().start_s;
  for (const auto& [rank, spans] : dp) {
    EXPECT_GE(spans.back().end_s, late.start_s + 0.99 * ring_s) << "GPU " << rank;
    EXPECT_NEAR(spans.back().end_s, late.end_s, 1e-9) << "GPU " << rank;
  }
}

// Folded and in full, every simulated rank's collectives end at the same times.
TEST(CollectiveDependencies, FoldedAndFullRunsEndEachCollectiveAtTheSameTime) {
  std::vector<Scenario> cases;
  cases.push_back(gpt_on_h100_nodes(2, 1, 1, 16, 16));
  cases.back().events.push_back(StragglerEvent{.gpu = 3, .slowdown = 1.5});
  cases.push_back(gpt_on_h100_nodes(2, 2, 1, 8, 16));
  cases.back().events.push_back(StragglerEvent{.gpu = 5, .slowdown = 1.3});
  cases.push_back(gpt_on_h100_nodes(4, 2, 2, 8, 32));
  cases.back().events.push_back(SlowLinkEvent{.link = EventLink::nic, .node = 2, .nic = 0, .bandwidth_fraction = 0.05});
  for (size_t c = 0; c < cases.size(); ++c) {
    const EngineResult folded = traced(cases[c], true), full = traced(cases[c], false);
    for (const std::string kind : {"dp", "tp"}) {
      const auto a = collectives_of(folded, kind), b = collectives_of(full, kind);
      for (const auto& [rank, spans] : a) {
        ASSERT_EQ(spans.size(), b.at(rank).size()) << "case " << c << " GPU " << rank;
        for (size_t i = 0; i < spans.size(); ++i)
          EXPECT_NEAR(spans[i].end_s, b.at(rank)[i].end_s, 1e-6 * b.at(rank)[i].end_s)
              << "case " << c << " " << kind << " GPU " << rank << " collective " << i;
      }
    }
  }
}

// The first compute span of `rank` that starts at or after `t_s`.
const TraceSpan* compute_after(const EngineResult& r, int rank, double t_s) {
  const TraceSpan* next = nullptr;
  for (const TraceSpan& s : r.spans)
    if (s.rank == rank && s.kind == SpanKind::compute && s.start_s >= t_s - 1e-12 && (!next || s.start_s < next->start_s))
      next = &s;
  return next;
}

// FSDP: a layer's forward waits for its parameters' all-gather, which waits for the straggler
// (GPU 3 of 16, GPU 9 far from it on the ring). In a tensor-parallel group of 8 of a two-stage
// pipeline, GPU 5 is no ring neighbour of the slow GPU 1. Each collective, and the compute after
// it, ends no earlier than the late GPU's entry plus the collective's own time (without the
// straggler).
TEST(CollectiveDependencies, WorkAfterACollectiveWaitsForTheStraggler) {
  Scenario fsdp = gpt_on_h100_nodes(2, 1, 1, 16, 16);
  fsdp.parallelism.zero_stage = 3;
  Scenario pipeline = gpt_on_h100_nodes(2, 8, 2, 1, 16);
  for (auto [s, kind, late, other] :
       {std::tuple<Scenario, std::string, int, int>{fsdp, "dp", 3, 9}, {pipeline, "tp", 1, 5}}) {
    const auto healthy = collectives_of(traced(s, false), kind);
    s.events.push_back(StragglerEvent{.gpu = late, .slowdown = 1.5});
    const EngineResult r = traced(s, false);
    const auto spans = collectives_of(r, kind);
    ASSERT_EQ(spans.at(late).size(), spans.at(other).size());
    ASSERT_EQ(healthy.at(other).size(), spans.at(other).size());
    int checked = 0;
    for (size_t i = 0; i < spans.at(other).size(); ++i) {
      const double own_s = healthy.at(other)[i].end_s - healthy.at(other)[i].start_s;
      const double ready_s = spans.at(late)[i].start_s + 0.9 * own_s;
      EXPECT_GE(spans.at(other)[i].end_s, ready_s) << kind << " collective " << i;
      if (const TraceSpan* next = compute_after(r, other, spans.at(other)[i].end_s)) {
        EXPECT_GE(next->start_s, ready_s) << kind << " collective " << i;
        ++checked;
      }
    }
    EXPECT_GT(checked, 0) << kind;
  }
}

}  // namespace
}  // namespace dtsim

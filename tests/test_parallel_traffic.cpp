// What context, expert and tensor parallelism put on the wire, per iteration of rank 0, against
// formulas written here; and that TP communication overlap hides the TP collectives.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "scenario_consistency.hpp"
#include "simulation.hpp"
#include "test_support.hpp"
#include "workload_builder.hpp"

namespace dtsim {
namespace {

Scenario on_one_h100_node(const std::string& preset, int tp, int cp, int dp, int ep, int global_batch) {
  Scenario s = test::preset_on_h100_nodes(preset, 1, global_batch);
  s.parallelism.tp = tp, s.parallelism.cp = cp, s.parallelism.dp = dp, s.parallelism.ep = ep;
  return s;
}

// Calls x bytes of rank 0's collectives on groups of `kind` ("tp", "cp", "ep", ...), by collective.
std::map<CollectiveKind, double> bytes_on(const Scenario& s, const std::string& kind) {
  std::map<CollectiveKind, double> bytes;
  for (const Task& t : test::rank0_collectives(s, kind)) bytes[t.collective] += t.calls * t.bytes;
  return bytes;
}

// Llama-2-70B (80 layers, 8 KV heads of 128, sequence 4096), tp 2, cp 2, m = 4 / (2 x 1) = 2.
// Per layer and micro-batch, ring attention gathers K and V of the whole sequence for the
// rank's 8 / tp = 4 KV heads, 2 x 4096 x 4 x 128 x 2 B, and reduce-scatters their gradients;
// full recompute gathers them once more in the backward pass.
TEST(ContextParallelTraffic, GathersKeysAndValuesOfTheWholeSequencePerLayer) {
  Scenario s = on_one_h100_node("llama2-70b", 2, 2, 2, 1, 4);
  const double kv_bytes = 2.0 * 4096 * (8 / 2) * 128 * 2;
  const double per_iteration = 2 /*m*/ * 80 /*layers*/ * kv_bytes;
  std::map<CollectiveKind, double> cp = bytes_on(s, "cp");
  EXPECT_DOUBLE_EQ(cp[CollectiveKind::all_gather], per_iteration);
  EXPECT_DOUBLE_EQ(cp[CollectiveKind::reduce_scatter], per_iteration);
  EXPECT_EQ(cp.count(CollectiveKind::all_reduce), 0u);

  s.training.recompute = Recompute::full;
  cp = bytes_on(s, "cp");
  EXPECT_DOUBLE_EQ(cp[CollectiveKind::all_gather], 2 * per_iteration);
  EXPECT_DOUBLE_EQ(cp[CollectiveKind::reduce_scatter], per_iteration);
}

// Mixtral 8x7B (32 MoE layers, hidden 4096, top-2, capacity factor 1.0, sequence 4096), ep 4 over
// dp 4, m = 8 / 4 = 2. Per MoE layer and micro-batch: dispatch and combine all-to-alls of the
// routed tokens, 4096 x 2 x 1.0 x 4096 x 2 B each, in the forward pass and again in the backward.
TEST(ExpertParallelTraffic, DispatchAndCombineAllToAllsOfTheRoutedTokens) {
  Scenario s = on_one_h100_node("mixtral-8x7b", 1, 1, 4, 4, 8);
  const double routed_bytes = 4096.0 * 2 * 1.0 * 4096 * 2;
  const double per_iteration = 2 /*m*/ * 32 /*layers*/ * (2 + 2) * routed_bytes;
  EXPECT_DOUBLE_EQ(bytes_on(s, "ep")[CollectiveKind::all_to_all], per_iteration);

  s.training.recompute = Recompute::full;  // the forward's two are redone before the backward
  EXPECT_DOUBLE_EQ(bytes_on(s, "ep")[CollectiveKind::all_to_all], per_iteration * 6 / 4);

  s.parallelism.ep = 1;  // every expert on every rank: no all-to-all
  EXPECT_EQ(bytes_on(s, "ep").count(CollectiveKind::all_to_all), 0u);
}

// GPT-3 13B on 8 H100 with tp 8 and sequence parallelism (Megatron refuses tp_comm_overlap
// without it), m = 4. Without tp_comm_overlap only the backward's collectives beside the
// column-parallel GEMMs are hidden; with it every layer's are, and what stays exposed is the
// embedding's and LM head's collectives and the backward's hidden ones where they outlast its GEMMs.
TEST(TensorParallelOverlap, HidesTheCollectivesBehindLongerCompute) {
  Scenario s = on_one_h100_node("gpt3-13b", 8, 1, 1, 1, 4);
  s.parallelism.sequence_parallel = true;
  const SimulationResult plain = simulate(s);
  const RankTimes& r = plain.engine.ranks[0];
  EXPECT_NEAR(plain.engine.iteration_s, r.compute_s + r.communication_s, 1e-6 * plain.engine.iteration_s);
  ASSERT_GT(r.communication_s, 0.05 * r.compute_s);  // enough to see it shrink

  s.parallelism.tp_comm_overlap = true;
  const SimulationResult overlapped = simulate(s);
  const RankTimes& o = overlapped.engine.ranks[0];
  EXPECT_NEAR(overlapped.engine.iteration_s, o.compute_s + o.communication_s, 1e-6 * overlapped.engine.iteration_s);
  // The compute is slowed by the SMs hidden collectives hold while they run (24 of the H100's 132).
  const double share = 24.0 / 132;
  const double unslowed_s = r.compute_s - share * r.communication_by_kind.at("tp").hidden_s();
  EXPECT_NEAR(o.compute_s, unslowed_s + share * o.communication_by_kind.at("tp").hidden_s(), 0.005 * unslowed_s);
  EXPECT_LT(o.communication_s, 0.2 * r.communication_s);
  // Per layer and micro-batch, 2 all-gathers and 2 reduce-scatters forward; backward, the 2
  // all-gathers of the gradients entering the row-parallel outputs, and beside the column-parallel
  // GEMMs the inputs' 2 all-gathers again and the input gradients' 2 reduce-scatters: all 10
  // overlap. The embedding's reduce-scatter and the LM head's all-gather and reduce-scatter (one
  // each per micro-batch) stay blocking, as Megatron's TP overlap covers layers only.
  int overlapped_calls = 0, blocking_calls = 0;
  for (const Task& t : test::rank0_collectives(s, "tp")) (t.overlapped ? overlapped_calls : blocking_calls) += t.calls;
  EXPECT_EQ(overlapped_calls, 4 /*m*/ * 40 /*layers*/ * (4 + 6));
  EXPECT_EQ(blocking_calls, 4 * 3);
}

// Megatron-LM and PyTorch's async TP overlap only the collectives of sequence parallelism.
TEST(TensorParallelOverlap, IsRefusedWithoutSequenceParallelism) {
  Scenario s = on_one_h100_node("gpt3-13b", 8, 1, 1, 1, 4);
  s.parallelism.tp_comm_overlap = true;
  const InputErrorInfo e = test::error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(e.field, "parallelism.tp_comm_overlap");
  EXPECT_EQ(e.found, "true with sequence_parallel false");
  s.parallelism.sequence_parallel = true;
  EXPECT_NO_THROW(check_scenario_consistency(s));
}

// PyTorch's async TP (TorchTitan's Llama under torch.compile, sequence parallel) hides every
// layer's all-gathers and reduce-scatters, 2 + 2 per layer each way, m = 4 x 40 layers of each.
// With float8 rowwise scales Inductor fuses only the matmul-reduce-scatters (pytorch/pytorch
// issue 149990): the same all-gathers wait, the reduce-scatters stay hidden.
TEST(TensorParallelOverlap, PyTorchAsyncTpWithRowwiseFloat8LeavesTheAllGathersWaiting) {
  Scenario s = on_one_h100_node("gpt3-13b", 8, 1, 1, 1, 4);
  s.training.framework = Framework::torch_compile;
  s.training.precision = Precision::fp8;
  s.parallelism.sequence_parallel = true;
  s.parallelism.tp_comm_overlap = true;
  // Calls of rank 0's collectives on the TP group, by kind and hidden or not.
  auto tp_calls = [&](Fp8Recipe recipe) {
    s.training.fp8_recipe = recipe;
    std::map<std::pair<CollectiveKind, bool>, int> calls;
    for (const Task& t : test::rank0_collectives(s, "tp")) calls[{t.collective, t.overlapped}] += t.calls;
    return [calls](CollectiveKind kind, bool hidden) {
      const auto it = calls.find({kind, hidden});
      return it == calls.end() ? 0 : it->second;
    };
  };
  const int per_kind_and_direction = 4 /*m*/ * 40 /*layers*/ * 2;
  auto tensorwise = tp_calls(Fp8Recipe::tensorwise);
  EXPECT_EQ(tensorwise(CollectiveKind::all_gather, true), 2 * per_kind_and_direction);
  EXPECT_EQ(tensorwise(CollectiveKind::reduce_scatter, true), 2 * per_kind_and_direction);
  auto rowwise = tp_calls(Fp8Recipe::rowwise);
  EXPECT_EQ(rowwise(CollectiveKind::all_gather, true), 0);
  EXPECT_EQ(rowwise(CollectiveKind::all_gather, false),
            tensorwise(CollectiveKind::all_gather, false) + 2 * per_kind_and_direction);
  EXPECT_EQ(rowwise(CollectiveKind::reduce_scatter, true), 2 * per_kind_and_direction);
}

}  // namespace
}  // namespace dtsim

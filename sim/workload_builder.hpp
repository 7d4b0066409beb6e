#pragma once
// Model x parallelism x schedule -> one program per GPU (DESIGN.md "WorkloadBuilder").
#include <vector>

#include "compute_model.hpp"
#include "program.hpp"
#include "scenario.hpp"

namespace dtsim {

// Megatron-LM's default rank order: tensor-parallel rank fastest, then data-parallel, then stage.
struct RankCoord {
  int tp_rank = 0;
  int dp_rank = 0;
  int stage = 0;
};
RankCoord rank_coord(const ParallelismConfig& p, int rank);
int rank_of(const ParallelismConfig& p, RankCoord c);

// Cost of one micro-batch pass on one stage (all its layers, plus embedding or LM head).
struct StagePass {
  double compute_s = 0;
  double flops = 0;
  int tp_allreduces = 0;
};

// Everything the program assembly needs, per stage; tests can fill it by hand.
struct WorkloadInputs {
  int micro_batches = 1;
  std::vector<StagePass> forward;   // [stage]
  std::vector<StagePass> backward;  // [stage], recompute included
  double tp_allreduce_bytes = 0;    // per call
  double p2p_bytes = 0;             // activation (or its gradient) sent between stages, per rank
  std::vector<double> gradient_bytes;  // [stage] data-parallel all-reduce payload per rank
  std::vector<double> optimizer_s;     // [stage]
};

WorkloadInputs workload_inputs(const Scenario& s, const ComputeModel& compute);
Workload assemble_workload(const ParallelismConfig& p, const WorkloadInputs& in);
inline Workload build_workload(const Scenario& s, const ComputeModel& compute) {
  return assemble_workload(s.parallelism, workload_inputs(s, compute));
}

double sum_time_s(const std::vector<Operator>& ops, const ComputeModel& compute);

}  // namespace dtsim

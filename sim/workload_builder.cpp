#include "workload_builder.hpp"

#include "pipeline_schedule.hpp"
#include "stage_layout.hpp"
#include "transformer_ops.hpp"

namespace dtsim {

RankCoord rank_coord(const ParallelismConfig& p, int rank) {
  return {rank % p.tp, (rank / p.tp) % p.dp, rank / (p.tp * p.dp)};
}

int rank_of(const ParallelismConfig& p, RankCoord c) { return c.tp_rank + p.tp * (c.dp_rank + p.dp * c.stage); }

double sum_time_s(const std::vector<Operator>& ops, const ComputeModel& compute) {
  double t = 0;
  for (const Operator& op : ops) t += compute.time_s(op);
  return t;
}

namespace {

void add(StagePass& pass, const std::vector<Operator>& ops, const ComputeModel& compute, int times = 1) {
  pass.compute_s += times * sum_time_s(ops, compute);
  pass.flops += times * sum_flops(ops);
}

}  // namespace

WorkloadInputs workload_inputs(const Scenario& s, const ComputeModel& compute) {
  const int pp = s.parallelism.pp;
  const int layers_per_stage = s.model.layers / pp;
  const Recompute recompute = s.training.recompute;
  const RankShape r = rank_shape(s);
  const bool tp_split = s.parallelism.tp > 1;

  WorkloadInputs in;
  in.micro_batches = s.micro_batches_per_replica();
  in.tp_allreduce_bytes = tp_allreduce_bytes(r);
  // Megatron scatters the boundary activation across TP ranks before the stage-to-stage send
  // (scatter_gather_tensors_in_pipeline) and all-gathers it over NVLink after; the all-gather
  // is not modelled.
  in.p2p_bytes = r.tokens() * r.hidden * r.elem_bytes / s.parallelism.tp;

  for (int stage = 0; stage < pp; ++stage) {
    StagePass fwd, bwd;
    add(fwd, layer_forward_ops(r), compute, layers_per_stage);
    add(bwd, layer_recompute_ops(r, recompute), compute, layers_per_stage);
    add(bwd, layer_backward_ops(r), compute, layers_per_stage);
    if (tp_split) {
      fwd.tp_allreduces = layers_per_stage * kTpAllReducesPerLayerForward;
      bwd.tp_allreduces =
          layers_per_stage * (kTpAllReducesPerLayerBackward + tp_allreduces_per_layer_recompute(recompute));
    }
    if (stage == 0) {
      add(fwd, embedding_forward_ops(r), compute);
      add(bwd, embedding_backward_ops(r), compute);
      if (tp_split) fwd.tp_allreduces += 1;  // vocab-parallel embedding sums its partial lookups
    }
    if (stage == pp - 1) {
      add(fwd, logits_forward_ops(r), compute);
      add(bwd, logits_backward_ops(r), compute);
      if (tp_split) bwd.tp_allreduces += 1;  // input grad of the vocab-parallel LM head
    }
    in.forward.push_back(fwd);
    in.backward.push_back(bwd);

    const double params = stage_parameters_per_rank(s, stage).total();
    in.gradient_bytes.push_back(params * gradient_element_bytes(s.training.precision));
    const Operator adam{"adam", OperatorKind::optimizer, 0, params * optimizer_bytes_per_parameter(s.training.precision)};
    in.optimizer_s.push_back(compute.time_s(adam));
  }
  return in;
}

namespace {

// Groups: one TP group per (stage, dp_rank), one DP group per (stage, tp_rank).
struct GroupIndex {
  std::vector<int> tp_group_of_rank, dp_group_of_rank;
};

GroupIndex make_groups(const ParallelismConfig& p, Workload& w) {
  const int n = p.tp * p.pp * p.dp;
  GroupIndex idx{std::vector<int>(n, -1), std::vector<int>(n, -1)};
  for (int stage = 0; stage < p.pp; ++stage) {
    if (p.tp > 1) {
      for (int d = 0; d < p.dp; ++d) {
        CommGroup g{"tp", {}};
        for (int t = 0; t < p.tp; ++t) g.ranks.push_back(rank_of(p, {t, d, stage}));
        for (int r : g.ranks) idx.tp_group_of_rank[r] = int(w.groups.size());
        w.groups.push_back(g);
      }
    }
    if (p.dp > 1) {
      for (int t = 0; t < p.tp; ++t) {
        CommGroup g{"dp", {}};
        for (int d = 0; d < p.dp; ++d) g.ranks.push_back(rank_of(p, {t, d, stage}));
        for (int r : g.ranks) idx.dp_group_of_rank[r] = int(w.groups.size());
        w.groups.push_back(g);
      }
    }
  }
  return idx;
}

}  // namespace

Workload assemble_workload(const ParallelismConfig& p, const WorkloadInputs& in) {
  Workload w;
  const GroupIndex groups = make_groups(p, w);
  const int n = p.tp * p.pp * p.dp;
  w.ranks.resize(n);
  for (int rank = 0; rank < n; ++rank) {
    const RankCoord c = rank_coord(p, rank);
    RankProgram& prog = w.ranks[rank];
    prog.stage = c.stage;
    const bool first = c.stage == 0, last = c.stage == p.pp - 1;
    const int prev = first ? -1 : rank_of(p, {c.tp_rank, c.dp_rank, c.stage - 1});
    const int next = last ? -1 : rank_of(p, {c.tp_rank, c.dp_rank, c.stage + 1});
    const int tp_group = groups.tp_group_of_rank[rank];

    for (const PipelineStep& step : one_f_one_b(c.stage, p.pp, in.micro_batches)) {
      const int mb = step.micro_batch;
      const Phase phase = step.forward ? Phase::forward : Phase::backward;
      const StagePass& pass = step.forward ? in.forward[c.stage] : in.backward[c.stage];
      const P2pChannel channel = step.forward ? P2pChannel::activations : P2pChannel::gradients;
      const int from = step.forward ? prev : next;
      const int to = step.forward ? next : prev;
      if (from >= 0)
        prog.tasks.push_back({.kind = TaskKind::recv, .phase = phase, .micro_batch = mb, .bytes = in.p2p_bytes,
                              .peer = from, .channel = channel});
      prog.tasks.push_back(
          {.kind = TaskKind::compute, .phase = phase, .micro_batch = mb, .compute_s = pass.compute_s, .flops = pass.flops});
      if (tp_group >= 0 && pass.tp_allreduces > 0)
        prog.tasks.push_back({.kind = TaskKind::collective, .phase = phase, .micro_batch = mb, .group = tp_group,
                              .calls = pass.tp_allreduces, .bytes = in.tp_allreduce_bytes});
      if (to >= 0)
        prog.tasks.push_back({.kind = TaskKind::send, .phase = phase, .micro_batch = mb, .bytes = in.p2p_bytes,
                              .peer = to, .channel = channel});
    }
    const int dp_group = groups.dp_group_of_rank[rank];
    if (dp_group >= 0)
      prog.tasks.push_back({.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = dp_group,
                            .bytes = in.gradient_bytes[c.stage]});
    prog.tasks.push_back({.kind = TaskKind::compute, .phase = Phase::optimizer, .compute_s = in.optimizer_s[c.stage]});
  }
  return w;
}

}  // namespace dtsim

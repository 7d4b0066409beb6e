#include "workload_builder.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "input_error.hpp"
#include "parameter_server_workload.hpp"
#include "pipeline_schedule.hpp"
#include "size_limits.hpp"
#include "stage_layout.hpp"

namespace dtsim {

RankCoord rank_coord(const ParallelismConfig& p, int rank) {
  RankCoord c;
  c.tp_rank = rank % p.tp;
  c.cp_rank = (rank / p.tp) % p.cp;
  c.dp_rank = (rank / (p.tp * p.cp)) % p.dp;
  c.stage = rank / (p.tp * p.cp * p.dp);
  return c;
}

int rank_of(const ParallelismConfig& p, RankCoord c) {
  return c.tp_rank + p.tp * (c.cp_rank + p.cp * (c.dp_rank + p.dp * c.stage));
}

const char* to_string(GroupRole g) {
  switch (g) {
    case GroupRole::tp: return "tp";
    case GroupRole::cp: return "cp";
    case GroupRole::ep: return "ep";
    case GroupRole::dp: return "dp";
    case GroupRole::expert_dp: return "edp";
  }
  return "?";
}

namespace {

constexpr int kRoles = 5;

// Every rank's group of each role (-1 where the group would have one rank). A group is keyed by
// the coordinates its members share.
class GroupIndex {
 public:
  GroupIndex(const ParallelismConfig& p, Workload& w) : of_rank_(kRoles, std::vector<int>(p.tp * p.cp * p.dp * p.pp, -1)) {
    const int n = p.tp * p.cp * p.dp * p.pp;
    const int ep = std::max(1, p.ep);
    for (int role = 0; role < kRoles; ++role) {
      std::map<std::vector<int>, std::vector<int>> members;  // key -> ranks in ring order
      for (int rank = 0; rank < n; ++rank) members[key(GroupRole(role), rank_coord(p, rank), ep)].push_back(rank);
      for (auto& [k, ranks] : members) {
        if (ranks.size() < 2) continue;
        for (int r : ranks) of_rank_[role][r] = int(w.groups.size());
        w.groups.push_back({to_string(GroupRole(role)), ranks});
      }
    }
  }
  int of(GroupRole role, int rank) const { return of_rank_[int(role)][rank]; }

 private:
  // What members of a group have in common; ranks are visited in rank order, so members of a
  // dp group are in (cp, dp) order and an expert-dp group holds the dp ranks equal modulo ep.
  static std::vector<int> key(GroupRole role, const RankCoord& c, int ep) {
    switch (role) {
      case GroupRole::tp: return {c.stage, c.dp_rank, c.cp_rank};
      case GroupRole::cp: return {c.stage, c.dp_rank, c.tp_rank};
      case GroupRole::ep: return {c.stage, c.tp_rank, c.cp_rank, c.dp_rank / ep};
      case GroupRole::dp: return {c.stage, c.tp_rank};
      case GroupRole::expert_dp: return {c.stage, c.tp_rank, c.dp_rank % ep};
    }
    return {};
  }
  std::vector<std::vector<int>> of_rank_;
};

double at(const std::vector<double>& v, size_t i) { return i < v.size() ? v[i] : 0.0; }
const StagePass& pass_at(const std::vector<StagePass>& v, size_t i) {
  // Never destroyed: no exit handler to register, which a forked simulation child could not do
  // while another thread of its parent held the exit handlers' lock at the fork.
  static const StagePass& kNone = *new StagePass;
  return i < v.size() ? v[i] : kNone;
}

class ProgramBuilder {
 public:
  ProgramBuilder(const ParallelismConfig& p, const WorkloadInputs& in, const GroupIndex& groups, int rank)
      : p_(p), in_(in), groups_(groups), rank_(rank), c_(rank_coord(p, rank)) {}

  RankProgram build(const std::vector<PipelineStep>& steps) {
    prog_.stage = c_.stage;
    // The last iteration's weights, gathered beside this one's first forward pass and waited for
    // at its end (steady state: the same all-gather as after the optimizer, one iteration later).
    if (overlapped_param_gather())
      add_parameter_gather(Phase::forward, steps.empty() ? -1 : steps[0].micro_batch, true);
    for (size_t i = 0; i < steps.size(); ++i) add_step(steps[i], i + 1 == steps.size());
    if (steps.empty()) add_gradient_sync_after({}, Phase::backward, -1);
    add_optimizer();
    return std::move(prog_);
  }

 private:
  int owner_of_chunk(int chunk) const {
    RankCoord peer = c_;
    peer.stage = stage_of_chunk(p_, chunk);
    return rank_of(p_, peer);
  }

  void collective(const PassCollective& c, Phase phase, int micro_batch) {
    const int group = groups_.of(c.group, rank_);
    if (group < 0 || c.bytes <= 0 || c.calls <= 0) return;
    prog_.tasks.push_back({.kind = TaskKind::collective, .phase = phase, .micro_batch = micro_batch, .group = group,
                           .collective = c.kind, .calls = c.calls, .bytes = c.bytes, .overlapped = c.overlapped,
                           .host_staged = c.host_staged, .priced = c.priced});
    if (c.overlapped) ++overlapped_issued_;
  }

  // Waits for the first `upto` overlapped collectives issued (all of them by default).
  void wait_overlapped(Phase phase, int micro_batch, int upto = -1) {
    if (upto < 0) upto = overlapped_issued_;
    if (upto <= overlapped_waited_) return;
    prog_.tasks.push_back({.kind = TaskKind::wait_overlapped, .phase = phase, .micro_batch = micro_batch,
                           .overlapped_done = upto});
    overlapped_waited_ = upto;
  }

  // Pass = [recv] [overlapped collectives] compute [blocking collectives] [wait] [send]; the
  // last pass of the iteration also starts the gradient reduction (see add_gradient_sync_after).
  void add_step(const PipelineStep& step, bool last_step) {
    const int chunks = model_chunks(p_);
    const int chunk = step.chunk * p_.pp + c_.stage;
    const int mb = step.micro_batch;
    const bool forward = step.is_forward();
    const Phase phase = forward ? Phase::forward : Phase::backward;
    StagePass pass = pass_for(step, chunk);
    const P2pChannel channel = forward ? P2pChannel::activations : P2pChannel::gradients;
    const bool weight_only = step.pass == PassKind::backward_weight;
    const int from_chunk = weight_only ? -1 : forward ? chunk - 1 : chunk + 1;
    const int to_chunk = weight_only ? -1 : forward ? chunk + 1 : chunk - 1;
    if (from_chunk >= 0 && from_chunk < chunks)
      prog_.tasks.push_back({.kind = TaskKind::recv, .phase = phase, .micro_batch = mb, .bytes = in_.p2p_bytes,
                             .peer = owner_of_chunk(from_chunk), .channel = channel});
    for (const PassCollective& c : pass.collectives)
      if (c.overlapped) collective(c, phase, mb);
    const int pass_overlapped = overlapped_issued_;  // gradient buckets issued below are not waited for here
    if (last_step)
      add_gradient_sync_after(pass, phase, mb);
    else
      prog_.tasks.push_back({.kind = TaskKind::compute, .phase = phase, .micro_batch = mb, .compute_s = pass.compute_s,
                             .flops = pass.flops});
    for (const PassCollective& c : pass.collectives)
      if (!c.overlapped) collective(c, phase, mb);
    wait_overlapped(phase, mb, pass_overlapped);
    if (to_chunk >= 0 && to_chunk < chunks)
      prog_.tasks.push_back({.kind = TaskKind::send, .phase = phase, .micro_batch = mb, .bytes = in_.p2p_bytes,
                             .peer = owner_of_chunk(to_chunk), .channel = channel});
  }

  StagePass pass_for(const PipelineStep& step, int chunk) const {
    switch (step.pass) {
      case PassKind::forward: return pass_at(in_.forward, chunk);
      case PassKind::backward: return pass_at(in_.backward, chunk);
      case PassKind::backward_input: {
        StagePass b = pass_at(in_.backward, chunk);
        const StagePass& w = pass_at(in_.backward_weight, chunk);
        b.compute_s -= w.compute_s;
        b.flops -= w.flops;
        return b;
      }
      case PassKind::backward_weight: {
        StagePass w = pass_at(in_.backward_weight, chunk);
        w.collectives.clear();
        return w;
      }
    }
    return {};
  }

  // Gradient synchronisation (ZeRO 0-2): one all-reduce (ZeRO-0) or reduce-scatter (ZeRO-1/2)
  // of the stage's gradients after the last backward compute; with overlap_grad_reduce the last
  // compute is cut into buckets and each bucket's reduction starts as soon as it is ready.
  void add_gradient_sync_after(const StagePass& last, Phase phase, int mb) {
    if (!in_.gradient_bucket_layout.empty()) return add_bucket_layout_after(last, phase, mb);
    const int stage = c_.stage;
    const double dense = at(in_.gradient_bytes, stage), expert = at(in_.expert_gradient_bytes, stage);
    const bool sync = p_.zero_stage < 3 && (dense > 0 || expert > 0);
    const CollectiveKind kind = p_.zero_stage == 0 ? CollectiveKind::all_reduce : CollectiveKind::reduce_scatter;
    const int buckets = sync && p_.overlap_grad_reduce ? gradient_buckets(p_, dense + expert) : 1;
    for (int b = 0; b < buckets; ++b) {
      if (last.compute_s > 0 || last.flops > 0)
        prog_.tasks.push_back({.kind = TaskKind::compute, .phase = phase, .micro_batch = mb,
                               .compute_s = last.compute_s / buckets, .flops = last.flops / buckets});
      if (!sync || !p_.overlap_grad_reduce) continue;
      collective({GroupRole::dp, kind, 1, dense / buckets, true}, Phase::gradient_sync, -1);
      collective({GroupRole::expert_dp, kind, 1, expert / buckets, true}, Phase::gradient_sync, -1);
    }
    if (sync && !p_.overlap_grad_reduce) {
      pending_sync_.push_back({GroupRole::dp, kind, 1, dense, false});
      pending_sync_.push_back({GroupRole::expert_dp, kind, 1, expert, false});
    }
  }

  // DDP: each bucket's all-reduce starts when the part of the pass that fills it is done.
  void add_bucket_layout_after(const StagePass& last, Phase phase, int mb) {
    double share_done = 0;
    auto compute = [&](double share) {
      if (share <= 1e-12 || (last.compute_s <= 0 && last.flops <= 0)) return;  // rounding leftovers
      prog_.tasks.push_back({.kind = TaskKind::compute, .phase = phase, .micro_batch = mb,
                             .compute_s = last.compute_s * share, .flops = last.flops * share});
    };
    const bool host_staged = in_.host_staged_cpu_Bps > 0;
    for (const GradientBucket& b : in_.gradient_bucket_layout) {
      compute(b.compute_share);
      share_done += b.compute_share;
      if (b.encode_s > 0)
        prog_.tasks.push_back({.kind = TaskKind::compute, .phase = phase, .micro_batch = mb, .compute_s = b.encode_s});
      if (b.exchange.empty())
        collective({GroupRole::dp, CollectiveKind::all_reduce, 1, b.bytes, true, host_staged}, Phase::gradient_sync,
                   -1);
      for (const ExchangeStep& step : b.exchange) {
        const bool staged = host_staged && step.collective == CollectiveKind::all_reduce;
        if (step.bytes > 0)
          collective({GroupRole::dp, step.collective, 1, step.bytes, true, staged}, Phase::gradient_sync, -1);
        if (step.compute_s > 0) stream_compute(step.compute_s);
      }
    }
    compute(1 - share_done);  // layers before the first with parameters
  }

  // GPU work queued on the communication stream behind the collective before it (a compressed
  // bucket's decoding); like the collectives it is waited for by the optimizer.
  void stream_compute(double compute_s) {
    const int group = groups_.of(GroupRole::dp, rank_);
    if (group < 0) return;  // one replica: nothing was exchanged
    prog_.tasks.push_back({.kind = TaskKind::compute, .phase = Phase::gradient_sync, .compute_s = compute_s,
                           .group = group, .overlapped = true});
    ++overlapped_issued_;
  }

  void add_optimizer() {
    wait_overlapped(Phase::gradient_sync, -1);
    for (const PassCollective& c : pending_sync_)
      if (c.bytes > 0) collective(c, Phase::gradient_sync, -1);
    prog_.tasks.push_back({.kind = TaskKind::compute, .phase = Phase::optimizer, .compute_s = at(in_.optimizer_s, c_.stage)});
    // ZeRO-1/2: each rank updated its shard; all-gather the new weights.
    if ((p_.zero_stage == 1 || p_.zero_stage == 2) && !overlapped_param_gather())
      add_parameter_gather(Phase::optimizer, -1, false);
  }

  bool overlapped_param_gather() const {
    return (p_.zero_stage == 1 || p_.zero_stage == 2) && p_.overlap_param_gather;
  }

  void add_parameter_gather(Phase phase, int micro_batch, bool overlapped) {
    const double dense = at(in_.parameter_bytes, c_.stage), expert = at(in_.expert_parameter_bytes, c_.stage);
    if (dense > 0) collective({GroupRole::dp, CollectiveKind::all_gather, 1, dense, overlapped}, phase, micro_batch);
    if (expert > 0)
      collective({GroupRole::expert_dp, CollectiveKind::all_gather, 1, expert, overlapped}, phase, micro_batch);
  }

  const ParallelismConfig& p_;
  const WorkloadInputs& in_;
  const GroupIndex& groups_;
  const int rank_;
  const RankCoord c_;
  RankProgram prog_;
  int overlapped_issued_ = 0, overlapped_waited_ = 0;
  std::vector<PassCollective> pending_sync_;
};

}  // namespace

std::vector<int> replica_representatives(const ParallelismConfig& p, const ReplicaFolding& folding) {
  const int block = std::max(1, p.ep);
  if (!folding.enabled || p.dp <= block) return {};
  const int n = p.tp * p.cp * p.dp * p.pp;
  std::vector<bool> block_unfolded(size_t(p.dp / block), false);
  for (int gpu : folding.unfolded_gpus)
    if (gpu >= 0 && gpu < n) block_unfolded[size_t(rank_coord(p, gpu).dp_rank / block)] = true;
  // The others repeat the first block no event reaches (an event changes its own block's work).
  const auto kept = std::find(block_unfolded.begin(), block_unfolded.end(), false);
  if (std::count(kept, block_unfolded.end(), false) < 2) return {};  // nothing to fold
  const int first_dp = int(kept - block_unfolded.begin()) * block;
  std::vector<int> representative(static_cast<size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    RankCoord c = rank_coord(p, rank);
    if (!block_unfolded[size_t(c.dp_rank / block)]) c.dp_rank = first_dp + c.dp_rank % block;
    representative[size_t(rank)] = rank_of(p, c);
  }
  return representative;
}

Workload assemble_workload(const ParallelismConfig& p, const WorkloadInputs& in, const ReplicaFolding& folding) {
  Workload w;
  w.collective_sm_share = in.collective_sm_share;
  w.cpu_memory_Bps = in.host_staged_cpu_Bps;
  const GroupIndex groups(p, w);
  const int n = p.tp * p.cp * p.dp * p.pp;
  w.representative = replica_representatives(p, folding);
  w.ranks.reserve(n);
  std::vector<std::vector<PipelineStep>> steps_of_stage(p.pp);  // the same for every rank of a stage
  for (int stage = 0; stage < p.pp; ++stage) steps_of_stage[stage] = pipeline_steps(p, stage, in.micro_batches);
  long long tasks = 0;
  for (int rank = 0; rank < n; ++rank) {
    if (!w.representative.empty() && w.representative[size_t(rank)] != rank) {
      w.ranks.push_back({rank_coord(p, rank).stage, {}});  // folded: runs its representative's program
      continue;
    }
    w.ranks.push_back(ProgramBuilder(p, in, groups, rank).build(steps_of_stage[rank_coord(p, rank).stage]));
    tasks += (long long)w.ranks.back().tasks.size();
    if (tasks > kMaxTasks)
      throw InputError({"<scenario>", 0, "parallelism",
                        fmt::format("a workload of at most {} tasks over all GPUs (the most dtsim holds in memory)",
                                    kMaxTasks),
                        fmt::format("more than that by GPU {} of {}", rank, n)});
  }
  return w;
}

Workload build_workload(const Scenario& s, const ComputeModel& compute, const ReplicaFolding& folding) {
  if (s.layer_model && s.data_parallel.uses_servers())
    return assemble_parameter_server_workload(s, workload_inputs(s, compute));
  return assemble_workload(s.parallelism, workload_inputs(s, compute), folding);
}

}  // namespace dtsim

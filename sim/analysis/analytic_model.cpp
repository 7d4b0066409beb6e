// Closed-form pipeline timing over the per-chunk pass costs of workload_builder.hpp:
//   pipeline = m * (busiest stage's work per micro-batch) + fill/drain: a chunk pass pair of
//              every other stage; a pass's work includes receiving its input (exposed: the
//              transfer starts when the receiver posts its receive),
//   tail     = gradient synchronisation not hidden behind the last backward + optimizer + ZeRO
//              all-gather, taken on the stage that finishes last;
//   input    = with an input pipeline, the step it allows (input_pipeline.hpp).
// Pass = max(compute + blocking collectives, overlapped collectives), as the engine runs them; the
// compute slows by the SMs the overlapped collectives hold (DeviceSpec::collective_sm_share).
#include "analytic_model.hpp"

#include <algorithm>

#include "bucket_sync.hpp"
#include "collective_model.hpp"
#include "input_pipeline.hpp"
#include "simulation.hpp"
#include "stage_layout.hpp"
#include "workload_builder.hpp"

namespace dtsim {

namespace {

// Shape of the group of each role that rank 0 belongs to; every group of a role has the same
// shape because ranks are laid out regularly.
class GroupShapes {
 public:
  explicit GroupShapes(const Scenario& s) : s_(s), gpus_per_node_(s.cluster.topology.node.gpus) {
    const ParallelismConfig& p = s.parallelism;
    const int ep = std::max(1, p.ep);
    shapes_[int(GroupRole::tp)] = shape(p.tp, 1, 1, 1);
    shapes_[int(GroupRole::cp)] = shape(1, p.cp, 1, 1);
    shapes_[int(GroupRole::ep)] = shape(1, 1, ep, 1);
    shapes_[int(GroupRole::dp)] = shape(1, p.cp, p.dp, 1);
    shapes_[int(GroupRole::expert_dp)] = shape(1, p.cp, p.dp / ep, ep);
  }
  const GroupShape& of(GroupRole role) const { return shapes_[int(role)]; }

 private:
  // Ranks varying tp_rank < tp, cp_rank < cp and dp_rank = k * dp_stride for k < dp_count.
  GroupShape shape(int tp, int cp, int dp_count, int dp_stride) const {
    std::vector<int> ranks;
    for (int d = 0; d < dp_count; ++d)
      for (int c = 0; c < cp; ++c)
        for (int t = 0; t < tp; ++t) ranks.push_back(rank_of(s_.parallelism, {t, d * dp_stride, 0, c}));
    return group_shape(ranks, gpus_per_node_);
  }
  const Scenario& s_;
  int gpus_per_node_;
  GroupShape shapes_[5];
};

struct PassTime {
  double total_s = 0, compute_s = 0;
};

double collective_s(const PassCollective& c, const GroupShapes& groups, const NodeSpec& node) {
  const GroupShape& g = groups.of(c.group);
  if (g.ranks < 2 || c.bytes <= 0) return 0;
  return c.calls * choose_collective(c.kind, g, c.bytes, node).time_s;
}

// Overlapped collectives run beside the compute and hold `sm_share` of its rate while they do:
// the compute stretches by sm_share x their time, or to compute / (1 - sm_share) if they outlast it.
PassTime pass_time(const StagePass& pass, const GroupShapes& groups, const NodeSpec& node, double sm_share) {
  double blocking = 0, overlapped = 0;
  for (const PassCollective& c : pass.collectives) (c.overlapped ? overlapped : blocking) += collective_s(c, groups, node);
  const double compute_s = std::min(pass.compute_s / (1 - sm_share), pass.compute_s + sm_share * overlapped);
  return {std::max(compute_s + blocking, overlapped), compute_s};
}

// One stage-to-stage transfer: NVLink when both stages' rank 0s share a node, else one NIC.
double p2p_s(const Scenario& s, const NodeSpec& node, double bytes, int from_stage, int to_stage) {
  if (s.parallelism.pp < 2 || bytes <= 0) return 0;
  const int from_rank = rank_of(s.parallelism, {0, 0, from_stage, 0});
  const int to_rank = rank_of(s.parallelism, {0, 0, to_stage, 0});
  const bool same_node = from_rank / node.gpus == to_rank / node.gpus;
  return same_node ? 2 * node.nvlink_latency_s + bytes / node.nvlink_bw_Bps
                   : 2 * (node.nvlink_latency_s + node.nic_latency_s) + bytes / node.nic_bw_Bps;
}

}  // namespace

AnalyticEstimate estimate_iteration(const Scenario& s, const ComputeModel& compute, const NodeSpec& node) {
  const ParallelismConfig& p = s.parallelism;
  const WorkloadInputs in = workload_inputs(s, compute);
  const GroupShapes groups(s);
  const int m = in.micro_batches, chunks = model_chunks(p);

  // Per micro-batch work of each stage, and its largest single chunk pass pair.
  std::vector<double> stage_work_s(p.pp, 0), stage_compute_s(p.pp, 0), chunk_pair_s(p.pp, 0), last_backward_s(p.pp, 0),
      first_forward_s(p.pp, 0);
  double fill_s = 0;  // the fill and drain path's extra passes
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int stage = stage_of_chunk(p, chunk);
    PassTime f = pass_time(in.forward[chunk], groups, node, in.collective_sm_share);
    PassTime b = pass_time(in.backward[chunk], groups, node, in.collective_sm_share);
    // Every pass but the first forward and the last backward receives its input first; the
    // transfer starts when the receiver posts it (Megatron's batched send/recv), so it is exposed.
    if (chunk > 0) f.total_s += p2p_s(s, node, in.p2p_bytes, stage_of_chunk(p, chunk - 1), stage);
    if (chunk + 1 < chunks) b.total_s += p2p_s(s, node, in.p2p_bytes, stage_of_chunk(p, chunk + 1), stage);
    const double w = in.backward_weight[chunk].compute_s;
    stage_work_s[stage] += f.total_s + b.total_s;
    stage_compute_s[stage] += f.compute_s + b.compute_s;
    const double pair = p.schedule == PipelineScheduleKind::zero_bubble
                            ? std::max(0.0, f.total_s + (b.total_s - w) - w)  // ZB-H1: F + B - W
                            : f.total_s + b.total_s;
    chunk_pair_s[stage] = std::max(chunk_pair_s[stage], pair);
    if (chunk / p.pp == 0) {
      last_backward_s[stage] = b.total_s;  // local chunk 0 runs the last backward
      first_forward_s[stage] = f.compute_s;  // and the first forward
    }
  }
  const int busiest = int(std::max_element(stage_work_s.begin(), stage_work_s.end()) - stage_work_s.begin());
  // Fill and drain: one chunk pass pair of every stage but the busiest (p - 1 pairs when even).
  for (int stage = 0; stage < p.pp; ++stage) fill_s += chunk_pair_s[stage];
  fill_s -= chunk_pair_s[busiest];
  const double pipeline_s = m * stage_work_s[busiest] + fill_s;

  // Tail after each stage's last backward; stage s finishes its backward s chunk passes before stage 0.
  AnalyticEstimate e;
  double end_s = 0, earlier_s = 0;  // earlier_s: how much sooner than stage 0 this stage finishes
  for (int stage = 0; stage < p.pp; ++stage) {
    if (stage > 0) earlier_s += last_backward_s[stage - 1];
    const CollectiveKind kind = p.zero_stage == 0 ? CollectiveKind::all_reduce : CollectiveKind::reduce_scatter;
    double sync_s = 0;
    if (p.zero_stage < 3) {
      sync_s = collective_s({GroupRole::dp, kind, 1, in.gradient_bytes[stage], false}, groups, node) +
               collective_s({GroupRole::expert_dp, kind, 1, in.expert_gradient_bytes[stage], false}, groups, node);
      if (!in.gradient_bucket_layout.empty()) {
        sync_s =
            bucket_layout_sync_s(in.gradient_bucket_layout, last_backward_s[stage], groups.of(GroupRole::dp), node,
                                 in.host_staged_cpu_Bps);
      } else if (p.overlap_grad_reduce) {
        const int k = gradient_buckets(p, in.gradient_bytes[stage] + in.expert_gradient_bytes[stage]);
        const double piece_s = last_backward_s[stage] / k;
        // Bucket collectives each pay their own latency: recompute with the bucket size.
        const double bucket_s =
            collective_s({GroupRole::dp, kind, 1, in.gradient_bytes[stage] / k, false}, groups, node) +
            collective_s({GroupRole::expert_dp, kind, 1, in.expert_gradient_bytes[stage] / k, false}, groups, node);
        // The first k - 1 buckets run beside the rest of the last backward and slow it; the last
        // bucket starts when it ends.
        const double stretch_s =
            in.collective_sm_share * std::min(last_backward_s[stage] - piece_s, (k - 1) * bucket_s);
        const double buckets_end_s = std::max(piece_s + k * bucket_s, last_backward_s[stage] + stretch_s + bucket_s);
        sync_s = buckets_end_s - last_backward_s[stage];
      }
    }
    double gather_s = 0;
    if (p.zero_stage == 1 || p.zero_stage == 2)
      gather_s = collective_s({GroupRole::dp, CollectiveKind::all_gather, 1, in.parameter_bytes[stage], false}, groups, node) +
                 collective_s({GroupRole::expert_dp, CollectiveKind::all_gather, 1, in.expert_parameter_bytes[stage], false},
                              groups, node);
    // Overlapped with the first forward pass, the gather costs what it stretches that pass by.
    if (p.overlap_param_gather && gather_s > 0) {
      const double pass_s = first_forward_s[stage], share = in.collective_sm_share;
      gather_s = gather_s * (1 - share) < pass_s ? share * gather_s : gather_s - pass_s;
    }
    end_s = std::max(end_s, pipeline_s - earlier_s + sync_s + in.optimizer_s[stage] + gather_s);
    if (stage == busiest) e.exposed_communication_s = sync_s + gather_s;
  }
  e.iteration_s = s.input_pipeline ? input_pipeline_step(s, end_s).step_s : end_s;
  e.compute_s = m * stage_compute_s[busiest] + in.optimizer_s[busiest];
  e.bubble_s = fill_s;
  e.exposed_communication_s += m * (stage_work_s[busiest] - stage_compute_s[busiest]);
  return e;
}

AnalyticEstimate estimate_iteration(const ResolvedScenario& r) { return estimate_iteration(r.scenario, r.compute, r.node()); }

}  // namespace dtsim

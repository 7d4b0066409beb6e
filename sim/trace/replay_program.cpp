#include "replay_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "input_error.hpp"
#include "intervals.hpp"

namespace dtsim {

namespace {

CollectiveKind program_kind(TraceCollectiveKind k) {
  switch (k) {
    case TraceCollectiveKind::all_reduce: return CollectiveKind::all_reduce;
    case TraceCollectiveKind::all_gather: return CollectiveKind::all_gather;
    case TraceCollectiveKind::reduce_scatter: return CollectiveKind::reduce_scatter;
    case TraceCollectiveKind::broadcast: return CollectiveKind::broadcast;
    case TraceCollectiveKind::reduce: return CollectiveKind::all_reduce;  // assumed, see replay_program
    case TraceCollectiveKind::all_to_all: return CollectiveKind::all_to_all;
    case TraceCollectiveKind::send_recv: return CollectiveKind::send_recv;
  }
  return CollectiveKind::all_reduce;
}

void check_same_sequence(const std::vector<RankStep>& ranks, const std::vector<std::vector<StepCollective>>& seqs) {
  for (size_t r = 1; r < ranks.size(); ++r) {
    bool same = seqs[r].size() == seqs[0].size();
    for (size_t i = 0; same && i < seqs[r].size(); ++i) same = seqs[r][i].collective.kind == seqs[0][i].collective.kind;
    if (!same)
      throw InputError({ranks[r].file, 0, "", fmt::format("the sequence of collectives rank {} recorded ({})",
                                                          ranks[0].rank, seqs[0].size()),
                        fmt::format("rank {} recorded {} or other kinds", ranks[r].rank, seqs[r].size())});
  }
}

// The union of `rank`'s compute kernels in [from_us, to_us), as measured and as it runs with its
// kernels scaled (each class's factor weighted by its time).
struct BusyTime {
  double measured_us = 0, scaled_us = 0;
};
BusyTime busy_time(const RankStep& rank, double from_us, double to_us, const KernelTimeScale& scale) {
  std::vector<Interval> busy;
  double weighted = 0, total = 0;
  for (const StepKernel& k : rank.compute_kernels) {
    const double a = std::max(k.start_us, from_us), b = std::min(k.end_us(), to_us);
    if (b <= a) continue;
    busy.push_back({a, b});
    weighted += (b - a) * scale[k.kind];
    total += b - a;
  }
  const double union_us = union_length(busy);
  return {union_us, total > 0 ? union_us * weighted / total : 0};
}

// The length of [from_us, to_us) with its kernels' busy time scaled; idle and host time between
// kernels is kept.
double scaled_length(const RankStep& rank, double from_us, double to_us, const KernelTimeScale& scale) {
  const double length = to_us - from_us;
  if (scale.is_identity()) return length;
  const BusyTime busy = busy_time(rank, from_us, to_us, scale);
  return length - busy.measured_us + busy.scaled_us;
}

}  // namespace

ReplayProgram replay_program(const std::vector<RankStep>& ranks, const KernelTimeScale& scale,
                             const std::vector<int>& fixed_size) {
  ReplayProgram out;
  if (ranks.empty()) return out;
  std::vector<std::vector<StepCollective>> seqs;
  for (const RankStep& r : ranks) seqs.push_back(collectives_in_start_order(r));
  check_same_sequence(ranks, seqs);

  // Group 0 holds every rank; a collective of a kept group of g ranks runs in rank r's block of g.
  const int world = int(ranks.size());
  CommGroup all{"traced", {}};
  for (int r = 0; r < world; ++r) all.ranks.push_back(r);
  out.workload.groups.push_back(all);
  std::map<int, int> first_block_group;  // g -> index of the group of ranks [0, g)
  for (int g : fixed_size)
    if (g > 0 && g < world && first_block_group.try_emplace(g, int(out.workload.groups.size())).second)
      for (int start = 0; start < world; start += g) {
        CommGroup block{"traced", {}};
        for (int r = start; r < std::min(world, start + g); ++r) block.ranks.push_back(r);
        out.workload.groups.push_back(block);
      }
  const auto group_of = [&](size_t collective, int rank) {
    const int g = collective < fixed_size.size() ? fixed_size[collective] : 0;
    return g > 0 && g < world ? first_block_group.at(g) + rank / g : 0;
  };
  out.workload.ranks.resize(ranks.size());

  // Each collective's bytes: the largest any rank recorded (uneven all-to-alls differ by rank).
  std::vector<double> bytes(seqs[0].size(), 0);
  int unknown = 0, reduces = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    bool known = false;
    for (const auto& seq : seqs)
      if (seq[i].collective.size_source != SizeSource::unknown) {
        bytes[i] = std::max(bytes[i], seq[i].collective.bytes);
        known = true;
      }
    unknown += !known;
    reduces += seqs[0][i].collective.kind == TraceCollectiveKind::reduce;
  }
  if (unknown > 0)
    out.assumed.push_back(fmt::format("{} collective{} of unrecorded size replayed as 0 bytes (latency only)", unknown,
                                      unknown == 1 ? "" : "s"));
  if (reduces > 0)
    out.assumed.push_back(fmt::format("{} reduce{} replayed as all-reduces", reduces, reduces == 1 ? "" : "s"));
  out.assumed.push_back("compute that ran beside a collective's kernel runs beside it, compute after the kernel's "
                        "end waits for it");
  if (!scale.is_identity())
    out.assumed.push_back("kernel time between collectives scaled by its class; idle and host time kept");
  if (!ranks[0].times_recorded)
    out.assumed.push_back("the GPU work laid end to end in launch order (the trace has durations, no start times)");

  // Each rank runs its step as its GPU did (RankStep::gpu_step_start_us), not as its CPU annotated it.
  double earliest = ranks[0].gpu_step_start_us;
  for (const RankStep& r : ranks) earliest = std::min(earliest, r.gpu_step_start_us);
  const bool shared_clock = share_a_clock(ranks);
  if (!shared_clock)
    out.assumed.push_back("the ranks' steps do not overlap in time (no shared clock): each starts at its own");
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::vector<Task>& tasks = out.workload.ranks[r].tasks;
    const double start_us = shared_clock ? earliest : ranks[r].gpu_step_start_us;
    out.start_offset_s.push_back((ranks[r].gpu_step_start_us - start_us) * 1e-6);
    double t = start_us;
    const auto compute_until = [&](double until_us) {
      if (until_us > t)
        tasks.push_back({.kind = TaskKind::compute, .compute_s = scaled_length(ranks[r], t, until_us, scale) * 1e-6});
      t = std::max(t, until_us);
    };
    // Each collective runs on the communication stream; the GPU work that ran while its kernel did
    // (other streams) runs beside it, as its busy time alone (idle time in the window was waiting
    // for the collective), and everything after the kernel's recorded end waits for it.
    for (size_t i = 0; i < seqs[r].size(); ++i) {
      const StepCollective& c = seqs[r][i];
      compute_until(c.start_us);
      tasks.push_back({.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = group_of(i, int(r)),
                       .collective = program_kind(c.collective.kind), .bytes = bytes[i], .overlapped = true});
      const double end_us = c.start_us + c.duration_us;
      const double beside_us = end_us > t ? busy_time(ranks[r], t, end_us, scale).scaled_us : 0;
      if (beside_us > 0) tasks.push_back({.kind = TaskKind::compute, .compute_s = beside_us * 1e-6});
      tasks.push_back({.kind = TaskKind::wait_overlapped, .phase = Phase::gradient_sync,
                       .overlapped_done = int(i) + 1});
      t = std::max(t, end_us);
    }
    compute_until(ranks[r].gpu_step_end_us);
  }
  return out;
}

}  // namespace dtsim

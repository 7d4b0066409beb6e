#include "critical_path.hpp"

#include <algorithm>

namespace dtsim {

std::vector<CriticalCollective> critical_path(const std::vector<RankStep>& ranks) {
  std::vector<CriticalCollective> out;
  if (ranks.size() < 2 || !ranks[0].times_recorded || !share_a_clock(ranks)) return out;
  std::vector<std::vector<StepCollective>> seqs;
  for (const RankStep& r : ranks) {
    seqs.push_back(collectives_in_start_order(r));
    if (seqs.back().size() != seqs[0].size()) return {};
  }
  std::vector<double> previous_end(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) previous_end[r] = ranks[r].gpu_step_start_us;
  for (size_t i = 0; i < seqs[0].size(); ++i) {
    CriticalCollective c;
    c.index = int(i);
    c.kind = seqs[0][i].collective.kind;
    double first = seqs[0][i].start_us, last = first, end = 0;
    size_t last_r = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const StepCollective& k = seqs[r][i];
      c.bytes = std::max(c.bytes, k.collective.bytes);
      first = std::min(first, k.start_us);
      if (k.start_us > last) {
        last = k.start_us;
        last_r = r;
      }
      end = std::max(end, k.start_us + k.duration_us);
    }
    c.last_rank = ranks[last_r].rank;
    c.spread_s = (last - first) * 1e-6;
    c.gap_before_s = std::max(0.0, last - previous_end[last_r]) * 1e-6;
    c.duration_s = (end - last) * 1e-6;
    for (size_t r = 0; r < ranks.size(); ++r)
      previous_end[r] = std::max(previous_end[r], seqs[r][i].start_us + seqs[r][i].duration_us);
    out.push_back(c);
  }
  return out;
}

}  // namespace dtsim

#include "chrome_trace.hpp"

#include <fmt/format.h>

#include "workload_builder.hpp"

namespace dtsim {

namespace {

std::string micro_batch_suffix(const TraceSpan& s) {
  return s.micro_batch >= 0 ? fmt::format(" mb{}", s.micro_batch) : "";
}

// "tp all_gather mb3", "dp reduce_scatter": the group's role and the collective.
std::string collective_name(const TraceSpan& s, const std::vector<std::string>& group_kinds) {
  if (s.group < 0 || size_t(s.group) >= group_kinds.size()) return "wait for comm stream" + micro_batch_suffix(s);
  return fmt::format("{} {}{}", group_kinds[size_t(s.group)], to_string(s.collective), micro_batch_suffix(s));
}

bool on_comm_stream(SpanKind k) { return k == SpanKind::overlapped_collective || k == SpanKind::stream_compute; }

std::string span_name(const TraceSpan& s, const std::vector<std::string>& group_kinds) {
  switch (s.kind) {
    case SpanKind::compute:
      if (s.phase == Phase::optimizer) return "optimizer step";
      return fmt::format("{} mb{}", s.phase == Phase::forward ? "fwd" : "bwd", s.micro_batch);
    case SpanKind::collective:
    case SpanKind::overlapped_collective: return collective_name(s, group_kinds);
    case SpanKind::p2p_transfer:
      return fmt::format("PP recv {} mb{}", s.phase == Phase::forward ? "act" : "grad", s.micro_batch);
    case SpanKind::bubble: return "bubble";
    case SpanKind::stream_compute: return "gradient codec";
  }
  return "?";
}

}  // namespace

std::string chrome_trace_json(const EngineResult& result, const ParallelismConfig& parallelism, int gpus_per_node) {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  const int n = parallelism.tp * parallelism.cp * parallelism.pp * parallelism.dp;
  // With rank folding, tracks only for the GPUs that ran their own program, named with how many
  // GPUs each stands for (folded GPUs record no spans).
  const std::vector<int> multiplicity = ranks_represented(result.representative, n);
  int named_node = -1;
  for (int rank = 0; rank < n; ++rank) {
    if (multiplicity[size_t(rank)] == 0) continue;
    const int node = rank / gpus_per_node;
    if (node != named_node)
      out += fmt::format("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":\"node {}\"}}}},\n",
                         node, node);
    named_node = node;
    const std::string stands_for =
        multiplicity[size_t(rank)] > 1 ? fmt::format(" x{} (folded GPUs repeat it)", multiplicity[size_t(rank)]) : "";
    out += fmt::format(
        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"GPU {} (stage {}){}\"}}}},\n",
        node, rank, rank, rank_coord(parallelism, rank).stage, stands_for);
    out += fmt::format(
        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"GPU {} comm stream\"}}}},\n",
        node, n + rank, rank);
  }
  bool first = true;
  for (const TraceSpan& s : result.spans) {
    out += first ? "" : ",\n";
    first = false;
    // Times in microseconds, as the format requires.
    out += fmt::format("{{\"ph\":\"X\",\"name\":\"{}\",\"cat\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{:.3f},\"dur\":{:.3f}}}",
                       span_name(s, result.group_kinds), to_string(s.kind), s.rank / gpus_per_node,
                       on_comm_stream(s.kind) ? n + s.rank : s.rank, s.start_s * 1e6,
                       (s.end_s - s.start_s) * 1e6);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace dtsim

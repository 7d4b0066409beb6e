#include "chrome_trace.hpp"

#include <fmt/format.h>

#include "workload_builder.hpp"

namespace dtsim {

namespace {

std::string span_name(const TraceSpan& s) {
  switch (s.kind) {
    case SpanKind::compute:
      if (s.phase == Phase::optimizer) return "optimizer step";
      return fmt::format("{} mb{}", s.phase == Phase::forward ? "fwd" : "bwd", s.micro_batch);
    case SpanKind::collective:
      return s.phase == Phase::gradient_sync ? "DP all-reduce" : fmt::format("TP all-reduce mb{}", s.micro_batch);
    case SpanKind::p2p_transfer:
      return fmt::format("PP recv {} mb{}", s.phase == Phase::forward ? "act" : "grad", s.micro_batch);
    case SpanKind::bubble: return "bubble";
    case SpanKind::overlapped_collective:
      return s.phase == Phase::gradient_sync ? "DP bucket" : fmt::format("overlapped comm mb{}", s.micro_batch);
  }
  return "?";
}

}  // namespace

std::string chrome_trace_json(const EngineResult& result, const ParallelismConfig& parallelism, int gpus_per_node) {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  const int n = parallelism.tp * parallelism.cp * parallelism.pp * parallelism.dp;
  for (int rank = 0; rank < n; ++rank) {
    const int node = rank / gpus_per_node;
    if (rank % gpus_per_node == 0)
      out += fmt::format("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":\"node {}\"}}}},\n",
                         node, node);
    out += fmt::format(
        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"GPU {} (stage {})\"}}}},\n",
        node, rank, rank, rank_coord(parallelism, rank).stage);
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
                       span_name(s), to_string(s.kind), s.rank / gpus_per_node,
                       s.kind == SpanKind::overlapped_collective ? n + s.rank : s.rank, s.start_s * 1e6,
                       (s.end_s - s.start_s) * 1e6);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace dtsim

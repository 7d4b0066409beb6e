#include "nccl_perf_format.hpp"

#include <cstdio>
#include <stdexcept>

namespace dtsim::profiler {

const char* to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::broadcast: return "broadcast";
    case CollectiveOp::reduce: return "reduce";
    case CollectiveOp::send_recv: return "send_recv";
  }
  return "?";
}

std::optional<CollectiveOp> collective_of_name(const std::string& name) {
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                          CollectiveOp::all_to_all, CollectiveOp::broadcast, CollectiveOp::reduce,
                          CollectiveOp::send_recv})
    if (name == to_string(op)) return op;
  return std::nullopt;
}

double busbw_factor(CollectiveOp op, int gpus) {
  if (gpus < 1) throw std::invalid_argument("busbw_factor: gpus must be >= 1");
  const double n = gpus;
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all: return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::send_recv: return 1;
  }
  return 1;
}

NcclPerfRow make_perf_row(CollectiveOp op, int gpus, double bytes, long count, const std::string& type,
                          double time_s) {
  NcclPerfRow r;
  r.bytes = bytes;
  r.count = count;
  r.type = type;
  r.redop = (op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter || op == CollectiveOp::reduce)
                ? "sum"
                : "none";
  r.root = (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) ? 0 : -1;
  r.time_s = time_s;
  r.algbw_Bps = time_s > 0 ? bytes / time_s : 0;
  r.busbw_Bps = r.algbw_Bps * busbw_factor(op, gpus);
  return r;
}

std::string format_perf_header(CollectiveOp op, int gpus) {
  char line[256];
  std::string s;
  std::snprintf(line, sizeof line, "# %s over %d GPUs (nccl-tests format, out-of-place)\n", to_string(op), gpus);
  s += line;
  s += "#                                                              out-of-place\n";
  s += "#       size         count      type   redop    root     time   algbw   busbw #wrong\n";
  s += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       \n";
  return s;
}

std::string format_perf_row(const NcclPerfRow& row) {
  char wrong[32];
  if (row.wrong) std::snprintf(wrong, sizeof wrong, "%6ld", *row.wrong);
  else std::snprintf(wrong, sizeof wrong, "%6s", "N/A");
  char line[256];
  std::snprintf(line, sizeof line, "%12.0f  %12ld  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %s\n", row.bytes, row.count,
                row.type.c_str(), row.redop.c_str(), row.root, row.time_s * 1e6, row.algbw_Bps / 1e9,
                row.busbw_Bps / 1e9, wrong);
  return line;
}

std::string format_perf_footer(const std::vector<NcclPerfRow>& rows) {
  double sum_GBps = 0;
  for (const NcclPerfRow& r : rows) sum_GBps += r.busbw_Bps / 1e9;
  char line[128];
  std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %g \n", rows.empty() ? 0.0 : sum_GBps / double(rows.size()));
  return line;
}

std::string format_perf_table(CollectiveOp op, int gpus, const std::vector<NcclPerfRow>& rows) {
  std::string s = format_perf_header(op, gpus);
  for (const NcclPerfRow& r : rows) s += format_perf_row(r);
  return s + format_perf_footer(rows);
}

}  // namespace dtsim::profiler

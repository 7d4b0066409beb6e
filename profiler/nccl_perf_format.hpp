#pragma once
// nccl-tests' definitions and table format (all_reduce_perf and friends).
//   algbw = bytes / time (GB/s = 1e9 B/s), bytes being the size column: the whole buffer of an
//   all-reduce, the gathered (receive) buffer of an all-gather, the scattered (send) buffer of a
//   reduce-scatter, the whole per-rank buffer of an all-to-all, the message of a send/recv.
//   busbw = algbw x factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n;
//   broadcast, reduce, send_recv 1. It is the per-GPU link bandwidth a ring would need.
#include <optional>
#include <string>
#include <vector>

namespace dtsim::profiler {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv };

// The simulator's names: "all_reduce", ..., "send_recv".
const char* to_string(CollectiveOp op);
std::optional<CollectiveOp> collective_of_name(const std::string& name);

// nccl-tests' bus bandwidth factor for `op` over `gpus` ranks.
double busbw_factor(CollectiveOp op, int gpus);

// One line of a table, out-of-place only (the profiler does not run in-place).
struct NcclPerfRow {
  double bytes = 0;
  long count = 0;            // elements of `type` in the size column
  std::string type;          // nccl-tests' type name: "bfloat16", "half", "float", ...
  std::string redop;         // "sum", or "none" for data movement only
  int root = -1;             // -1 when the collective has no root
  double time_s = 0;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
  std::optional<long> wrong;  // data errors found; none when the data were not checked ("N/A")
};

// Fills algbw and busbw from bytes and time_s.
NcclPerfRow make_perf_row(CollectiveOp op, int gpus, double bytes, long count, const std::string& type,
                          double time_s);

// The "#"-commented header lines, one row, and the "# Avg bus bandwidth" footer (mean of the
// rows' busbw in GB/s), each ending with a newline.
std::string format_perf_header(CollectiveOp op, int gpus);
std::string format_perf_row(const NcclPerfRow& row);
std::string format_perf_footer(const std::vector<NcclPerfRow>& rows);
std::string format_perf_table(CollectiveOp op, int gpus, const std::vector<NcclPerfRow>& rows);

}  // namespace dtsim::profiler

#pragma once
// NCCL collectives over the local GPUs from one process (ncclCommInitAll): all_reduce,
// all_gather, reduce_scatter, all_to_all (grouped ncclSend/ncclRecv) over all of them, and
// send_recv from GPU 0 to GPU 1; sizes as in nccl-tests (-b, -e, -f), bf16, out of place.
// Each size: `warmup` operations, then `iterations` back to back between CUDA events on every
// GPU's stream; the time of one operation is the slowest GPU's elapsed time / iterations.
// Prints an nccl-tests table per collective.
#include <cstdint>
#include <vector>

#include "raw_profile.hpp"

namespace dtsim::profiler::gpu {

struct NcclSweepSettings {
  int gpus = 0;  // >= 2
  uint64_t min_bytes = 8, max_bytes = uint64_t(8) << 30;
  double factor = 2;
  int iterations = 20, warmup = 5;
};

// Sizes that do not fit (a send and a receive buffer of the size on each GPU, with room left
// for NCCL) are skipped with a line on stderr.
std::vector<RawCollective> run_nccl_sweep(const NcclSweepSettings& settings);

}  // namespace dtsim::profiler::gpu

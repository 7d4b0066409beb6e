#include "nccl_sweep.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "byte_size.hpp"
#include "gpu_check.hpp"
#include "nccl_perf_format.hpp"

namespace dtsim::profiler::gpu {

namespace {

constexpr size_t kElementBytes = 2;  // bf16
constexpr uint64_t kReserveBytes = uint64_t(2) << 30;  // per GPU, for NCCL's own buffers and the context

// Communicators, streams, events and the two buffers of every GPU; released on every path.
struct NcclResources {
  int gpus = 0;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> starts, stops;
  std::vector<char*> send, recv;
  uint64_t buffer_bytes = 0;

  void create(int n, uint64_t wanted_bytes) {
    gpus = n;
    comms.assign(n, nullptr);
    streams.assign(n, nullptr);
    starts.assign(n, nullptr);
    stops.assign(n, nullptr);
    send.assign(n, nullptr);
    recv.assign(n, nullptr);
    std::vector<int> devices(n);
    for (int i = 0; i < n; ++i) devices[i] = i;
    PROFILE_NCCL(ncclCommInitAll(comms.data(), n, devices.data()));
    // Buffers as large as the largest size, or as fit on the fullest GPU.
    uint64_t fit_bytes = wanted_bytes;
    for (int i = 0; i < n; ++i) {
      PROFILE_CUDA(cudaSetDevice(i));
      size_t free_bytes = 0, total_bytes = 0;
      PROFILE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      const uint64_t usable = free_bytes > kReserveBytes ? (free_bytes - kReserveBytes) / 2 : 0;
      fit_bytes = std::min(fit_bytes, usable);
    }
    buffer_bytes = fit_bytes;
    for (int i = 0; i < n; ++i) {
      PROFILE_CUDA(cudaSetDevice(i));
      PROFILE_CUDA(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
      PROFILE_CUDA(cudaEventCreate(&starts[i]));
      PROFILE_CUDA(cudaEventCreate(&stops[i]));
      if (buffer_bytes == 0) continue;
      PROFILE_CUDA(cudaMalloc(&send[i], buffer_bytes));
      PROFILE_CUDA(cudaMalloc(&recv[i], buffer_bytes));
      PROFILE_CUDA(cudaMemset(send[i], 0, buffer_bytes));  // bf16 zeros: the data do not change the time
      PROFILE_CUDA(cudaMemset(recv[i], 0, buffer_bytes));
    }
  }

  ~NcclResources() {
    for (int i = 0; i < gpus; ++i) {
      cudaSetDevice(i);
      if (send[i]) cudaFree(send[i]);
      if (recv[i]) cudaFree(recv[i]);
      if (starts[i]) cudaEventDestroy(starts[i]);
      if (stops[i]) cudaEventDestroy(stops[i]);
      if (streams[i]) cudaStreamDestroy(streams[i]);
      if (comms[i]) ncclCommDestroy(comms[i]);
    }
  }
};

// One size of one collective, in nccl-tests' terms.
struct Size {
  uint64_t bytes = 0;  // the size column: what algbw divides
  size_t count = 0;    // the count NCCL is called with (per rank, per peer for all_to_all)
};

// nccl-tests rounds each size down to what the collective can split evenly over the ranks.
Size size_for(CollectiveOp op, uint64_t bytes, int n) {
  Size s;
  switch (op) {
    case CollectiveOp::all_gather:      // count: each rank's part of the gathered buffer
    case CollectiveOp::reduce_scatter:  // count: each rank's part of the scattered buffer
    case CollectiveOp::all_to_all:      // count: each peer's chunk of a rank's buffer
      s.count = bytes / (kElementBytes * size_t(n));
      s.bytes = s.count * kElementBytes * uint64_t(n);
      break;
    default:
      s.count = bytes / kElementBytes;
      s.bytes = s.count * kElementBytes;
  }
  return s;
}

// Enqueues one operation on every participating GPU, as one NCCL group.
void enqueue(NcclResources& r, CollectiveOp op, const Size& size) {
  const int n = r.gpus;
  PROFILE_NCCL(ncclGroupStart());
  for (int i = 0; i < n; ++i) {
    ncclComm_t comm = r.comms[i];
    cudaStream_t stream = r.streams[i];
    switch (op) {
      case CollectiveOp::all_reduce:
        PROFILE_NCCL(ncclAllReduce(r.send[i], r.recv[i], size.count, ncclBfloat16, ncclSum, comm, stream));
        break;
      case CollectiveOp::all_gather:
        PROFILE_NCCL(ncclAllGather(r.send[i], r.recv[i], size.count, ncclBfloat16, comm, stream));
        break;
      case CollectiveOp::reduce_scatter:
        PROFILE_NCCL(ncclReduceScatter(r.send[i], r.recv[i], size.count, ncclBfloat16, ncclSum, comm, stream));
        break;
      case CollectiveOp::all_to_all: {
        const size_t chunk_bytes = size.count * kElementBytes;
        for (int peer = 0; peer < n; ++peer) {
          PROFILE_NCCL(ncclSend(r.send[i] + peer * chunk_bytes, size.count, ncclBfloat16, peer, comm, stream));
          PROFILE_NCCL(ncclRecv(r.recv[i] + peer * chunk_bytes, size.count, ncclBfloat16, peer, comm, stream));
        }
        break;
      }
      case CollectiveOp::send_recv:
        if (i == 0) PROFILE_NCCL(ncclSend(r.send[0], size.count, ncclBfloat16, 1, comm, stream));
        if (i == 1) PROFILE_NCCL(ncclRecv(r.recv[1], size.count, ncclBfloat16, 0, comm, stream));
        break;
      default: throw std::logic_error("nccl sweep: collective not swept");
    }
  }
  PROFILE_NCCL(ncclGroupEnd());
}

int participants(CollectiveOp op, int gpus) { return op == CollectiveOp::send_recv ? 2 : gpus; }

void synchronize_all(NcclResources& r) {
  for (int i = 0; i < r.gpus; ++i) {
    PROFILE_CUDA(cudaSetDevice(i));
    PROFILE_CUDA(cudaStreamSynchronize(r.streams[i]));
  }
}

// Seconds per operation: the slowest participating GPU's event time / iterations.
double time_size(NcclResources& r, CollectiveOp op, const Size& size, const NcclSweepSettings& s) {
  for (int w = 0; w < s.warmup; ++w) enqueue(r, op, size);
  synchronize_all(r);
  const int n = participants(op, r.gpus);
  for (int i = 0; i < n; ++i) {
    PROFILE_CUDA(cudaSetDevice(i));
    PROFILE_CUDA(cudaEventRecord(r.starts[i], r.streams[i]));
  }
  for (int it = 0; it < s.iterations; ++it) enqueue(r, op, size);
  for (int i = 0; i < n; ++i) {
    PROFILE_CUDA(cudaSetDevice(i));
    PROFILE_CUDA(cudaEventRecord(r.stops[i], r.streams[i]));
  }
  synchronize_all(r);
  double slowest_s = 0;
  for (int i = 0; i < n; ++i) {
    float ms = 0;
    PROFILE_CUDA(cudaEventElapsedTime(&ms, r.starts[i], r.stops[i]));
    slowest_s = std::max(slowest_s, double(ms) * 1e-3);
  }
  return slowest_s / s.iterations;
}

}  // namespace

std::vector<RawCollective> run_nccl_sweep(const NcclSweepSettings& s) {
  if (s.gpus < 2) throw std::invalid_argument("the NCCL sweep needs at least two GPUs");
  const std::vector<uint64_t> sizes = byte_sweep(s.min_bytes, s.max_bytes, s.factor);
  NcclResources r;
  r.create(s.gpus, sizes.back());
  if (r.buffer_bytes < sizes.back())
    std::fprintf(stderr, "nccl: sizes above %llu bytes skipped: two buffers of a size must fit on each GPU\n",
                 static_cast<unsigned long long>(r.buffer_bytes));

  std::vector<RawCollective> results;
  for (CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter,
                          CollectiveOp::all_to_all, CollectiveOp::send_recv}) {
    const int n = participants(op, s.gpus);
    RawCollective c;
    c.op = to_string(op);
    c.gpus = n;
    c.dtype = "bf16";
    std::vector<NcclPerfRow> rows;
    std::printf("%s", format_perf_header(op, n).c_str());
    for (uint64_t wanted : sizes) {
      const Size size = size_for(op, wanted, s.gpus);
      if (size.count == 0 || size.bytes > r.buffer_bytes) continue;
      if (!c.points.empty() && c.points.back().bytes == double(size.bytes)) continue;  // rounded onto the last
      const double time_s = time_size(r, op, size, s);
      c.points.push_back({double(size.bytes), time_s});
      rows.push_back(make_perf_row(op, n, double(size.bytes), long(size.bytes / kElementBytes), "bfloat16", time_s));
      std::printf("%s", format_perf_row(rows.back()).c_str());
      std::fflush(stdout);
    }
    std::printf("%s\n", format_perf_footer(rows).c_str());
    results.push_back(std::move(c));
  }
  PROFILE_CUDA(cudaSetDevice(0));
  return results;
}

}  // namespace dtsim::profiler::gpu

// What dtsim-profile record's libraries wrote for one process of the user's job: a JSON-lines
// file, one object per line, told apart by "type" (times in ns of the recording sink's clock):
//   process       pid, host, rank, world_size, local_rank (the launcher's variables, or null)
//   device        id, name, memory_bytes
//   kernel        name, start_ns, end_ns, device, stream, correlation
//   memcpy/memset name, bytes, start_ns, end_ns, device, stream, correlation
//   api           name, start_ns, end_ns, thread, correlation (the launch of a GPU activity)
//   range         name, start_ns, end_ns, thread (an NVTX push/pop or start/end range)
//   communicator  comm (NCCL's hash), name, ranks, rank, nodes
//   nccl          comm, rank, group, func, count, datatype, root or peer, start_ns (one call)
//   dropped       records (CUPTI records lost for want of buffer)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::profiler::record {

enum class RecordedActivityKind { kernel, memcpy, memset };

struct RecordedActivity {
  RecordedActivityKind kind = RecordedActivityKind::kernel;
  std::string name;
  double bytes = 0;  // memcpy/memset only
  uint64_t start_ns = 0, end_ns = 0;
  int device = 0;
  int64_t stream = 0;
  uint64_t correlation = 0;
};

struct RecordedApiCall {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t thread = 0;
  uint64_t correlation = 0;
};

struct RecordedRange {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t thread = 0;
};

struct RecordedDevice {
  int id = 0;
  std::string name;
  double memory_bytes = 0;
};

struct RecordedCommunicator {
  uint64_t comm = 0;
  std::string name;
  int ranks = 1, rank = 0, nodes = 1;
};

struct RecordedNcclCall {
  uint64_t comm = 0;
  uint64_t group = 0;  // calls of one ncclGroupStart/End (or one lone call) share it; 0 unknown
  std::string func;    // NCCL's: AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, Send, Recv
  std::string datatype;
  double count = 0;
  int root = -1, peer = -1;
  uint64_t start_ns = 0;
};

struct RecordedProcess {
  std::filesystem::path file;
  long pid = 0;
  std::string host;
  std::optional<int> rank, world_size;  // from the launcher's variables
  std::vector<RecordedDevice> devices;
  std::vector<RecordedActivity> gpu;
  std::vector<RecordedApiCall> api;
  std::vector<RecordedRange> ranges;
  std::vector<RecordedCommunicator> communicators;
  std::vector<RecordedNcclCall> nccl;
  uint64_t dropped_records = 0;
};

// Reads one process file; a line that is not one of the objects above throws InputError naming
// the file, line and field.
RecordedProcess read_recorded_process(const std::filesystem::path& file);

// The process files (raw/process-*.jsonl) of a recording folder, in name order.
std::vector<std::filesystem::path> recorded_process_files(const std::filesystem::path& recording_dir);

}  // namespace dtsim::profiler::record

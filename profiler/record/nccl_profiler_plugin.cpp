// dtsim's NCCL profiler plugin (NCCL_PROFILER_PLUGIN): one "communicator" line per communicator
// NCCL creates, one "nccl" line per collective or point-to-point call it enqueues, with the group
// it was enqueued in. Kernel times come from CUPTI; these lines give the kernels their sizes.
#include <atomic>
#include <cstdint>
#include <string>

#include "nccl_profiler_abi.hpp"
#include "recording_sink.hpp"

namespace {

using dtsim::profiler::record::process_sink;
using dtsim::profiler::record::RecordingSink;

struct Communicator {
  uint64_t hash = 0;
};

// Group handles are numbers, never pointers: NCCL may stop a group before its calls have been
// seen, so a call's parentObj is only compared, not followed.
std::atomic<uintptr_t> g_next_group{1};

std::string text(const char* s) { return s ? s : ""; }

ncclResult_v4_t init(void** context, int* activation_mask, const char* comm_name, uint64_t comm_hash, int nodes,
                     int ranks, int rank, ncclDebugLogger_v4_t /*log*/) {
  RecordingSink* sink = process_sink();
  if (!sink) return 1;  // not under dtsim-profile record: NCCL runs on without the plugin
  *context = new Communicator{comm_hash};
  *activation_mask = kNcclProfileGroup | kNcclProfileColl | kNcclProfileP2p;
  sink->write({{"type", "communicator"}, {"comm", comm_hash}, {"name", text(comm_name)}, {"ranks", ranks},
               {"rank", rank}, {"nodes", nodes}, {"time_ns", sink->now_ns()}});
  return kNcclSuccess;
}

ncclResult_v4_t start_event(void* context, void** handle, ncclProfilerEventDescr_v4_t* d) {
  *handle = nullptr;
  RecordingSink* sink = process_sink();
  if (!sink || !context || !d) return kNcclSuccess;
  if (d->type == kNcclProfileGroup) {
    *handle = reinterpret_cast<void*>(g_next_group.fetch_add(1));
    return kNcclSuccess;
  }
  if (d->type != kNcclProfileColl && d->type != kNcclProfileP2p) return kNcclSuccess;
  nlohmann::json line = {{"type", "nccl"},
                         {"comm", static_cast<Communicator*>(context)->hash},
                         {"rank", d->rank},
                         {"group", reinterpret_cast<uintptr_t>(d->parentObj)},
                         {"start_ns", sink->now_ns()}};
  if (d->type == kNcclProfileColl) {
    line["func"] = text(d->coll.func);
    line["count"] = d->coll.count;
    line["datatype"] = text(d->coll.datatype);
    line["root"] = d->coll.root;
    line["seq"] = d->coll.seqNumber;
  } else {
    line["func"] = text(d->p2p.func);
    line["count"] = d->p2p.count;
    line["datatype"] = text(d->p2p.datatype);
    line["peer"] = d->p2p.peer;
  }
  sink->write(line);
  return kNcclSuccess;
}

ncclResult_v4_t stop_event(void* /*handle*/) { return kNcclSuccess; }

ncclResult_v4_t record_event_state(void* /*handle*/, ncclProfilerEventState_v4_t /*state*/,
                                   ncclProfilerEventStateArgs_v4_t* /*args*/) {
  return kNcclSuccess;
}

ncclResult_v4_t finalize(void* context) {
  delete static_cast<Communicator*>(context);
  if (RecordingSink* sink = process_sink()) sink->flush();
  return kNcclSuccess;
}

}  // namespace

extern "C" {
__attribute__((visibility("default"))) ncclProfiler_v4_t ncclProfiler_v4 = {
    "dtsim-record", init, start_event, stop_event, record_event_state, finalize};
}

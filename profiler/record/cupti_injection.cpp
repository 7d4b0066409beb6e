// dtsim's CUDA injection (CUDA_INJECTION64_PATH): the CUDA driver loads this library into the
// user's job at cuInit and calls InitializeInjection, which turns on CUPTI's activity records of
// kernels, copies, memsets, their launching API calls, NVTX ranges and devices. Records reach
// buffer_completed on a CUPTI thread and are appended to the process's recording file as JSON
// lines (recorded_process.hpp); the rest is flushed at exit. Nothing here stops the job: a CUPTI
// call that fails leaves the job running unrecorded (or less recorded) and says so on stderr.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "cupti_buffers.hpp"
#include "recording_sink.hpp"

namespace {

using dtsim::profiler::read_cupti_buffer;
using dtsim::profiler::request_cupti_buffer;
using dtsim::profiler::record::process_sink;
using dtsim::profiler::record::RecordingSink;
using json = nlohmann::json;

std::mutex g_mutex;
std::map<std::pair<int, uint32_t>, bool> g_api_kept;  // (domain, callback id) -> a launch, copy or memset
std::map<uint32_t, json> g_open_markers;              // NVTX range id -> its start, until its end

bool warn(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "dtsim-profile record: %s failed (%s); recording goes on without it\n", what,
               text ? text : "?");
  return false;
}

uint64_t cupti_now_ns() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

bool api_kept(CUpti_CallbackDomain domain, uint32_t cbid) {
  const auto key = std::make_pair(int(domain), cbid);
  const auto it = g_api_kept.find(key);
  if (it != g_api_kept.end()) return it->second;
  const char* name = nullptr;
  cuptiGetCallbackName(domain, cbid, &name);
  const std::string n = name ? name : "";
  const bool kept = n.find("Launch") != std::string::npos || n.find("Memcpy") != std::string::npos ||
                    n.find("Memset") != std::string::npos;
  return g_api_kept[key] = kept;
}

const char* copy_name(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "Memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "Memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "Memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "Memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "Memcpy PtoP";
    default: return "Memcpy";
  }
}

// One record as a line, or nothing (a record kind, API call or marker half not kept).
void append_record(const CUpti_Activity* record, std::string& lines) {
  json line;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      line = {{"type", "kernel"},    {"name", k->name ? k->name : "<unnamed>"}, {"start_ns", k->start},
              {"end_ns", k->end},    {"device", k->deviceId},                   {"stream", k->streamId},
              {"correlation", k->correlationId}};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      // A copy's correlationId is its driver call's; the runtime call the job made has runtimeCorrelationId.
      line = {{"type", "memcpy"},  {"name", copy_name(m->copyKind)}, {"bytes", m->bytes},  {"start_ns", m->start},
              {"end_ns", m->end},  {"device", m->deviceId},           {"stream", m->streamId},
              {"correlation", m->runtimeCorrelationId ? m->runtimeCorrelationId : m->correlationId}};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      line = {{"type", "memset"}, {"name", "Memset"},       {"bytes", m->bytes},     {"start_ns", m->start},
              {"end_ns", m->end}, {"device", m->deviceId}, {"stream", m->streamId}, {"correlation", m->correlationId}};
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const CUpti_CallbackDomain domain =
          record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
      if (!api_kept(domain, a->cbid)) return;
      const char* name = nullptr;
      cuptiGetCallbackName(domain, a->cbid, &name);
      line = {{"type", "api"},       {"name", name ? name : "?"}, {"start_ns", a->start},
              {"end_ns", a->end},    {"thread", a->threadId},     {"correlation", a->correlationId}};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        g_open_markers[m->id] = {{"type", "range"},
                                 {"name", m->name ? m->name : ""},
                                 {"start_ns", m->timestamp},
                                 {"thread", m->objectId.pt.threadId}};
        return;
      }
      if (!(m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)) return;
      const auto open = g_open_markers.find(m->id);
      if (open == g_open_markers.end()) return;
      line = std::move(open->second);
      line["end_ns"] = m->timestamp;
      g_open_markers.erase(open);
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
      line = {{"type", "device"}, {"id", d->id}, {"name", d->name ? d->name : ""},
              {"memory_bytes", d->globalMemorySize}};
      break;
    }
    default: return;
  }
  lines += line.dump();
  lines += '\n';
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid_size) {
  std::string lines;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const size_t dropped = read_cupti_buffer(context, stream, buffer, valid_size,
                                             [&](const CUpti_Activity* record) { append_record(record, lines); });
    if (dropped > 0) lines += json{{"type", "dropped"}, {"records", dropped}}.dump() + "\n";
  }
  std::free(buffer);
  if (RecordingSink* sink = process_sink()) sink->write_lines(lines);
}

void flush_at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (RecordingSink* sink = process_sink()) sink->flush();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  RecordingSink* sink = process_sink();
  if (!sink) return 1;
  // One clock for CUPTI's host timestamps and the NCCL plugin's: CLOCK_REALTIME, the same in every
  // process of the node. Where CUPTI refuses, the plugin takes CUPTI's clock instead.
  if (cuptiActivityRegisterTimestampCallback(dtsim::profiler::record::realtime_ns) != CUPTI_SUCCESS)
    sink->set_clock(cupti_now_ns);
  if (!warn(cuptiActivityRegisterCallbacks(request_cupti_buffer, buffer_completed), "cuptiActivityRegisterCallbacks"))
    return 1;
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "kernel records");
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "memcpy records");
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "memset records");
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "runtime API records");
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "driver API records");
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER), "NVTX range records");
  warn(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE), "device records (the GPU's name and memory)");
  std::atexit(flush_at_exit);
  return 1;
}

#include "cupti_collector.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "cupti_buffers.hpp"
#include "gpu_check.hpp"

namespace dtsim::profiler::gpu {

namespace {

// Filled by CUPTI's callbacks, which may run on a CUPTI thread. Plain statics with trivial or
// constexpr construction: nothing that touches the GPU runs before main.
std::mutex g_mutex;
std::vector<KernelRecord>* g_records = nullptr;  // owned by the live collector
uint64_t g_dropped = 0;
bool g_registered = false;

KernelRecord to_record(const CUpti_ActivityKernel10& k) {
  KernelRecord r;
  r.name = k.name ? k.name : "<unnamed>";
  r.start_ns = k.start;
  r.end_ns = k.end;
  r.grid_x = k.gridX, r.grid_y = k.gridY, r.grid_z = k.gridZ;
  r.block_x = k.blockX, r.block_y = k.blockY, r.block_z = k.blockZ;
  r.stream_id = k.streamId;
  r.correlation_id = k.correlationId;
  r.device_id = k.deviceId;
  return r;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  std::vector<KernelRecord> batch;
  const size_t dropped = read_cupti_buffer(context, stream_id, buffer, valid_size, [&](const CUpti_Activity* record) {
    // CUDA 13's CUPTI gives kernel records as CUpti_ActivityKernel10 (see cupti_activity.h).
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
      batch.push_back(to_record(*reinterpret_cast<const CUpti_ActivityKernel10*>(record)));
  });
  std::free(buffer);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_dropped += dropped;
  if (g_records) g_records->insert(g_records->end(), batch.begin(), batch.end());
}

}  // namespace

CuptiKernelCollector::CuptiKernelCollector() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_records) throw std::logic_error("only one CuptiKernelCollector at a time");
  g_records = new std::vector<KernelRecord>();
  g_dropped = 0;
  if (!g_registered) {
    PROFILE_CUPTI(cuptiActivityRegisterCallbacks(request_cupti_buffer, buffer_completed));
    g_registered = true;
  }
  PROFILE_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  enabled_ = true;
}

CuptiKernelCollector::~CuptiKernelCollector() {
  if (enabled_) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  delete g_records;
  g_records = nullptr;
}

void CuptiKernelCollector::enable() {
  if (enabled_) return;
  PROFILE_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  enabled_ = true;
}

void CuptiKernelCollector::disable() {
  if (!enabled_) return;
  PROFILE_CUPTI(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  enabled_ = false;
}

std::vector<KernelRecord> CuptiKernelCollector::flush_and_take() {
  PROFILE_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<KernelRecord> taken;
  taken.swap(*g_records);
  return taken;
}

uint64_t CuptiKernelCollector::now_ns() {
  uint64_t t = 0;
  PROFILE_CUPTI(cuptiGetTimestamp(&t));
  return t;
}

uint64_t CuptiKernelCollector::dropped_records() const {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_dropped;
}

}  // namespace dtsim::profiler::gpu

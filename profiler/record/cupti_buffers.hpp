// CUPTI's activity buffers, handed out and read back the same way by dtsim-profile's kernel
// collector (gpu/cupti_collector.cpp) and the recording library (record/cupti_injection.cpp).
// Header-only: both are built with CUPTI, the CPU libraries are not.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace dtsim::profiler {

constexpr size_t kCuptiBufferBytes = 8 << 20;  // per CUPTI request; CUPTI asks again when it fills
constexpr size_t kCuptiRecordAlignment = 8;    // ACTIVITY_RECORD_ALIGNMENT in CUPTI's samples

// cuptiActivityRegisterCallbacks's request callback: a fresh buffer for as many records as fit
// (size 0 when out of memory: CUPTI then drops records). The completion callback frees it.
inline void CUPTIAPI request_cupti_buffer(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kCuptiRecordAlignment, kCuptiBufferBytes));
  *size = *buffer ? kCuptiBufferBytes : 0;
  *max_records = 0;
}

// Each record of a completed buffer to `use`; returns how many records CUPTI dropped on that
// context and stream (0 when it cannot say).
template <class Use>
size_t read_cupti_buffer(CUcontext context, uint32_t stream, uint8_t* buffer, size_t valid_size, Use&& use) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) use(record);
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
  return dropped;
}

}  // namespace dtsim::profiler

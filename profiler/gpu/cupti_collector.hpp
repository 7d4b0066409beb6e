#pragma once
// Kernel records from the CUPTI Activity API (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: unlike
// KIND_KERNEL it does not serialise kernels). CUPTI hands filled buffers to a callback, possibly
// on its own thread; the records are converted to KernelRecord there and kept until taken.
// Nothing happens at static initialisation: CUPTI is touched only by the constructor.
#include <cstdint>
#include <vector>

#include "kernel_records.hpp"

namespace dtsim::profiler::gpu {

class CuptiKernelCollector {
 public:
  // Registers the buffer callbacks and enables kernel activity. One collector per process.
  CuptiKernelCollector();
  ~CuptiKernelCollector();  // disables kernel activity and flushes
  CuptiKernelCollector(const CuptiKernelCollector&) = delete;
  CuptiKernelCollector& operator=(const CuptiKernelCollector&) = delete;

  void enable();   // record kernels (on after construction)
  void disable();  // stop recording (the overhead comparison, and NCCL runs that need no records)
  bool enabled() const { return enabled_; }

  // Flushes CUPTI's buffers (the caller has synchronised the work first) and hands over every
  // kernel record completed since the last call.
  std::vector<KernelRecord> flush_and_take();

  // The CUPTI clock the kernel records' start and end are on, ns.
  static uint64_t now_ns();

  // Records CUPTI reported dropped (buffers full) since the collector started.
  uint64_t dropped_records() const;

 private:
  bool enabled_ = false;
};

}  // namespace dtsim::profiler::gpu

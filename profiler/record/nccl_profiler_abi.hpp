// The NCCL profiler-plugin interface, version 4 (NCCL 2.26 and later; newer NCCL still looks for
// the "ncclProfiler_v4" symbol after its own newer versions). Declared here from the layout NCCL
// documents in ext-profiler/ (a plugin carries its own copy of the definitions it implements);
// only what dtsim's plugin reads is named, the rest keeps its place in the layout.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

extern "C" {

using ncclResult_v4_t = int;  // ncclSuccess is 0
constexpr ncclResult_v4_t kNcclSuccess = 0;

// Event types (ncclProfile*): bits of the activation mask.
constexpr int kNcclProfileGroup = 1 << 0;
constexpr int kNcclProfileColl = 1 << 1;
constexpr int kNcclProfileP2p = 1 << 2;

using ncclDebugLogger_v4_t = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

struct ncclProfilerEventDescr_v4_t {
  uint8_t type;     // kNcclProfileColl, ...
  void* parentObj;  // the parent event's handle (a collective's or p2p's group)
  int rank;         // the rank in the communicator that generated the event
  union {
    struct {
      uint64_t seqNumber;
      const char* func;  // "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce"
      const void* sendBuff;
      void* recvBuff;
      size_t count;  // elements: per rank sent for AllGather, received for ReduceScatter
      int root;
      const char* datatype;  // "ncclFloat32", "ncclBfloat16", ...
      uint8_t nChannels;
      uint8_t nWarps;
      const char* algo;
      const char* proto;
    } coll;
    struct {
      const char* func;  // "Send" or "Recv"
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t nChannels;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channelId;
      int peer;
      int nSteps;
      int chunkSize;
      int isSend;
    } proxyOp;
    struct {
      int step;
    } proxyStep;
    struct {
      uint8_t channelId;
      uint64_t pTimer;
    } kernelCh;
    struct {
      int64_t id;
      void* data;
    } netPlugin;
  };
};

using ncclProfilerEventState_v4_t = int;  // an enum in NCCL: proxy states, unused here
union ncclProfilerEventStateArgs_v4_t {
  struct {
    size_t transSize;
  } proxyStep;
  struct {
    int appendedProxyOps;
  } proxyCtrl;
  struct {
    void* data;
  } netPlugin;
  struct {
    uint64_t pTimer;
  } kernelCh;
};

struct ncclProfiler_v4_t {
  const char* name;
  ncclResult_v4_t (*init)(void** context, int* eActivationMask, const char* commName, uint64_t commHash, int nNodes,
                          int nranks, int rank, ncclDebugLogger_v4_t logfn);
  ncclResult_v4_t (*startEvent)(void* context, void** eHandle, ncclProfilerEventDescr_v4_t* eDescr);
  ncclResult_v4_t (*stopEvent)(void* eHandle);
  ncclResult_v4_t (*recordEventState)(void* eHandle, ncclProfilerEventState_v4_t eState,
                                      ncclProfilerEventStateArgs_v4_t* eStateArgs);
  ncclResult_v4_t (*finalize)(void* context);
};

// Defined by nccl_profiler_plugin.cpp; NCCL finds it with dlsym.
extern ncclProfiler_v4_t ncclProfiler_v4;

}  // extern "C"

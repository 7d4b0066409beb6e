#include "operator_sweep.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "cupti_collector.hpp"
#include "gpu_check.hpp"

namespace dtsim::profiler::gpu {

using kernels::DType;
using kernels::OpShape;

namespace {

kernels::LayerDims layer(int64_t hidden, bool llama) {
  kernels::LayerDims d;
  d.hidden = hidden;
  d.heads = hidden / 128;  // head_dim 128
  d.kv_heads = d.heads;
  d.ffn = llama ? (8 * hidden / 3 + 255) / 256 * 256 : 4 * hidden;  // SwiGLU's 8/3 h, to a multiple of 256
  d.seq = 2048;
  d.vocab = 50304;
  d.micro_batch = 1;
  d.tp = 1;
  d.swiglu = d.rmsnorm = llama;
  return d;
}

// A stream and some events, released on every path (create() may throw half way).
struct StreamAndEvents {
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> events;
  StreamAndEvents() = default;
  void create(size_t event_count) {
    PROFILE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    events.resize(event_count, nullptr);
    for (cudaEvent_t& e : events) PROFILE_CUDA(cudaEventCreate(&e));
  }
  ~StreamAndEvents() {
    for (cudaEvent_t e : events)
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }
  StreamAndEvents(const StreamAndEvents&) = delete;
  StreamAndEvents& operator=(const StreamAndEvents&) = delete;
};

RawOperator skeleton(const OpShape& shape, const kernels::Operator& op) {
  const kernels::OpWork work = op.work();
  RawOperator r;
  r.op = shape.op;
  r.kind = work.kind;
  r.dtype = kernels::to_string(shape.dtype);
  r.shape = shape_fields(shape);
  r.flops = work.flops;
  r.bytes = work.bytes;
  r.access = op.memory_access();
  return r;
}

void warm_up(kernels::Operator& op, cudaStream_t stream, int warmup) {
  for (int i = 0; i < warmup; ++i) op.run(stream);
  PROFILE_CUDA(cudaStreamSynchronize(stream));
}

// Each timed run alone between two CUPTI timestamps: enqueue, synchronise, so its kernels lie
// inside [begin, end] on the CUPTI clock. Idle gaps between runs do not count: the time is the
// sum of the kernels' durations.
void measure_with_cupti(kernels::Operator& op, const SweepSettings& s, CuptiKernelCollector& collector, RawOperator& r) {
  StreamAndEvents se;
  se.create(0);
  PROFILE_CUDA(cudaDeviceSynchronize());  // the operator's setup kernels must not run inside a window
  collector.flush_and_take();            // drop records of setup and earlier operators
  warm_up(op, se.stream, s.warmup);
  for (int i = 0; i < s.iterations; ++i) {
    RunWindow w;
    w.kind = WindowKind::timestamp_ns;
    w.begin = CuptiKernelCollector::now_ns();
    op.run(se.stream);
    PROFILE_CUDA(cudaStreamSynchronize(se.stream));
    w.end = CuptiKernelCollector::now_ns();
    r.runs.push_back(w);
  }
  PROFILE_CUDA(cudaDeviceSynchronize());
  // CUPTI may deliver the last records a little after the flush: try again a few times before the
  // calibration builder reports an empty window.
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::vector<KernelRecord> got = collector.flush_and_take();
    r.kernels.insert(r.kernels.end(), got.begin(), got.end());
    if (aggregate_operator_runs(r.runs, r.kernels).empty_runs.empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void measure_with_events(kernels::Operator& op, const SweepSettings& s, RawOperator& r) {
  StreamAndEvents se;
  se.create(2 * size_t(s.iterations));
  warm_up(op, se.stream, s.warmup);
  for (int i = 0; i < s.iterations; ++i) {
    PROFILE_CUDA(cudaEventRecord(se.events[2 * i], se.stream));
    op.run(se.stream);
    PROFILE_CUDA(cudaEventRecord(se.events[2 * i + 1], se.stream));
  }
  PROFILE_CUDA(cudaStreamSynchronize(se.stream));
  for (int i = 0; i < s.iterations; ++i) {
    float ms = 0;
    PROFILE_CUDA(cudaEventElapsedTime(&ms, se.events[2 * i], se.events[2 * i + 1]));
    r.event_times_s.push_back(double(ms) * 1e-3);
  }
}

}  // namespace

std::vector<OpShape> square_gemm_shapes(DType dtype) {
  std::vector<OpShape> shapes;
  for (int64_t n = 1024; n <= 16384; n *= 2) {
    OpShape s;
    s.op = "gemm";
    s.dtype = dtype;
    s.m = s.n = s.k = n;
    shapes.push_back(s);
  }
  return shapes;
}

std::vector<OpShape> default_shapes(const std::vector<DType>& dtypes, bool gemm_only) {
  std::vector<OpShape> shapes;
  std::set<std::string> seen;  // by describe(): layers share shapes, and every dtype repeats the fp32 adam
  const auto add = [&](const OpShape& s) {
    if (gemm_only && s.op != "gemm") return;
    if (seen.insert(kernels::describe(s)).second) shapes.push_back(s);
  };
  for (DType dtype : dtypes) {
    for (int64_t hidden : {1024, 2048, 4096, 8192})
      for (bool llama : {false, true})
        for (const OpShape& s : kernels::layer_shapes(layer(hidden, llama), dtype)) add(s);
    for (const OpShape& s : square_gemm_shapes(dtype)) add(s);
  }
  // Whatever the dtypes: the memory access patterns the simulator prices, in autocast's bf16.
  for (const OpShape& s : kernels::memory_access_probe_shapes()) add(s);
  return shapes;
}

ShapeFields shape_fields(const OpShape& s) {
  ShapeFields f;
  const auto put = [&](const char* name, int64_t v) {
    if (v != 0) f.emplace_back(name, v);
  };
  put("m", s.m), put("n", s.n), put("k", s.k);
  if (s.op.starts_with("attention_") || s.batch != 1) put("batch", s.batch);
  put("seq", s.seq), put("head_dim", s.head_dim), put("rows", s.rows), put("cols", s.cols), put("vocab", s.vocab);
  put("count", s.count);
  return f;
}

std::vector<RawOperator> measure_operators(const std::vector<OpShape>& shapes, const SweepSettings& settings,
                                           CuptiKernelCollector* collector) {
  std::vector<RawOperator> measured;
  size_t index = 0, skipped = 0;
  for (const OpShape& shape : shapes) {
    ++index;
    std::printf("  [%zu/%zu] %-60s", index, shapes.size(), kernels::describe(shape).c_str());
    std::fflush(stdout);
    // A dtype or shape the GPU or its libraries refuse (kernels::Unsupported), or that does not
    // fit (an allocation fails): one line, and the sweep goes on with the other shapes.
    const auto skip = [&](const std::string& why) {
      ++skipped;
      cudaGetLastError();  // a failed allocation leaves an error behind
      std::printf(" skipped: %s\n", why.c_str());
      std::fflush(stdout);
    };
    std::unique_ptr<kernels::Operator> op;
    try {
      op = kernels::make_operator(shape);
    } catch (const kernels::Unsupported& e) {
      skip(e.reason());
      continue;
    } catch (const std::exception& e) {
      skip(e.what());
      continue;
    }
    RawOperator r = skeleton(shape, *op);
    try {
      if (collector) measure_with_cupti(*op, settings, *collector, r);
      else measure_with_events(*op, settings, r);
    } catch (const kernels::Unsupported& e) {  // cuBLASLt refused the call itself, at the first run
      skip(e.reason());
      continue;
    }
    if (collector) {
      const OperatorKernelTiming t = aggregate_operator_runs(r.runs, r.kernels);
      std::printf(" %10.2f us kernel time, %zu kernel name(s)%s\n", t.time_s * 1e6, t.kernel_names.size(),
                  t.empty_runs.empty() ? "" : ", SOME RUNS WITHOUT KERNEL RECORDS");
    } else {
      std::printf(" %10.2f us (CUDA events)\n", median(r.event_times_s) * 1e6);
    }
    std::fflush(stdout);
    measured.push_back(std::move(r));
  }
  if (skipped > 0)
    std::printf("  %zu of %zu shapes skipped (refused by the GPU or its libraries, or too large; see their lines)\n",
                skipped, shapes.size());
  return measured;
}

double time_back_to_back_s(kernels::Operator& op, int iterations, int warmup) {
  StreamAndEvents se;
  se.create(2);
  warm_up(op, se.stream, warmup);
  PROFILE_CUDA(cudaEventRecord(se.events[0], se.stream));
  for (int i = 0; i < iterations; ++i) op.run(se.stream);
  PROFILE_CUDA(cudaEventRecord(se.events[1], se.stream));
  PROFILE_CUDA(cudaStreamSynchronize(se.stream));
  float ms = 0;
  PROFILE_CUDA(cudaEventElapsedTime(&ms, se.events[0], se.events[1]));
  return double(ms) * 1e-3;
}

}  // namespace dtsim::profiler::gpu

#include "recording_sink.hpp"

#include <pthread.h>
#include <stdio_ext.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace dtsim::profiler::record {

namespace {

std::mutex g_sink_mutex;
std::unique_ptr<RecordingSink> g_sink;
bool g_sink_tried = false;

// fork() while the sink is in use: the forking thread holds both locks, so no line is half
// written; the parent releases them, the child drops the sink (its stdio buffer holds the
// parent's unwritten lines, which the child's exit would write again) and may open its own.
void before_fork() {
  g_sink_mutex.lock();
  if (g_sink) g_sink->lock_for_fork();
}
void after_fork_in_parent() {
  if (g_sink) g_sink->unlock_after_fork();
  g_sink_mutex.unlock();
}
void after_fork_in_child() {
  if (g_sink) {
    g_sink->drop_parents_file();
    g_sink->unlock_after_fork();
    g_sink.reset();
  }
  g_sink_tried = false;
  g_sink_mutex.unlock();
}

void register_fork_handlers_once() {
  static const int registered = pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  (void)registered;
}

nlohmann::json env_or_null(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* v = std::getenv(name); v && *v) return v;
  return nullptr;
}

}  // namespace

uint64_t realtime_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

nlohmann::json process_line() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return {{"type", "process"},
          {"pid", long(getpid())},
          {"host", host},
          {"rank", env_or_null({"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})},
          {"world_size", env_or_null({"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})},
          {"local_rank", env_or_null({"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"})}};
}

RecordingSink::RecordingSink(const std::filesystem::path& file) {
  file_ = std::fopen(file.c_str(), "a");
  if (file_) write(process_line());
}

RecordingSink::~RecordingSink() {
  if (file_) std::fclose(file_);
}

void RecordingSink::write(const nlohmann::json& line) { write_lines(line.dump() + "\n"); }

void RecordingSink::write_lines(const std::string& lines) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_) std::fwrite(lines.data(), 1, lines.size(), file_);
}

void RecordingSink::drop_parents_file() {
  if (!file_) return;
  __fpurge(file_);  // glibc: discard what is buffered, so that fclose writes nothing
  std::fclose(file_);
  file_ = nullptr;
}

void RecordingSink::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_) std::fflush(file_);
}

RecordingSink* process_sink() {
  register_fork_handlers_once();
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  if (!g_sink && !g_sink_tried) {
    g_sink_tried = true;
    if (const char* dir = std::getenv(kRecordDirVariable); dir && *dir) {
      const std::filesystem::path raw = std::filesystem::path(dir) / "raw";
      std::error_code ec;
      std::filesystem::create_directories(raw, ec);
      g_sink = std::make_unique<RecordingSink>(raw / ("process-" + std::to_string(getpid()) + ".jsonl"));
    }
  }
  return g_sink.get();
}

void replace_process_sink(std::unique_ptr<RecordingSink> sink) {
  register_fork_handlers_once();
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  g_sink = std::move(sink);
  g_sink_tried = g_sink != nullptr;
}

}  // namespace dtsim::profiler::record

#include "recording_sink.hpp"

#include <unistd.h>

#include <cstdlib>
#include <ctime>

namespace dtsim::profiler::record {

namespace {

std::mutex g_sink_mutex;
std::unique_ptr<RecordingSink> g_sink;
bool g_sink_tried = false;

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

void RecordingSink::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_) std::fflush(file_);
}

RecordingSink* process_sink() {
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
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  g_sink = std::move(sink);
  g_sink_tried = g_sink != nullptr;
}

}  // namespace dtsim::profiler::record

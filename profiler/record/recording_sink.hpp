// Where dtsim-profile record's libraries write while the user's job runs: one JSON-lines file per
// process, <DTSIM_RECORD_DIR>/raw/process-<pid>.jsonl (format: recorded_process.hpp). The CUPTI
// injection and the NCCL profiler plugin are one shared library, so they share this sink and its
// clock, and their times can be compared.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace dtsim::profiler::record {

constexpr const char* kRecordDirVariable = "DTSIM_RECORD_DIR";

using ClockNs = uint64_t (*)();
uint64_t realtime_ns();  // CLOCK_REALTIME: the same on every process of a node

class RecordingSink {
 public:
  // Opens (appends to) `file` and writes the process line first.
  explicit RecordingSink(const std::filesystem::path& file);
  ~RecordingSink();
  RecordingSink(const RecordingSink&) = delete;
  RecordingSink& operator=(const RecordingSink&) = delete;

  void write(const nlohmann::json& line);
  void write_lines(const std::string& lines);  // already '\n'-terminated JSON lines
  void flush();
  uint64_t now_ns() const { return clock_(); }
  void set_clock(ClockNs clock) { clock_ = clock; }

  // fork() handlers only (process_sink registers them): hold the sink across the fork, and in the
  // child close the parent's file without writing the lines buffered for the parent.
  void lock_for_fork() { mutex_.lock(); }
  void unlock_after_fork() { mutex_.unlock(); }
  void drop_parents_file();

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  ClockNs clock_ = realtime_ns;
};

// The process's sink, opened on first use under DTSIM_RECORD_DIR; nullptr when it is not set or
// the file cannot be opened (the job then runs unrecorded: a recorder never stops the job). A
// process forked from a recording one (a data-loader worker) starts without it and opens its own
// file when it records; it never writes its parent's buffered lines a second time.
RecordingSink* process_sink();
// Tests: the sink process_sink() returns from now on (nullptr: back to DTSIM_RECORD_DIR).
void replace_process_sink(std::unique_ptr<RecordingSink> sink);

// The process line: pid, host and the launcher's rank variables (RANK, WORLD_SIZE, LOCAL_RANK as
// torchrun sets them; OMPI_COMM_WORLD_RANK, SLURM_PROCID otherwise).
nlohmann::json process_line();

}  // namespace dtsim::profiler::record

#include "record_command.hpp"

#include <cstdio>
#include <filesystem>

#include "input_error.hpp"
#include "recording_session.hpp"

namespace dtsim::profiler::gpu {

namespace {

namespace fs = std::filesystem;
using namespace dtsim::profiler::record;

// libdtsim_record.so is built beside dtsim-profile.
fs::path recorder_library() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (ec ? fs::current_path() : self.parent_path()) / DTSIM_RECORD_LIBRARY_NAME;
}

void print_summary(const std::vector<RankTrace>& traces) {
  if (traces.empty()) {
    std::printf("no process recorded GPU work: nothing to import (did the command use CUDA?)\n");
    return;
  }
  for (const RankTrace& t : traces) {
    const ConvertedRecording& s = t.summary;
    std::printf("rank %d of %d: %s: %zu GPU activities, %zu of %zu NCCL kernels sized from %zu NCCL launches, "
                "%zu steps from %s\n",
                s.rank, s.world_size, t.file.string().c_str(), s.gpu_activities, s.matched, s.nccl_kernels,
                s.nccl_launches, s.steps, s.steps_from.c_str());
  }
}

}  // namespace

int run_record_command(const RecordOptions& o) {
  const fs::path out = o.out_dir;
  int job_status = 0;
  if (!o.convert_only) {
    if (o.command.empty()) {
      std::fprintf(stderr, "dtsim-profile record: expected a command after --, found none\n");
      return 2;
    }
    RecordSettings s{out, recorder_library(), DTSIM_CUPTI_LIBRARY};
    if (!fs::exists(s.library)) {
      std::fprintf(stderr, "dtsim-profile record: %s is missing (built with dtsim-profile)\n",
                   s.library.string().c_str());
      return 2;
    }
    std::error_code ec;
    fs::remove_all(out / "raw", ec);  // a second recording into one folder does not mix with the first
    std::printf("recording into %s: %s ...\n", out.string().c_str(), o.command.front().c_str());
    std::fflush(stdout);
    job_status = run_recorded(o.command, s);
    if (job_status != 0) std::fprintf(stderr, "dtsim-profile record: the command exited with %d\n", job_status);
  }
  try {
    print_summary(write_rank_traces(out, {o.step_range}));
  } catch (const InputError& e) {
    std::fprintf(stderr, "dtsim-profile record: %s\n", e.what());
    return job_status != 0 ? job_status : 2;
  }
  return job_status;
}

}  // namespace dtsim::profiler::gpu

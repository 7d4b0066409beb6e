#include "recording_session.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "calibration_writer.hpp"
#include "input_error.hpp"
#include "recording_sink.hpp"

namespace dtsim::profiler::record {

std::vector<std::pair<std::string, std::string>> recording_environment(const RecordSettings& s) {
  const std::string library = std::filesystem::absolute(s.library).string();
  std::vector<std::pair<std::string, std::string>> env = {
      {kRecordDirVariable, std::filesystem::absolute(s.out_dir).string()},
      {"CUDA_INJECTION64_PATH", library},
      {"NCCL_PROFILER_PLUGIN", library},
  };
  // CUPTI records NVTX ranges only when NVTX calls reach it: NVTX loads the library named here.
  if (!s.cupti_library.empty()) env.emplace_back("NVTX_INJECTION64_PATH", s.cupti_library.string());
  return env;
}

int run_recorded(const std::vector<std::string>& command, const RecordSettings& s) {
  if (command.empty()) return 127;
  std::filesystem::create_directories(s.out_dir / "raw");
  // The child's argv and environment are built before fork: after it, only exec and _exit.
  const auto added = recording_environment(s);
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& a : added) replaced = replaced || a.first == name;
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [name, value] : added) env_text.push_back(name + "=" + value);
  std::vector<char*> argv, envp;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env_text) envp.push_back(const_cast<char*>(e.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) return 127;
  if (child == 0) {
    execvpe(argv[0], argv.data(), envp.data());
    const char* why = std::strerror(errno);
    dprintf(2, "dtsim-profile record: cannot run '%s': %s\n", argv[0], why);
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

std::vector<RankTrace> write_rank_traces(const std::filesystem::path& out_dir, const ConversionOptions& options) {
  std::vector<RankTrace> traces;
  std::map<int, std::filesystem::path> source_of_rank;
  for (const std::filesystem::path& file : recorded_process_files(out_dir)) {
    const RecordedProcess process = read_recorded_process(file);
    if (process.gpu.empty()) continue;  // a launcher or a data-loading worker: no GPU work of its own
    RankTrace t;
    t.summary = kineto_from_recording(process, options);
    const auto [other, fresh] = source_of_rank.emplace(t.summary.rank, file);
    if (!fresh)
      throw InputError({file.string(), 0, "rank", "one process per rank",
                        "rank " + std::to_string(t.summary.rank) + " again (also " + other->second.string() + ")"});
    t.file = out_dir / ("rank" + std::to_string(t.summary.rank) + ".pt.trace.json");
    write_text_atomically(t.file, t.summary.trace.dump() + "\n");
    traces.push_back(std::move(t));
  }
  return traces;
}

}  // namespace dtsim::profiler::record

// The dtsim process as a whole: two runs of a scenario write the same bytes, and a run killed
// mid-way leaves no temporary file and no simulation child behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "test_support.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Two runs of the same scenario, with and without what-if events: the same JSON, byte for byte.
TEST(CliProcess, TwoRunsWriteByteIdenticalJson) {
  test::ScratchDir dir;
  for (const char* scenario :
       {"gpt3-1.3b-8-h100.yaml", "gpt3-13b-64-a100-straggler.yaml", "resnet50-32-v100-ddp.yaml",
        "vgg16-16-k80-parameter-server.yaml", "bert-large-32-v100-25gbe-compression.yaml"}) {
    const std::string file = (test::source_dir() / "scenarios" / scenario).string();
    const fs::path a = dir.path() / "a.json", b = dir.path() / "b.json";
    ASSERT_EQ(test::run_dtsim("run " + file + " --json " + a.string()).exit_code, 0) << scenario;
    ASSERT_EQ(test::run_dtsim("run " + file + " --json " + b.string()).exit_code, 0) << scenario;
    const std::string first = read_file(a);
    EXPECT_GT(first.size(), 1000u) << scenario;
    EXPECT_EQ(first, read_file(b)) << scenario;
  }
}

// F-12 of the 2026-11-26 campaign: sweep and plan printed their wall times into --json.
TEST(CliProcess, SweepAndPlanWriteByteIdenticalJson) {
  test::ScratchDir dir;
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  for (const std::string& command :
       {"sweep " + scenario + " --field parallelism.dp --values 1,2,4,8", std::string("plan --gpus 8 --model gpt3-1.3b")}) {
    const fs::path a = dir.path() / "a.json", b = dir.path() / "b.json";
    ASSERT_EQ(test::run_dtsim(command + " --json " + a.string()).exit_code, 0) << command;
    ASSERT_EQ(test::run_dtsim(command + " --json " + b.string()).exit_code, 0) << command;
    const std::string first = read_file(a);
    EXPECT_GT(first.size(), 500u) << command;
    EXPECT_EQ(first, read_file(b)) << command;
  }
}

// dtsim with `args`, started in the background with its output discarded.
pid_t start_dtsim(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv{const_cast<char*>(DTSIM_CLI)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(DTSIM_CLI, argv.data());
    _exit(127);
  }
  return pid;
}

std::string proc_field(pid_t pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + name);
  std::string text;
  std::getline(in, text);
  return text;
}

// A live (not zombie) process whose parent is `parent`, or -1.
pid_t child_of(pid_t parent) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::istringstream stat(proc_field(std::stoi(name), "stat"));
    std::string pid, command, state;
    long ppid = 0;
    stat >> pid >> command >> state >> ppid;
    if (ppid == parent && state != "Z") return std::stoi(name);
  }
  return -1;
}

bool gone(pid_t pid) {
  const std::string stat = proc_field(pid, "stat");
  return stat.empty() || stat.find(") Z ") != std::string::npos;  // reaped, or a zombie
}

// The trace goes to a FIFO that the test opens and never reads: dtsim blocks writing its trace
// (megabytes, past the pipe's buffer), and SIGTERM lands there. The FIFO stays a FIFO and nothing
// else appears beside it: a regular output is written into an unnamed file, and a device or FIFO
// in place (sim/base/atomic_file.hpp).
TEST(CliProcess, KilledWhileWritingLeavesTheFifoAndNothingElse) {
  test::ScratchDir dir;
  const fs::path trace = dir.path() / "t.json";
  ASSERT_EQ(mkfifo(trace.c_str(), 0600), 0);
  const int reader = open(trace.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const pid_t pid = start_dtsim({"run", "--trace", trace.string()});
  bool writing = false;
  for (auto waited = 0ms; waited < 60s && !writing; waited += 20ms) {
    // blocked writing into the full FIFO ("pipe_write", "anon_pipe_write" in newer kernels)
    writing = proc_field(pid, "wchan").find("pipe_write") != std::string::npos;
    if (!writing) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(writing) << "dtsim never reached the write of its trace";
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  close(reader);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_TRUE(fs::is_fifo(trace));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// GPT-3 175B on 1024 GPUs simulates for seconds in a child process; killing dtsim meanwhile
// takes the child with it.
TEST(CliProcess, KilledWhileSimulatingLeavesNoChild) {
  const pid_t pid = start_dtsim({"run"});
  pid_t child = -1;
  for (auto waited = 0ms; waited < 30s && child < 0; waited += 10ms) {
    child = child_of(pid);
    if (child < 0) std::this_thread::sleep_for(10ms);
  }
  ASSERT_GT(child, 0) << "no simulation child appeared";
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  bool ended = false;
  for (auto waited = 0ms; waited < 2s && !ended; waited += 10ms) {
    ended = gone(child);
    if (!ended) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(ended) << "child " << child << " still running";
  if (!ended) kill(child, SIGKILL);
}

}  // namespace
}  // namespace dtsim

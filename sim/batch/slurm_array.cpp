#include "slurm_array.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "atomic_file.hpp"
#include "input_error.hpp"
#include "program_run.hpp"

namespace dtsim {

namespace {

namespace fs = std::filesystem;

constexpr int kMaxTasks = 1000;
constexpr auto kPoll = std::chrono::milliseconds(500);

// The jobs submitted and not yet gathered, for cancel_waited_slurm_jobs (a signal handler reads
// them): their ids and scancel's path, set before the count that makes them visible.
constexpr int kMaxWaited = 2;
char waited_jobs[kMaxWaited][32];
char scancel_path[4096];
std::atomic<int> waited_count{0};
static_assert(std::atomic<int>::is_always_lock_free);

// scancel on the PATH, as execvp would find it ("" when it is not there).
std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

void register_waited_job(const std::string& id) {
  const int n = waited_count.load();
  if (n >= kMaxWaited) return;
  if (n == 0) std::snprintf(scancel_path, sizeof scancel_path, "%s", find_on_path("scancel").c_str());
  std::snprintf(waited_jobs[n], sizeof waited_jobs[n], "%s", id.c_str());
  waited_count.store(n + 1);
}

struct WaitedJobsCleared {  // the batch is gathered (or abandoned): nothing to cancel any more
  ~WaitedJobsCleared() { waited_count.store(0); }
};

InputError slurm_error(const std::string& expected, const std::string& found) {
  return InputError({"<command line>", 0, "--slurm", expected, found});
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string last_line(const std::string& text) {
  const std::string t = trimmed(text);
  const size_t at = t.rfind('\n');
  return at == std::string::npos ? t : t.substr(at + 1);
}

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

fs::path own_executable() { return fs::read_symlink("/proc/self/exe"); }

// Submits tasks `array` ("0-15", or "3,7") of the batch in `dir`; returns the job id.
std::string submit(const SlurmOptions& o, const fs::path& dir, const std::string& array, bool retry) {
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--job-name=dtsim",
                                   "--array=" + array,
                                   "--ntasks=1",
                                   "--cpus-per-task=1",
                                   "--output=" + (dir / "logs" / (retry ? "task-%a.retry.log" : "task-%a.log")).string()};
  if (!o.partition.empty()) argv.push_back("--partition=" + o.partition);
  if (!o.time_limit.empty()) argv.push_back("--time=" + o.time_limit);
  argv.insert(argv.end(), o.sbatch_options.begin(), o.sbatch_options.end());
  argv.push_back((dir / "task.sh").string());
  const ProgramRun run = run_program(argv);
  if (run.exit_code < 0) throw slurm_error("sbatch on the PATH (Slurm's client commands)", "no sbatch");
  if (run.exit_code != 0) throw slurm_error("a job array sbatch accepts", last_line(run.output));
  const std::string id = last_line(run.output).substr(0, last_line(run.output).find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw slurm_error("a job id from sbatch --parsable", "'" + last_line(run.output) + "'");
  register_waited_job(id);  // from now on Ctrl-C cancels it
  return id;
}

// True while squeue still lists a task of the job, or cannot say (a busy controller: ask again).
bool job_pending_or_running(const std::string& id) {
  const ProgramRun run = run_program({"squeue", "-h", "--jobs=" + id, "-o", "%i"});
  if (run.exit_code < 0) throw slurm_error("squeue on the PATH (Slurm's client commands)", "no squeue");
  if (run.exit_code != 0) return run.output.find("Invalid job id") == std::string::npos;
  return !trimmed(run.output).empty();
}

size_t replies_present(const fs::path& dir, size_t count) {
  size_t present = 0;
  for (size_t i = 0; i < count; ++i) present += fs::exists(reply_file(dir, i));
  return present;
}

// Waits until every reply is there or no job lists a task; false when cancelled (the jobs then
// cancelled).
bool wait_for(const std::vector<std::string>& ids, const fs::path& dir, size_t count, const char* noun,
              std::ostream& log, const std::atomic<bool>* cancel) {
  size_t reported = size_t(-1);
  for (;;) {
    const size_t present = replies_present(dir, count);
    if (present != reported) {
      log << fmt::format("slurm: job {}: {} of {} {} done\n", fmt::join(ids, ", "), present, count, noun);
      log.flush();
      reported = present;
    }
    if (present == count) return true;
    if (std::none_of(ids.begin(), ids.end(), job_pending_or_running)) return true;
    if (cancel && cancel->load()) {
      for (const std::string& id : ids) run_program({"scancel", id});
      log << fmt::format("slurm: job {} cancelled\n", fmt::join(ids, ", "));
      return false;
    }
    std::this_thread::sleep_for(kPoll);
  }
}

// Shards whose items lack a reply.
std::vector<int> tasks_missing(const fs::path& dir, size_t count, int tasks) {
  std::set<int> missing;
  for (size_t i = 0; i < count; ++i)
    if (!fs::exists(reply_file(dir, i))) missing.insert(int(i % size_t(tasks)));
  return {missing.begin(), missing.end()};
}

std::string log_tail(const fs::path& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return in ? last_line(text) : "no log";
}

// A new work folder with the manifest (of `m`'s items) and the task script; returns the manifest.
SlurmManifest prepare(SlurmManifest m, const SlurmOptions& o, const fs::path& dir) {
  refuse_used_work_dir(dir);
  for (const fs::path& sub : {dir / "results", dir / "logs"}) {
    std::error_code ec;
    fs::create_directories(sub, ec);
    if (ec) throw InputError({sub.string(), 0, "--slurm-dir", "a folder dtsim can create", ec.message()});
  }
  const int count = int(m.items());
  m.working_dir = fs::current_path();
  m.tasks = std::clamp(o.tasks > 0 ? o.tasks : count, 1, std::max(1, std::min(count, kMaxTasks)));
  m.command_line = o.command_line;
  const fs::path dtsim = o.dtsim_executable.empty() ? own_executable() : o.dtsim_executable;
  write_text(dir / "task.sh",
             fmt::format("#!/bin/sh\n# A task of a dtsim Slurm batch: the items i with i % {} == the task id.\n"
                         "exec {} slurm-task {} \"$SLURM_ARRAY_TASK_ID\"\n",
                         m.tasks, shell_quoted(dtsim.string()), shell_quoted(dir.string())));
  write_manifest(dir, m);  // before the tasks can start: they read it
  return m;
}

}  // namespace

fs::path default_work_dir() {
  const std::time_t now = std::time(nullptr);
  return fs::current_path() / fmt::format("dtsim-slurm-{:%Y%m%d-%H%M%S}-{}", fmt::localtime(now), getpid());
}

void write_text(const fs::path& file, const std::string& text) {
  const std::string error = write_file_atomically(file, text);
  if (!error.empty()) throw InputError({file.string(), 0, "--slurm-dir", "a folder dtsim can write", error});
}

// Replies of another batch would pass for this one's.
void refuse_used_work_dir(const fs::path& dir) {
  if (fs::exists(dir / "batch.json") || fs::exists(dir / "results"))
    throw InputError({dir.string(), 0, "--slurm-dir", "a new folder for this batch (dtsim collect gathers an old one)",
                      "the work folder of another batch"});
}

SlurmArray run_slurm_array(SlurmManifest items, const SlurmOptions& options, std::ostream& log,
                           const std::atomic<bool>* cancel) {
  SlurmArray a;
  const size_t count = items.items();
  const char* noun = items.item_noun();
  const WaitedJobsCleared cleared;
  SlurmManifest& m = a.manifest;
  if (!options.collect_from.empty()) {
    a.work_dir = fs::absolute(options.collect_from).lexically_normal();
    m = read_manifest(a.work_dir);
    for (const std::string& id : m.job_ids) register_waited_job(id);
    if (!m.same_items(items))
      throw InputError({(a.work_dir / "batch.json").string(), 0,
                        items.simulations.empty() ? "monte_carlo_jobs" : "simulations",
                        fmt::format("the {} of the command that submitted it", noun),
                        "others (the inputs changed since)"});
  } else {
    a.work_dir = fs::absolute(options.work_dir.empty() ? default_work_dir() : options.work_dir).lexically_normal();
    m = prepare(std::move(items), options, a.work_dir);
    m.job_ids = {submit(options, a.work_dir, fmt::format("0-{}", m.tasks - 1), false)};
    write_manifest(a.work_dir, m);
    log << fmt::format("slurm: submitted job {}: {} {} in {} tasks, work folder {}\n", m.job_ids[0], count, noun,
                       m.tasks, a.work_dir.string());
  }
  if (!options.wait) {
    log << fmt::format("slurm: not waiting; `dtsim collect {}` gathers the results\n", a.work_dir.string());
    waited_count.store(0);  // left running on purpose
    a.state = SlurmArray::State::submitted;
    return a;
  }
  a.state = SlurmArray::State::cancelled;
  if (!wait_for(m.job_ids, a.work_dir, count, noun, log, cancel)) return a;
  // A task that failed or ran out of time is tried once more (its items done stay done).
  const std::vector<int> missing = tasks_missing(a.work_dir, count, m.tasks);
  if (!missing.empty() && m.job_ids.size() == 1) {
    log << fmt::format("slurm: tasks {} of job {} left {} undone; trying them once more\n", fmt::join(missing, ","),
                       m.job_ids[0], noun);
    m.job_ids.push_back(submit(options, a.work_dir, fmt::format("{}", fmt::join(missing, ",")), true));
    write_manifest(a.work_dir, m);
    if (!wait_for({m.job_ids.back()}, a.work_dir, count, noun, log, cancel)) return a;
  }
  a.state = SlurmArray::State::gathered;
  return a;
}

std::optional<std::vector<uint8_t>> SlurmArray::reply(size_t item) const {
  const fs::path file = reply_file(work_dir, item);
  if (!fs::exists(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  return std::vector<uint8_t>{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string SlurmArray::missing_reply_error(size_t item) const {
  const int task = int(item % size_t(manifest.tasks));
  const fs::path log_file = task_log(work_dir, task, manifest.job_ids.size() > 1);
  return fmt::format("no result from Slurm task {} (job {}, tried {}): see {} ({})", task,
                     fmt::join(manifest.job_ids, " then "), manifest.job_ids.size() > 1 ? "twice" : "once",
                     log_file.string(), log_tail(log_file));
}

void cancel_waited_slurm_jobs() noexcept {
  // fork and execv, nothing else; no wait, so that a hanging scancel cannot hold the exit back
  // (the child carries on alone).
  const int n = waited_count.load();
  if (n == 0 || scancel_path[0] == '\0') return;
  for (int i = 0; i < n; ++i) {
    if (fork() == 0) {
      char* argv[] = {scancel_path, waited_jobs[i], nullptr};
      execv(scancel_path, argv);
      _exit(127);
    }
  }
}

}  // namespace dtsim

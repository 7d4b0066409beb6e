// Studies on Slurm (issue 49), against a real one-machine Slurm that ctest starts before these
// tests (tests/slurm/local-slurm.sh, fixture local_slurm; SLURM_CONF names it) and stops after:
// a sweep, a plan, compare-strategies, validate, the straggler sweep and goodput on Slurm print what
// they print here byte for byte (--json, or the table where there is no JSON); --slurm-no-wait and
// `dtsim collect` give it too; a task killed before it ran is run once more; one killed twice is
// reported with its log; Ctrl-C cancels the job array.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "test_support.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kSweep = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string() +
                           " --field parallelism.tp --values 1-8";

// `dtsim ARGS` started in `dir`, its output to `dir`/out.txt and err.txt; returns its pid.
pid_t start_dtsim(const fs::path& dir, const std::string& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string command = "cd '" + dir.string() + "' && exec " + DTSIM_CLI + " " + args + " > out.txt 2> err.txt";
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

int wait_for_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Job `n` (0: the first submission, 1: the retry) of the batch in `work`, as dtsim wrote it in
// batch.json once sbatch answered; waits up to 20 s for it, "" if it did not come.
std::string submitted_job(const fs::path& work, size_t n = 0) {
  for (int i = 0; i < 200; ++i) {
    try {
      const nlohmann::json batch = nlohmann::json::parse(test::read_file(work / "batch.json"));
      if (batch.at("job_ids").size() > n) return batch["job_ids"][n].get<std::string>();
    } catch (const nlohmann::json::exception&) {  // not written yet
    }
    std::this_thread::sleep_for(100ms);
  }
  return "";
}

// `dtsim ARGS --slurm` started in `dir` (work folder `work`, its tasks held 3 s), array task
// `task` cancelled, then the retry job: the two job ids ("" where one did not come; dtsim is then
// stopped) and dtsim's exit status.
struct KilledTwice {
  std::string job, retry;
  int status = 0;
};
KilledTwice run_with_a_task_killed_twice(const fs::path& dir, const std::string& args, int task) {
  KilledTwice k;
  const pid_t dtsim = start_dtsim(dir, args + " --slurm --slurm-dir work --slurm-option=--begin=now+3");
  k.job = submitted_job(dir / "work");
  if (!k.job.empty()) {
    test::run_shell("scancel " + k.job + "_" + std::to_string(task));
    k.retry = submitted_job(dir / "work", 1);
    if (!k.retry.empty()) test::run_shell("scancel " + k.retry);
  }
  if (k.retry.empty()) kill(dtsim, SIGTERM);
  k.status = wait_for_exit(dtsim);
  return k;
}

class Slurm : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "no SLURM_CONF: run through ctest (fixture local_slurm)";
    local_ = test::run_dtsim("sweep " + kSweep + " --json " + (dir_.path() / "local.json").string());
    ASSERT_EQ(local_.exit_code, 0) << local_.output;
  }
  std::string local_json() const { return test::read_file(dir_.path() / "local.json"); }

  test::ScratchDir dir_;
  test::CliResult local_;
};

TEST_F(Slurm, ASweepGivesTheLocalJsonByteForByte) {
  const test::CliResult r =
      test::run_shell("cd '" + dir_.path().string() + "' && " + DTSIM_CLI + " sweep " + kSweep +
                      " --json slurm.json --slurm --slurm-dir work --slurm-tasks 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(test::read_file(dir_.path() / "slurm.json"), local_json());
  EXPECT_NE(r.output.find("4 simulations in 3 tasks"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 of 4 simulations done"), std::string::npos) << r.output;
  // The same table, but where it ran and the file it wrote.
  EXPECT_NE(r.output.find("on Slurm (job "), std::string::npos) << r.output;
  std::istringstream table(local_.output);
  for (std::string line; std::getline(table, line);) {
    if (line.rfind("points ", 0) == 0 || line.rfind("json written", 0) == 0) continue;
    EXPECT_NE(r.output.find(line + "\n"), std::string::npos) << line << "\n" << r.output;
  }
  // Each task's log, and each simulation's reply.
  const fs::path work = dir_.path() / "work";
  for (int task = 0; task < 3; ++task)
    EXPECT_TRUE(fs::exists(work / "logs" / ("task-" + std::to_string(task) + ".log"))) << task;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(fs::exists(work / "results" / (std::to_string(i) + ".reply"))) << i;
}

// A plan's finalists (built in code, written to the work folder as scenario files) give the same
// ranked layouts on Slurm as here.
TEST_F(Slurm, APlanGivesTheLocalJsonByteForByte) {
  const std::string plan = "plan --model gpt3-1.3b --gpu h100-sxm --gpus 8,16 --global-batch 64 --finalists 2";
  const std::string in = "cd '" + dir_.path().string() + "' && " + DTSIM_CLI + " ";
  const test::CliResult here = test::run_shell(in + plan + " --json here.json");
  ASSERT_EQ(here.exit_code, 0) << here.output;
  const test::CliResult there = test::run_shell(in + plan + " --json there.json --slurm --slurm-dir work");
  ASSERT_EQ(there.exit_code, 0) << there.output;
  EXPECT_EQ(test::read_file(dir_.path() / "there.json"), test::read_file(dir_.path() / "here.json"));
  // 2 finalists of 2 counts, each at pp and 2 pp micro-batches where that is cheaper: 4 to 8 simulations.
  EXPECT_TRUE(fs::exists(dir_.path() / "work" / "inputs" / "0.yaml"));
  EXPECT_NE(there.output.find("simulations done"), std::string::npos) << there.output;
}

TEST_F(Slurm, NoWaitReturnsTheJobAndCollectGathersTheSameJson) {
  const std::string in = "cd '" + dir_.path().string() + "' && " + DTSIM_CLI;
  const test::CliResult submitted =
      test::run_shell(in + " sweep " + kSweep + " --json later.json --slurm --slurm-dir work --slurm-no-wait");
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  EXPECT_NE(submitted.output.find("submitted Slurm job "), std::string::npos) << submitted.output;
  EXPECT_FALSE(fs::exists(dir_.path() / "later.json"));
  const test::CliResult collected = test::run_shell(in + " collect work");
  ASSERT_EQ(collected.exit_code, 0) << collected.output;
  EXPECT_EQ(test::read_file(dir_.path() / "later.json"), local_json());
}

TEST_F(Slurm, ATaskKilledBeforeItRanIsRunOnceMore) {
  // The tasks wait 3 s before they start: time to cancel task 1 of the array.
  const pid_t dtsim = start_dtsim(dir_.path(), "sweep " + kSweep +
                                                   " --json retried.json --slurm --slurm-dir work "
                                                   "--slurm-option=--begin=now+3");
  const std::string job = submitted_job(dir_.path() / "work");
  ASSERT_FALSE(job.empty());
  test::run_shell("scancel " + job + "_1");
  const int status = wait_for_exit(dtsim);
  const std::string err = test::read_file(dir_.path() / "err.txt");
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << err;
  EXPECT_NE(err.find("tasks 1 of job " + job + " left simulations undone; trying them once more"), std::string::npos)
      << err;
  EXPECT_TRUE(fs::exists(dir_.path() / "work" / "logs" / "task-1.retry.log"));
  EXPECT_EQ(test::read_file(dir_.path() / "retried.json"), local_json());
}

TEST_F(Slurm, ATaskKilledTwiceIsReportedAndTheOtherPointsKept) {
  const KilledTwice k = run_with_a_task_killed_twice(dir_.path(), "sweep " + kSweep + " --json partial.json", 2);
  ASSERT_FALSE(k.job.empty());
  ASSERT_FALSE(k.retry.empty());
  ASSERT_TRUE(WIFEXITED(k.status) && WEXITSTATUS(k.status) == 0) << test::read_file(dir_.path() / "err.txt");
  const nlohmann::json sweep = nlohmann::json::parse(test::read_file(dir_.path() / "partial.json"));
  const nlohmann::json local = nlohmann::json::parse(local_json());
  for (int i : {0, 1, 3}) EXPECT_EQ(sweep["points"][i], local["points"][i]) << i;
  const nlohmann::json& lost = sweep["points"][2];  // tp 4, task 2's
  EXPECT_EQ(lost["status"], "failed");
  const std::string expected = "no result from Slurm task 2 (job " + k.job + " then " + k.retry +
                               ", tried twice): see " + (dir_.path() / "work" / "logs" / "task-2.retry.log").string();
  EXPECT_EQ(lost["error"].get<std::string>().rfind(expected, 0), 0u) << lost["error"];
}

TEST_F(Slurm, CtrlCCancelsTheJobArray) {
  const pid_t dtsim = start_dtsim(dir_.path(), "sweep " + kSweep +
                                                   " --slurm --slurm-dir work --slurm-option=--begin=now+60");
  const std::string job = submitted_job(dir_.path() / "work");
  ASSERT_FALSE(job.empty());
  kill(dtsim, SIGINT);
  const int status = wait_for_exit(dtsim);
  EXPECT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 130)) << status;
  // The shell between the test and dtsim passes SIGINT on as exec replaced it; the array is gone.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    gone = test::run_shell("squeue -h --jobs=" + job + " -o %i").output.find(job) == std::string::npos;
    if (!gone) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(gone) << test::run_shell("squeue").output;
}

// The studies other than the sweep: each run here and on Slurm, in the same folder.
class SlurmStudies : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(std::getenv("SLURM_CONF"), nullptr) << "no SLURM_CONF: run through ctest (fixture local_slurm)";
  }
  // Its standard output alone (standard error: err()).
  test::CliResult dtsim(const std::string& args) const {
    test::CliResult r = test::run_shell("(cd '" + dir_.path().string() + "' && " + DTSIM_CLI + " " + args +
                                        " > out.txt 2> err.txt)");
    r.output = test::read_file(dir_.path() / "out.txt");
    return r;
  }
  std::string err() const { return test::read_file(dir_.path() / "err.txt"); }
  nlohmann::json manifest() const {
    return nlohmann::json::parse(test::read_file(dir_.path() / "work" / "batch.json"));
  }

  test::ScratchDir dir_;
};

// Its variants are built in code from the scenario: each task rebuilds its variant by number.
TEST_F(SlurmStudies, CompareStrategiesGivesTheLocalJsonByteForByte) {
  const std::string compare =
      "compare-strategies " + (test::source_dir() / "scenarios" / "vgg16-16-k80-parameter-server.yaml").string();
  const test::CliResult here = dtsim(compare + " --json here.json");
  ASSERT_EQ(here.exit_code, 0) << here.output;
  const test::CliResult there = dtsim(compare + " --json there.json --slurm --slurm-dir work");
  ASSERT_EQ(there.exit_code, 0) << there.output << err();
  EXPECT_EQ(test::read_file(dir_.path() / "there.json"), test::read_file(dir_.path() / "here.json"));
  // The scenario's own synchronisation and the 8 others of strategy_variants.
  const nlohmann::json simulations = manifest()["simulations"];
  ASSERT_EQ(simulations.size(), 9u);
  EXPECT_EQ(simulations[8]["kind"], "strategy_variant");
  EXPECT_EQ(simulations[8]["index"], 8);
  EXPECT_NE(err().find("9 of 9 simulations done"), std::string::npos) << err();
}

// Its runs are rows of a published-runs file (a transformer and a layer-graph model among them):
// the table here and on Slurm is the same, line for line.
TEST_F(SlurmStudies, ValidatePrintsTheLocalTable) {
  const std::string validate = "validate " + (test::source_dir() / "validation" / "single-gpu-steps.yaml").string();
  const test::CliResult here = dtsim(validate);
  ASSERT_EQ(here.exit_code, 0) << here.output;
  const test::CliResult there = dtsim(validate + " --slurm --slurm-dir work --slurm-tasks 2");
  ASSERT_EQ(there.exit_code, 0) << there.output << err();
  EXPECT_EQ(there.output, here.output);
  EXPECT_NE(here.output.find("over 4 runs"), std::string::npos) << here.output;
  EXPECT_EQ(manifest()["simulations"][3]["kind"], "published_run");
  EXPECT_NE(err().find("4 simulations in 2 tasks"), std::string::npos) << err();
}

// Each point is the scenario file with its --event and the straggler appended (the overrides).
TEST_F(SlurmStudies, TheStragglerSweepPrintsTheLocalTable) {
  const std::string sweep = "run " + (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string() +
                            " --straggler-sweep 3 --values 1,1.3,2 --event 'straggler gpu=5 slowdown=1.2'";
  const test::CliResult here = dtsim(sweep);
  ASSERT_EQ(here.exit_code, 0) << here.output;
  const test::CliResult there = dtsim(sweep + " --slurm --slurm-dir work");
  ASSERT_EQ(there.exit_code, 0) << there.output << err();
  EXPECT_EQ(there.output, here.output);
  const nlohmann::json overrides = manifest()["simulations"][1]["overrides"];
  ASSERT_EQ(overrides.size(), 2u);
  EXPECT_EQ(overrides[1][0], "events.+");
  EXPECT_EQ(overrides[1][1], "{type: straggler, gpu: 3, slowdown: 1.3}");
}

// Its Monte Carlo runs (3 strategies, a sweep of 3 intervals, Young's and Daly's, 2 what-if values:
// 10 jobs of 2500 runs) go in shares of at most 1000 runs; run i draws the same failures wherever
// it runs, so the figures are the local ones to the bit.
TEST_F(SlurmStudies, GoodputGivesTheLocalJsonByteForByte) {
  const std::string goodput = "goodput " + (test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml").string() +
                              " --runs 2500 --sweep-points 3 --sweep restart_s=60,600";
  const test::CliResult here = dtsim(goodput + " --json here.json");
  ASSERT_EQ(here.exit_code, 0) << here.output;
  const test::CliResult there = dtsim(goodput + " --json there.json --slurm --slurm-dir work --slurm-tasks 4");
  ASSERT_EQ(there.exit_code, 0) << there.output << err();
  EXPECT_EQ(test::read_file(dir_.path() / "there.json"), test::read_file(dir_.path() / "here.json"));
  const nlohmann::json shares = manifest()["monte_carlo_shares"];
  ASSERT_EQ(shares.size(), 30u);
  EXPECT_EQ(shares[2], nlohmann::json::parse("[0, 2000, 500]"));
  EXPECT_EQ(shares[29], nlohmann::json::parse("[9, 2000, 500]"));
  EXPECT_NE(err().find("30 of 30 Monte Carlo shares done"), std::string::npos) << err();
}

// A share no task delivered is left out and named: the figures are those of the runs that came,
// here runs 0 to 999 of 1500, which are a local Monte Carlo of 1000 runs.
TEST_F(SlurmStudies, GoodputLeavesOutAndNamesTheRunsNoTaskDelivered) {
  const std::string goodput = "goodput " + (test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml").string() +
                              " --strategy spare_nodes --sweep-points 0";
  const test::CliResult thousand = dtsim(goodput + " --runs 1000 --json thousand.json");
  ASSERT_EQ(thousand.exit_code, 0) << thousand.output;
  const KilledTwice k = run_with_a_task_killed_twice(dir_.path(), goodput + " --runs 1500 --json partial.json", 1);
  ASSERT_FALSE(k.job.empty());
  ASSERT_FALSE(k.retry.empty());
  ASSERT_TRUE(WIFEXITED(k.status) && WEXITSTATUS(k.status) == 0) << err();
  const nlohmann::json partial = nlohmann::json::parse(test::read_file(dir_.path() / "partial.json"));
  const nlohmann::json local = nlohmann::json::parse(test::read_file(dir_.path() / "thousand.json"));
  const nlohmann::json& mc = partial["monte_carlo"]["spare_nodes"];
  EXPECT_EQ(mc["runs"], 1000);
  EXPECT_EQ(mc["mean_wall_s"], local["monte_carlo"]["spare_nodes"]["mean_wall_s"]);
  const std::string expected = "runs 1000 to 1499: no result from Slurm task 1 (job " + k.job + " then " + k.retry +
                               ", tried twice)";
  EXPECT_EQ(mc["missing"].get<std::string>().rfind(expected, 0), 0u) << mc["missing"];
  EXPECT_NE(test::read_file(dir_.path() / "out.txt").find("missing Monte Carlo runs of spare_nodes"),
            std::string::npos);
}

}  // namespace
}  // namespace dtsim

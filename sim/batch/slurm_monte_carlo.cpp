#include "slurm_monte_carlo.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "slurm_array.hpp"

namespace dtsim {

namespace {

using nlohmann::json;

json outcome_json(const RunOutcome& o) {
  return {o.finished, o.wall_s,   o.compute_s, o.checkpoint_s, o.lost_s,
          o.restart_s, o.wait_s, o.failures,  o.restarts,     o.checkpoints};
}

RunOutcome outcome_of(const json& j) {
  RunOutcome o;
  o.finished = j.at(0).get<bool>();
  o.wall_s = j.at(1).get<double>();
  o.compute_s = j.at(2).get<double>();
  o.checkpoint_s = j.at(3).get<double>();
  o.lost_s = j.at(4).get<double>();
  o.restart_s = j.at(5).get<double>();
  o.wait_s = j.at(6).get<double>();
  o.failures = j.at(7).get<long>();
  o.restarts = j.at(8).get<long>();
  o.checkpoints = j.at(9).get<long>();
  return o;
}

// A job's shares: kRunsPerShare runs each, or more where that would make over kMaxSharesPerJob
// (fewer files to write and to look for).
constexpr int kMaxSharesPerJob = 100;
int runs_per_share(int runs) { return std::max(kRunsPerShare, (runs + kMaxSharesPerJob - 1) / kMaxSharesPerJob); }

// The runs of a share's reply, or why there are none (a reply of another length is not used).
std::vector<RunOutcome> share_runs(const SlurmArray& array, size_t item, const MonteCarloShare& share,
                                   std::string& error) {
  const auto reply = array.reply(item);
  if (!reply) {
    error = array.missing_reply_error(item);
    return {};
  }
  std::vector<RunOutcome> runs;
  try {
    for (const json& run : json::from_msgpack(*reply)) runs.push_back(outcome_of(run));
  } catch (const json::exception& e) {
    error = fmt::format("an unreadable reply {} ({})", reply_file(array.work_dir, item).string(), e.what());
    return {};
  }
  if (int(runs.size()) != share.count) {
    error = fmt::format("a reply of {} runs in {}, expected {}", runs.size(), reply_file(array.work_dir, item).string(),
                        share.count);
    return {};
  }
  return runs;
}

}  // namespace

std::vector<uint8_t> monte_carlo_share_reply(const MonteCarloJob& job, const MonteCarloShare& share) {
  json runs = json::array();
  // One thread: the task was given one CPU.
  for (const RunOutcome& o : monte_carlo_runs(job, share.first, share.count, 1)) runs.push_back(outcome_json(o));
  return json::to_msgpack(runs);
}

MonteCarloOnSlurm monte_carlo_on_slurm(const std::vector<MonteCarloJob>& jobs, const SlurmOptions& options,
                                       std::ostream& log) {
  SlurmManifest items;
  items.monte_carlo_jobs = jobs;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const int per_share = runs_per_share(jobs[j].runs);
    for (int first = 0; first < jobs[j].runs; first += per_share)
      items.monte_carlo_shares.push_back({int(j), first, std::min(per_share, jobs[j].runs - first)});
  }
  MonteCarloOnSlurm out;
  if (items.monte_carlo_shares.empty()) {
    out.results.assign(jobs.size(), MonteCarloResult{});
    return out;
  }
  const SlurmArray array = run_slurm_array(std::move(items), options, log);
  out.batch.work_dir = array.work_dir;
  out.batch.job_id = array.manifest.job_ids.empty() ? "" : array.manifest.job_ids.front();
  if (array.state == SlurmArray::State::submitted) return out;
  // Job by job (the shares are in job order), so that one job's runs are held at a time.
  const std::vector<MonteCarloShare>& shares = array.manifest.monte_carlo_shares;
  size_t i = 0;
  for (size_t j = 0; j < jobs.size(); ++j) {
    std::vector<RunOutcome> runs;
    std::string missing;
    bool run_0_unfinished = false;
    for (; i < shares.size() && shares[i].job == int(j); ++i) {
      std::string error;
      const std::vector<RunOutcome> part = share_runs(array, i, shares[i], error);
      if (shares[i].first == 0 && !part.empty()) run_0_unfinished = !part.front().finished;
      runs.insert(runs.end(), part.begin(), part.end());
      if (!error.empty())
        missing += fmt::format("{}runs {} to {}: {}", missing.empty() ? "" : "; ", shares[i].first,
                               shares[i].first + shares[i].count - 1, error);
    }
    // As monte_carlo: when run 0 (the first share's first) did not finish, it alone counts.
    if (run_0_unfinished) {
      runs.resize(1);
      missing.clear();
    }
    out.results.push_back(summarise_runs(jobs[j].problem, std::move(runs)));
    out.results.back().missing = missing;
  }
  return out;
}

}  // namespace dtsim

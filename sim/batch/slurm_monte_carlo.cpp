#include "slurm_monte_carlo.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

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

}  // namespace

std::vector<uint8_t> monte_carlo_share_reply(const MonteCarloJob& job, const MonteCarloShare& share) {
  json runs = json::array();
  for (const RunOutcome& o : monte_carlo_runs(job, share.first, share.count)) runs.push_back(outcome_json(o));
  return json::to_msgpack(runs);
}

MonteCarloOnSlurm monte_carlo_on_slurm(const std::vector<MonteCarloJob>& jobs, const SlurmOptions& options,
                                       std::ostream& log) {
  SlurmManifest items;
  items.monte_carlo_jobs = jobs;
  for (size_t j = 0; j < jobs.size(); ++j)
    for (int first = 0; first < jobs[j].runs; first += kRunsPerShare)
      items.monte_carlo_shares.push_back({int(j), first, std::min(kRunsPerShare, jobs[j].runs - first)});
  MonteCarloOnSlurm out;
  if (items.monte_carlo_shares.empty()) {
    out.results.assign(jobs.size(), MonteCarloResult{});
    return out;
  }
  const SlurmArray array = run_slurm_array(std::move(items), options, log);
  out.batch.work_dir = array.work_dir;
  out.batch.job_id = array.manifest.job_ids.empty() ? "" : array.manifest.job_ids.front();
  if (array.state == SlurmArray::State::submitted) return out;
  std::vector<std::vector<RunOutcome>> runs(jobs.size());
  std::vector<std::string> missing(jobs.size());
  const std::vector<MonteCarloShare>& shares = array.manifest.monte_carlo_shares;
  for (size_t i = 0; i < shares.size(); ++i) {
    const MonteCarloShare& share = shares[i];
    std::string error;
    if (const auto reply = array.reply(i)) {
      try {
        for (const json& run : json::from_msgpack(*reply)) runs[share.job].push_back(outcome_of(run));
      } catch (const json::exception& e) {
        error = fmt::format("an unreadable reply ({})", e.what());
      }
    } else {
      error = array.missing_reply_error(i);
    }
    if (!error.empty())
      missing[share.job] += fmt::format("{}runs {} to {}: {}", missing[share.job].empty() ? "" : "; ", share.first,
                                        share.first + share.count - 1, error);
  }
  for (size_t j = 0; j < jobs.size(); ++j) {
    out.results.push_back(summarise_runs(jobs[j].problem, std::move(runs[j])));
    out.results.back().missing = missing[j];
  }
  return out;
}

}  // namespace dtsim

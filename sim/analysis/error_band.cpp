#include "error_band.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "training_cost.hpp"  // with_thousands

namespace dtsim {

namespace {

constexpr int kScaleFactor = 4;  // a run resembles at up to 4x fewer or more GPUs
constexpr int kFewestRuns = 3;   // below this, the scale criterion is dropped

bool same_kind(const Scenario& a, const Scenario& b) {
  return a.cluster.gpu == b.cluster.gpu && a.training.framework == b.training.framework &&
         a.layer_model.has_value() == b.layer_model.has_value();
}

std::string kind_of(const Scenario& s) {
  return fmt::format("{}, {}{}", s.cluster.gpu, to_string(s.training.framework), s.layer_model ? ", layer graph" : "");
}

}  // namespace

std::string ErrorBand::describe() const {
  if (runs == 0) return "not validated: no published run of " + resemblance + " in the validation data";
  return fmt::format("{} published run{} like this ({}) measured {:+.0f}% to {:+.0f}% against their prediction", runs,
                     runs == 1 ? "" : "s", resemblance, 100 * (low - 1), 100 * (high - 1));
}

ValidationEvidence::ValidationEvidence(const std::filesystem::path& validation_dir,
                                       const std::filesystem::path& topologies_dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(validation_dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files)
    for (PublishedRun& run : read_published_runs(file, topologies_dir))
      if (run.skipped.empty()) runs_.push_back(std::move(run));
}

ErrorBand ValidationEvidence::band(const Scenario& s) {
  std::vector<const PublishedRun*> alike, chosen;
  for (const PublishedRun& run : runs_)
    if (same_kind(run.scenario, s)) alike.push_back(&run);
  const int gpus = s.gpu_count();
  for (const PublishedRun* run : alike)
    if (run->scenario.gpu_count() * kScaleFactor >= gpus && run->scenario.gpu_count() <= gpus * kScaleFactor)
      chosen.push_back(run);
  ErrorBand band;
  band.resemblance = kind_of(s);
  if (int(chosen.size()) >= kFewestRuns) {
    band.resemblance += fmt::format(", {} to {} GPUs", with_thousands(std::max(1, gpus / kScaleFactor)),
                                    with_thousands(double(gpus) * kScaleFactor));
  } else {
    chosen = alike;
    band.resemblance += ", any GPU count";
  }
  for (const PublishedRun* run : chosen) {
    auto [it, fresh] = measured_over_predicted_.try_emplace(run->scenario.name, 0.0);
    if (fresh) it->second = validate_run(*run).measured_step_over_predicted();
    band.low = band.runs == 0 ? it->second : std::min(band.low, it->second);
    band.high = band.runs == 0 ? it->second : std::max(band.high, it->second);
    ++band.runs;
    band.ids.push_back(run->scenario.name);
  }
  return band;
}

ErrorBand error_band(const Scenario& s, const std::filesystem::path& validation_dir,
                     const std::filesystem::path& topologies_dir) {
  return ValidationEvidence(validation_dir, topologies_dir).band(s);
}

nlohmann::json error_band_to_json(const ErrorBand& b) {
  if (b.runs == 0) return {{"validated", false}, {"resemblance", b.resemblance}};
  return {{"validated", true},
          {"runs", b.runs},
          {"resemblance", b.resemblance},
          {"measured_over_predicted_low", b.low},
          {"measured_over_predicted_high", b.high},
          {"ids", b.ids}};
}

}  // namespace dtsim

#include "error_band.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "training_cost.hpp"  // with_thousands
#include "validation.hpp"

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

ErrorBand error_band(const Scenario& s, const std::filesystem::path& validation_dir,
                     const std::filesystem::path& topologies_dir) {
  std::vector<PublishedRun> alike;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(validation_dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files)
    for (PublishedRun& run : read_published_runs(file, topologies_dir))
      if (run.skipped.empty() && same_kind(run.scenario, s)) alike.push_back(std::move(run));
  const int gpus = s.gpu_count();
  std::vector<const PublishedRun*> chosen;
  for (const PublishedRun& run : alike)
    if (run.scenario.gpu_count() * kScaleFactor >= gpus && run.scenario.gpu_count() <= gpus * kScaleFactor)
      chosen.push_back(&run);
  ErrorBand band;
  band.resemblance = kind_of(s);
  if (int(chosen.size()) >= kFewestRuns) {
    band.resemblance += fmt::format(", {} to {} GPUs", with_thousands(std::max(1, gpus / kScaleFactor)),
                                    with_thousands(double(gpus) * kScaleFactor));
  } else {
    chosen.clear();
    for (const PublishedRun& run : alike) chosen.push_back(&run);
    band.resemblance += ", any GPU count";
  }
  band.low = band.high = 0;
  for (const PublishedRun* run : chosen) {
    const double ratio = validate_run(*run).measured_step_over_predicted();
    band.low = band.runs == 0 ? ratio : std::min(band.low, ratio);
    band.high = band.runs == 0 ? ratio : std::max(band.high, ratio);
    ++band.runs;
    band.ids.push_back(run->scenario.name);
  }
  if (band.runs == 0) band.low = band.high = 1;
  return band;
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

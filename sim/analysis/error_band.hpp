#pragma once
// How far to trust a prediction, from evidence: the published runs of dtsim's validation data
// (validation/*.yaml) that resemble the scenario, predicted as `dtsim validate` does, and the
// spread of their measured step time over the predicted one. A run resembles the scenario when it
// trains the same kind of model (transformer or layer graph) on the same GPU with the same
// framework at a GPU count within a factor of 4 of the scenario's; with fewer than 3 such runs,
// any GPU count. None: "not validated".
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "validation.hpp"

namespace dtsim {

struct ErrorBand {
  int runs = 0;                 // 0: not validated
  double low = 1, high = 1;     // measured step / predicted step, the least and the most of them
  std::string resemblance;      // "h100-sxm, pytorch, 64 to 1,024 GPUs"
  std::vector<std::string> ids;

  // "14 published runs like this (h100-sxm, pytorch, 64 to 1,024 GPUs) measured -3% to +12% against
  // their prediction", or "not validated: ...".
  std::string describe() const;
};

// The published runs of every *.yaml under a validation folder (their topologies from
// `topologies_dir`), read once; each run is simulated the first time a band needs it, so that the
// bands of several scenarios (plan's GPU counts) share their simulations. Bad validation files
// throw InputError as `dtsim validate` does.
class ValidationEvidence {
 public:
  ValidationEvidence(const std::filesystem::path& validation_dir, const std::filesystem::path& topologies_dir);
  // The runs that resemble `s`.
  ErrorBand band(const Scenario& s);

 private:
  std::vector<PublishedRun> runs_;                         // the ones that can be simulated
  std::map<std::string, double> measured_over_predicted_;  // by run id, once simulated
};

// One band: ValidationEvidence(validation_dir, topologies_dir).band(s).
ErrorBand error_band(const Scenario& s, const std::filesystem::path& validation_dir,
                     const std::filesystem::path& topologies_dir);
nlohmann::json error_band_to_json(const ErrorBand& b);

}  // namespace dtsim

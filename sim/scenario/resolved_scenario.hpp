#pragma once
// A scenario resolved once into what the rest of the library takes from it: the compute model,
// the topology with its node's NVLink calibrated, and the report's account of where each figure
// came from. resolve_scenario is the one place the scenario's calibration file is read on the
// way to a simulation, an analytic estimate or a report.
//   Compute: the measured efficiency curves of the scenario's precision (measured_efficiency.hpp)
//     replace the per-kind defaults; on another GPU type they apply as fractions of that GPU's
//     peaks (compute-bound times scale by the peak FLOP/s ratio, memory-bound by the HBM
//     bandwidth ratio).
//   Links: an all-reduce measured over all GPUs of one node, on the scenario's GPU type, sets the
//     NVLink bandwidth so that the collective model's large-message bus bandwidth equals the
//     measured one. Latencies stay NCCL's tables'. Other GPU types keep the topology's NVLink.
#include <string>

#include "compute_model.hpp"
#include "scenario.hpp"
#include "topology_spec.hpp"

namespace dtsim {

struct ResolvedScenario {
  Scenario scenario;     // as loaded: model, training, layout, cluster, events
  ComputeModel compute;  // datasheet defaults, or the calibration file's measurements
  TopologySpec topology;  // the scenario's, with the node's NVLink bandwidth calibrated
  // One line per source: "datasheet defaults (...)", or the file, its device and date, then per
  // operator kind and for NVLink whether measured, scaled or default.
  std::string calibration_provenance;

  const NodeSpec& node() const { return topology.node; }
};

// Reads the calibration file (if any) once; bad input throws InputError naming file and field.
ResolvedScenario resolve_scenario(const Scenario& s);

// `variant` of `base`'s scenario with base's resolution where it holds (same GPU, precision,
// topology and calibration file: only the layout, the batch or the events differ), without
// reading anything; otherwise resolved anew.
ResolvedScenario resolve_variant(const ResolvedScenario& base, Scenario variant);

}  // namespace dtsim

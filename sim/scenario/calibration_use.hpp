#pragma once
// How a scenario's calibration file (calibration.hpp) enters the model, and the report's account
// of which numbers were measured, which scaled from another GPU type, and which are defaults.
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

// The scenario's compute model: defaults, or its calibration file's measurements.
ComputeModel calibrated_compute_model(const Scenario& s);

// The scenario's node with its NVLink bandwidth set from the calibration, where one applies.
NodeSpec calibrated_node(const Scenario& s);

// One line per source: "datasheet defaults (...)", or the file, its device and date, then per
// operator kind and for NVLink whether measured, scaled or default.
std::string calibration_provenance(const Scenario& s);

}  // namespace dtsim

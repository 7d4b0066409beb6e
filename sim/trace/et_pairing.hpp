#pragma once
// What a rank's Kineto step lacks, taken from the PyTorch ET of the same rank and run: a
// collective's bytes (a TensorList's dims are not in Kineto traces before PyTorch 2.3), its
// process group and group size, and what a SendRecv kernel ran. The two are matched by the
// collectives' kinds in order: the ET's rf_id and Kineto's "Ev Idx" do not share a base in the
// traces of 2023 (tests/data/traces/SOURCES.md), so ids cannot pair them.
#include <string>

#include "pytorch_et.hpp"
#include "step_summary.hpp"

namespace dtsim {

struct EtPairing {
  int filled = 0;     // sizes taken from the ET
  int agreed = 0;     // sizes both recorded, equal
  int differed = 0;   // sizes both recorded, different (the Kineto one kept)
  std::string unpaired;  // why the ET was not used (empty when it was)
};

// The ET's step of the same name, or its only step when it has one (an ET without ProfilerStep
// nodes); unpaired when there is none or its collectives' kinds in order are not the step's.
EtPairing fill_from_execution_trace(RankStep& step, const PyTorchEt& et);

}  // namespace dtsim

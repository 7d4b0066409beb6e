#pragma once
// A long iteration's time from two short simulations. Every pipeline schedule dtsim models
// (GPipe, 1F1B, interleaved 1F1B, ZB-H1) repeats the same steady state once per micro-batch, and
// what comes before (fill) and after it (drain, gradient synchronisation, optimizer) does not
// depend on how many micro-batches there are; so once m >= pp the iteration time, and each
// rank's compute, communication and bubble time, is affine in the micro-batch count m:
//   T(m) = T(m2) + (m - m2) * (T(m2) - T(m1)) / (m2 - m1),   with m1 = pp, m2 = 2 pp.
// That holds for scenarios without events (a straggler window or a failure at a given time
// breaks the periodicity), which is what the planner simulates.
// Simulating pp and 2 pp micro-batches costs 3 pp / m of simulating m (a quarter for the
// planner's 175B layouts with pp 16 and m 192). tests/test_micro_batch_extrapolation.cpp checks it
// against full simulations.
#include <optional>
#include <vector>

#include "scenario.hpp"
#include "simulation.hpp"

namespace dtsim {

struct MicroBatchSamples {
  int small = 0, large = 0;  // micro-batches per replica of the two short simulations
};

// The two sample sizes, or nothing when simulating the scenario in full is no dearer
// (m <= 3 pp) or when it has events.
std::optional<MicroBatchSamples> micro_batch_samples(const Scenario& s);

// The scenario with `micro_batches` per replica (global_batch = micro_batches x dp x micro_batch).
Scenario with_micro_batches(const Scenario& s, int micro_batches);

// Extrapolates every time of the two sample results to `micro_batches`; activities and wall
// times are the sum of the two simulations'.
SimulationResult extrapolate_micro_batches(const SimulationResult& small, const SimulationResult& large,
                                           const MicroBatchSamples& samples, int micro_batches);

// simulate_many, with each scenario whose micro_batch_samples exist simulated at those two sizes
// and extrapolated; the others are simulated in full.
// `run`, when given, runs the simulations instead of simulate_many (none back: none out).
std::vector<SimulationOutcome> simulate_many_extrapolated(const std::vector<ResolvedScenario>& scenarios, int parallel,
                                                          const SimulationBatchRunner& run = {});

}  // namespace dtsim

// How overlapping what-if windows on one resource combine into one schedule (sim/engine/event_windows.hpp).
#include <gtest/gtest.h>

#include "event_windows.hpp"
#include "scenario.hpp"

namespace dtsim {
namespace {

void expect_schedule(const std::vector<FactorChange>& got, const std::vector<FactorChange>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_DOUBLE_EQ(got[i].at_s, want[i].at_s) << i;
    EXPECT_DOUBLE_EQ(got[i].factor, want[i].factor) << i;
  }
}

// 0.5 from 0 on, 0.8 during [1, 3): 0.5, then 0.4, then 0.5 again.
TEST(EventWindows, OverlapMultipliesTheFactors) {
  expect_schedule(combined_factor_schedule({{0, kForever_s, 0.5}, {1, 3, 0.8}}), {{0, 0.5}, {1, 0.4}, {3, 0.5}});
}

// A window starting later: full speed until it opens, back to full speed when it closes.
TEST(EventWindows, FullSpeedOutsideEveryWindow) {
  expect_schedule(combined_factor_schedule({{2, 5, 0.25}}), {{0, 1}, {2, 0.25}, {5, 1}});
}

// Windows that touch leave no gap, and equal neighbours merge into one change.
TEST(EventWindows, AdjacentWindowsOfEqualFactorMerge) {
  expect_schedule(combined_factor_schedule({{0, 1, 0.5}, {1, 2, 0.5}}), {{0, 0.5}, {2, 1}});
}

// Edges kept to the nanosecond: 4.9e-324 s is 0, and a window shorter than 0.5 ns vanishes.
TEST(EventWindows, EdgesAreRoundedToTheNanosecond) {
  expect_schedule(combined_factor_schedule({{4.9e-324, kForever_s, 0.5}}), {{0, 0.5}});
  expect_schedule(combined_factor_schedule({{1, 1 + 1e-10, 0.5}}), {{0, 1}});
}

// Three windows at the largest slowdown would be a billion times slower: the combination stops
// at kMaxSlowdown, as one event does.
TEST(EventWindows, CombinedSlowdownStopsAtTheLargestOne) {
  const double f = 1 / kMaxSlowdown;
  expect_schedule(combined_factor_schedule({{0, kForever_s, f}, {0, kForever_s, f}, {0, kForever_s, f}}), {{0, f}});
}

}  // namespace
}  // namespace dtsim

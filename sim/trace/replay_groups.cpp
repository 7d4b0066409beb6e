#include "replay_groups.hpp"

#include <fmt/format.h>

#include <map>

#include "input_error.hpp"

namespace dtsim {

namespace {

constexpr int kUnknown = -1;

[[noreturn]] void layout_error(const std::string& expected, const std::string& found) {
  throw InputError({"<command line>", 0, "--layout", expected, found});
}

std::string plural(int n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

CollectiveGroups collective_groups(const RankStep& rank, int traced_world, int replayed_world,
                                   const ReplayLayout& layout) {
  const std::vector<StepCollective> seq = collectives_in_start_order(rank);
  CollectiveGroups out;
  std::map<std::string, std::pair<int, int>> kept;  // process group -> (size, collectives)
  int grown = 0, unknown = 0;
  for (const StepCollective& s : seq) {
    const TraceCollective& c = s.collective;
    int size = kUnknown;
    if (!c.process_group.empty() && c.default_group) size = 0;
    else if (!c.process_group.empty() && c.group_size > 0) size = c.group_size;
    if (size > 0) {
      kept[c.process_group].first = size;
      ++kept[c.process_group].second;
    }
    grown += size == 0;
    unknown += size == kUnknown;
    out.fixed_size.push_back(size);
  }
  const bool scaling = replayed_world > traced_world;
  int unknown_size = 0;  // what the collectives without a recorded group get
  std::string unknown_reason = fmt::format("over all {} ranks (data parallel)", replayed_world);
  if (layout.tp > 0) {
    if (traced_world % layout.tp != 0)
      layout_error(fmt::format("a tensor-parallel size that divides the traced world of {} ranks", traced_world),
                   fmt::format("tp={}", layout.tp));
    const int dp = traced_world / layout.tp;
    if (unknown > 0 && dp > 1 && layout.tp > 1)
      layout_error(fmt::format("a layout that says which collectives are which: {} record no process group, and "
                               "the traced {} ranks hold both tensor-parallel groups of {} and data-parallel "
                               "groups of {}",
                               plural(unknown, "collective"), traced_world, layout.tp, dp),
                   fmt::format("tp={}", layout.tp));
    unknown_size = dp == 1 ? layout.tp : 0;
    if (dp == 1)
      unknown_reason = fmt::format("--layout tp={} makes the traced ranks one tensor-parallel group, {} consecutive "
                                   "ranks each",
                                   layout.tp, layout.tp);
    else
      unknown_reason = fmt::format("--layout tp=1 makes them data parallel, over all {} ranks", replayed_world);
  } else if (unknown > 0 && !kept.empty() && scaling) {
    std::string groups;
    for (const auto& [name, sc] : kept) groups += fmt::format("{}'{}' of {} ranks", groups.empty() ? "" : ", ", name, sc.first);
    layout_error(fmt::format("--layout tp=T to scale this trace out: {} record no process group while others are "
                             "on {} (tensor-parallel?), so which ones grow with the job is not known",
                             plural(unknown, "collective"), groups),
                 "no --layout");
  }
  for (int& size : out.fixed_size)
    if (size == kUnknown) size = unknown_size;
  for (int size : out.fixed_size)
    if (size > 0 && replayed_world % size != 0)
      throw InputError({"<command line>", 0, "--ranks",
                        fmt::format("a multiple of the kept process groups' {} ranks", size),
                        std::to_string(replayed_world)});
  if (grown > 0)
    out.assumed.push_back(fmt::format("{} on the default process group: over all {} ranks",
                                      plural(grown, "collective"), replayed_world));
  for (const auto& [name, sc] : kept)
    out.assumed.push_back(fmt::format("{} on process group '{}': {} consecutive ranks each, as traced",
                                      plural(sc.second, "collective"), name, sc.first));
  if (unknown > 0)
    out.assumed.push_back(fmt::format("{} record{} no process group: {}", plural(unknown, "collective"),
                                      unknown == 1 ? "s" : "", unknown_reason));
  return out;
}

}  // namespace dtsim

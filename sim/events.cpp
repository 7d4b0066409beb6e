#include "events.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/ProfileBuilder.hpp>

namespace dtsim {

namespace {

// Host speed profiles are fractions of peak: a straggler runs at 1/slowdown from time 0 on.
void apply(const StragglerEvent& e, Platform& platform) {
  const std::string profile = fmt::format("0 {:.17g}\n", 1.0 / e.slowdown);
  platform.gpus.at(e.gpu)->set_speed_profile(
      simgrid::kernel::profile::ProfileBuilder::from_string(fmt::format("straggler-gpu{}", e.gpu), profile, -1));
}

}  // namespace

void apply_events(const std::vector<Event>& events, Platform& platform) {
  for (const Event& event : events) std::visit([&](const auto& e) { apply(e, platform); }, event);
}

}  // namespace dtsim

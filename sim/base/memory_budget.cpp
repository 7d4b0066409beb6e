#include "memory_budget.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdlib>

#include "size_limits.hpp"

namespace dtsim {

double memory_budget_bytes() {
  const char* text = std::getenv("DTSIM_MEMORY_BUDGET_BYTES");
  if (!text) return kMemoryBudget_bytes;
  char* end = nullptr;
  const double bytes = std::strtod(text, &end);
  return end != text && *end == '\0' && bytes > 0 && bytes < kMemoryBudget_bytes ? bytes : kMemoryBudget_bytes;
}

void limit_process_memory(double bytes) {
  rlimit limit{};
  if (getrlimit(RLIMIT_DATA, &limit) != 0) return;
  rlim_t wanted = rlim_t(bytes);
  if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max) wanted = limit.rlim_max;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= wanted) return;  // already as tight
  limit.rlim_cur = wanted;
  setrlimit(RLIMIT_DATA, &limit);
}

double process_memory_limit_bytes() {
  rlimit limit{};
  return getrlimit(RLIMIT_DATA, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? double(limit.rlim_cur) : 0;
}

InputError memory_budget_exceeded(const std::string& what, double limit_bytes, const std::string& need) {
  return InputError({"<memory budget>", 0, "",
                     fmt::format("work within dtsim's memory budget: {:.2f} GB for {}", limit_bytes / 1e9, what),
                     (need.empty() ? std::string("work that needs more") : "work that needs " + need) +
                         " (fewer GPUs or ranks, replicas folded, fewer sizes or simulations at once; "
                         "sim/base/size_limits.hpp)"});
}

}  // namespace dtsim

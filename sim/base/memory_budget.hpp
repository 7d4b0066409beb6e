#pragma once
// dtsim's memory budget (kMemoryBudget_bytes, size_limits.hpp): no command uses more, on any input.
// Each process caps its data (heap and private mappings: RLIMIT_DATA) at its share; an allocation
// past it fails (std::bad_alloc) and the command ends with an InputError that says so, instead of
// the machine swapping or the kernel killing something.
#include <string>

#include "input_error.hpp"

namespace dtsim {

// The budget: kMemoryBudget_bytes, or DTSIM_MEMORY_BUDGET_BYTES when that is set and smaller (for
// tests and for users of smaller machines).
double memory_budget_bytes();

// Caps this process's data at `bytes` (never above a hard limit already set).
void limit_process_memory(double bytes);

// This process's cap on its data (RLIMIT_DATA), bytes; 0 when there is none.
double process_memory_limit_bytes();

// The error of a command whose work needs more than `limit_bytes` (this process's share of the
// budget; `what` says whose: "the simulation of 'gpt3-175b'"); `need` says how much, where an
// estimate said so before the work ("about 6.1 GB: ...").
InputError memory_budget_exceeded(const std::string& what, double limit_bytes, const std::string& need = "");

}  // namespace dtsim

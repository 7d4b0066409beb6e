#pragma once
// Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing): one process per
// node, two threads (tracks) per GPU, its compute and its communication stream, one complete
// ("X") event per engine span.
#include <string>

#include "engine.hpp"
#include "program.hpp"
#include "scenario.hpp"

namespace dtsim {

std::string chrome_trace_json(const EngineResult& result, const ParallelismConfig& parallelism, int gpus_per_node);

}  // namespace dtsim

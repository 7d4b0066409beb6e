#pragma once
// One finished run as the views show it: the scenario simulated, the library's result and report.
#include <QString>
#include <memory>
#include <optional>
#include <string>

#include "memory_model.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "simulation.hpp"

namespace dtsim::gui {

struct RunRecord {
  QString label;  // "run 2 · gpt3-13b-64-a100", unique within a session
  Scenario scenario;
  SimulationResult result;
  std::optional<Report> report;  // none when a failure stopped the iteration
  MemoryBreakdown memory;
  std::string what_if;  // format_what_if against the same scenario without events ("" without events)
};

using RunPtr = std::shared_ptr<const RunRecord>;

}  // namespace dtsim::gui

#include <QMetaType>
Q_DECLARE_METATYPE(dtsim::gui::RunPtr)

#pragma once
// The scenario being edited: its file, the fields the user changed (FieldOverride, applied in
// order of depth so that "model" comes before "model.seq_len") and its events. Every check is
// the library's: check() is load_scenario(file, overrides), the same call as `dtsim run`.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "input_error.hpp"
#include "scenario.hpp"
#include "scenario_loader.hpp"

namespace dtsim::gui {

struct ScenarioCheck {
  std::optional<Scenario> scenario;     // when every check passed
  std::optional<InputErrorInfo> error;  // the InputError otherwise
  std::string message;                  // format_input_error(*error), or another exception's text
};

class ScenarioDocument {
 public:
  // Starts over from `file`: no overrides; events as in the file (when it loads).
  void open(const std::filesystem::path& file);
  const std::filesystem::path& file() const { return file_; }
  bool isOpen() const { return !file_.empty(); }

  // `value` is written as in YAML ("8", "bf16", "{preset: gpt3-13b}", "~" for none).
  void set(const std::string& path, const std::string& value);
  void unset(const std::string& path);
  std::optional<std::string> valueOf(const std::string& path) const;

  const std::vector<Event>& events() const { return events_; }
  void setEvents(std::vector<Event> events);
  void addEvent(const Event& e);
  void removeEvent(size_t index);

  // The fields and, once edited, the events, as load_scenario overrides.
  std::vector<FieldOverride> overrides() const;
  bool modified() const { return !fields_.empty() || events_edited_; }

  ScenarioCheck check() const;

  // Writes the file with the overrides applied to `destination` (atomically; relative paths
  // rebased), then edits that file with no overrides. Throws InputError or std::runtime_error.
  void saveAs(const std::filesystem::path& destination);

 private:
  std::filesystem::path file_;
  std::vector<FieldOverride> fields_;  // in the order set; overrides() sorts by depth
  std::vector<Event> events_;
  bool events_edited_ = false;
};

}  // namespace dtsim::gui

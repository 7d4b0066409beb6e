#include "scenario_document.hpp"

#include <algorithm>
#include <stdexcept>

#include "atomic_file.hpp"
#include "scenario_writer.hpp"

namespace dtsim::gui {

namespace {

size_t depth(const std::string& path) { return size_t(std::count(path.begin(), path.end(), '.')); }

}  // namespace

void ScenarioDocument::open(const std::filesystem::path& file) {
  file_ = file;
  fields_.clear();
  events_.clear();
  events_edited_ = false;
  if (const ScenarioCheck c = check(); c.scenario) events_ = c.scenario->events;
}

void ScenarioDocument::set(const std::string& path, const std::string& value) {
  // A whole section replaced drops the edits inside it: they were edits of the old section.
  std::erase_if(fields_, [&](const FieldOverride& o) { return o.path.rfind(path + ".", 0) == 0; });
  for (FieldOverride& o : fields_)
    if (o.path == path) {
      o.value = value;
      return;
    }
  fields_.push_back({path, value});
}

void ScenarioDocument::unset(const std::string& path) {
  std::erase_if(fields_, [&](const FieldOverride& o) { return o.path == path; });
}

std::optional<std::string> ScenarioDocument::valueOf(const std::string& path) const {
  for (const FieldOverride& o : fields_)
    if (o.path == path) return o.value;
  return std::nullopt;
}

void ScenarioDocument::setEvents(std::vector<Event> events) {
  events_ = std::move(events);
  events_edited_ = true;
}

void ScenarioDocument::addEvent(const Event& e) {
  events_.push_back(e);
  events_edited_ = true;
}

void ScenarioDocument::removeEvent(size_t index) {
  if (index >= events_.size()) return;
  events_.erase(events_.begin() + long(index));
  events_edited_ = true;
}

std::vector<FieldOverride> ScenarioDocument::overrides() const {
  std::vector<FieldOverride> all = fields_;
  std::stable_sort(all.begin(), all.end(),
                   [](const FieldOverride& a, const FieldOverride& b) { return depth(a.path) < depth(b.path); });
  if (events_edited_) all.push_back({"events", events_to_yaml(events_)});
  return all;
}

ScenarioCheck ScenarioDocument::check() const {
  ScenarioCheck c;
  try {
    c.scenario = load_scenario(file_, overrides());
  } catch (const InputError& e) {
    c.error = e.info();
    c.message = e.what();
  } catch (const std::exception& e) {
    c.message = e.what();  // e.g. YAML syntax, reported by yaml-cpp with its line
  }
  return c;
}

void ScenarioDocument::saveAs(const std::filesystem::path& destination) {
  const std::string yaml = scenario_yaml(file_, overrides(), destination);
  const std::string error = write_file_atomically(destination, yaml);
  if (!error.empty()) throw std::runtime_error("could not write " + destination.string() + ": " + error);
  open(destination);
}

}  // namespace dtsim::gui

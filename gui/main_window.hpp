#pragma once
// dtsim-gui's window: the scenario form on the left; Summary, Timeline, Topology, Sweep and
// Compare tabs on the right; Run/Cancel with a progress bar; File and Export menus.
#include <QMainWindow>
#include <vector>

#include "run_record.hpp"
#include "scenario_document.hpp"

class QAction;
class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace dtsim::gui {

class CompareView;
class GoodputView;
class PlanView;
class RunController;
class ScenarioPanel;
class SummaryView;
class SweepPanel;
class StrategyView;
class TimelineView;
class TopologyView;
class TracePanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const QString& source_dir, QWidget* parent = nullptr);

  void openScenario(const QString& file);
  QString saveScenarioAs(const QString& file);  // "" or the error
  bool run();                                   // false when the scenario is invalid or a run is going
  void cancel();
  void keepCurrentRun();
  bool isRunning() const;
  RunPtr currentRun() const { return current_; }
  const std::vector<RunPtr>& keptRuns() const { return kept_; }

  // Exports of the current run and view; each returns "" or the error.
  QString exportReportJson(const QString& file) const;
  QString exportReportCsv(const QString& file) const;
  QString exportTrace(const QString& file) const;
  QString exportCurrentView(const QString& file) const;  // PNG or SVG by extension

  ScenarioDocument& document() { return document_; }
  ScenarioPanel* scenarioPanel() const { return panel_; }
  SummaryView* summary() const { return summary_; }
  TimelineView* timeline() const { return timeline_; }
  TopologyView* topology() const { return topology_; }
  SweepPanel* sweep() const { return sweep_; }
  StrategyView* strategies() const { return strategies_; }
  PlanView* plans() const { return plans_; }
  GoodputView* goodput() const { return goodput_; }
  CompareView* compare() const { return compare_; }
  TracePanel* traces() const { return traces_; }
  const QString& sourceDir() const { return source_dir_; }
  QTabWidget* tabs() const { return tabs_; }
  QLabel* scenarioError() const { return scenario_error_; }
  QString progressText() const;

 signals:
  void runFinished();  // the run (and, with events, its what-if twin) is done, failed or cancelled

 private:
  static QString describeEdits(const std::vector<FieldOverride>& edits);
  void buildMenus();
  void scenarioChecked();
  void showRun(const RunPtr& run);
  void runStopped();
  void updateTitle();
  void exportWithDialog(const QString& what, const QString& filter,
                        const std::function<QString(const QString&)>& save);

  QString source_dir_;
  ScenarioDocument document_;
  ScenarioPanel* panel_ = nullptr;
  SummaryView* summary_ = nullptr;
  TimelineView* timeline_ = nullptr;
  TopologyView* topology_ = nullptr;
  SweepPanel* sweep_ = nullptr;
  StrategyView* strategies_ = nullptr;
  PlanView* plans_ = nullptr;
  GoodputView* goodput_ = nullptr;
  QLabel* scenario_error_ = nullptr;  // the scenario's error, by Run when it cannot run
  TracePanel* traces_ = nullptr;
  CompareView* compare_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  RunController* controller_ = nullptr;
  QPushButton* run_button_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* run_status_ = nullptr;
  RunPtr current_;
  std::vector<RunPtr> kept_;
};

}  // namespace dtsim::gui

#pragma once
// Goodput tab: `dtsim goodput` for the scenario being edited: one iteration simulated, then the
// whole training run with failures, checkpoints and restarts, by the Monte Carlo of each recovery
// strategy and the closed form, with the days, GPU-hours, cost and energy each takes. Every number
// is the library's (goodput_setup.hpp), run on a worker thread.
#include <QString>
#include <QWidget>
#include <optional>

#include "goodput_setup.hpp"
#include "scenario.hpp"
#include "training_cost.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QThread;

namespace dtsim::gui {

class GoodputView : public QWidget {
  Q_OBJECT
 public:
  static constexpr uint64_t kSeed = 1;  // as `dtsim goodput`'s default

  explicit GoodputView(QWidget* parent = nullptr);
  ~GoodputView() override;  // waits for an estimate under way

  // The scenario being edited (nullopt while it does not load); its file's reliability: section
  // gives the failure rates, checkpoint and recovery settings.
  void setScenario(const std::optional<Scenario>& scenario);
  void setCostInputs(const CostInputs& inputs) { cost_inputs_ = inputs; }
  // The form's fields: checkpoint mode (blocking, async, in_memory), training tokens or samples
  // (empty: the scenario's, else 20 tokens per parameter), Monte Carlo runs.
  void setCheckpointMode(CheckpointMode mode);
  void setTrainingAmount(const QString& amount);
  void setRuns(int runs);
  // Starts the estimate; false when there is no scenario, a field is bad (said in the status
  // line) or one is under way.
  bool estimate();
  bool isRunning() const { return thread_ != nullptr; }

  // What the last estimate found (empty before one, or when it failed).
  struct Result {
    GoodputSetup setup;
    std::vector<StrategyMonteCarlo> strategies;
    ClosedFormRun closed_form;
    WallClockCost cost;
  };
  const std::optional<Result>& result() const { return result_; }
  int rowCount() const;
  QString cellText(int row, int column) const;
  QString statusText() const;

 signals:
  void finished();

 private:
  void show(const Result& r);

  std::optional<Scenario> scenario_;
  std::optional<Result> result_;
  CostInputs cost_inputs_;
  QComboBox* mode_ = nullptr;
  QLineEdit* amount_ = nullptr;
  QSpinBox* runs_ = nullptr;
  QPushButton* button_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  QThread* thread_ = nullptr;
};

}  // namespace dtsim::gui

#pragma once
// Plan tab: `dtsim plan` for the scenario's model, GPU, fabric, batch and precision on the GPU
// counts asked for (default: the scenario's): the best layouts of each count, ranked; choosing a
// row puts its layout into the form. Every number is the library's plan_layouts, run on a worker
// thread.
#include <QString>
#include <QWidget>
#include <optional>

#include "planner.hpp"
#include "scenario.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QThread;

namespace dtsim::gui {

class PlanView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kRowsPerCount = 10;  // as `dtsim plan --top`

  explicit PlanView(QWidget* parent = nullptr);
  ~PlanView() override;  // waits for a plan under way

  // The scenario being edited (nullopt while it does not load); layer-graph models have no layouts.
  void setScenario(const std::optional<Scenario>& scenario);
  // Starts planning; false when there is nothing to plan, the GPU counts are bad (said in the
  // status line) or a plan is under way.
  bool plan();
  bool isRunning() const { return thread_ != nullptr; }
  const std::optional<PlanResult>& result() const { return result_; }
  int rowCount() const;
  QString cellText(int row, int column) const;
  QString statusText() const;
  // Puts row `row`'s layout into the form (layoutChosen); false for no such row.
  bool choose(int row);

 signals:
  void finished();
  // Scenario fields and their YAML values: parallelism, micro-batch, recompute, nodes.
  void layoutChosen(const QList<QPair<QString, QString>>& fields);

 private:
  void show(const PlanResult& r);

  std::optional<Scenario> scenario_;
  std::optional<PlanResult> result_;
  std::vector<size_t> shown_;  // table row -> PlanResult row
  QLineEdit* counts_ = nullptr;
  QPushButton* plan_button_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  QThread* thread_ = nullptr;
};

}  // namespace dtsim::gui

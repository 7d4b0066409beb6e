#pragma once
// Strategies tab: the scenario's layer-graph model on its cluster with every data-parallel
// strategy side by side (`dtsim compare-strategies`): a table of throughput, scaling efficiency and
// what limits each, and a chart of where each strategy's iteration goes. Every number is the
// library's compare_strategies, run on a worker thread.
#include <QString>
#include <QWidget>
#include <optional>

#include "scenario.hpp"
#include "strategy_comparison.hpp"

class QChartView;
class QLabel;
class QPainter;
class QPushButton;
class QTableWidget;
class QThread;

namespace dtsim::gui {

class StrategyView : public QWidget {
  Q_OBJECT
 public:
  enum Column {
    strategy_column,
    iteration_column,
    throughput_column,
    scaling_column,
    compute_column,
    exposed_column,
    other_column,
    bottleneck_column,
    column_count,
  };

  explicit StrategyView(QWidget* parent = nullptr);
  ~StrategyView() override;  // waits for a comparison under way

  // The scenario being edited (nullopt while it does not load); only a layer-graph model can be
  // compared. The comparison shown stays until the next one finishes.
  void setScenario(const std::optional<Scenario>& scenario);
  // Starts comparing the scenario's strategies; false when there is nothing to compare or a
  // comparison is under way.
  bool compare();
  bool isRunning() const { return thread_ != nullptr; }

  const std::optional<StrategyComparison>& comparison() const { return comparison_; }
  QString cellText(int row, int column) const;
  QString statusText() const;
  void renderChart(QPainter& painter, QSize size) const;

 signals:
  void finished();  // a comparison ended (shown, or its error in the status line)

 private:
  void show(const StrategyComparison& c);
  void showChart(const StrategyComparison& c);
  void refreshButton();

  std::optional<Scenario> scenario_;
  std::optional<StrategyComparison> comparison_;
  QThread* thread_ = nullptr;
  QPushButton* compare_button_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  QChartView* chart_ = nullptr;
};

}  // namespace dtsim::gui

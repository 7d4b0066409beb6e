#pragma once
// The headline numbers of the current run (library's headline_figures), the time breakdown of
// the current and kept runs as stacked bars, the memory breakdown and the what-if comparison.
#include <QLineEdit>
#include <QWidget>
#include <map>
#include <string>
#include <vector>

#include "run_record.hpp"
#include "training_cost.hpp"

class QLabel;
class QPlainTextEdit;
class QChartView;

namespace dtsim::gui {

class SummaryView : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryView(QWidget* parent = nullptr);

  void setEstimate(double analytic_iteration_s);  // before the simulation ends
  void setRun(const RunPtr& run);
  void setKeptRuns(const std::vector<RunPtr>& kept);  // drawn beside the current run
  void setMessage(const QString& text);               // an error or status instead of numbers

  // How much "time to train" means, in `unit` (token, image, sequence, record): the field's value
  // for the current run's unit, what the field last held for another unit, or that unit's
  // usual_training_amount.
  double trainingAmount(const std::string& unit) const;
  double usdPerGpuHour() const;
  TrainingCost costOf(const Report& r) const;

  // The text shown for a headline figure key ("iteration_s", "tokens_per_s" or "images_per_s",
  // "mfu_percent", ...) of the current run; "" if none.
  QString figureText(const QString& key) const;
  void renderBreakdown(QPainter& painter, QSize size) const;

 signals:
  void costInputsChanged();

 private:
  void refreshFigures();
  void refreshChart();
  void showAmountIn(const std::string& unit);

  RunPtr run_;
  std::vector<RunPtr> kept_;
  QLineEdit* amount_ = nullptr;
  QLabel* amount_unit_ = nullptr;
  std::string unit_ = "token";               // what amount_ counts
  std::map<std::string, double> amounts_;  // what amount_ held for other units
  QLineEdit* price_ = nullptr;
  QLabel* title_ = nullptr;
  std::vector<QLabel*> figures_;  // in headline_figures' order
  std::vector<QLabel*> names_;
  std::vector<std::string> keys_;  // the shown figures' keys
  QLabel* message_ = nullptr;
  QPlainTextEdit* details_ = nullptr;
  QChartView* chart_ = nullptr;
};

}  // namespace dtsim::gui

#pragma once
// The headline numbers of the current run (library's headline_figures), the time breakdown of
// the current and kept runs as stacked bars, the memory breakdown and the what-if comparison.
#include <QLineEdit>
#include <QMap>
#include <QWidget>

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

  double tokens() const;            // "time to train" token count
  double usdPerGpuHour() const;
  TrainingCost costOf(const Report& r) const;

  // The text shown for a headline figure key ("iteration_s", "mfu_percent", ...); "" if none.
  QString figureText(const QString& key) const;
  void renderBreakdown(QPainter& painter, QSize size) const;

 signals:
  void costInputsChanged();

 private:
  void refreshFigures();
  void refreshChart();

  RunPtr run_;
  std::vector<RunPtr> kept_;
  QLineEdit* tokens_ = nullptr;
  QLineEdit* price_ = nullptr;
  QLabel* title_ = nullptr;
  QMap<QString, QLabel*> figures_;  // by headline figure key
  QMap<QString, QLabel*> names_;
  QLabel* message_ = nullptr;
  QPlainTextEdit* details_ = nullptr;
  QChartView* chart_ = nullptr;
};

}  // namespace dtsim::gui

#pragma once
// Runs kept side by side, spreadsheet-like: one column per run, one row per headline figure and
// per setting that tells runs apart; each cell after the first column also says how it differs
// from the first run (the baseline), green when better, red when worse.
#include <QWidget>
#include <functional>

#include "run_record.hpp"
#include "training_cost.hpp"

class QTableWidget;

namespace dtsim::gui {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  // How the time and cost to train are computed (the summary's token count and price).
  void setCostFunction(std::function<TrainingCost(const Report&)> cost);
  void setRuns(const std::vector<RunPtr>& runs);
  const std::vector<RunPtr>& runs() const { return runs_; }

  QString csv() const;  // headline_csv of the runs
  QString cellText(int row, int column) const;
  int rowOf(const QString& key) const;  // row of a headline key or setting ("iteration_s", "layout")

 signals:
  void removeRequested(int index);
  void showRequested(int index);  // double-clicked column: show that run in the other views

 private:
  void refresh();

  std::vector<RunPtr> runs_;
  std::function<TrainingCost(const Report&)> cost_;
  QTableWidget* table_ = nullptr;
  QStringList row_keys_;
};

}  // namespace dtsim::gui

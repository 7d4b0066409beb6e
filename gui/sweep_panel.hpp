#pragma once
// Sweep panel: one field of the scenario being edited swept over a list of values with
// dtsim::run_sweep (the library `dtsim sweep` uses), the curve and the table growing as points
// finish. It builds requests and shows what comes back; every number is the library's.
//
// run_sweep runs on a worker thread; its per-point callback is forwarded to the UI thread. The
// last finished result replaces the streamed points (scaling efficiency is only known then) and
// is what csv() and json() export.
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "scenario.hpp"
#include "scenario_loader.hpp"
#include "sweep.hpp"

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QPainter;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace dtsim::gui {

class SweepPanel : public QWidget {
  Q_OBJECT

 public:
  // Items of the "sweep" combo box that are not scenario fields.
  static constexpr const char* gpu_count_choice = "GPU count";
  static constexpr const char* straggler_choice = "straggler slowdown of GPU";
  static constexpr const char* other_field_choice = "other field…";

  enum Metric {
    iteration_time_s,
    throughput_per_s,  // in the base scenario's unit: tokens/s, images/s, ...
    model_tflops_per_gpu,
    mfu_percent,
    scaling_efficiency_percent,
    time_to_train_days,
    memory_per_gpu_gb,
  };
  enum Column {
    value_column,
    status_column,
    gpus_column,
    layout_column,  // TP/CP/PP/DP
    memory_column,  // GB / capacity GB
    iteration_column,
    throughput_column,
    tflops_column,
    mfu_column,
    scaling_column,
    train_days_column,
    error_column,
    column_count,
  };

  explicit SweepPanel(QWidget* parent = nullptr);
  ~SweepPanel() override;  // cancels a running sweep and joins its thread

  // The scenario being edited: its file and the GUI's overrides (including "events" when the user
  // added events), passed to run_sweep as base_overrides; `events` are the scenario's events,
  // which a straggler sweep extends.
  void setBase(const std::filesystem::path& scenario_file, const std::vector<dtsim::FieldOverride>& overrides,
               const std::vector<dtsim::Event>& events);
  QString baseError() const;  // why the base scenario does not load; empty when it does

  // One of the combo items, or any dotted path (selects "other field…"). Resets the values to the
  // choice's default.
  void setSweptField(const QString& name);
  QString sweptField() const;  // the dotted path, "GPU count" or "straggler slowdown of GPU"
  void setValuesText(const QString& text);
  QString valuesText() const;
  QString valuesError() const;  // empty when the values parse for the chosen field
  void setStragglerGpu(int rank);
  // The amount to train on, in the base scenario's unit (tokens, or a layer model's images,
  // sequences or records), for time to train. Each unit starts at usual_training_amount and keeps
  // what was typed for it while a base of another unit is shown.
  void setAmountText(const QString& text);  // "300e9", "3e11"
  QString amountError() const;
  std::string unit() const;  // the base scenario's throughput unit ("token" while none loads)
  bool canRun() const;

  // The request Run would start (throws dtsim::InputError while the inputs are invalid), and the
  // x value shown for each of its points (the slowdown for a straggler sweep, not the YAML).
  dtsim::SweepRequest currentRequest() const;
  QStringList currentDisplayValues() const;

  void runSweep();
  void cancelSweep();
  bool isRunning() const;

  void setMetric(int metric);
  int metric() const;

  int rowCount() const;
  QString cellText(int row, int column) const;
  QString statusMessage() const;  // the line under the controls (sweep error, wall time)

  // The current curve's points as plotted (simulated points only): x is the swept value, or its
  // category's index when some value on the chart is not a number; y is the chosen metric.
  QList<QPointF> curvePoints() const;
  QStringList curveXLabels() const;  // x of each point as shown (the swept value)
  void keepCurve();                  // the current curve stays on the chart as a named series
  void clearKept();
  int keptCount() const;
  QStringList seriesNames() const;  // kept curves first, then the current one

  // Export of the last finished sweep (empty when none).
  QString csv() const;
  QString json() const;
  void renderChart(QPainter& painter, QSize size) const;
  const dtsim::SweepResult* lastResult() const;

 signals:
  void sweepStarted();
  void pointReady(int index);
  void sweepFinished();

 private:
  // A curve: the points of one sweep and the x value shown for each.
  struct Curve {
    QString name;
    bool gpu_sweep = false;
    QStringList x_labels;
    std::vector<dtsim::SweepPoint> points;
    std::vector<bool> known;  // points[i] has arrived
    bool final = false;       // the whole result (scaling efficiency filled in)
  };
  // Numeric x when every curve's values are numbers (log2 when all are GPU counts), otherwise
  // one category per distinct value, in order of appearance.
  struct XAxisPlan {
    bool numeric = true;
    bool log2 = true;
    QStringList categories;
  };
  struct ParsedValues {
    std::vector<std::string> request_values;  // as run_sweep gets them
    QStringList display_values;
  };

  void buildControls();
  void buildChart();
  void buildTable();
  void onChoiceChanged();
  void refreshInputState();
  QString defaultValuesText() const;
  ParsedValues parseValues() const;  // throws dtsim::InputError
  double parseAmount() const;        // throws dtsim::InputError
  void showUnit(const std::string& unit);  // labels, metric name, column header, amount

  void startWorker(dtsim::SweepRequest request);
  void joinWorker();
  void onPoint(size_t index, const dtsim::SweepPoint& point);
  void onFinished(std::shared_ptr<dtsim::SweepResult> result, const QString& error);

  void fillRow(int row);
  void showStatus(const QString& message, bool is_error);
  std::vector<const Curve*> curvesOnChart() const;  // kept curves, then the current one
  XAxisPlan planXAxis() const;
  QList<QPointF> seriesPoints(const Curve& curve, const XAxisPlan& plan) const;
  void redrawChart() const;
  void populateChart(QChart& chart) const;
  void addXAxis(QChart& chart, const XAxisPlan& plan, const QList<QPointF>& all_points) const;
  void addYAxis(QChart& chart, const QList<QPointF>& all_points) const;
  QString curveName() const;

  // Base scenario.
  std::filesystem::path scenario_file_;
  std::vector<dtsim::FieldOverride> base_overrides_;
  std::vector<dtsim::Event> base_events_;
  QString base_error_;
  bool values_edited_ = false;  // the user changed the values: a new base keeps them
  std::optional<dtsim::Scenario> base_;
  std::string unit_ = "token";                   // what the amount field and throughput count
  std::map<std::string, std::string> amounts_;  // amount text typed for a unit not shown now

  // Sweep state.
  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  int points_done_ = 0;
  Curve current_;
  std::vector<Curve> kept_;
  std::optional<dtsim::SweepResult> last_result_;
  QString status_message_;

  // Widgets.
  QComboBox* field_combo_ = nullptr;
  QLineEdit* other_field_edit_ = nullptr;
  QSpinBox* straggler_gpu_spin_ = nullptr;
  QLineEdit* values_edit_ = nullptr;
  QLabel* values_error_label_ = nullptr;
  QLabel* amount_name_ = nullptr;  // "Tokens to train", "Images to train"
  QLineEdit* amount_edit_ = nullptr;
  QLabel* amount_label_ = nullptr;
  QComboBox* metric_combo_ = nullptr;
  QPushButton* run_button_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QPushButton* keep_button_ = nullptr;
  QPushButton* clear_kept_button_ = nullptr;
  QProgressBar* progress_bar_ = nullptr;
  QLabel* status_label_ = nullptr;
  QChartView* chart_view_ = nullptr;
  QTableWidget* table_ = nullptr;
};

}  // namespace dtsim::gui

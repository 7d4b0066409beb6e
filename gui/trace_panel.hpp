#pragma once
// Trace tab: a recorded job's step (`dtsim import`). Open a folder of traces (Kineto, PyTorch ET,
// Chakra), see each traced rank's step as recorded and as replayed on the GPU's usual node, the
// replay on a timeline (one row per rank: the recorded compute between collectives, and the
// simulated collectives), and scale it out to more data-parallel ranks. Every number is the
// library's import_step and replay_steps; the replay runs on a worker thread.
#include <QString>
#include <QStringList>
#include <QWidget>
#include <optional>

#include "imported_step.hpp"
#include "trace_replay.hpp"

class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QThread;

namespace dtsim::gui {

class TimelineView;

class TracePanel : public QWidget {
  Q_OBJECT
 public:
  enum Column { rank_column, gpu_column, measured_column, gpu_step_column, replayed_column, error_column, column_count };

  explicit TracePanel(const QString& topologies_dir, QWidget* parent = nullptr);
  ~TracePanel() override;  // waits for a replay under way

  // Reads the traces (files, or folders of them) and replays the step on the traced ranks; false,
  // with the error in the status line, when they do not import.
  bool open(const QStringList& paths);
  // Replays the opened step on `ranks` ranks (whole nodes, at least the traced world); false when
  // nothing is open, `ranks` is fewer, or a replay is under way. finished() follows a start.
  bool replay(int ranks);
  bool isRunning() const { return thread_ != nullptr; }

  const std::optional<ImportedStep>& imported() const { return imported_; }
  const std::optional<TraceReplay>& replayed() const { return replay_; }
  QString statusText() const;
  int rowCount() const;
  QString cellText(int row, int column) const;
  const TimelineView& timeline() const { return *timeline_; }
  int ranksToReplay() const;  // the spin box

 signals:
  void finished();  // a replay ended (shown, or its error in the status line)

 private:
  void chooseFolder();
  void showImported();
  void showReplay(const TraceReplay& r);

  QString topologies_dir_;
  std::optional<ImportedStep> imported_;
  std::optional<TraceReplay> replay_;
  QThread* thread_ = nullptr;
  QPushButton* open_button_ = nullptr;
  QPushButton* replay_button_ = nullptr;
  QSpinBox* ranks_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  TimelineView* timeline_ = nullptr;
};

}  // namespace dtsim::gui

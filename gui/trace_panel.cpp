#include "trace_panel.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <memory>

#include "qt_text.hpp"
#include "size_limits.hpp"
#include "timeline_view.hpp"

namespace dtsim::gui {

namespace {

QString ms(double s) { return QString::number(1e3 * s, 'f', 3) + " ms"; }

}  // namespace

TracePanel::TracePanel(const QString& topologies_dir, QWidget* parent)
    : QWidget(parent), topologies_dir_(topologies_dir) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  open_button_ = new QPushButton("Open trace folder…");
  open_button_->setObjectName("open_traces");
  open_button_->setToolTip("a folder of one PyTorch profiler trace per rank (with their PyTorch ETs), or Chakra .et");
  connect(open_button_, &QPushButton::clicked, this, &TracePanel::chooseFolder);
  top->addWidget(open_button_);
  top->addWidget(new QLabel("ranks"));
  ranks_ = new QSpinBox;
  ranks_->setObjectName("trace_ranks");
  ranks_->setRange(1, kMaxGpus);
  ranks_->setToolTip("data-parallel ranks to replay the step on (the same work and bytes per rank)");
  ranks_->setEnabled(false);
  top->addWidget(ranks_);
  replay_button_ = new QPushButton("Replay");
  replay_button_->setObjectName("replay_trace");
  replay_button_->setEnabled(false);
  connect(replay_button_, &QPushButton::clicked, this, [this] { replay(ranks_->value()); });
  top->addWidget(replay_button_);
  status_ = new QLabel("open a folder of traces a job recorded (dtsim import)");
  status_->setObjectName("trace_status");
  status_->setWordWrap(true);
  top->addWidget(status_, 1);
  layout->addLayout(top);

  table_ = new QTableWidget(0, column_count);
  table_->setObjectName("trace_table");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setHorizontalHeaderLabels({"rank", "GPU", "measured step", "GPU step", "replayed step", "error"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  timeline_ = new TimelineView;
  timeline_->setComputeLabel("recorded compute");
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(table_);
  split->addWidget(timeline_);
  split->setStretchFactor(1, 3);
  layout->addWidget(split, 1);
}

TracePanel::~TracePanel() {
  if (thread_) thread_->wait();
}

void TracePanel::chooseFolder() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Open a folder of traces");
  if (!dir.isEmpty()) open({dir});
}

bool TracePanel::open(const QStringList& paths) {
  if (thread_) return false;
  std::vector<std::string> names;
  for (const QString& p : paths) names.push_back(p.toStdString());
  try {
    const TraceFiles files = read_trace_files(expand_trace_paths(names));
    if (files.timed.empty())
      throw std::runtime_error("only PyTorch execution traces: they hold no times (open them with the ranks' "
                               "profiler traces)");
    imported_ = import_step(files, "");
  } catch (const std::exception& e) {
    imported_.reset();
    replay_.reset();
    table_->setRowCount(0);
    timeline_->clear();
    ranks_->setEnabled(false);
    replay_button_->setEnabled(false);
    status_->setText("not imported: " + q(e.what()));
    return false;
  }
  replay_.reset();
  showImported();
  ranks_->setMinimum(imported_->traced_world());
  ranks_->setValue(imported_->traced_world());
  ranks_->setEnabled(true);
  return replay(imported_->traced_world());
}

void TracePanel::showImported() {
  const std::vector<RankStep>& ranks = imported_->ranks;
  table_->setRowCount(int(ranks.size()));
  for (int row = 0; row < int(ranks.size()); ++row) {
    const RankStep& r = ranks[size_t(row)];
    QStringList cells(column_count);
    cells[rank_column] = r.rank < 0 ? "?" : QString::number(r.rank);
    cells[gpu_column] = r.gpu_name.empty() ? "unrecorded" : q(r.gpu_name);
    cells[measured_column] = r.times_recorded ? ms(r.step_s) : "not recorded";
    // The step as the GPU ran it, which the replay runs: later than the annotation where the CPU ran ahead.
    cells[gpu_step_column] = r.times_recorded ? ms(r.gpu_step_s()) : "not recorded";
    for (int c = 0; c < column_count; ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
  }
  table_->resizeColumnsToContents();
}

bool TracePanel::replay(int ranks) {
  if (thread_ || !imported_) return false;
  if (ranks < imported_->traced_world()) {
    status_->setText(QString("replay on at least the %1 traced ranks").arg(imported_->traced_world()));
    return false;
  }
  struct Outcome {
    std::optional<TraceReplay> replay;
    QString error;
  };
  auto outcome = std::make_shared<Outcome>();
  ReplaySetup setup;
  setup.world_size = ranks;
  setup.topologies_dir = topologies_dir_.toStdString();
  setup.record_spans = true;
  thread_ = QThread::create([outcome, steps = imported_->ranks, setup] {
    try {
      outcome->replay = replay_steps(steps, setup);
    } catch (const std::exception& e) {
      outcome->error = q(e.what());
    }
  });
  connect(thread_, &QThread::finished, this, [this, outcome] {
    thread_->deleteLater();
    thread_ = nullptr;
    open_button_->setEnabled(true);
    replay_button_->setEnabled(true);
    if (outcome->replay) showReplay(*outcome->replay);
    else status_->setText("not replayed: " + outcome->error);
    emit finished();
  });
  status_->setText(QString("replaying %1 on %2 ranks…").arg(q(imported_->step)).arg(ranks));
  open_button_->setEnabled(false);
  replay_button_->setEnabled(false);
  thread_->start();
  return true;
}

void TracePanel::showReplay(const TraceReplay& r) {
  replay_ = r;
  for (int row = 0; row < int(r.ranks.size()) && row < table_->rowCount(); ++row) {
    const RankReplay& k = r.ranks[size_t(row)];
    table_->setItem(row, replayed_column, new QTableWidgetItem(ms(k.replayed_step_s)));
    const bool measured = imported_->ranks[size_t(row)].times_recorded;
    table_->setItem(row, error_column,
                    new QTableWidgetItem(measured ? QString::asprintf("%+.1f %%", 100 * (k.replayed_step_s /
                                                                                         k.measured_step_s - 1))
                                                  : QString("nothing measured")));
  }
  QString text = QString("%1 of %2 traced rank%3, %4: on %5 rank%6 (%7 node%8 of %9) the step takes %10")
                     .arg(q(imported_->step))
                     .arg(imported_->ranks.size())
                     .arg(imported_->ranks.size() == 1 ? "" : "s")
                     .arg(imported_->ranks.front().times_recorded ? "measured " + ms(r.measured_step_s)
                                                                  : QString("no times recorded"))
                     .arg(r.simulated_ranks)
                     .arg(r.simulated_ranks == 1 ? "" : "s")
                     .arg(r.nodes)
                     .arg(r.nodes == 1 ? "" : "s")
                     .arg(q(r.topology_file.filename().string()))
                     .arg(ms(r.replayed_step_s));
  if (imported_->ranks.front().times_recorded && r.simulated_ranks == imported_->traced_world())
    text += QString::asprintf(" (%+.1f %%)", 100 * r.error());
  status_->setText(text);
  if (r.engine) timeline_->setTrace(*r.engine, r.gpus_per_node);
}

QString TracePanel::statusText() const { return status_->text(); }

int TracePanel::rowCount() const { return table_->rowCount(); }

QString TracePanel::cellText(int row, int column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

int TracePanel::ranksToReplay() const { return ranks_->value(); }

}  // namespace dtsim::gui

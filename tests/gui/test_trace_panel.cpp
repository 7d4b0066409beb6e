// Qt Test of the Trace tab: the DLRM step's 8 ranks as recorded (tests/data/traces/SOURCES.md),
// replayed and drawn on the timeline, scaled out to 16 ranks, and a folder that does not import.
#include <QSignalSpy>
#include <QTest>

#include "timeline_view.hpp"
#include "trace_panel.hpp"

using dtsim::gui::TracePanel;

class TestTracePanel : public QObject {
  Q_OBJECT

 private:
  const QString source_dir_ = DTSIM_SOURCE_DIR;
  const QString dlrm_ = source_dir_ + "/tests/data/traces/dlrm_kineto";

 private slots:
  // Each rank's ProfilerStep#10 as recorded (rank 1's 19,901 µs is the slowest), its replay within
  // 5% (as `dtsim import` tests), one timeline row per rank.
  void opensAFolderAndReplaysIt() {
    TracePanel panel(source_dir_ + "/topologies");
    QSignalSpy finished(&panel, &TracePanel::finished);
    QVERIFY(panel.open({dlrm_}));
    QVERIFY(finished.wait(60000));
    QCOMPARE(panel.rowCount(), 8);
    QCOMPARE(panel.cellText(1, TracePanel::measured_column), QString("19.901 ms"));
    QCOMPARE(panel.cellText(0, TracePanel::gpu_column), QString("Tesla V100-SXM2-32GB"));
    QVERIFY(panel.replayed().has_value());
    for (const dtsim::RankReplay& k : panel.replayed()->ranks)
      QVERIFY(std::abs(k.replayed_step_s / k.measured_step_s - 1) <= 0.05);
    QCOMPARE(panel.timeline().rankCount(), 8);
    // Rank 1's first span: the recorded compute from the earliest rank's step start to its first
    // collective.
    const auto first = panel.timeline().spanAt(panel.timeline().pointFor(1, 1e-6));
    QVERIFY(first.has_value());
    QVERIFY(panel.timeline().describeSpan(*first).startsWith("GPU 1 (node 0) · recorded compute\n"));
    QCOMPARE(panel.ranksToReplay(), 8);
    QVERIFY(panel.statusText().contains("measured 19.901 ms"));
  }

  // Scaled out to two nodes: 16 rows, the step no shorter than the 8 ranks' replay (the same work
  // per rank, collectives over more ranks).
  void scalesOut() {
    TracePanel panel(source_dir_ + "/topologies");
    QSignalSpy finished(&panel, &TracePanel::finished);
    QVERIFY(panel.open({dlrm_}));
    QVERIFY(finished.wait(60000));
    const double eight = panel.replayed()->replayed_step_s;
    QVERIFY(!panel.replay(4));  // fewer than the traced world
    QVERIFY(panel.statusText().contains("at least the 8 traced ranks"));
    QVERIFY(panel.replay(16));
    QVERIFY(finished.wait(60000));
    QCOMPARE(panel.replayed()->simulated_ranks, 16);
    QCOMPARE(panel.timeline().rankCount(), 16);
    QVERIFY(panel.replayed()->replayed_step_s >= eight);
    QVERIFY(panel.statusText().contains("on 16 ranks (2 nodes"));
  }

  // HTA's recommender (rank 0 of 16) ran ProfilerStep#554's work 161.944 ms behind the annotation:
  // the GPU step the replay runs is the 212.518 ms from the end of the earlier work to the end of
  // its own (as `dtsim import` tests).
  void showsTheGpusStepWhereTheCpuRanAhead() {
    TracePanel panel(source_dir_ + "/topologies");
    QSignalSpy finished(&panel, &TracePanel::finished);
    QVERIFY(panel.open({source_dir_ + "/tests/data/traces/hta_recommender"}));
    QVERIFY(finished.wait(60000));
    QCOMPARE(panel.cellText(0, TracePanel::measured_column), QString("216.216 ms"));
    QCOMPARE(panel.cellText(0, TracePanel::gpu_step_column), QString("212.518 ms"));
    QCOMPARE(panel.replayed()->simulated_ranks, 16);
  }

  void aFolderWithoutTracesSaysSo() {
    TracePanel panel(source_dir_ + "/topologies");
    QVERIFY(!panel.open({source_dir_ + "/topologies"}));
    QVERIFY(panel.statusText().startsWith("not imported: "));
    QCOMPARE(panel.rowCount(), 0);
  }
};

QTEST_MAIN(TestTracePanel)
#include "test_trace_panel.moc"

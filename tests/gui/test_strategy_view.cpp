// The Strategies tab: the table and chart show compare_strategies' numbers for the scenario's
// layer-graph model; a transformer scenario or one that does not load cannot be compared.
#include <QSignalSpy>
#include <QtTest>

#include "scenario_loader.hpp"
#include "strategy_view.hpp"

using namespace dtsim;
using namespace dtsim::gui;

namespace {

const QString kSource = DTSIM_SOURCE_DIR;

Scenario scenario(const char* file) { return load_scenario((kSource + "/scenarios/" + file).toStdString()); }

bool compareAndWait(StrategyView& view) {
  QSignalSpy done(&view, &StrategyView::finished);
  return view.compare() && done.wait(120000);
}

}  // namespace

class TestStrategyView : public QObject {
  Q_OBJECT

 private slots:
  void tableShowsTheLibrarysComparison() {
    const Scenario s = scenario("vgg16-16-k80-parameter-server.yaml");
    StrategyView view;
    view.setScenario(s);
    QVERIFY(compareAndWait(view));
    const StrategyComparison expected = compare_strategies(s, 2);
    QVERIFY(view.comparison().has_value());
    QCOMPARE(view.comparison()->rows.size(), expected.rows.size());
    QVERIFY(expected.rows.size() >= 6);
    for (int row = 0; row < int(expected.rows.size()); ++row) {
      const StrategyOutcome& r = expected.rows[size_t(row)];
      QCOMPARE(view.cellText(row, StrategyView::strategy_column), QString::fromStdString(r.strategy));
      QCOMPARE(view.cellText(row, StrategyView::iteration_column), QString::number(r.iteration_s, 'f', 4) + " s");
      QCOMPARE(view.cellText(row, StrategyView::throughput_column), QString::number(r.samples_per_s, 'f', 1));
      QCOMPARE(view.cellText(row, StrategyView::scaling_column),
               QString::number(100 * r.scaling_efficiency, 'f', 1) + " %");
      QCOMPARE(view.cellText(row, StrategyView::bottleneck_column), QString::fromStdString(r.bottleneck));
    }
    // The scenario's reference: VGG-16 at 36.3 images/s on one K80.
    QVERIFY(view.statusText().contains("one GPU alone 36.3 images/s (the scenario's reference)"));
    // Its own strategy first: parameter servers, slower than DDP's all-reduce on 25 Gb/s Ethernet.
    QVERIFY(view.cellText(0, StrategyView::strategy_column).startsWith("parameter_server sync"));
    QCOMPARE(view.cellText(1, StrategyView::strategy_column), QString("allreduce nccl"));
    QVERIFY(expected.rows[0].samples_per_s < expected.rows[1].samples_per_s);
  }

  void transformerScenarioCannotBeCompared() {
    StrategyView view;
    view.setScenario(scenario("gpt3-1.3b-8-h100.yaml"));
    QVERIFY(!view.compare());
    QVERIFY(view.statusText().contains("layer-graph models"));
    view.setScenario(std::nullopt);
    QVERIFY(!view.compare());
    QVERIFY(view.statusText().contains("does not load"));
  }
};

QTEST_MAIN(TestStrategyView)
#include "test_strategy_view.moc"

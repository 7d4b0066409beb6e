// Qt Test of the sweep panel: the numbers it shows are the library's (run_sweep called directly
// with the same request), points stream in one by one, bad input disables Run, cancel and
// destruction stop a running sweep.
#include <fmt/format.h>

#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>
#include <memory>

#include "palette.hpp"
#include "scenario_writer.hpp"
#include "sweep.hpp"
#include "sweep_panel.hpp"

using dtsim::gui::SweepPanel;

namespace {

const std::filesystem::path kSmall = DTSIM_SOURCE_DIR "/scenarios/gpt-350m-1-h100.yaml";  // 1 GPU
const std::filesystem::path kNode = DTSIM_SOURCE_DIR "/scenarios/gpt3-1.3b-8-h100.yaml";   // 8 GPUs
const std::filesystem::path kLarge = DTSIM_SOURCE_DIR "/scenarios/llama2-70b-256-h100.yaml";
// Background traffic reaches every GPU, so none is folded: a second per point at 256 GPUs and
// more (measured), long enough to be caught running. Folded, the whole sweep can end in 500 ms.
// Given as the GUI gives the user's events, an "events" override: setBase's `events` argument only
// seeds a straggler sweep, so alone it left this sweep folded (and sometimes done within 500 ms).
const std::vector<dtsim::Event> kEveryGpuRuns = {dtsim::BackgroundTrafficEvent{0, 1, 1e9}};
const std::vector<dtsim::FieldOverride> kEveryGpuRunsOverride = {{"events", dtsim::events_to_yaml(kEveryGpuRuns)}};
constexpr int kSweepTimeout_ms = 120000;

QString fixed(double x, int decimals) { return QString::fromStdString(fmt::format("{:.{}f}", x, decimals)); }

QPushButton* button(SweepPanel& panel, const QString& text) {
  for (QPushButton* b : panel.findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

int pixels_of(const QImage& image, const QColor& colour) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) n += QColor(image.pixel(x, y)) == colour;
  return n;
}

QImage rendered_chart(const SweepPanel& panel) {
  QImage image(800, 500, QImage::Format_ARGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  panel.renderChart(painter, image.size());
  return image;
}

dtsim::SweepRequest field_request(const std::filesystem::path& file, const std::string& field,
                                  std::vector<std::string> values) {
  dtsim::SweepRequest r;
  r.scenario_file = file;
  r.field = field;
  r.values = std::move(values);
  return r;
}

}  // namespace

class TestSweepPanel : public QObject {
  Q_OBJECT

 private slots:
  void badValuesDisableRun();
  void defaultsFollowTheChoice();
  void microBatchSweepShowsTheLibrarysNumbers();
  void invalidPointShowsTheLibrarysError();
  void stragglerSweepSlowsTheIteration();
  void gpuCountSweepPlotsGpusOnX();
  void layerModelSweepCountsImages();
  void textValuesGetCategories();
  void cancelStopsTheSweep();
  void cancelMidRunStopsTheSimulations();
  void destroyingWhileRunningCancels();
};

void TestSweepPanel::badValuesDisableRun() {
  SweepPanel panel;
  panel.setBase(kSmall, {}, {});
  QVERIFY(panel.baseError().isEmpty());
  panel.setSweptField("parallelism.tp");
  panel.setValuesText("1,2");
  QVERIFY(panel.valuesError().isEmpty());
  QVERIFY(panel.canRun());
  QVERIFY(button(panel, "Run")->isEnabled());

  for (const QString& bad : {QString("abc-"), QString("0-4"), QString("1,,2"), QString("8-2")}) {
    panel.setValuesText(bad);
    QVERIFY2(panel.valuesError().contains(bad), qPrintable(panel.valuesError()));
    QVERIFY(!panel.canRun());
    QVERIFY(!button(panel, "Run")->isEnabled());
  }
  panel.setSweptField(SweepPanel::gpu_count_choice);
  panel.setValuesText("0-4");
  QVERIFY(panel.valuesError().contains("0-4"));
  panel.setSweptField(SweepPanel::straggler_choice);
  panel.setValuesText("1,slow");
  QVERIFY(panel.valuesError().contains("slow"));

  // Any value goes to the library for a field of the user's choosing; the amount accepts 3e11.
  panel.setSweptField("model.layers");
  QCOMPARE(panel.sweptField(), QString("model.layers"));
  panel.setValuesText("12,abc");
  QVERIFY(panel.valuesError().isEmpty());
  panel.setAmountText("tons");
  QVERIFY(panel.amountError().contains("a number of tokens > 0"));
  QVERIFY(!button(panel, "Run")->isEnabled());
  panel.setAmountText("3e11");
  QVERIFY(panel.amountError().isEmpty());
  QVERIFY(button(panel, "Run")->isEnabled());
  const dtsim::SweepRequest r = panel.currentRequest();
  QCOMPARE(r.field, std::string("model.layers"));
  QCOMPARE(r.values, (std::vector<std::string>{"12", "abc"}));
  QCOMPARE(r.amount, 3e11);
}

void TestSweepPanel::defaultsFollowTheChoice() {
  SweepPanel panel;
  panel.setBase(kNode, {}, {});
  panel.setSweptField(SweepPanel::gpu_count_choice);
  QCOMPARE(panel.valuesText(), QString("8-64"));
  QCOMPARE(panel.currentRequest().gpu_counts, (std::vector<int>{8, 16, 32, 64}));
  panel.setSweptField("parallelism.tp");
  QCOMPARE(panel.valuesText(), QString("1,2,4,8"));
  panel.setSweptField("training.global_batch");
  QCOMPARE(panel.valuesText(), QString("256-2048"));
  panel.setSweptField(SweepPanel::straggler_choice);
  QCOMPARE(panel.valuesText(), QString("1,1.25,1.5,2"));
}

void TestSweepPanel::microBatchSweepShowsTheLibrarysNumbers() {
  SweepPanel panel;
  const std::vector<dtsim::FieldOverride> overrides = {{"training.recompute", "selective"}};
  panel.setBase(kSmall, overrides, {});
  panel.setSweptField("training.micro_batch");
  panel.setValuesText("1,2");
  QSignalSpy started(&panel, &SweepPanel::sweepStarted);
  QSignalSpy ready(&panel, &SweepPanel::pointReady);
  QSignalSpy finished(&panel, &SweepPanel::sweepFinished);
  QStringList streamed_iteration;  // the row's text when its point arrives, before the end
  connect(&panel, &SweepPanel::pointReady, this, [&](int row) {
    QVERIFY(panel.isRunning());
    streamed_iteration << panel.cellText(row, SweepPanel::iteration_column);
  });
  panel.runSweep();
  QVERIFY(panel.isRunning());
  QVERIFY(!button(panel, "Run")->isEnabled());
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kSweepTimeout_ms);
  QCOMPARE(started.count(), 1);
  QCOMPARE(finished.count(), 1);
  QCOMPARE(ready.count(), 2);
  QCOMPARE(QSet<int>({ready[0][0].toInt(), ready[1][0].toInt()}), QSet<int>({0, 1}));

  dtsim::SweepRequest request = field_request(kSmall, "training.micro_batch", {"1", "2"});
  request.base_overrides = overrides;
  const dtsim::SweepResult expected = dtsim::run_sweep(request);
  QCOMPARE(expected.simulated_count(), 2);
  QCOMPARE(panel.rowCount(), 2);
  for (int row = 0; row < 2; ++row) {
    const dtsim::SweepPoint& p = expected.points[size_t(row)];
    QCOMPARE(panel.cellText(row, SweepPanel::value_column), QString::fromStdString(p.value));
    QCOMPARE(panel.cellText(row, SweepPanel::status_column), QString("simulated"));
    QCOMPARE(panel.cellText(row, SweepPanel::gpus_column), QString("1"));
    QCOMPARE(panel.cellText(row, SweepPanel::layout_column), QString("1/1/1/1"));
    QCOMPARE(panel.cellText(row, SweepPanel::iteration_column), fixed(p.iteration_s, 4));
    QCOMPARE(panel.cellText(row, SweepPanel::throughput_column), fixed(p.throughput_per_s, 0));
    QCOMPARE(panel.cellText(row, SweepPanel::tflops_column), fixed(p.model_tflops_per_gpu, 1));
    QCOMPARE(panel.cellText(row, SweepPanel::mfu_column), fixed(100 * p.mfu, 1));
    QCOMPARE(panel.cellText(row, SweepPanel::scaling_column), fixed(100 * p.scaling_efficiency, 1));
    QCOMPARE(panel.cellText(row, SweepPanel::train_days_column), fixed(p.time_to_train_s / 86400, 2));
    QCOMPARE(panel.cellText(row, SweepPanel::memory_column),
             fixed(p.memory_bytes / 1e9, 1) + " / " + fixed(p.memory_capacity_bytes / 1e9, 1));
    // The same text the CLI's table prints for this point.
    QVERIFY(QString::fromStdString(dtsim::format_sweep_table(expected)).contains(fixed(p.iteration_s, 4)));
  }
  QCOMPARE(panel.cellText(0, SweepPanel::scaling_column), QString("100.0"));
  QCOMPARE(streamed_iteration.size(), 2);
  for (int i = 0; i < 2; ++i)
    QCOMPARE(streamed_iteration[i], fixed(expected.points[size_t(ready[i][0].toInt())].iteration_s, 4));
  QCOMPARE(panel.csv(), QString::fromStdString(dtsim::sweep_to_csv(expected)));
  const auto json = nlohmann::json::parse(panel.json().toStdString());
  QVERIFY(json["points"] == dtsim::sweep_to_json(expected)["points"]);
  QVERIFY(panel.lastResult() != nullptr);

  // The curve: micro-batch on a numeric x axis, the chosen metric on y.
  QList<QPointF> curve = panel.curvePoints();
  QCOMPARE(curve.size(), 2);
  QCOMPARE(curve[0], QPointF(1, expected.points[0].iteration_s));
  QCOMPARE(curve[1], QPointF(2, expected.points[1].iteration_s));
  panel.setMetric(SweepPanel::mfu_percent);
  QCOMPARE(panel.curvePoints()[1].y(), 100 * expected.points[1].mfu);

  // Kept curves stay on the chart; the export draws the current curve's blue.
  panel.keepCurve();
  QCOMPARE(panel.keptCount(), 1);
  QCOMPARE(panel.seriesNames().size(), 2);
  QCOMPARE(panel.seriesNames()[0], QString("training.micro_batch · gpt-350m-1-h100"));
  const int blue_px = pixels_of(rendered_chart(panel), dtsim::gui::palette::compute());
  QVERIFY2(blue_px > 50, qPrintable(QString::number(blue_px)));
  panel.clearKept();
  QCOMPARE(panel.keptCount(), 0);
}

void TestSweepPanel::invalidPointShowsTheLibrarysError() {
  SweepPanel panel;
  panel.setBase(kNode, {}, {});
  panel.setSweptField("parallelism.tp");
  panel.setValuesText("3");
  panel.runSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kSweepTimeout_ms);
  const dtsim::SweepResult expected = dtsim::run_sweep(field_request(kNode, "parallelism.tp", {"3"}));
  QCOMPARE(expected.points.at(0).status, dtsim::SweepStatus::invalid);
  QCOMPARE(panel.rowCount(), 1);
  QCOMPARE(panel.cellText(0, SweepPanel::status_column), QString("invalid"));
  QCOMPARE(panel.cellText(0, SweepPanel::error_column), QString::fromStdString(expected.points[0].error));
  QCOMPARE(panel.cellText(0, SweepPanel::iteration_column), QString("-"));
  QVERIFY(panel.curvePoints().isEmpty());  // listed in the table only
}

void TestSweepPanel::stragglerSweepSlowsTheIteration() {
  SweepPanel panel;
  panel.setBase(kNode, {}, {});
  panel.setSweptField(SweepPanel::straggler_choice);
  panel.setStragglerGpu(0);
  panel.setValuesText("1,2");
  const dtsim::SweepRequest request = panel.currentRequest();
  QCOMPARE(request.field, std::string("events"));
  QCOMPARE(request.values.at(1), dtsim::events_to_yaml({dtsim::StragglerEvent{.gpu = 0, .slowdown = 2}}));
  panel.runSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kSweepTimeout_ms);
  QCOMPARE(panel.rowCount(), 2);
  QCOMPARE(panel.cellText(0, SweepPanel::value_column), QString("1"));
  QCOMPARE(panel.cellText(1, SweepPanel::value_column), QString("2"));
  const dtsim::SweepResult* result = panel.lastResult();
  QVERIFY(result && result->simulated_count() == 2);
  QVERIFY(result->points[1].iteration_s > result->points[0].iteration_s);
  QVERIFY(panel.cellText(1, SweepPanel::iteration_column).toDouble() >
          panel.cellText(0, SweepPanel::iteration_column).toDouble());
  QCOMPARE(panel.curveXLabels(), QStringList({"1", "2"}));
  const QList<QPointF> curve = panel.curvePoints();
  QCOMPARE(curve.size(), 2);
  QCOMPARE(curve[0].x(), 1.0);
  QCOMPARE(curve[1].x(), 2.0);
}

void TestSweepPanel::gpuCountSweepPlotsGpusOnX() {
  SweepPanel panel;
  panel.setBase(kNode, {}, {});
  panel.setSweptField(SweepPanel::gpu_count_choice);
  panel.setValuesText("8-16");
  panel.runSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kSweepTimeout_ms);
  dtsim::SweepRequest request;
  request.scenario_file = kNode;
  request.gpu_counts = {8, 16};
  const dtsim::SweepResult expected = dtsim::run_sweep(request);
  QCOMPARE(panel.rowCount(), 2);
  QCOMPARE(panel.cellText(1, SweepPanel::gpus_column), QString("16"));
  QCOMPARE(panel.cellText(1, SweepPanel::layout_column), QString("1/1/1/16"));
  panel.setMetric(SweepPanel::scaling_efficiency_percent);
  const QList<QPointF> curve = panel.curvePoints();
  QCOMPARE(curve.size(), 2);
  QCOMPARE(curve[1], QPointF(16, 100 * expected.points[1].scaling_efficiency));
  QCOMPARE(panel.cellText(1, SweepPanel::scaling_column), fixed(100 * expected.points[1].scaling_efficiency, 1));
  QVERIFY(pixels_of(rendered_chart(panel), dtsim::gui::palette::compute()) > 50);
}

// ResNet-50 counts images: the amount starts at 90 ImageNet epochs, the throughput column, metric
// and time to train are in images, as the library's sweep; a GPT base brings tokens back and the
// typed image amount is kept for the next ResNet base.
void TestSweepPanel::layerModelSweepCountsImages() {
  const std::filesystem::path resnet = DTSIM_SOURCE_DIR "/tests/data/scenario-resnet50-ddp.yaml";
  SweepPanel panel;
  panel.setBase(resnet, {}, {});
  QCOMPARE(panel.unit(), std::string("image"));
  QCOMPARE(panel.currentRequest().amount, 90.0 * 1281167);
  auto* table = panel.findChild<QTableWidget*>();
  QCOMPARE(table->horizontalHeaderItem(SweepPanel::throughput_column)->text(), QString("images/s"));
  panel.setSweptField(SweepPanel::gpu_count_choice);
  panel.setValuesText("8,16");
  panel.setAmountText("2e6");
  panel.runSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kSweepTimeout_ms);
  dtsim::SweepRequest request;
  request.scenario_file = resnet;
  request.gpu_counts = {8, 16};
  request.amount = 2e6;
  const dtsim::SweepResult expected = dtsim::run_sweep(request);
  for (int row = 0; row < 2; ++row) {
    const dtsim::SweepPoint& p = expected.points[size_t(row)];
    QCOMPARE(panel.cellText(row, SweepPanel::throughput_column), fixed(1024 / p.iteration_s, 1));
    QCOMPARE(panel.cellText(row, SweepPanel::train_days_column), fixed(2e6 / (1024 / p.iteration_s) / 86400, 2));
  }
  panel.setMetric(SweepPanel::throughput_per_s);
  QCOMPARE(panel.curvePoints()[1], QPointF(16, expected.points[1].throughput_per_s));
  QVERIFY(panel.csv().startsWith("value,gpus,nodes,tp,cp,pp,dp,status,iteration_s,images_per_s,"));

  panel.setBase(kNode, {}, {});
  QCOMPARE(panel.currentRequest().amount, 300e9);
  QCOMPARE(table->horizontalHeaderItem(SweepPanel::throughput_column)->text(), QString("tokens/s"));
  panel.setBase(resnet, {}, {});
  QCOMPARE(panel.currentRequest().amount, 2e6);
}

void TestSweepPanel::textValuesGetCategories() {
  SweepPanel panel;
  panel.setBase(kSmall, {}, {});
  panel.setSweptField("training.precision");
  panel.setValuesText("bf16,fp8");
  panel.runSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), kSweepTimeout_ms);
  const dtsim::SweepResult expected = dtsim::run_sweep(field_request(kSmall, "training.precision", {"bf16", "fp8"}));
  QCOMPARE(expected.simulated_count(), 2);
  const QList<QPointF> curve = panel.curvePoints();  // one category per value
  QCOMPARE(curve.size(), 2);
  QCOMPARE(curve[0], QPointF(0, expected.points[0].iteration_s));
  QCOMPARE(curve[1], QPointF(1, expected.points[1].iteration_s));
  QVERIFY(pixels_of(rendered_chart(panel), dtsim::gui::palette::compute()) > 50);
}

void TestSweepPanel::cancelStopsTheSweep() {
  SweepPanel panel;
  panel.setBase(kNode, {}, {});
  panel.setSweptField(SweepPanel::gpu_count_choice);
  panel.setValuesText("8-64");
  QSignalSpy ready(&panel, &SweepPanel::pointReady);
  panel.runSweep();
  panel.cancelSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), 5000);
  QCOMPARE(panel.rowCount(), 4);
  QCOMPARE(ready.count(), 4);
  int cancelled = 0;
  for (int row = 0; row < 4; ++row) {
    const QString status = panel.cellText(row, SweepPanel::status_column);
    QVERIFY2(status == "simulated" || status == "cancelled", qPrintable(status));
    if (status == "cancelled") {
      ++cancelled;
      QCOMPARE(panel.cellText(row, SweepPanel::error_column), QString("simulation cancelled"));
    }
  }
  QVERIFY(cancelled > 0);
  QVERIFY(button(panel, "Run")->isEnabled());
}

void TestSweepPanel::cancelMidRunStopsTheSimulations() {
  SweepPanel panel;
  panel.setBase(kLarge, kEveryGpuRunsOverride, kEveryGpuRuns);
  panel.setSweptField(SweepPanel::gpu_count_choice);
  panel.setValuesText("256-2048");
  panel.runSweep();
  QTest::qWait(500);  // the simulations have started
  QVERIFY(panel.isRunning());
  panel.cancelSweep();
  QTRY_VERIFY_WITH_TIMEOUT(!panel.isRunning(), 3000);
  QCOMPARE(panel.rowCount(), 4);
  QCOMPARE(panel.cellText(3, SweepPanel::status_column), QString("cancelled"));
}

void TestSweepPanel::destroyingWhileRunningCancels() {
  auto panel = std::make_unique<SweepPanel>();
  panel->setBase(kLarge, kEveryGpuRunsOverride, kEveryGpuRuns);
  panel->setSweptField(SweepPanel::gpu_count_choice);
  panel->setValuesText("256-2048");
  panel->runSweep();
  QTest::qWait(500);  // the simulations have started
  QVERIFY(panel->isRunning());
  QElapsedTimer timer;
  timer.start();
  panel.reset();
  QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
  QTest::qWait(100);  // point events queued for the destroyed panel are dropped, not delivered
}

QTEST_MAIN(TestSweepPanel)
#include "test_sweep_panel.moc"

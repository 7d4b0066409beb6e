// dtsim-gui's window, driven as a user would: open a scenario, change a field, run, and compare
// every number shown with the library's own for the same scenario; invalid fields, saving,
// what-if events, cancelling, keeping runs, exports.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

#include "compare_view.hpp"
#include "goodput_view.hpp"
#include "headline_figures.hpp"
#include "input_error.hpp"
#include "main_window.hpp"
#include "plan_view.hpp"
#include "reliability_config.hpp"
#include "report.hpp"
#include "scenario_loader.hpp"
#include "scenario_panel.hpp"
#include "simulation.hpp"
#include "strategy_view.hpp"
#include "summary_view.hpp"
#include "topology_view.hpp"

using namespace dtsim;
using namespace dtsim::gui;

namespace {

const QString kSource = DTSIM_SOURCE_DIR;
const QString kScenario = kSource + "/scenarios/gpt3-1.3b-8-h100.yaml";
const QString kLayerScenario = kSource + "/scenarios/vgg16-16-k80-parameter-server.yaml";

// What `dtsim run` would report for the file with these overrides.
Report libraryReport(const std::vector<FieldOverride>& overrides) {
  const Scenario s = load_scenario(kScenario.toStdString(), overrides);
  return make_report(resolve_scenario(s), simulate(s));
}

std::string libraryError(const std::vector<FieldOverride>& overrides) {
  try {
    load_scenario(kScenario.toStdString(), overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

// The spy listens before the run starts.
bool runAndWait(MainWindow& w) {
  QSignalSpy done(&w, &MainWindow::runFinished);
  if (!w.run()) return false;
  return done.wait(120000) && w.currentRun() != nullptr;
}

QByteArray readAll(const QString& file) {
  QFile f(file);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private slots:
  void changedFieldRunsAndShowsTheLibrarysNumbers() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(w.scenarioPanel()->lastCheck().scenario.has_value());
    QVERIFY(w.scenarioPanel()->editField("training.micro_batch", "2"));
    QCOMPARE(w.scenarioPanel()->errorText(), QString());
    QVERIFY(runAndWait(w));
    // Issue 47: a run says what was edited, so that runs of one scenario tell apart in charts.
    QVERIFY2(w.currentRun()->label.endsWith(" · training.micro_batch=2"), qPrintable(w.currentRun()->label));

    const Report expected = libraryReport({{"training.micro_batch", "2"}});
    QCOMPARE(expected.micro_batches, 16);  // 256 / (8 replicas x 2)
    QCOMPARE(w.currentRun()->report->iteration_s, expected.iteration_s);
    const TrainingCost cost = training_cost(expected, 300e9, 2.0);  // the summary's default inputs
    for (const HeadlineFigure& f : headline_figures(expected, cost))
      QCOMPARE(w.summary()->figureText(QString::fromStdString(f.key)), QString::fromStdString(f.text));
    // Time to train 300B tokens, by hand: 300e9 / tokens_per_s seconds, in days.
    QCOMPARE(w.summary()->figureText("time_to_train_days"),
             QString::number(300e9 / expected.tokens_per_s / 86400, 'f', 1) + " days");
  }

  // Issue 46: choosing another GPU generation kept the A100 fabric (or here the H100 one) and ran.
  // The topology follows the GPU, says so, renames nothing, and the list greys out the others.
  void gpuOfAnotherGenerationTakesItsTopology() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    ScenarioPanel* panel = w.scenarioPanel();
    auto* topology = qobject_cast<QComboBox*>(panel->fieldWidget("cluster.topology"));
    QVERIFY(topology);
    QVERIFY(panel->editField("cluster.gpu", "a100-80gb-sxm"));
    QCOMPARE(panel->errorText(), QString("topology switched to dgx-a100-hdr-fattree.yaml: its nodes hold a100-80gb-sxm "
                                         "(the scenario's name is unchanged)"));
    const Scenario& s = *panel->lastCheck().scenario;
    QCOMPARE(QString::fromStdString(s.cluster.topology_file.filename().string()), QString("dgx-a100-hdr-fattree.yaml"));
    QCOMPARE(QString::fromStdString(s.name), QString("gpt3-1.3b-8-h100"));
    QCOMPARE(topology->currentText(), QString("dgx-a100-hdr-fattree"));
    const auto* items = qobject_cast<QStandardItemModel*>(topology->model());
    QVERIFY(!items->item(topology->findText("dgx-h100-ndr-fattree"))->isEnabled());
    QVERIFY(items->item(topology->findText("dgx-a100-roce-spine-leaf"))->isEnabled());
    // H100 to H200: the same NVLink 4 nodes, nothing switched.
    QVERIFY(panel->editField("cluster.gpu", "h100-sxm"));
    QVERIFY(panel->editField("cluster.topology", kSource + "/topologies/dgx-h100-ndr-fattree.yaml"));
    QVERIFY(panel->editField("cluster.gpu", "h200-sxm"));
    QCOMPARE(panel->errorText(), QString());
    QCOMPARE(QString::fromStdString(panel->lastCheck().scenario->cluster.topology_file.filename().string()),
             QString("dgx-h100-ndr-fattree.yaml"));
  }

  // The Training form offers the framework: switching the scenario to eager PyTorch runs the
  // library's eager kernels (the same report as the file with training.framework: pytorch).
  void frameworkFieldRunsTheChosenFrameworksKernels() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    auto* framework = qobject_cast<QComboBox*>(w.scenarioPanel()->fieldWidget("training.framework"));
    QVERIFY(framework);
    QCOMPARE(framework->currentText(), QString("megatron"));
    QVERIFY(w.scenarioPanel()->editField("training.framework", "pytorch"));
    QCOMPARE(w.scenarioPanel()->errorText(), QString());
    QCOMPARE(w.scenarioPanel()->lastCheck().scenario->training.framework, Framework::pytorch);
    QVERIFY(runAndWait(w));
    const Report expected = libraryReport({{"training.framework", "pytorch"}});
    const Report megatron = libraryReport({});
    QCOMPARE(w.currentRun()->report->iteration_s, expected.iteration_s);
    QVERIFY(expected.iteration_s > megatron.iteration_s);  // the casts and unfused kernels cost time
    // Reentrant checkpointing reruns each layer whole, PyTorch's kind only (the loader's message).
    QVERIFY(w.scenarioPanel()->editField("training.recompute", "full"));
    QVERIFY(w.scenarioPanel()->editField("training.recompute_reentrant", "true"));
    QCOMPARE(w.scenarioPanel()->errorText(), QString());
    QVERIFY(w.scenarioPanel()->lastCheck().scenario->training.recompute_reentrant);
    QVERIFY(w.scenarioPanel()->editField("training.framework", "megatron"));
    QVERIFY(w.scenarioPanel()
                ->fieldError("training.recompute_reentrant")
                .contains("unless training.framework is pytorch"));
  }

  void summaryFollowsTheTokenCountAndPrice() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(runAndWait(w));
    auto* tokens = w.summary()->findChild<QLineEdit*>("training_amount");
    auto* price = w.summary()->findChild<QLineEdit*>("usd_per_gpu_hour");
    tokens->setText("1e12");
    price->setText("3");
    const Report& r = *w.currentRun()->report;
    const double gpu_hours = 1e12 / r.tokens_per_s / 3600 * 8;
    // With thousands separators: 12,345.
    QLocale english(QLocale::English);
    english.setNumberOptions(QLocale::DefaultNumberOptions);
    QCOMPARE(w.summary()->figureText("gpu_hours"), english.toString(std::round(gpu_hours), 'f', 0));
    QCOMPARE(w.summary()->figureText("cost_usd"), "$" + english.toString(std::round(3 * gpu_hours), 'f', 0));
  }

  // Issue 47: scrolling the form over a combo box must not change it unless it has the focus.
  void comboBoxesIgnoreTheWheelUnlessFocused() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    auto* gpu = qobject_cast<QComboBox*>(w.scenarioPanel()->fieldWidget("cluster.gpu"));
    QVERIFY(gpu);
    QVERIFY(!gpu->hasFocus());
    const QString before = gpu->currentText();
    QWheelEvent wheel(QPointF(5, 5), gpu->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(gpu, &wheel);
    QCOMPARE(gpu->currentText(), before);
    QCOMPARE(gpu->focusPolicy(), Qt::StrongFocus);
  }

  // Issue 47: the Strategies tab compares layer-graph models only; a transformer scenario (this
  // one) does not get it. A scenario in error says why Run is greyed out right under Run.
  void strategiesTabAndScenarioErrorFollowTheScenario() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(!w.tabs()->isTabVisible(w.tabs()->indexOf(w.strategies())));
    QVERIFY(w.scenarioError()->isHidden());
    QVERIFY(w.scenarioPanel()->editField("training.micro_batch", "0"));
    QVERIFY(!w.scenarioPanel()->errorText().isEmpty());
    QCOMPARE(w.scenarioError()->text(), w.scenarioPanel()->errorText());
    QVERIFY(!w.scenarioError()->isHidden());
  }

  // Issue 47: the Plan tab ranks the layouts of the scenario's model as plan_layouts does, and a
  // chosen row becomes the scenario's layout.
  void planTabRanksLayoutsAndAChosenOneLoadsIntoTheForm() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    PlanView* plans = w.plans();
    QVERIFY(plans->plan());
    QSignalSpy done(plans, &PlanView::finished);
    QVERIFY(done.wait(120000));
    QVERIFY(plans->result().has_value());
    const PlanResult& r = *plans->result();
    int expected_rows = 0;
    for (size_t i = 0; i < r.rows.size(); ++i) expected_rows += r.rank_in_count(i) <= PlanView::kRowsPerCount;
    QCOMPARE(plans->rowCount(), expected_rows);
    QVERIFY(plans->rowCount() > 1);
    const PlanRow& second = r.rows[1];
    QCOMPARE(plans->cellText(1, 2), QString::number(second.parallelism.tp));
    QVERIFY(plans->choose(1));
    const Scenario& s = *w.scenarioPanel()->lastCheck().scenario;
    QCOMPARE(s.parallelism.tp, second.parallelism.tp);
    QCOMPARE(s.parallelism.pp, second.parallelism.pp);
    QCOMPARE(s.parallelism.dp, second.parallelism.dp);
    QCOMPARE(s.parallelism.schedule, second.parallelism.schedule);
    QCOMPARE(s.training.micro_batch, second.training.micro_batch);
    QCOMPARE(s.training.recompute, second.training.recompute);
    // Every field of the layout, as `plan --write-scenario` writes it (layout_overrides).
    const Scenario row = r.scenario_of(second);
    QCOMPARE(s.parallelism.zero_stage, row.parallelism.zero_stage);
    QCOMPARE(s.parallelism.virtual_stages, row.parallelism.virtual_stages);
    QCOMPARE(s.parallelism.bucket_mb, row.parallelism.bucket_mb);
    QCOMPARE(s.cluster.nodes, row.cluster.nodes);
  }

  // Issue 47: the Goodput tab estimates the whole training run as `dtsim goodput` does (the same
  // setup, Monte Carlo of seed 1 and closed form), costed at the Summary's price; in_memory
  // checkpoints on this one-node scenario say why not.
  void goodputTabEstimatesTheTrainingRunAsTheLibraryDoes() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    GoodputView* view = w.goodput();
    QSignalSpy done(view, &GoodputView::finished);
    view->setCheckpointMode(CheckpointMode::in_memory);
    QVERIFY(view->estimate());
    QVERIFY(done.wait(120000));
    QVERIFY(!view->result());
    QVERIFY2(view->statusText().contains("in_memory on 1 node(s) of 8 NIC(s)"), qPrintable(view->statusText()));

    view->setCheckpointMode(CheckpointMode::async);
    view->setTrainingAmount("1e10");
    view->setRuns(50);
    QVERIFY(view->estimate());
    QVERIFY(done.wait(120000));
    QVERIFY(view->result());
    const GoodputView::Result& r = *view->result();
    // 1e10 tokens at 256 x 2048 tokens an iteration: 19,074 iterations.
    QCOMPARE(r.setup.iterations, 19074.0);
    const Scenario s = load_scenario(kScenario.toStdString());
    ReliabilityConfig config = load_reliability_config(kScenario.toStdString());
    config.checkpoint.mode = CheckpointMode::async;
    config.training.tokens = 1e10;
    const GoodputSetup setup = make_goodput_setup(s, config, simulate(s).engine.iteration_s);
    QCOMPARE(r.setup.iteration_s, setup.iteration_s);
    QCOMPARE(r.setup.problem.checkpoint_stall_s, setup.problem.checkpoint_stall_s);
    const std::vector<StrategyMonteCarlo> mc =
        monte_carlo_by_strategy(setup, {RecoveryStrategy::spare_nodes}, 50, GoodputView::kSeed);
    QCOMPARE(view->rowCount(), 4);  // three strategies and the closed form
    QCOMPARE(view->cellText(1, 0), QString("spare_nodes"));
    QCOMPARE(view->cellText(1, 1), QString::number(mc[0].mc.mean_wall_s / 86400, 'f', 2));
    QCOMPARE(view->cellText(1, 3), QString::number(100 * mc[0].mc.goodput, 'f', 2));
    // 8 GPUs held for the mean wall-clock time, at the Summary's price a GPU-hour.
    const double gpu_hours = mc[0].mc.mean_wall_s / 3600 * 8;
    QCOMPARE(view->cellText(1, 7), QString::fromStdString(with_thousands(gpu_hours)));
    QCOMPARE(view->cellText(1, 8),
             QString::fromStdString(with_thousands(gpu_hours * w.summary()->usdPerGpuHour())));
    QCOMPARE(view->cellText(3, 0), QString("closed form"));
    QCOMPARE(view->cellText(3, 1),
             QString::number(closed_form_wall_s(setup.problem, setup.interval_s) / 86400, 'f', 2));
  }

  void invalidFieldShowsTheCliMessageAtTheField() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    ScenarioPanel* panel = w.scenarioPanel();

    QVERIFY(panel->editField("training.global_batch", "abc"));
    const std::string expected = libraryError({{"training.global_batch", "abc"}});
    QVERIFY(expected.find("training.global_batch") != std::string::npos);
    QCOMPARE(panel->errorText(), QString::fromStdString(expected));
    QCOMPARE(panel->fieldError("training.global_batch"), QString::fromStdString(expected));
    QVERIFY(!w.run());  // nothing to simulate

    // tp 3 on 8 GPUs: the library names the section (tp*cp*pp*dp against the GPUs); the panel
    // flags the field of it that was changed.
    QVERIFY(panel->editField("training.global_batch", "256"));
    QCOMPARE(panel->errorText(), QString());
    QCOMPARE(panel->fieldError("training.global_batch"), QString());
    QVERIFY(panel->editField("parallelism.tp", "3"));
    InputErrorInfo info;
    try {
      load_scenario(kScenario.toStdString(), {{"parallelism.tp", "3"}});
      QFAIL("tp 3 on 8 GPUs loaded");
    } catch (const InputError& e) {
      info = e.info();
    }
    QCOMPARE(panel->errorText(), QString::fromStdString(format_input_error(info)));
    QCOMPARE(info.field, std::string("parallelism"));
    QCOMPARE(panel->fieldError("parallelism.tp"), QString::fromStdString(format_input_error(info)));
    QCOMPARE(panel->fieldError("parallelism.dp"), QString());
  }

  void savedScenarioLoadsWithTheEdits() {
    QTemporaryDir dir;
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(w.scenarioPanel()->editField("parallelism.tp", "2"));
    QVERIFY(w.scenarioPanel()->editField("parallelism.dp", "4"));
    StragglerEvent slow;
    slow.gpu = 3;
    slow.slowdown = 1.25;
    w.scenarioPanel()->addEvent(slow);
    const QString file = dir.path() + "/sub/edited.yaml";
    QDir().mkpath(dir.path() + "/sub");
    QCOMPARE(w.saveScenarioAs(file), QString());

    const Scenario saved = load_scenario(file.toStdString());
    QCOMPARE(saved.parallelism.tp, 2);
    QCOMPARE(saved.parallelism.dp, 4);
    QCOMPARE(saved.events.size(), size_t(1));
    QCOMPARE(std::get<StragglerEvent>(saved.events[0]).gpu, 3);
    QCOMPARE(std::get<StragglerEvent>(saved.events[0]).slowdown, 1.25);
    // The topology path was rebased: the saved file names the same topology file.
    QCOMPARE(std::filesystem::canonical(saved.cluster.topology_file),
             std::filesystem::canonical((kSource + "/topologies/dgx-h100-ndr-fattree.yaml").toStdString()));
    QVERIFY(!w.document().modified());  // now editing the saved file
  }

  void topologyClickAddsAnEventAndTheRunComparesWithout() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    const auto event = TopologyView::makeEvent(w.topology()->gpuElement(5), WhatIf::slow, 1.5);
    QVERIFY(event.has_value());
    emit w.topology()->eventRequested(*event);
    QCOMPARE(w.document().events().size(), size_t(1));
    QVERIFY(runAndWait(w));
    QVERIFY(!w.currentRun()->what_if.empty());  // compared with the same run without the event
    // The library's numbers for the same scenario: GPU 5 1.5x slower holds every replica back.
    const Report healthy = libraryReport({});
    const Report slowed = libraryReport({{"events", "[{type: straggler, gpu: 5, slowdown: 1.5}]"}});
    QCOMPARE(w.currentRun()->report->iteration_s, slowed.iteration_s);
    QVERIFY(slowed.iteration_s > 1.3 * healthy.iteration_s);
    QCOMPARE(w.topology()->markOf(w.topology()->gpuElement(5)), Mark::slowed);
  }

  void cancelStopsALongRun() {
    MainWindow w(kSource);
    w.openScenario(kSource + "/scenarios/gpt3-175b-1024-a100.yaml");
    // Background traffic reaches every GPU, so none is folded: seconds to simulate (folded, the run
    // can end within the 300 ms below).
    w.scenarioPanel()->addEvent(BackgroundTrafficEvent{0, 1, 1e9});
    QVERIFY(w.run());
    QVERIFY(w.isRunning());
    QTest::qWait(300);
    w.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 5000);
    QCOMPARE(w.progressText(), QString("cancelled"));
    QVERIFY(w.currentRun() == nullptr);
  }

  void keptRunsAreComparedSideBySide() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(runAndWait(w));
    w.keepCurrentRun();
    QVERIFY(w.scenarioPanel()->editField("training.micro_batch", "1"));
    QVERIFY(runAndWait(w));
    w.keepCurrentRun();
    QCOMPARE(w.keptRuns().size(), size_t(2));
    const Report a = libraryReport({});
    const Report b = libraryReport({{"training.micro_batch", "1"}});
    CompareView* c = w.compare();
    const int row = c->rowOf("iteration_s");
    QCOMPARE(c->cellText(row, 0), QString::number(a.iteration_s, 'f', 4) + " s");
    const double change = b.iteration_s / a.iteration_s - 1;
    QCOMPARE(c->cellText(row, 1), QString("%1 s  (%2%3 %)")
                                      .arg(b.iteration_s, 0, 'f', 4)
                                      .arg(change >= 0 ? "+" : "")
                                      .arg(100 * change, 0, 'f', 1));
    // CSV: one line per kept run, the iteration time shortest round-trip.
    const QStringList lines = c->csv().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[1].split(',')[1].toDouble(), a.iteration_s);
    QCOMPARE(lines[2].split(',')[1].toDouble(), b.iteration_s);
  }

  void exportsWriteTheLibrarysOutputs() {
    QTemporaryDir dir;
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(runAndWait(w));
    const Report& r = *w.currentRun()->report;
    QCOMPARE(w.exportReportJson(dir.path() + "/r.json"), QString());
    QCOMPARE(readAll(dir.path() + "/r.json").toStdString(), report_to_json(r).dump(2) + "\n");
    QCOMPARE(w.exportReportCsv(dir.path() + "/r.csv"), QString());
    QVERIFY(readAll(dir.path() + "/r.csv").startsWith("run,iteration_s,tokens_per_s,"));
    QCOMPARE(w.exportTrace(dir.path() + "/t.json"), QString());
    const auto trace = nlohmann::json::parse(readAll(dir.path() + "/t.json").toStdString());
    QVERIFY(trace.contains("traceEvents") && trace["traceEvents"].size() > 8);
    for (int tab = 0; tab < w.tabs()->count(); ++tab) {
      w.tabs()->setCurrentIndex(tab);
      const QString png = QString("%1/view%2.png").arg(dir.path()).arg(tab);
      QCOMPARE(w.exportCurrentView(png), QString());
      QVERIFY(!QImage(png).isNull());
      const QString svg = QString("%1/view%2.svg").arg(dir.path()).arg(tab);
      QCOMPARE(w.exportCurrentView(svg), QString());
      QVERIFY(readAll(svg).contains("<svg"));
    }
    QVERIFY(!w.exportReportJson(dir.path() + "/no/such/folder/r.json").isEmpty());
  }

  void layerModelFormEditsTheDataParallelSections() {
    MainWindow w(kSource);
    w.openScenario(kLayerScenario);
    ScenarioPanel* panel = w.scenarioPanel();
    QVERIFY(panel->lastCheck().scenario.has_value());
    // The form shows the rows of a layer-graph model and hides the transformer's.
    QVERIFY(panel->fieldWidget("model.zoo")->isVisibleTo(panel));
    QVERIFY(panel->fieldWidget("data_parallel.mode")->isVisibleTo(panel));
    QVERIFY(!panel->fieldWidget("model.preset")->isVisibleTo(panel));
    QVERIFY(!panel->fieldWidget("parallelism.tp")->isVisibleTo(panel));
    QVERIFY(!panel->fieldWidget("model.sequence_length")->isVisibleTo(panel));  // an image model
    QCOMPARE(qobject_cast<QLineEdit*>(panel->fieldWidget("data_parallel.servers"))->text(), QString("2"));
    // The feature maps' layout, a layer-graph row of the Training form.
    QVERIFY(panel->fieldWidget("training.memory_format")->isVisibleTo(panel));
    QVERIFY(panel->editField("training.memory_format", "channels_last"));
    QCOMPARE(panel->lastCheck().scenario->training.memory_format, MemoryFormat::channels_last);
    QVERIFY(panel->editField("training.memory_format", "auto"));
    // SGD's weight decay: torchvision's 1e-4 unless the file says otherwise; 0 drops its pass.
    QCOMPARE(qobject_cast<QLineEdit*>(panel->fieldWidget("model.weight_decay"))->text(), QString("0.0001"));
    QVERIFY(panel->editField("model.weight_decay", "0"));
    QCOMPARE(panel->lastCheck().scenario->layer_model->weight_decay, 0.0);
    QVERIFY(panel->editField("model.weight_decay", ""));  // emptied: the default again
    QCOMPARE(panel->lastCheck().scenario->layer_model->weight_decay, 1e-4);

    // backup_workers applies to sync updates only: the loader's message, at that field.
    QVERIFY(panel->editField("data_parallel.mode", "async"));
    QVERIFY(panel->editField("data_parallel.backup_workers", "1"));
    QVERIFY(panel->fieldError("data_parallel.backup_workers").contains("backup_workers only with mode sync"));
    QVERIFY(panel->editField("data_parallel.backup_workers", ""));  // emptied: the default again
    QCOMPARE(panel->errorText(), QString());

    // The file names the reference rate images_per_s; the form's rate replaces it.
    QVERIFY(panel->editField("reference.samples_per_s", "40"));
    QCOMPARE(panel->errorText(), QString());
    QCOMPARE(panel->lastCheck().scenario->reference->samples_per_s, 40.0);
    QVERIFY(runAndWait(w));
    const Scenario expected_scenario = load_scenario(
        kLayerScenario.toStdString(),
        {{"data_parallel.mode", "async"}, {"reference.images_per_s", "~"}, {"reference.samples_per_s", "40"}});
    QCOMPARE(expected_scenario.data_parallel.mode, UpdateMode::async);
    const Report expected = make_report(resolve_scenario(expected_scenario), simulate(expected_scenario));
    QCOMPARE(w.currentRun()->report->iteration_s, expected.iteration_s);

    // An input pipeline needs its storage bandwidth; emptying the fields drops the section.
    QVERIFY(panel->editField("input_pipeline.sample_bytes", "110000"));
    QVERIFY(panel->errorText().contains("input_pipeline"));
    QVERIFY(panel->editField("input_pipeline.sample_bytes", ""));
    QCOMPARE(panel->errorText(), QString());
    QVERIFY(!panel->lastCheck().scenario->input_pipeline);

    // The Strategies tab compares the edited scenario: its own strategy first.
    QSignalSpy compared(w.strategies(), &StrategyView::finished);
    QVERIFY(w.strategies()->compare());
    QVERIFY(compared.wait(120000));
    QCOMPARE(w.strategies()->cellText(0, StrategyView::strategy_column),
             QString("parameter_server async (the scenario's)"));
    QCOMPARE(w.strategies()->cellText(0, StrategyView::iteration_column),
             QString::number(w.strategies()->comparison()->rows[0].iteration_s, 'f', 4) + " s");
  }

  void layerModelSummaryCountsSamples() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    QVERIFY(runAndWait(w));
    w.summary()->findChild<QLineEdit*>("training_amount")->setText("1e12");  // tokens
    w.openScenario(kLayerScenario);
    QVERIFY(runAndWait(w));
    const Report& r = *w.currentRun()->report;
    QCOMPARE(r.sample_unit, std::string("image"));
    QCOMPARE(w.summary()->figureText("images_per_s"), QString::number(r.samples_per_s, 'f', 1) + " images/s");
    QCOMPARE(w.summary()->figureText("tokens_per_s"), QString());
    // 90 epochs of ImageNet-1k's 1,281,167 images by default, in days at the simulated rate.
    QCOMPARE(w.summary()->findChild<QLineEdit*>("training_amount")->text(), QString("115305030"));
    QCOMPARE(w.summary()->figureText("time_to_train_days"),
             QString::number(90.0 * 1281167 / r.samples_per_s / 86400, 'f', 1) + " days");
    // The tokens typed for the transformer are kept for its unit.
    QCOMPARE(w.summary()->trainingAmount("token"), 1e12);
  }

  void transformerScenarioHidesTheLayerModelRows() {
    MainWindow w(kSource);
    w.openScenario(kScenario);
    ScenarioPanel* panel = w.scenarioPanel();
    QVERIFY(panel->fieldWidget("model.preset")->isVisibleTo(panel));
    QVERIFY(panel->fieldWidget("parallelism.tp")->isVisibleTo(panel));
    QVERIFY(!panel->fieldWidget("model.zoo")->isVisibleTo(panel));
    QVERIFY(!panel->fieldWidget("training.memory_format")->isVisibleTo(panel));
    QVERIFY(!panel->fieldWidget("data_parallel.strategy")->isVisibleTo(panel));
    QVERIFY(!w.strategies()->compare());
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"

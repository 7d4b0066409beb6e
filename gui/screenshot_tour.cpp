#include "screenshot_tour.hpp"

#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QTabWidget>
#include <QTimer>
#include <cstdio>

#include "goodput_view.hpp"
#include "main_window.hpp"
#include "plan_view.hpp"
#include "scenario_panel.hpp"
#include "strategy_view.hpp"
#include "sweep_panel.hpp"
#include "trace_panel.hpp"

namespace dtsim::gui {

namespace {

// Runs the event loop until `signal` of `sender` fires (or 10 minutes pass).
template <typename Sender, typename Signal>
void waitFor(Sender* sender, Signal signal) {
  QEventLoop loop;
  QObject::connect(sender, signal, &loop, &QEventLoop::quit);
  QTimer::singleShot(600000, &loop, &QEventLoop::quit);
  loop.exec();
}

bool runAndKeep(MainWindow& window) {
  if (!window.run()) return false;
  waitFor(&window, &MainWindow::runFinished);
  if (!window.currentRun()) return false;
  window.keepCurrentRun();
  return true;
}

}  // namespace

int takeScreenshots(MainWindow& window, const QString& folder) {
  QDir().mkpath(folder);
  window.show();
  if (!runAndKeep(window)) {
    std::fprintf(stderr, "dtsim-gui: the run failed: %s\n", qPrintable(window.progressText()));
    return 1;
  }
  StragglerEvent slow;
  slow.gpu = 1;
  slow.slowdown = 1.5;
  window.scenarioPanel()->addEvent(slow);
  if (!runAndKeep(window)) return 1;
  window.sweep()->setSweptField("GPU count");
  window.sweep()->runSweep();
  if (window.sweep()->isRunning()) waitFor(window.sweep(), &SweepPanel::sweepFinished);
  if (window.strategies()->compare()) waitFor(window.strategies(), &StrategyView::finished);
  if (window.plans()->plan()) waitFor(window.plans(), &PlanView::finished);
  if (window.goodput()->estimate()) waitFor(window.goodput(), &GoodputView::finished);
  if (window.traces()->open({window.sourceDir() + "/tests/data/traces/dlrm_kineto"}))
    waitFor(window.traces(), &TracePanel::finished);

  QTabWidget* tabs = window.tabs();
  for (int i = 0; i < tabs->count(); ++i) {
    tabs->setCurrentIndex(i);
    QApplication::processEvents();
    const QString file = QString("%1/%2-%3.png").arg(folder).arg(i + 1).arg(tabs->tabText(i).toLower());
    if (!window.grab().save(file)) {
      std::fprintf(stderr, "dtsim-gui: could not write %s\n", qPrintable(file));
      return 1;
    }
    std::printf("%s\n", qPrintable(file));
  }
  return 0;
}

}  // namespace dtsim::gui

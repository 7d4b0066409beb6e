// dtsim-gui [SCENARIO] [--run] [--screenshots DIR]
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include "main_window.hpp"
#include "screenshot_tour.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("dtsim-gui");
  const QString source_dir = DTSIM_SOURCE_DIR;
  QCommandLineParser parser;
  parser.setApplicationDescription("dtsim-gui: explore stragglers, failures and scaling of distributed training");
  parser.addHelpOption();
  parser.addPositionalArgument("scenario", "scenario YAML (default: scenarios/gpt3-175b-1024-a100.yaml)");
  const QCommandLineOption run({"r", "run"}, "simulate the scenario at start");
  const QCommandLineOption screenshots("screenshots", "run, sweep, save a PNG of every view to DIR, quit", "DIR");
  parser.addOption(run);
  parser.addOption(screenshots);
  parser.process(app);

  const QStringList args = parser.positionalArguments();
  const QString scenario = args.isEmpty() ? source_dir + "/scenarios/gpt3-175b-1024-a100.yaml" : args.first();
  dtsim::gui::MainWindow window(source_dir);
  window.openScenario(scenario);
  if (parser.isSet(screenshots)) return dtsim::gui::takeScreenshots(window, parser.value(screenshots));
  window.show();
  if (parser.isSet(run)) QTimer::singleShot(0, &window, [&window] { window.run(); });
  return QApplication::exec();
}

#pragma once
// `dtsim-gui --screenshots DIR`: runs the opened scenario, then again with a straggler, keeps
// both, sweeps the GPU count, compares strategies, plans layouts, estimates goodput, imports the
// shipped DLRM traces, and saves a PNG of every tab to DIR (tools/gui-screenshots.sh
// runs it under Xvfb so that a person can look at each view).
#include <QString>

namespace dtsim::gui {

class MainWindow;

// Returns 0, or 1 with a message on stderr when a run failed or a file could not be written.
int takeScreenshots(MainWindow& window, const QString& folder);

}  // namespace dtsim::gui

#pragma once
// `dtsim plan`: enumerate parallel layouts of a model on a GPU count, drop those that do not fit
// in memory, rank the rest by the analytic estimate and re-rank the best by the SimGrid model.
// (Interface owned by the planner; see planner.cpp.)

#include "program.hpp"

namespace dtsim {

const char* to_string(Phase p) {
  switch (p) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::gradient_sync: return "gradient_sync";
    case Phase::optimizer: return "optimizer";
  }
  return "?";
}

const char* to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::all_reduce: return "all_reduce";
    case CollectiveKind::all_gather: return "all_gather";
    case CollectiveKind::reduce_scatter: return "reduce_scatter";
    case CollectiveKind::broadcast: return "broadcast";
    case CollectiveKind::all_to_all: return "all_to_all";
    case CollectiveKind::send_recv: return "send_recv";
  }
  return "?";
}

const char* to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::automatic: return "auto";
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::recursive_halving_doubling: return "rhd";
    case CollectiveAlgorithm::hierarchical: return "hierarchical";
    case CollectiveAlgorithm::nvls: return "nvls";
    case CollectiveAlgorithm::nvls_tree: return "nvls_tree";
    case CollectiveAlgorithm::direct: return "direct";
  }
  return "?";
}

const char* to_string(Protocol p) {
  switch (p) {
    case Protocol::automatic: return "auto";
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
    case Protocol::simple: return "Simple";
  }
  return "?";
}

}  // namespace dtsim

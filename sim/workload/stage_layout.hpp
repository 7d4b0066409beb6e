#pragma once
// Which layers live where: the model is cut into pp x virtual_stages chunks; GPU stage s holds
// chunks s, s + pp, s + 2pp, ... (Megatron-LM's interleaving). Chunk 0 also holds the embedding,
// the last chunk the final norm, LM head and loss.
#include <vector>

#include "scenario.hpp"

namespace dtsim {

int model_chunks(const ParallelismConfig& p);
int stage_of_chunk(const ParallelismConfig& p, int chunk);
// Transformer layers in a chunk: an even split, except for first/last_stage_layers.
int layers_in_chunk(const Scenario& s, int chunk);
int layers_on_stage(const Scenario& s, int stage);

// Parameters one GPU of `stage` holds, split by how they are synchronised: dense ones are
// replicated over dp x cp GPUs, expert ones over (dp / ep) x cp GPUs.
struct StageParameters {
  double dense = 0;
  double expert = 0;
  double embedding = 0;  // of dense: the embedding and LM head, never FP8 GEMM weights
  double total() const { return dense + expert; }
};
StageParameters chunk_parameters_per_rank(const Scenario& s, int chunk);
StageParameters stage_parameters_per_rank(const Scenario& s, int stage);  // sum over its chunks

// The tensors the optimizer of one GPU of `stage` steps over, scaled to sum to `parameters` (how
// tensor and data parallelism shard them is left to that sum): the model's tensors on that stage
// (its layers', the embedding on the first chunk, the final norm and a separate LM head on the
// last), or under FSDP1 the pieces of them that the rank holding the most pieces holds (a
// rank's optimizer steps only the tensors its part of a flat parameter reaches: FSDP1 gives the
// others no gradient, _flat_param.py _use_sharded_grad_views).
std::vector<double> stage_parameter_tensors(const Scenario& s, int stage, double parameters);

}  // namespace dtsim

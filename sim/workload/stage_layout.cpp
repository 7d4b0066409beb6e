#include "stage_layout.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim {

namespace {

// What the first and the last chunk hold beside their layers: the token embedding and, with
// learned positions, the position table first; the final norm and, where the logits do not reuse
// the embedding's weights on the same GPU (untied, or tied across pipeline stages, where
// Megatron keeps a copy on the last), the LM head last.
bool learned_positions(const TransformerConfig& m) { return m.position_kind() == PositionKind::learned; }
bool separate_lm_head(const Scenario& s) { return s.parallelism.pp > 1 || !s.model.tied_embeddings; }

}  // namespace

int model_chunks(const ParallelismConfig& p) { return p.pp * p.virtual_stages; }

int stage_of_chunk(const ParallelismConfig& p, int chunk) { return chunk % p.pp; }

int layers_in_chunk(const Scenario& s, int chunk) {
  const ParallelismConfig& p = s.parallelism;
  const int chunks = model_chunks(p);
  const int first = p.first_stage_layers, last = p.last_stage_layers;
  if (first == 0 && last == 0) return s.model.layers / chunks;
  if (first > 0 && chunk == 0) return first;
  if (last > 0 && chunk == chunks - 1) return last;
  const int middle_chunks = chunks - (first > 0) - (last > 0);
  return (s.model.layers - first - last) / middle_chunks;
}

int layers_on_stage(const Scenario& s, int stage) {
  int layers = 0;
  for (int chunk = stage; chunk < model_chunks(s.parallelism); chunk += s.parallelism.pp)
    layers += layers_in_chunk(s, chunk);
  return layers;
}

StageParameters chunk_parameters_per_rank(const Scenario& s, int chunk) {
  const TransformerConfig& m = s.model;
  const ParallelismConfig& p = s.parallelism;
  const double h = m.hidden, tp = p.tp;
  const double kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double attention = h * (m.heads + 2 * kv) * m.head_dim() + h * h;
  const double matrices_per_mlp = m.mlp == MlpKind::swiglu ? 3.0 : 2.0;
  StageParameters out;
  const double layers = layers_in_chunk(s, chunk);
  // Norms and biases are under 0.1% of a layer and left out.
  if (m.moe.enabled()) {
    const double router = h * m.moe.experts;  // replicated on every TP rank
    out.dense = layers * (attention / tp + router);
    out.expert = layers * (double(m.moe.experts) / p.ep) * matrices_per_mlp * h * m.moe.expert_ffn_hidden / tp;
  } else {
    out.dense = layers * (attention + matrices_per_mlp * h * m.ffn_hidden) / tp;
  }
  const double embedding = double(m.vocab) * h / tp;
  if (chunk == 0) out.embedding += embedding + (learned_positions(m) ? double(m.seq_len) * h : 0.0);
  if (chunk == model_chunks(p) - 1 && separate_lm_head(s)) out.embedding += embedding;
  out.dense += out.embedding;
  return out;
}

StageParameters stage_parameters_per_rank(const Scenario& s, int stage) {
  StageParameters sum;
  for (int chunk = stage; chunk < model_chunks(s.parallelism); chunk += s.parallelism.pp) {
    const StageParameters c = chunk_parameters_per_rank(s, chunk);
    sum.dense += c.dense;
    sum.expert += c.expert;
    sum.embedding += c.embedding;
  }
  return sum;
}

namespace {

// A tensor of a stage and the FSDP unit that holds it: every layer is a unit of its own, and the
// root (unit 0) holds the rest, the embedding on the first chunk and the final norm and a
// separate LM head on the last (the units add_fsdp_collectives gathers, fsdp_units).
struct UnitTensor {
  double elements;
  int unit;
};

// The stage's tensors in the order its modules register them.
std::vector<UnitTensor> stage_tensors(const Scenario& s, int stage) {
  const TransformerConfig& m = s.model;
  const std::vector<double> layer = layer_parameter_tensors(m);
  const double embedding = double(m.vocab) * m.hidden;
  const int last_chunk = model_chunks(s.parallelism) - 1;
  std::vector<UnitTensor> tensors;
  int unit = 0;
  for (int chunk = stage; chunk <= last_chunk; chunk += s.parallelism.pp) {
    if (chunk == 0) {
      tensors.push_back({embedding, 0});
      if (learned_positions(m)) tensors.push_back({double(m.seq_len) * m.hidden, 0});
    }
    for (int l = 0; l < layers_in_chunk(s, chunk); ++l) {
      ++unit;
      for (const double n : layer) tensors.push_back({n, unit});
    }
    if (chunk == last_chunk) {
      tensors.push_back({double(m.hidden), 0});  // the final norm
      if (m.norm_kind() == NormKind::layernorm) tensors.push_back({double(m.hidden), 0});
      if (separate_lm_head(s)) tensors.push_back({embedding, 0});  // the LM head
    }
  }
  return tensors;
}

// PyTorch's FSDP1 (FlatParamHandle) lays each unit's tensors end to end in one flat parameter,
// padded to a multiple of the ranks, and gives every rank one contiguous equal part of it. Visits
// each tensor's pieces in order: the rank holding the piece, and its elements.
template <typename Visit>
void for_each_piece(const std::vector<UnitTensor>& tensors, int ranks, Visit visit) {
  std::vector<double> unit_elements, offset;
  for (const UnitTensor& t : tensors) {
    if (size_t(t.unit) >= unit_elements.size()) unit_elements.resize(size_t(t.unit) + 1, 0);
    unit_elements[size_t(t.unit)] += t.elements;
  }
  offset.assign(unit_elements.size(), 0);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const size_t u = size_t(tensors[i].unit);
    const double part = std::ceil(unit_elements[u] / ranks), begin = offset[u], end = begin + tensors[i].elements;
    offset[u] = end;
    if (end <= begin) continue;
    for (int rank = int(begin / part); rank < int(std::ceil(end / part)); ++rank)
      visit(rank, std::min(end, (rank + 1) * part) - std::max(begin, rank * part));
  }
}

// The pieces of the rank that holds the most, in the tensors' order: it steps last.
std::vector<double> busiest_rank_pieces(const std::vector<UnitTensor>& tensors, int ranks) {
  std::vector<int> pieces(size_t(ranks), 0);
  for_each_piece(tensors, ranks, [&](int rank, double) { ++pieces[size_t(rank)]; });
  const int busiest = int(std::max_element(pieces.begin(), pieces.end()) - pieces.begin());
  std::vector<double> held;
  for_each_piece(tensors, ranks, [&](int rank, double n) {
    if (rank == busiest) held.push_back(n);
  });
  return held;
}

// The ranks over which FSDP1 splits each unit's flat parameter: dp x cp where it runs (framework
// pytorch or torch_compile, zero_stage 2 or 3, fsdp_version 1); 1 elsewhere.
int flat_parameter_shards(const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  const bool flat = runs_pytorch_fsdp(s.training, p.zero_stage) && p.fsdp_version == 1;
  return flat ? p.dp * p.cp : 1;
}

}  // namespace

std::vector<double> stage_parameter_tensors(const Scenario& s, int stage, double parameters) {
  const std::vector<UnitTensor> held = stage_tensors(s, stage);
  const int shards = flat_parameter_shards(s);
  std::vector<double> tensors;
  if (shards > 1) {
    tensors = busiest_rank_pieces(held, shards);
  } else {
    for (const UnitTensor& t : held) tensors.push_back(t.elements);
  }
  double sum = 0;
  for (const double n : tensors) sum += n;
  for (double& n : tensors) n *= sum > 0 ? parameters / sum : 0;
  return tensors;
}

}  // namespace dtsim

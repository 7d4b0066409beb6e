// The operator shapes of one micro-batch of a GPT/Llama-style layer on one tensor-parallel rank.
#include <stdexcept>
#include <string>

#include "operator.hpp"

namespace dtsim::kernels {

namespace {

bool same(const OpShape& a, const OpShape& b) {
  return a.op == b.op && a.dtype == b.dtype && a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch &&
         a.seq == b.seq && a.head_dim == b.head_dim && a.rows == b.rows && a.cols == b.cols && a.vocab == b.vocab &&
         a.count == b.count;
}

// Shapes, not calls: a shape several GEMMs share (e.g. two dgrads) is listed once.
void add(std::vector<OpShape>& shapes, const OpShape& s) {
  for (const OpShape& t : shapes)
    if (same(s, t)) return;
  shapes.push_back(s);
}

// A linear layer Y[tokens, out] = X[tokens, in] W[in, out]: the forward GEMM, the input gradient
// dX = dY W^T (m = tokens, n = in, k = out) and the weight gradient dW = X^T dY (m = in, n = out,
// k = tokens).
void add_linear(std::vector<OpShape>& shapes, DType dtype, int64_t tokens, int64_t in, int64_t out) {
  const auto gemm = [dtype](int64_t m, int64_t n, int64_t k) {
    OpShape s{.op = "gemm", .dtype = dtype};
    s.m = m, s.n = n, s.k = k;
    return s;
  };
  add(shapes, gemm(tokens, out, in));
  add(shapes, gemm(tokens, in, out));
  add(shapes, gemm(in, out, tokens));
}

OpShape rows_cols(const char* op, DType dtype, int64_t rows, int64_t cols) {
  OpShape s{.op = op, .dtype = dtype};
  s.rows = rows, s.cols = cols;
  return s;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("layer_shapes: " + what);
}

}  // namespace

std::vector<OpShape> layer_shapes(const LayerDims& d, DType dtype) {
  const int64_t kv_heads = d.kv_heads > 0 ? d.kv_heads : d.heads;
  require(d.hidden > 0 && d.heads > 0 && d.ffn > 0 && d.seq > 0 && d.micro_batch > 0 && d.tp > 0 && d.vocab >= 0,
          "hidden, heads, ffn, seq, micro_batch and tp must be positive");
  require(d.hidden % d.heads == 0, "hidden must be a multiple of heads");
  require(d.heads % kv_heads == 0, "heads must be a multiple of kv_heads");
  require(d.heads % d.tp == 0 && kv_heads % d.tp == 0, "heads and kv_heads must be multiples of tp");
  require(d.ffn % d.tp == 0 && d.vocab % d.tp == 0, "ffn and vocab must be multiples of tp");

  const int64_t tokens = d.micro_batch * d.seq;
  const int64_t head_dim = d.hidden / d.heads;
  const int64_t heads = d.heads / d.tp, kv = kv_heads / d.tp;
  const int64_t ffn = d.ffn / d.tp, vocab = d.vocab / d.tp;
  // fp8 recipes run only the GEMMs in fp8; attention and activations stay bf16. fp32 training
  // runs GEMMs on TF32 tensor cores (tf32) but stores activations in fp32.
  const DType act = dtype == DType::fp8 ? DType::bf16 : dtype == DType::tf32 ? DType::fp32 : dtype;
  const DType attention = dtype == DType::fp8 ? DType::bf16 : dtype;

  std::vector<OpShape> shapes;
  add_linear(shapes, dtype, tokens, d.hidden, (heads + 2 * kv) * head_dim);  // QKV
  add_linear(shapes, dtype, tokens, heads * head_dim, d.hidden);             // attention projection
  add_linear(shapes, dtype, tokens, d.hidden, d.swiglu ? 2 * ffn : ffn);     // MLP up (gate + up for SwiGLU)
  add_linear(shapes, dtype, tokens, ffn, d.hidden);                          // MLP down
  if (vocab > 0) add_linear(shapes, dtype, tokens, d.hidden, vocab);         // logits (LM head)

  // Core attention. Its backward GEMMs (dQ, dK, dV: [seq, seq] x [seq, head_dim]; dP: [seq,
  // head_dim] x [head_dim, seq]) have the same shapes as these two.
  for (const char* op : {"attention_scores", "attention_values"}) {
    OpShape s{.op = op, .dtype = attention};
    s.batch = d.micro_batch * heads, s.seq = d.seq, s.head_dim = head_dim;
    add(shapes, s);
  }
  OpShape softmax = rows_cols("softmax", act, d.micro_batch * heads * d.seq, d.seq);
  softmax.head_dim = head_dim;  // scale 1/sqrt(head_dim)
  add(shapes, softmax);
  add(shapes, rows_cols("dropout", act, d.micro_batch * heads * d.seq, d.seq));  // attention dropout
  add(shapes, rows_cols(d.rmsnorm ? "rmsnorm" : "layernorm", act, tokens, d.hidden));
  add(shapes, rows_cols(d.swiglu ? "swiglu" : "gelu", act, tokens, ffn));
  add(shapes, rows_cols("dropout", act, tokens, d.hidden));  // hidden dropout before each residual add
  if (vocab > 0) {
    OpShape e = rows_cols("embedding", act, tokens, d.hidden);
    e.vocab = vocab;
    add(shapes, e);
  }

  // Adam over this rank's share of the layer's parameters: QKV, projection, MLP weights (and
  // biases of a GPT layer), the two norms' gamma (and beta).
  const int64_t qkv_out = (heads + 2 * kv) * head_dim;
  const int64_t mlp_up = d.swiglu ? 2 * ffn : ffn;
  int64_t params = d.hidden * qkv_out + heads * head_dim * d.hidden + d.hidden * mlp_up + ffn * d.hidden;
  if (!d.swiglu) params += qkv_out + d.hidden + mlp_up + d.hidden;  // GPT biases
  params += 2 * d.hidden * (d.rmsnorm ? 1 : 2);
  OpShape adam{.op = "adam", .dtype = DType::fp32};
  adam.count = params;
  add(shapes, adam);
  return shapes;
}

}  // namespace dtsim::kernels

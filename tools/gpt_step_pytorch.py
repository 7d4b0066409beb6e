#!/usr/bin/env python3
"""Times one training step of a small GPT on one GPU with PyTorch, to check dtsim's prediction
for the same model (scenarios/gpt-350m-1-h100.yaml) against reality (issue 5).

The model is built op by op to match what dtsim prices (sim/workload/transformer_ops.cpp): pre-LayerNorm
GPT blocks with unfused attention (QK^T, scale + causal mask + softmax, dropout, PV), GeLU MLP,
dropout 0.1 after attention and MLP, tied embedding/LM head, cross-entropy; bf16 autocast over
fp32 weights and AdamW. Usage, on a GPU machine:
    python3 tools/gpt_step_pytorch.py                  # prints ms per step (median of 20)
    python3 tools/gpt_step_pytorch.py --layers 12 --hidden 2048 --heads 16
and compare with:
    build/cli/dtsim run scenarios/gpt-350m-1-h100.yaml --calibration calibrations/<file>.json
"""
import argparse
import statistics

import torch
import torch.nn.functional as F


class Block(torch.nn.Module):
    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.ln1 = torch.nn.LayerNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.ln2 = torch.nn.LayerNorm(hidden)
        self.up = torch.nn.Linear(hidden, 4 * hidden)
        self.down = torch.nn.Linear(4 * hidden, hidden)

    def forward(self, x, mask):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) * (h // self.heads) ** -0.5
        probs = F.dropout(torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1), self.dropout, True)
        attn = (probs @ v).transpose(1, 2).reshape(b, s, h)
        x = x + F.dropout(self.proj(attn), self.dropout, True)
        return x + F.dropout(self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh")), self.dropout, True)


class Gpt(torch.nn.Module):
    def __init__(self, layers, hidden, heads, seq, vocab, dropout=0.1):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Embedding(seq, hidden)
        self.blocks = torch.nn.ModuleList(Block(hidden, heads, dropout) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(hidden)
        self.register_buffer("mask", torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1))

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x, self.mask)
        return self.ln(x) @ self.embed.weight.t()  # tied LM head


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=24)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--vocab", type=int, default=50304)
    p.add_argument("--micro-batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    a = p.parse_args()
    torch.manual_seed(0)
    model = Gpt(a.layers, a.hidden, a.heads, a.seq, a.vocab).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, a.vocab, (a.micro_batch, a.seq + 1), device="cuda")
    times_ms = []
    for step in range(a.warmup + a.steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.float().view(-1, a.vocab), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        end.record()
        torch.cuda.synchronize()
        if step >= a.warmup:
            times_ms.append(start.elapsed_time(end))
    params = sum(p.numel() for p in model.parameters())
    print(f"device {torch.cuda.get_device_name()}  torch {torch.__version__}  parameters {params / 1e6:.1f} M")
    print(f"model layers {a.layers} hidden {a.hidden} heads {a.heads} seq {a.seq} micro-batch {a.micro_batch}")
    print(f"step time median {statistics.median(times_ms):.2f} ms  (min {min(times_ms):.2f}, max {max(times_ms):.2f}, "
          f"{a.steps} steps after {a.warmup} warm-up)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Times the four training steps of ../shared/measurements/h100-2026-11-26 on one GPU (issue 43), to set
beside `dtsim run` of validation/single-gpu-steps.yaml.

Each step as the shared traces ran it: bf16 autocast over fp32 weights, loss on fp32 logits, fused
AdamW (SGD with momentum for ResNet-50), clip_grad_norm_(1.0, foreach=True), random tokens or images.
Prints one JSON object a line: name, step_s_median/min/max over --steps after --warmup, peak_alloc_gib.
Usage, on a GPU machine:  python3 tools/train_steps_pytorch.py [--only llama-1b-s2048-mb4,...]
"""
import argparse
import gzip
import json
import os
import shutil
import statistics
import time

import torch
import torch.nn.functional as F


class LlamaBlock(torch.nn.Module):
    def __init__(self, hidden, heads, kv_heads, ffn):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.attn_norm, self.mlp_norm = torch.nn.RMSNorm(hidden), torch.nn.RMSNorm(hidden)
        self.q = torch.nn.Linear(hidden, hidden, bias=False)
        self.kv = torch.nn.Linear(hidden, 2 * kv_heads * self.head_dim, bias=False)
        self.o = torch.nn.Linear(hidden, hidden, bias=False)
        self.gate = torch.nn.Linear(hidden, ffn, bias=False)
        self.up = torch.nn.Linear(hidden, ffn, bias=False)
        self.down = torch.nn.Linear(ffn, hidden, bias=False)

    @staticmethod
    def rope(x, cos, sin):  # interleaved pairs, as Meta's Llama rotates them
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)

    def forward(self, x, cos, sin):
        b, s, h = x.shape
        y = self.attn_norm(x)
        q = self.rope(self.q(y).view(b, s, self.heads, self.head_dim), cos, sin).transpose(1, 2)
        k, v = self.kv(y).view(b, s, 2, self.kv_heads, self.head_dim).unbind(2)
        k = self.rope(k, cos, sin).transpose(1, 2)
        attn = F.scaled_dot_product_attention(q, k, v.transpose(1, 2), is_causal=True, enable_gqa=True)
        x = x + self.o(attn.transpose(1, 2).reshape(b, s, h))
        y = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Llama(torch.nn.Module):
    def __init__(self, layers=16, hidden=2048, heads=32, kv_heads=8, ffn=8192, vocab=128256, seq=2048,
                 recompute=False):
        super().__init__()
        self.recompute = recompute
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.blocks = torch.nn.ModuleList(LlamaBlock(hidden, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = torch.nn.RMSNorm(hidden)
        half = hidden // heads // 2
        angles = torch.outer(torch.arange(seq).float(), 500000.0 ** (-torch.arange(half).float() / half))
        self.register_buffer("cos", angles.cos()[:, None, :], persistent=False)
        self.register_buffer("sin", angles.sin()[:, None, :], persistent=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            if self.recompute:  # full recompute: each block's activations rebuilt in the backward
                x = torch.utils.checkpoint.checkpoint(block, x, self.cos, self.sin, use_reentrant=False)
            else:
                x = block(x, self.cos, self.sin)
        return F.linear(self.norm(x), self.embed.weight)  # tied LM head


class GptBlock(torch.nn.Module):
    def __init__(self, hidden, heads, dropout, unfused, seq):
        super().__init__()
        self.heads, self.dropout, self.unfused = heads, dropout, unfused
        if unfused:  # the causal mask the written-out attention fills with -inf
            self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).triu(1), persistent=False)
        self.ln1, self.ln2 = torch.nn.LayerNorm(hidden), torch.nn.LayerNorm(hidden)
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)
        self.up = torch.nn.Linear(hidden, 4 * hidden)
        self.down = torch.nn.Linear(4 * hidden, hidden)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        if self.unfused:  # QK^T, scale, causal mask, softmax, dropout, PV as separate kernels
            scores = (q @ k.transpose(-1, -2)) * (h // self.heads) ** -0.5
            probs = F.dropout(torch.softmax(scores.masked_fill(self.mask[:s, :s], float("-inf")), dim=-1), self.dropout,
                              self.training)
            attn = probs @ v
        else:
            attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        attn = attn.transpose(1, 2).reshape(b, s, h)
        x = x + F.dropout(self.proj(attn), self.dropout, self.training)
        return x + F.dropout(self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh")), self.dropout,
                             self.training)


class Gpt(torch.nn.Module):
    def __init__(self, layers=24, hidden=2048, heads=16, vocab=50304, seq=2048, dropout=0.1, unfused=False):
        super().__init__()
        self.embed, self.pos = torch.nn.Embedding(vocab, hidden), torch.nn.Embedding(seq, hidden)
        self.blocks = torch.nn.ModuleList(GptBlock(hidden, heads, dropout, unfused, seq) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(hidden)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos.weight[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return F.linear(self.ln(x), self.embed.weight)


def lm_step(model, opt, batch, seq, vocab):
    tokens = torch.randint(0, vocab, (batch, seq + 1), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
        F.cross_entropy(logits.float().view(-1, vocab), tokens[:, 1:].reshape(-1)).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def image_step(model, batch, opt_name):
    torch.backends.cudnn.benchmark = True
    model = model.cuda().to(memory_format=torch.channels_last)
    if opt_name == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    images = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (batch,), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(images)
        F.cross_entropy(logits.float(), labels).backward()
        if opt_name != "sgd":
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        opt.step()
        opt.zero_grad(set_to_none=True)
    return model, step


class HfLogits(torch.nn.Module):  # Hugging Face's BERT with its MLM head, the loss outside as for the LLMs
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, tokens):
        return self.model(input_ids=tokens).logits


def bert_large():
    import transformers
    config = transformers.BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                                     intermediate_size=4096, vocab_size=30522)
    return HfLogits(transformers.BertForMaskedLM(config))


def lm(model, batch, seq, compiled=False):
    model = model.cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    vocab = model.model.config.vocab_size if isinstance(model, HfLogits) else model.embed.num_embeddings
    return model, lm_step(torch.compile(model) if compiled else model, opt, batch, seq, vocab)


def torchvision_model(name):
    import torchvision
    return getattr(torchvision.models, name)()


STEPS = {  # name: a function that builds (model, step)
    "llama-1b-s2048-mb4": lambda: lm(Llama(), 4, 2048),
    "gpt-1.3b-sdpa-s2048-mb4": lambda: lm(Gpt(), 4, 2048),
    "resnet50-b256-bf16": lambda: image_step(torchvision_model("resnet50"), 256, "sgd"),
    "llama-1b-s2048-mb4-compiled": lambda: lm(Llama(), 4, 2048, compiled=True),
    # further steps, beyond the four traced on 2026-11-26
    "llama-1b-s8192-mb1-recompute": lambda: lm(Llama(seq=8192, recompute=True), 1, 8192),
    "gpt-350m-unfused-s1024-mb8": lambda: lm(Gpt(layers=24, hidden=1024, seq=1024, unfused=True), 8, 1024),
    "vit-b16-b256-bf16": lambda: image_step(torchvision_model("vit_b_16"), 256, "adamw"),
    "resnet152-b128-bf16": lambda: image_step(torchvision_model("resnet152"), 128, "sgd"),
    "bert-large-s128-b64": lambda: lm(bert_large(), 64, 128),
}


def write_trace(step, path):
    """One profiled step, annotated ProfilerStep#1 as `dtsim import` reads it, written gzipped."""
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    plain = path[: -len(".gz")]
    with torch.profiler.profile(activities=acts, record_shapes=True,
                                on_trace_ready=lambda p: p.export_chrome_trace(plain),
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=1)) as prof:
        for _ in range(2):
            step()
            torch.cuda.synchronize()  # the annotated step holds its own kernels, none of the last one's
            prof.step()
    with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.remove(plain)


def time_step(name, steps, warmup, trace_dir):
    torch.manual_seed(0)
    torch.cuda.reset_peak_memory_stats()
    model, step = STEPS[name]()
    start = time.perf_counter()
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    warmup_s = time.perf_counter() - start
    times_s = []
    for _ in range(steps):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times_s.append(begin.elapsed_time(end) / 1e3)
    peak_gib = torch.cuda.max_memory_allocated() / 2**30
    if trace_dir:
        write_trace(step, os.path.join(trace_dir, name + ".pt.trace.json.gz"))
    params = sum(p.numel() for p in model.parameters())
    return {"name": name, "params": params, "step_s_median": statistics.median(times_s), "step_s_min": min(times_s),
            "step_s_max": max(times_s), "steps": steps, "warmup_wall_s": warmup_s,
            "peak_alloc_gib": peak_gib, "device": torch.cuda.get_device_name(),
            "torch": torch.__version__, "cudnn": torch.backends.cudnn.version()}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    four = ",".join(list(STEPS)[:4])
    p.add_argument("--only", default=four, help="comma-separated step names (default: the four traced ones): "
                   + ", ".join(STEPS))
    p.add_argument("--trace-dir", help="also write a PyTorch profiler trace of one step each here (.pt.trace.json.gz)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args()
    for name in a.only.split(","):
        try:
            print(json.dumps(time_step(name, a.steps, a.warmup, a.trace_dir)), flush=True)
        except Exception as e:  # one step's failure leaves the others measured
            print(json.dumps({"name": name, "error": f"{type(e).__name__}: {e}"[:400]}), flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

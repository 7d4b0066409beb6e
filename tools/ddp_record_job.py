#!/usr/bin/env python3
"""A small PyTorch DDP training job for `dtsim-profile record` (issue 19): an MLP of a few
Linear+GeLU layers, SGD, synthetic data, NCCL all-reduces through DistributedDataParallel.
Nothing in it knows about dtsim; it is the "unchanged job" the recorder runs. Usage, on a GPU
machine:
    build-profile/dtsim-profile record --out rec -- torchrun --nproc-per-node 2 tools/ddp_record_job.py
    build-profile/dtsim-profile record --out rec -- python3 tools/ddp_record_job.py   # one GPU
then `dtsim import rec`. --nvtx marks each step with an NVTX range ProfilerStep#N; without it the
recorder finds the steps from the period of the all-reduces (one GPU: from the whole run).
With one process and no torchrun it still runs DDP, over a process group of one rank.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--bucket-mb", type=float, default=25.0, help="DDP bucket_cap_mb")
    parser.add_argument("--nvtx", action="store_true", help="mark steps with NVTX ranges ProfilerStep#N")
    args = parser.parse_args()

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))

    layers = []
    for _ in range(args.layers):
        layers += [torch.nn.Linear(args.hidden, args.hidden), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).cuda()
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank], bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(args.batch, args.hidden, device="cuda")
    target = torch.randn(args.batch, args.hidden, device="cuda")
    for step in range(args.steps):
        if args.nvtx:
            torch.cuda.nvtx.range_push(f"ProfilerStep#{step}")
        opt.zero_grad(set_to_none=True)
        loss = F.mse_loss(ddp(x), target)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        if args.nvtx:
            torch.cuda.nvtx.range_pop()
    if dist.get_rank() == 0:
        print(f"{args.steps} steps of a {args.layers}-layer MLP ({args.hidden} wide), "
              f"{dist.get_world_size()} rank(s), last loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

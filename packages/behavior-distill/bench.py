"""Meta-gradient cost: the paper's memory-saving reverse_hvp walk against unrolled BPTT.

Offline Behavior Distillation (Lei, Zhang, Tao, NeurIPS 2024) - https://arxiv.org/abs/2410.22728.
The reference implementation keeps the T inner-loop weight snapshots and walks backwards with
Hessian-vector products instead of keeping the whole unrolled graph. This script measures, in
the same run, the time and the peak extra memory of one meta-gradient (Av-PBC objective on a
256-row offline batch) by both methods, for a D4RL-sized policy (17 -> 256 -> 256 -> 6 MLP,
N_syn = 256) and growing T, and checks that both give the same gradient.

    python bench.py [--quick] [--json PATH]

Columns: ``time_ratio`` = unroll_ms / reverse_ms and ``memory_ratio`` = unroll_MB / reverse_MB
(> 1 means reverse_hvp is cheaper). Memory is the peak resident-set growth on CPU
(``peak_memory``), or ``torch.cuda.max_memory_allocated`` growth on a GPU (``--device cuda``).
"""

from __future__ import annotations

import behavior_distill as bd
import torch

from papershelf_harness import RATIO_NOTE, Table, bench_cli, peak_memory, ratio, timeit_ms


def extra_args(parser):
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")


def run(args) -> Table:
    device = torch.device(args.device)
    torch.manual_seed(0)
    if args.quick:
        obs_dim, act_dim, hidden, n_syn, steps, repeat = 5, 2, (32, 32), 16, (5, 10), 1
    else:
        obs_dim, act_dim, hidden, n_syn, steps, repeat = 17, 6, (256, 256), 256, (10, 50, 100), 3
    policy = bd.MLPPolicy(obs_dim, act_dim, hidden=hidden, discrete=False).to(device)
    S = torch.randn(n_syn, obs_dim, device=device)
    A = 0.5 * torch.randn(n_syn, act_dim, device=device)
    batch = {"observations": torch.randn(256, obs_dim, device=device)}
    W = torch.randn(obs_dim, act_dim, device=device) / obs_dim**0.5

    def teacher(o):
        return torch.tanh(o @ W)

    def critic(o, a):
        return 1.0 + (o**2).mean(1)

    objective = bd.AvPBC(teacher, critic)
    sync = torch.cuda.synchronize if device.type == "cuda" else None
    mem_device = device if device.type == "cuda" else None
    table = Table(
        [
            "config",
            "unroll_ms",
            "reverse_ms",
            "time_ratio",
            "unroll_MB",
            "reverse_MB",
            "memory_ratio",
            "max_rel_diff",
        ],
        notes=(
            f"{RATIO_NOTE} (baseline = unroll, ours = reverse_hvp). MLP {obs_dim}->"
            f"{'->'.join(map(str, hidden))}->{act_dim}, N_syn={n_syn}, Av-PBC on 256 rows, "
            f"inner SGD lr 0.1, momentum 0.5, {device.type}."
        ),
    )
    for T in steps:
        kw = dict(inner_steps=T, inner_lr=0.1, inner_momentum=0.5)

        def call(method, kw=kw):
            return bd.meta_gradient(policy, S, A, objective, batch, method=method, **kw)

        (_, gs_u, ga_u), mem_u = peak_memory(lambda: call("unroll"), device=mem_device)
        (_, gs_r, ga_r), mem_r = peak_memory(lambda: call("reverse_hvp"), device=mem_device)
        t_u = timeit_ms(lambda: call("unroll"), repeat=repeat, warmup=0, sync=sync).best_ms
        t_r = timeit_ms(lambda: call("reverse_hvp"), repeat=repeat, warmup=0, sync=sync).best_ms
        ref = torch.cat([gs_u.flatten(), ga_u.flatten()])
        diff = float((ref - torch.cat([gs_r.flatten(), ga_r.flatten()])).norm() / ref.norm())
        table.add(
            f"T={T}",
            round(t_u, 1),
            round(t_r, 1),
            ratio(t_u, t_r),
            round(mem_u / 2**20, 1),
            round(mem_r / 2**20, 1),
            ratio(max(mem_u, 1), max(mem_r, 1)),
            f"{diff:.1e}",
        )
    return table


main = bench_cli(run, title="reverse_hvp vs unroll meta-gradients", extra_args=extra_args)

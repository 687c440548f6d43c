"""Training-step time and saved activation bytes of a transformer FFN stack (CPU): exact
nn.Linear vs WTA-CRS at several ratios, and activation checkpointing (peer, not in --quick).

    python bench.py [--quick] [--json PATH]
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from wta_crs import convert_linear_layers, saved_activation_bytes

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


class FFN(nn.Module):
    def __init__(self, d, ff):
        super().__init__()
        self.up, self.down, self.norm = nn.Linear(d, ff), nn.Linear(ff, d), nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + self.down(F.gelu(self.up(x))))


class Stack(nn.Module):
    def __init__(self, d, ff, layers, checkpoint=False):
        super().__init__()
        self.blocks = nn.ModuleList(FFN(d, ff) for _ in range(layers))
        self.checkpoint = checkpoint

    def forward(self, x):
        for b in self.blocks:
            if self.checkpoint:
                from torch.utils.checkpoint import checkpoint

                x = checkpoint(b, x, use_reentrant=False)
            else:
                x = b(x)
        return x


def run(args):
    torch.set_num_threads(1)
    d, ff, layers = (64, 256, 2) if args.quick else (256, 1024, 4)
    batch, tokens = (4, 32) if args.quick else (8, 128)
    x = torch.randn(batch, tokens, d)
    configs = [("exact nn.Linear", None, False)]
    configs += [(f"WTA-CRS ratio {r}", r, False) for r in (0.5, 0.3, 0.1)]
    if not args.quick:
        configs.append(("activation checkpointing", None, True))
    table = Table(["config", "step ms", "time ratio", "saved MB", "memory ratio"])
    base = None
    for name, r, ckpt in configs:
        torch.manual_seed(0)
        model = Stack(d, ff, layers, checkpoint=ckpt).train()
        if r is not None:
            convert_linear_layers(model, ratio=r)

        def step(model=model):
            model.zero_grad(set_to_none=True)
            model(x).square().mean().backward()

        ms = timeit_ms(step, repeat=3 if args.quick else 5).best_ms
        saved = saved_activation_bytes(model, x)
        if base is None:
            base = (ms, saved)
        table.add(name, ms, ratio(base[0], ms), saved / 2**20, ratio(base[1], saved))
    table.notes = (
        "ratios are exact/config (>1: the config is faster or saves fewer bytes). Saved bytes: "
        "distinct storages autograd keeps for backward (saved_tensors_hooks), parameters aside; "
        "for checkpointing only what the outer graph keeps is seen (the recomputation's "
        "transient memory is not). LayerNorm and GELU activations are never sampled."
    )
    return table


main = bench_cli(run, title="WTA-CRS: step time and saved activations of an FFN stack")

"""Measure the papershelf-tinylm test bed (no paper: what the LLM packages rely on).

Trains (or loads from the cache) the 4-layer target / 1-layer draft pair and reports their
held-out loss and how often the draft agrees with the target.

    python reproduce.py [--quick] [--full] [--json PATH]

``--quick`` uses the seconds-scale micro pair instead (a smoke test of the script, not the
measurement); ``--full`` measures the agreement on 64 held-out sequences instead of 16.
"""

from __future__ import annotations

import math
import time

from papershelf_harness import Claim, reproduce_cli

PACKAGE = "papershelf-tinylm"
PAPER = "papershelf-tinylm test bed (no paper)"


def agreement(target, draft, *, n_seqs: int = 16, seq_len: int = 128) -> tuple[float, float]:
    """Greedy top-1 agreement and mean sum_x min(p, q) of draft vs target on held-out text."""
    import numpy as np
    import torch

    import papershelf_tinylm as tl

    x = torch.from_numpy(tl.lm_batch(np.random.default_rng(7), n_seqs, seq_len, split="heldout"))
    with torch.no_grad():
        q = target(x).logits.float().softmax(-1)
        p = draft(x).logits.float().softmax(-1)
    top1 = (q.argmax(-1) == p.argmax(-1)).float().mean().item()
    overlap = torch.minimum(p, q).sum(-1).mean().item()
    return top1, overlap


def claims(args):
    import papershelf_tinylm as tl

    seed, micro = 0, bool(args.quick)
    names = ("micro-target", "micro-draft") if micro else ("target", "draft")
    cached = all(tl.is_cached(name, seed=seed) for name in names)
    t0 = time.perf_counter()
    target, draft, _ = tl.load_pair(seed=seed, micro=micro)
    seconds = time.perf_counter() - t0
    lt, ld = tl.heldout_loss(target), tl.heldout_loss(draft)
    uniform = math.log(256)
    top1, overlap = agreement(target, draft, n_seqs=64 if args.full else 16)
    what = (
        "--quick: 2-layer vs 1-layer micro pair (a smoke test, not the measurement)"
        if micro
        else "4-layer vs 1-layer byte Llama"
    )
    note_t = "loaded from cache" if cached else f"trained now in {seconds:.0f} s"
    yield Claim(
        "held-out loss: target < draft < uniform (nats/byte)",
        paper="-",
        measured=f"{lt:.2f} < {ld:.2f} < {uniform:.2f}",
        holds=bool(lt < ld < uniform),
        note=f"{what}, stdlib text; {note_t}",
    )
    yield Claim(
        "draft/target agreement is realistic (0.5-0.95 sum min(p,q))",
        paper="-",
        measured=f"{overlap:.2f} (top-1 {top1:.2f})",
        holds=bool(0.5 <= overlap <= 0.95),
        note="mean over held-out positions; = single-draft speculative acceptance",
    )


main = reproduce_cli(
    claims, paper=PAPER, full_help="agreement on 64 held-out sequences instead of 16"
)

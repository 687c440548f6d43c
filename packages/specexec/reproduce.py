"""Reproduce SpecExec's headline claims at small scale (trained tiny byte-level Llama pair, CPU).

Prints a table (claim | paper | measured | holds) and writes a JSON result that
`tools/collect.py` gathers into docs/reproductions.md.

    python reproduce.py [--full | --quick] [--json PATH]

The test bed is papershelf-tinylm's pair (4-layer target, 1-layer draft, 128 wide, trained on
Python standard-library source in about a minute and cached). The paper's numbers come from
7B-70B models; its speed-ups come from *offloading*, where one target pass costs the transfer of
all weights (over 5 s for a 70B model in 16 bit on PCIe 4.0), which a 1 M-parameter model on a
CPU cannot show. We therefore report (a) tokens per target pass, measured, (b) the offloaded
speed-up those measured numbers give under the cost model with the paper's setting, and (c) the
honest CPU wall-clock. ``--quick``: tiny random-init Llamas (no training), seconds, for the
smoke test; its numbers mean nothing.
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import Claim, reproduce_cli
from papershelf_harness.tiny_hf import share_weights, tiny_causal_lm

PAPER = (
    "SpecExec: Massively Parallel Speculative Decoding for Interactive LLM Inference on "
    "Consumer Devices (NeurIPS 2024)"
)
# Offloaded 70B target in 16 bit: 140 GB over an effective 25 GB/s PCIe 4.0 x16 link
# (the paper: "over 5 seconds"); a 7B draft on the GPU: about 30 ms per tree level (assumed).
OFFLOAD_TARGET_S = 140e9 / 25e9
OFFLOAD_DRAFT_STEP_S = 0.03


def load_models():
    import torch

    torch.set_num_threads(1)  # tiny models: extra threads only add contention
    import papershelf_tinylm as tl

    target, draft, _ = tl.load_pair(seed=0)
    return target.eval(), draft.eval(), tl


def tiny_pair(n_prompts: int = 1):
    """Random-init Llamas (4-layer target, 1-layer draft sharing its embeddings, first layer and
    head) and ``n_prompts`` random 12-token prompts: the ``--quick`` test bed (no training)."""
    import torch

    torch.set_num_threads(1)
    target = tiny_causal_lm("llama", n_layers=4, seed=0, max_position_embeddings=512)
    draft = tiny_causal_lm("llama", n_layers=1, seed=0, max_position_embeddings=512)
    draft = share_weights(target, draft)
    rng = np.random.default_rng(0)
    return target, draft, [rng.integers(0, 64, 12).tolist() for _ in range(n_prompts)]


def prompts(tl, n: int, length: int) -> list[list[int]]:
    """``n`` held-out windows of ``length`` bytes, each starting at a line start (fixed offsets)."""
    text = tl.corpus("heldout")
    out, pos = [], 1000
    step = max(1, (len(text) - 2000) // max(n, 1))
    while len(out) < n and pos + length < len(text):
        nl = int(np.flatnonzero(text[pos:] == 10)[0]) + pos + 1  # next line start
        out.append(text[nl : nl + length].astype(int).tolist())
        pos = nl + step
    return out


def run(fn, prompts_, **kw) -> dict:
    import torch

    stats = []
    with torch.no_grad():
        for i, p in enumerate(prompts_):
            _, st = fn(p, rng=i, **kw)
            stats.append(st)
    calls = sum(s.target_calls for s in stats)
    emitted = sum(sum(s.emitted) for s in stats)
    tokens = sum(s.new_tokens for s in stats)
    return {
        "tokens_per_call": emitted / calls,
        "draft_steps_per_call": sum(s.draft_calls for s in stats) / calls,
        "ms_per_token": 1e3 * sum(s.wall_time_s for s in stats) / tokens,
        "target_calls": calls,
    }


TABLE: dict = {}  # per-configuration numbers behind the claims, stored under "details"


def claims(args) -> list[Claim]:
    """The claims at the scale ``args`` asks for (``--full``, default, ``--quick``)."""
    import specexec as sx
    import torch

    full, quick = args.full, args.quick
    if quick:
        target, draft, ps = tiny_pair()
        new, budgets = 6, [1, 8]
    else:
        target, draft, tl = load_models()
        ps = prompts(tl, 6 if full else 3, 64)
        new = 64 if full else 32
        budgets = [1, 4, 16, 64, 256, 1024] if full else [1, 4, 16, 64, 256]
    cost = sx.OffloadCostModel(OFFLOAD_TARGET_S, OFFLOAD_DRAFT_STEP_S)
    rows: list[Claim] = []
    table = TABLE
    table.clear()
    for temp, top_p, label in [(0.6, 0.9, "t=0.6,p=0.9"), (0.0, 1.0, "greedy")]:
        curve = {}
        for k in budgets:
            curve[k] = run(
                lambda p, **kw: sx.specexec_generate(target, draft, p, new, **kw),
                ps,
                budget=k,
                temperature=temp,
                top_p=top_p,
                max_expand=128,
                branch_width=16,
            )
        chain = run(
            lambda p, **kw: sx.chain_speculative_generate(target, draft, p, new, **kw),
            ps,
            gamma=4,
            temperature=temp,
            top_p=top_p,
        )
        ar = run(
            lambda p, **kw: sx.autoregressive_generate(target, p, new, **kw),
            ps,
            temperature=temp,
            top_p=top_p,
        )
        table[label] = {"specexec": curve, "chain4": chain, "autoregressive": ar}
        if temp == 0:  # sharpened draft ranking (draft_temperature, our option; speed only)
            sharp = {
                k: run(
                    lambda p, **kw: sx.specexec_generate(target, draft, p, new, **kw),
                    ps,
                    budget=k,
                    temperature=0.0,
                    draft_temperature=0.3,
                )
                for k in budgets
            }
            table["greedy, draft_temperature=0.3"] = {"specexec": sharp}
            tps = [sharp[k]["tokens_per_call"] for k in budgets]
            sim_s = {
                k: cost.speedup(sharp[k]["tokens_per_call"], sharp[k]["draft_steps_per_call"])
                for k in budgets
            }
            rows.append(
                Claim(
                    claim="greedy, tree ranked by draft probs at temperature 0.3 (our option)",
                    paper="up to ~20 tokens/pass",
                    measured=" -> ".join(f"{v:.2f}" for v in tps)
                    + f"; offload {max(sim_s.values()):.1f}x",
                    holds=None,
                    note="not in the paper: sharpening the draft's ranking favours deep arg-max "
                    "chains, which a greedy target accepts; output unchanged",
                )
            )
        tpc = [curve[k]["tokens_per_call"] for k in budgets]
        fast_k = min(budgets, key=lambda k: curve[k]["ms_per_token"])  # best wall-clock
        mono = all(b >= a - 0.15 for a, b in zip(tpc, tpc[1:]))  # noise: few prompts
        rows.append(
            Claim(
                claim=f"tokens per target pass grow with the tree budget ({label})",
                paper="up to ~20 (70B target, K=1024-2048)",
                measured=" -> ".join(f"{v:.2f}" for v in tpc) + f" (K={budgets[0]}..{budgets[-1]})",
                holds=bool(mono and tpc[-1] > tpc[0] * 1.3),
                note=f"tiny 4-layer/1-layer byte Llama pair, {len(ps)} prompts x {new} tokens",
            )
        )
        big = curve[budgets[-1]]
        rows.append(
            Claim(
                claim=f"tree beats chain speculative decoding in tokens/pass ({label})",
                paper="SpecExec > SpecInfer/chains at large budgets",
                measured=f"{big['tokens_per_call']:.2f} (K={budgets[-1]}) vs "
                f"{chain['tokens_per_call']:.2f} (chain gamma=4)",
                holds=bool(big["tokens_per_call"] > chain["tokens_per_call"]),
                note="chain = Leviathan et al. rejection sampling with a 4-token draft",
            )
        )
        sim = {
            k: cost.speedup(curve[k]["tokens_per_call"], curve[k]["draft_steps_per_call"])
            for k in budgets
        }
        chain_sim = cost.speedup(chain["tokens_per_call"], chain["draft_steps_per_call"])
        rows.append(
            Claim(
                claim=f"offloaded speed-up over autoregressive, cost model ({label})",
                paper="18.7x (70B fp16), 10.6x (4-bit)",
                measured=f"{max(sim.values()):.1f}x (K={max(sim, key=sim.get)}); "
                f"chain {chain_sim:.1f}x",
                holds=None,
                note=f"C={OFFLOAD_TARGET_S:.1f}s/pass, c={OFFLOAD_DRAFT_STEP_S}s/draft step, "
                "measured tokens/pass and draft steps; the paper's size depends on its "
                "7B/70B agreement, not checkable here",
            )
        )
        rows.append(
            Claim(
                claim=f"CPU wall-clock vs autoregressive, not offloaded ({label})",
                paper="n/a (paper: GPU + offloading)",
                measured=f"SpecExec best (K={fast_k}): "
                f"{ar['ms_per_token'] / curve[fast_k]['ms_per_token']:.2f}x, "
                f"chain: {ar['ms_per_token'] / chain['ms_per_token']:.2f}x",
                holds=None,
                note="target is only ~4x the draft and not transfer-bound, so no speed-up is "
                "expected on a CPU; reported for honesty",
            )
        )
    # greedy identity on the trained pair
    p = ps[0]
    with torch.no_grad():
        ref, _ = sx.autoregressive_generate(target, p, new, temperature=0)
        ours, _ = sx.specexec_generate(target, draft, p, new, budget=64, temperature=0)
    same = int((np.asarray(ref) == np.asarray(ours)).sum())
    rows.append(
        Claim(
            claim="temperature 0 reproduces the target's greedy decoding exactly",
            paper="exact (lossless)",
            measured=f"{same}/{new} tokens identical",
            holds=bool(same == new),
            note="trained pair, budget 64",
        )
    )
    print_table(table)
    return rows


def print_table(table: dict) -> None:
    """Tokens per target pass, draft steps and ms/token of every configuration."""
    print("tokens per target pass by budget:")
    for label, t in table.items():
        for k, v in t["specexec"].items():
            print(
                f"  {label:12s} K={k:5d}  tokens/pass {v['tokens_per_call']:5.2f}  "
                f"draft steps/pass {v['draft_steps_per_call']:5.1f}  {v['ms_per_token']:6.1f} ms/token"
            )
        for name in ("chain4", "autoregressive"):
            if name not in t:
                continue
            v = t[name]
            print(
                f"  {label:12s} {name:7s}  tokens/pass {v['tokens_per_call']:5.2f}  "
                f"{v['ms_per_token']:6.1f} ms/token"
            )
    print()


main = reproduce_cli(claims, details=lambda args: TABLE)

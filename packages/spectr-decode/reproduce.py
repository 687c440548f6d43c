"""Reproduce SpecTr's headline claims at small scale (2-core CPU, trained tiny Llama pair).

Prints a table (claim | paper | measured | holds) and writes a JSON result that
`tools/collect.py` gathers into docs/reproductions.md.

    python reproduce.py [--full] [--json PATH]

Models: papershelf-tinylm's byte-level Llama pair (target 4 layers, draft 1 layer, trained on the
Python standard library; cached after the first run). Prompts: held-out stdlib text.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from pathlib import Path

import numpy as np

PACKAGE = "spectr-decode"
PAPER = "SpecTr: Fast Speculative Decoding via Optimal Transport (NeurIPS 2023)"
DRAFT_COST_RATIO = 0.05  # cost model: one draft forward = 5 % of a target forward (Sec. 6 setting)


def lp_guarantee(n_pairs: int, seed: int = 0) -> tuple[float, float]:
    """Worst and mean K-SEQ / LP-optimum ratio over random Dirichlet(0.5) pairs, V in 3..5, k in 2..3."""
    import spectr_decode as sd

    rng = np.random.default_rng(seed)
    ratios = []
    for V in (3, 4, 5):
        for k in (2, 3):
            for _ in range(n_pairs):
                p, q = rng.dirichlet(np.full(V, 0.5)), rng.dirichlet(np.full(V, 0.5))
                ratios.append(sd.kseq_acceptance(p, q, k) / sd.optimal_acceptance_lp(p, q, k))
    return float(np.min(ratios)), float(np.mean(ratios))


def lm_acceptance(target, draft, ks, n_seqs: int = 4, seq_len: int = 96) -> dict[int, float]:
    """Mean one-step K-SEQ acceptance on held-out text positions of the tiny LM pair."""
    import spectr_decode as sd
    import torch

    import papershelf_tinylm as tl

    x = torch.from_numpy(tl.lm_batch(np.random.default_rng(3), n_seqs, seq_len, split="heldout"))
    with torch.no_grad():
        q = torch.softmax(target(x).logits.double(), -1).reshape(-1, tl.VOCAB_SIZE).numpy()
        p = torch.softmax(draft(x).logits.double(), -1).reshape(-1, tl.VOCAB_SIZE).numpy()
    p /= p.sum(1, keepdims=True)
    q /= q.sum(1, keepdims=True)
    return {k: float(np.mean([sd.kseq_acceptance(pi, qi, k) for pi, qi in zip(p, q)])) for k in ks}


def prompts(n: int, length: int = 48) -> list[list[int]]:
    import papershelf_tinylm as tl

    text = tl.corpus("heldout")
    starts = np.random.default_rng(11).integers(0, len(text) - length, size=n)
    return [[tl.BOS_ID, *text[s : s + length].tolist()] for s in starts]


def decode_runs(target, draft, configs, n_prompts: int, max_new: int, temperature: float = 1.0):
    """Per config: block efficiency, tokens/s, target/draft seconds per call (all prompts pooled)."""
    import spectr_decode as sd

    out = {}
    for name, k, L in configs:
        tok = calls = dcalls = 0
        acc = reach = surv = 0
        wall = ttime = dtime = 0.0
        emitted = 0
        for i, pr in enumerate(prompts(n_prompts)):
            if k == 0:
                toks, st = sd.autoregressive_generate(
                    target, pr, max_new, temperature=temperature, seed=i
                )
            else:
                toks, st = sd.spectr_generate(
                    target, draft, pr, max_new, k=k, L=L, temperature=temperature, seed=i
                )
            tok += st.new_tokens
            if k:
                acc, reach, surv = acc + st.accepted, reach + st.reached, surv + st.survivors
            emitted += sum(st.emitted)
            calls += st.target_calls
            dcalls += st.draft_calls
            wall += st.wall_time
            ttime += st.target_time
            dtime += st.draft_time
        out[name] = {
            "k": k,
            "L": L,
            "block_efficiency": emitted / calls,
            "tokens_per_s": tok / wall,
            "target_s_per_call": ttime / calls,
            "draft_s_per_call": dtime / dcalls if dcalls else 0.0,
            "accept_per_position": (acc / np.maximum(reach, 1)).tolist() if k else [],
            "survivors_per_position": (surv / np.maximum(reach, 1)).tolist() if k else [],
        }
    return out


def cost_model_speedup(be: float, L: int, c: float = DRAFT_COST_RATIO) -> float:
    """Speed-up over autoregressive decoding when a target pass costs 1 whatever its batch and a
    draft step costs ``c``: one iteration emits ``be`` tokens for ``1 + L c``."""
    return be / (1.0 + L * c) if L else 1.0


def claims(full: bool) -> list[dict]:
    """Each claim: {"claim", "paper", "measured", "holds": bool | None, "note"}."""
    import spectr_decode as sd
    import torch

    import papershelf_tinylm as tl

    torch.set_num_threads(2)
    rows = []
    worst, mean = lp_guarantee(40 if full else 10)
    rows.append(
        {
            "claim": "K-SEQ acceptance >= (1-1/e) x LP optimum (Thm 3)",
            "paper": ">= 0.632",
            "measured": f"worst {worst:.3f}, mean {mean:.3f}",
            "holds": bool(worst >= 1 - 1 / math.e - 1e-9),
            "note": f"{6 * (40 if full else 10)} Dirichlet(0.5) pairs, V in 3..5, k in 2..3; exact LP (HiGHS)",
        }
    )

    target, draft, _ = tl.load_pair(seed=0)
    acc = lm_acceptance(target, draft, (1, 2, 4, 8), n_seqs=8 if full else 3)
    mono = all(acc[a] <= acc[b] + 1e-12 for a, b in zip((1, 2, 4), (2, 4, 8)))
    rows.append(
        {
            "claim": "one-step acceptance rises with k (tiny LM pair)",
            "paper": "rises with k",
            "measured": " / ".join(f"k={k}: {v:.3f}" for k, v in acc.items()),
            "holds": bool(mono and acc[8] > acc[1]),
            "note": "closed form 1-(1-beta(rho*))^k averaged over held-out positions, temperature 1",
        }
    )

    ks = (1, 2, 4, 8) if full else (1, 2, 4)
    Ls = (2, 4, 6) if full else (2, 4)
    configs = [("autoregressive", 0, 0)] + [(f"k={k},L={L}", k, L) for L in Ls for k in ks]
    res = decode_runs(
        target, draft, configs, n_prompts=8 if full else 5, max_new=128 if full else 64
    )
    ar = res["autoregressive"]
    ratios = {}
    for L in Ls:
        spec_L = res[f"k=1,L={L}"]
        best_L = max(
            (res[f"k={k},L={L}"] for k in ks if k > 1), key=lambda r: r["block_efficiency"]
        )
        ratios[L] = (best_L["block_efficiency"] / spec_L["block_efficiency"], best_L, spec_L)
    L = max(ratios, key=lambda l: ratios[l][0])
    _, best, spec = ratios[L]
    rows.append(
        {
            "claim": "SpecTr vs speculative decoding, tokens per target call",
            "paper": "1.37x (wall)",
            "measured": " / ".join(
                f"L={l}: {r[0]:.2f}x (k={r[1]['k']})" for l, r in ratios.items()
            ),
            "holds": bool(all(r[0] > 1.0 for r in ratios.values())),
            "note": "block efficiency ratio, best k>1 vs k=1 at the same L, temperature 1; the paper's 1.37x "
            "is wall-clock with PaLM-2 models. Few drafts survive a position here (high-entropy byte draft), "
            "so the gain is mostly at the first position",
        }
    )
    cm_ar = cost_model_speedup(best["block_efficiency"], L)
    cm_spec = cm_ar / cost_model_speedup(spec["block_efficiency"], L)
    rows.append(
        {
            "claim": "SpecTr speed-up over autoregressive (cost model)",
            "paper": "2.13x",
            "measured": f"{cm_ar:.2f}x (vs spec. {cm_spec:.2f}x)",
            "holds": None,
            "note": f"target pass cost independent of batch, draft step = {DRAFT_COST_RATIO} target pass; not a measurement",
        }
    )
    wall_ar = best["tokens_per_s"] / ar["tokens_per_s"]
    wall_spec = best["tokens_per_s"] / spec["tokens_per_s"]
    rows.append(
        {
            "claim": "SpecTr wall-clock speed-up over autoregressive (2-core CPU)",
            "paper": "2.13x",
            "measured": f"{wall_ar:.2f}x (vs spec. {wall_spec:.2f}x)",
            "holds": bool(wall_ar > 1.0),
            "note": "tiny target (0.9M params): a batched target pass costs "
            f"{best['target_s_per_call'] / ar['target_s_per_call']:.1f}x an AR step and a draft step "
            f"{best['draft_s_per_call'] / ar['target_s_per_call']:.2f}x, so CPU wall-clock cannot show the paper's gain",
        }
    )
    # exactness at temperature 0 on the trained pair
    pr = prompts(1)[0]
    g, _ = sd.spectr_generate(target, draft, pr, 48, k=4, L=4, temperature=0)
    a, _ = sd.autoregressive_generate(target, pr, 48, temperature=0)
    rows.append(
        {
            "claim": "greedy SpecTr output = target greedy decoding",
            "paper": "identical",
            "measured": "identical" if g.tolist() == a.tolist() else "differs",
            "holds": bool(g.tolist() == a.tolist()),
            "note": "48 tokens, k=4, L=4 on the trained pair",
        }
    )
    print("decoding runs (per config):")
    for name, r in res.items():
        print(
            f"  {name:16s} block eff {r['block_efficiency']:.2f}  {r['tokens_per_s']:7.1f} tok/s  "
            f"target {1e3 * r['target_s_per_call']:.1f} ms/call  draft {1e3 * r['draft_s_per_call']:.1f} ms/call  "
            f"accept/pos {np.round(r['accept_per_position'], 2).tolist()}  "
            f"drafts alive/pos {np.round(r['survivors_per_position'], 2).tolist()}"
        )
    claims.details = res  # type: ignore[attr-defined]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", action="store_true", help="paper-scale version (slow)")
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("reproduce.json"))
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    rows = claims(args.full)
    seconds = time.perf_counter() - t0
    print(f"{'claim':60s} {'paper':>16s} {'measured':>16s} holds")
    for r in rows:
        print(f"{r['claim'][:60]:60s} {r['paper']:>16s} {r['measured']:>16s} {r['holds']}")
    result = {
        "package": PACKAGE,
        "paper": PAPER,
        "full": args.full,
        "seconds": round(seconds, 2),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "claims": rows,
        "details": getattr(claims, "details", {}),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

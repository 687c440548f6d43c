"""Speed of spectr-decode: K-SEQ selection cost vs vocabulary size, and decoding throughput.

    python bench.py [--quick] [--json PATH]

1. ``solve_rho`` (bisection on the monotone equation, O(V) per step) against a generic
   root finder (scipy ``brentq`` on the same equation, as in unofficial K-SEQ write-ups), and the
   cost of one ``kseq_select`` step, for Llama-sized vocabularies.
2. Decoding on the trained tiny Llama pair (papershelf-tinylm, CPU): tokens/s and tokens per
   target call for autoregressive sampling, speculative decoding (k = 1), SpecTr (k = 4), and
   Hugging Face assisted generation (single draft) as the peer. Skipped with --quick.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import spectr_decode as sd
from spectr_decode.core import _beta, _kseq_select, _solve_rho


def _best_of(fn, reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _brentq_rho(p, q, k):
    from scipy.optimize import brentq

    def gap(rho):
        b = _beta(p, q, rho)
        return 1.0 - (1.0 - b) ** k - rho * b

    if gap(1.0) <= 0:
        return 1.0
    return brentq(gap, 1.0, float(k), xtol=1e-12)


def core_rows(quick: bool) -> list[list]:
    rows = []
    rng = np.random.default_rng(0)
    for V in (1000, 32000) if quick else (1000, 32000, 128000):
        p = rng.dirichlet(np.full(V, 0.1))
        q = 0.5 * p + 0.5 * rng.dirichlet(np.full(V, 0.1))
        for k in (4, 8):
            reps = 3 if quick else 10
            ours = _best_of(lambda p=p, q=q, k=k: _solve_rho(p, q, k, 1e-10), reps)
            base = _best_of(lambda p=p, q=q, k=k: _brentq_rho(p, q, k), reps)
            rho = _solve_rho(p, q, k, 1e-10)
            x = rng.choice(V, size=k, p=p)
            sel = _best_of(
                lambda x=x, p=p, q=q, k=k, rho=rho: _kseq_select(x, p, q, k, rho, rng), reps
            )
            rows.append(
                [
                    f"V={V},k={k}",
                    round(1e3 * ours, 3),
                    round(1e3 * base, 3),
                    f"{base / ours:.2f}x",
                    round(1e3 * sel, 3),
                ]
            )
    return rows


def decode_rows() -> list[list]:
    import torch

    import papershelf_tinylm as tl

    torch.set_num_threads(2)
    target, draft, tok = tl.load_pair(seed=0)
    text = tl.corpus("heldout")
    prompt = [tl.BOS_ID, *text[1000:1048].tolist()]
    n = 64
    rows = []
    t0 = time.perf_counter()
    _, st = sd.autoregressive_generate(target, prompt, n, seed=0)
    ar = n / (time.perf_counter() - t0)
    rows.append(["autoregressive", round(ar, 1), 1.0, "1.00x"])
    for name, k in (("speculative k=1,L=4", 1), ("SpecTr k=4,L=4", 4)):
        t0 = time.perf_counter()
        _, st = sd.spectr_generate(target, draft, prompt, n, k=k, L=4, seed=0)
        tps = n / (time.perf_counter() - t0)
        rows.append([name, round(tps, 1), round(st.block_efficiency, 2), f"{tps / ar:.2f}x"])
    try:  # peer: Hugging Face assisted generation (single draft, sampling)
        ids = torch.tensor([prompt])
        t0 = time.perf_counter()
        out = target.generate(
            ids,
            assistant_model=draft,
            do_sample=True,
            max_new_tokens=n,
            min_new_tokens=n,
            pad_token_id=tl.PAD_ID,
        )
        tps = (out.shape[1] - ids.shape[1]) / (time.perf_counter() - t0)
        rows.append(["HF assisted generation", round(tps, 1), float("nan"), f"{tps / ar:.2f}x"])
    except Exception as e:
        rows.append(
            [f"HF assisted generation failed: {type(e).__name__}", float("nan"), float("nan"), "-"]
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path, default=Path(__file__).with_name("bench.json"))
    args = parser.parse_args(argv)
    rows = core_rows(args.quick)
    print(
        f"{'config':16s} {'solve_rho ms':>12s} {'brentq ms':>10s} {'ratio':>7s} {'kseq_select ms':>14s}"
    )
    for r in rows:
        print(f"{r[0]:16s} {r[1]:12.3f} {r[2]:10.3f} {r[3]:>7s} {r[4]:14.3f}")
    result = {
        "package": "spectr-decode",
        "title": "K-SEQ selection cost, ms (best of repeats)",
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "columns": ["config", "solve_rho_ms", "scipy_brentq_ms", "ratio", "kseq_select_ms"],
        "rows": rows,
        "notes": "ratio = brentq / ours; >1 means faster. Ours is Brent plus a step to the valid side of the root (residual >= 0 guaranteed); plain brentq can stop on the invalid side. kseq_select includes the residual on rejection",
    }
    if not args.quick:
        drows = decode_rows()
        print(f"\n{'decoder':28s} {'tok/s':>8s} {'tok/call':>9s} {'vs AR':>7s}")
        for r in drows:
            print(f"{r[0]:28s} {r[1]:8.1f} {r[2]:9.2f} {r[3]:>7s}")
        result["decode"] = {
            "columns": ["decoder", "tokens_per_s", "tokens_per_target_call", "speedup_vs_ar"],
            "rows": drows,
        }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

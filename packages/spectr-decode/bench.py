"""Speed of spectr-decode: K-SEQ selection cost vs vocabulary size, and decoding throughput.

    python bench.py [--quick] [--json PATH]

1. ``solve_rho`` (Brent's method on the monotone equation, O(V) per step, then a step to the
   valid side of the root) against a generic root finder (scipy ``brentq`` on the same equation, as in unofficial K-SEQ write-ups), and the
   cost of one ``kseq_select`` step, for Llama-sized vocabularies.
2. Decoding on the trained tiny Llama pair (papershelf-tinylm, CPU): tokens/s and tokens per
   target call for autoregressive sampling, speculative decoding (k = 1), SpecTr (k = 4), and
   Hugging Face assisted generation (single draft) as the peer. Skipped with --quick.
"""

from __future__ import annotations

import numpy as np
import spectr_decode as sd
from spectr_decode.core import _beta, _kseq_select, _solve_rho

from papershelf_harness import Table, bench_cli, ratio, timeit_ms

COLUMNS = ["config", "ours_ms", "baseline_ms", "ratio", "detail"]
NOTES = (
    "ratio = baseline time / ours (>1: ours is faster). solve_rho rows: ours = solve_rho (Brent "
    "plus a step to the valid side of the root, residual >= 0 guaranteed), baseline = plain scipy "
    "brentq on the same equation (can stop on the invalid side); detail = one kseq_select step "
    "(includes the residual on rejection). Decoding rows (not with --quick): ms per generated "
    "token, baseline = autoregressive sampling; detail = tokens per target call"
)


def _brentq_rho(p, q, k):
    from scipy.optimize import brentq

    def gap(rho):
        b = _beta(p, q, rho)
        return 1.0 - (1.0 - b) ** k - rho * b

    if gap(1.0) <= 0:
        return 1.0
    return brentq(gap, 1.0, float(k), xtol=1e-12)


def core_rows(table: Table, quick: bool) -> None:
    rng = np.random.default_rng(0)
    for V in (1000, 32000) if quick else (1000, 32000, 128000):
        p = rng.dirichlet(np.full(V, 0.1))
        q = 0.5 * p + 0.5 * rng.dirichlet(np.full(V, 0.1))
        for k in (4, 8):
            reps = 3 if quick else 10
            ours = timeit_ms(lambda p=p, q=q, k=k: _solve_rho(p, q, k, 1e-10), repeat=reps).best_ms
            base = timeit_ms(lambda p=p, q=q, k=k: _brentq_rho(p, q, k), repeat=reps).best_ms
            rho = _solve_rho(p, q, k, 1e-10)
            x = rng.choice(V, size=k, p=p)
            sel = timeit_ms(
                lambda x=x, p=p, q=q, k=k, rho=rho: _kseq_select(x, p, q, k, rho, rng), repeat=reps
            ).best_ms
            table.add(
                f"solve_rho V={V},k={k}",
                round(ours, 3),
                round(base, 3),
                ratio(base, ours),
                f"kseq_select {sel:.3f} ms",
            )


def decode_rows(table: Table) -> None:
    import torch

    import papershelf_tinylm as tl

    torch.set_num_threads(2)
    target, draft, tok = tl.load_pair(seed=0)
    text = tl.corpus("heldout")
    prompt = [tl.BOS_ID, *text[1000:1048].tolist()]
    n = 64
    box = {}

    def timed(name, fn):
        box[name] = None
        t = timeit_ms(lambda: box.__setitem__(name, fn()), repeat=1, warmup=0).best_ms
        return t / n

    ar = timed("ar", lambda: sd.autoregressive_generate(target, prompt, n, rng=0))
    table.add("decode: autoregressive (ms/token)", round(ar, 2), round(ar, 2), "1.00x", "1.00")
    for name, k in (("speculative k=1,L=4", 1), ("SpecTr k=4,L=4", 4)):
        ms = timed(name, lambda k=k: sd.spectr_generate(target, draft, prompt, n, k=k, L=4, rng=0))
        st = box[name][1]
        table.add(
            f"decode: {name} (ms/token)",
            round(ms, 2),
            round(ar, 2),
            ratio(ar, ms),
            f"{st.tokens_per_call:.2f}",
        )
    try:  # peer: Hugging Face assisted generation (single draft, sampling)
        ids = torch.tensor([prompt])
        ms = timed(
            "hf",
            lambda: target.generate(
                ids,
                assistant_model=draft,
                do_sample=True,
                max_new_tokens=n,
                min_new_tokens=n,
                pad_token_id=tl.PAD_ID,
            ),
        )
        table.add(
            "decode: HF assisted generation (ms/token)",
            round(ms, 2),
            round(ar, 2),
            ratio(ar, ms),
            "n/a",
        )
    except Exception as e:  # a peer failure is reported, not fatal
        table.add(
            f"decode: HF assisted generation failed ({type(e).__name__})",
            None,
            round(ar, 2),
            "n/a",
            "n/a",
        )


def run(args) -> Table:
    table = Table(COLUMNS, notes=NOTES)
    core_rows(table, args.quick)
    if not args.quick:
        decode_rows(table)
    return table


main = bench_cli(run, title="K-SEQ selection cost and decoding speed, ms (best of repeats)")

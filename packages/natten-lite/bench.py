"""CPU benchmark: natten-lite's tiled and reference paths against dense-masked SDPA (and flex).

Ratios are measured in the same run (ratio = dense_ms / ours_ms; > 1 means faster). Times are the
best of a few repeats (the tiled path's plan is built once per problem and cached, as a layer
would reuse it). Peak memory (``--memory``) is the extra resident memory of one forward in a fresh
subprocess. ``--natten`` also times NATTEN itself (its ``flex-fna`` backend, the only one it has
on CPU) where it is installed, checks that both give the same output there and on a random sweep
of problems, and that natten-lite's public signatures equal natten's.

    python bench.py [--quick] [--memory] [--flex] [--natten] [--threads 2] [--json PATH]
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import natten_lite
import torch
import torch.nn.functional as F
from natten_lite import masks

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

NA = {1: natten_lite.na1d, 2: natten_lite.na2d, 3: natten_lite.na3d}
DENSE_MAX = 16384  # tokens; beyond that the dense mask and scores do not fit comfortably

# (name, shape, kernel, heads, head_dim)
CONFIGS = [
    ("1d L=4096 k=63", (4096,), 63, 4, 32),
    ("2d 32x32 k=7", (32, 32), 7, 4, 32),
    ("2d 64x64 k=7", (64, 64), 7, 4, 32),  # the goal case: tiled >= 10x dense
    ("2d 96x96 k=7", (96, 96), 7, 4, 32),
    ("2d 128x128 k=7", (128, 128), 7, 4, 32),
    ("3d 16x16x16 k=5", (16, 16, 16), 5, 4, 32),
]
QUICK = [("2d 16x16 k=5", (16, 16), 5, 2, 16), ("1d L=256 k=15", (256,), 15, 2, 16)]


def _best_ms(fn, repeats: int) -> float:
    return timeit_ms(fn, repeat=repeats, warmup=1).best_ms


def _dense_fn(q, k, v, shape, kernel):
    B, H, D = q.shape[0], q.shape[-2], q.shape[-1]
    mask = masks.dense_mask(shape, kernel)
    qh, kh, vh = (t.reshape(B, -1, H, D).transpose(1, 2) for t in (q, k, v))
    return lambda: F.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask)


_FLEX = {}


def _flex_fn(q, k, v, shape, kernel):
    """Compiled FlexAttention with natten-lite's NA block mask (compiles once per shape)."""
    from torch.nn.attention.flex_attention import flex_attention

    if "fn" not in _FLEX:
        _FLEX["fn"] = torch.compile(flex_attention, dynamic=False)
    B, H, D = q.shape[0], q.shape[-2], q.shape[-1]
    bm = masks.flex_block_mask(shape, kernel)
    qh, kh, vh = (t.reshape(B, -1, H, D).transpose(1, 2) for t in (q, k, v))
    return lambda: _FLEX["fn"](qh, kh, vh, block_mask=bm)


def _natten():
    """NATTEN itself, if installed (``pip install --no-build-isolation natten``: without CUDA its
    sdist builds in seconds, without libnatten, and runs only the flex-fna backend)."""
    try:
        import natten
    except Exception as e:  # not installed, or a build for another torch
        print(f"  natten not importable: {type(e).__name__}: {e}", file=sys.stderr)
        return None
    return natten


def _signature_note(natten) -> str:
    """Whether natten-lite's public signatures equal NATTEN's (names, kinds, defaults)."""
    import inspect

    names = ["na1d", "na2d", "na3d", "attention", "merge_attentions"]
    names += [f"NeighborhoodAttention{n}D" for n in (1, 2, 3)]

    def params(f):
        f = f.__init__ if isinstance(f, type) else f
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    differ = [n for n in names if params(getattr(natten, n)) != params(getattr(natten_lite, n))]
    missing = [n for n in natten.__all__ if not hasattr(natten_lite, n)]
    return (
        f"; signatures equal to natten's for {len(names) - len(differ)}/{len(names)} of "
        f"{', '.join(names)}"
        + (f" (differ: {differ})" if differ else "")
        + f"; natten top-level names natten-lite lacks: {missing or 'none'}"
    )


def _natten_sweep(natten, cases: int) -> str:
    """Random problems (1/2/3-D; odd/even kernel, stride, dilation, causal per axis; GQA; every
    4th with additional KV): natten-lite's default backend against natten's flex-fna."""
    import random

    from papershelf_kernels.neighborhood.testing import random_problem

    worst = 0.0
    for seed in range(cases):
        rng, n = random.Random(seed), 1 + seed % 3
        shape, ks, st, di, ca = random_problem(rng, n, {1: 24, 2: 9, 3: 5}[n])
        hkv = rng.choice([1, 2])
        g = torch.Generator().manual_seed(seed)
        q = torch.randn(2, *shape, 2, 16, generator=g)
        k, v = (torch.randn(2, *shape, hkv, 16, generator=g) for _ in "kv")
        extra = {}
        if seed % 4 == 0:
            ak, av = (torch.randn(2, 3, hkv, 16, generator=g) for _ in "kv")
            extra = {"additional_keys": ak, "additional_values": av}
        args = (q, k, v, ks, st, di, ca)
        with torch.no_grad():
            a, la = getattr(natten, f"na{n}d")(*args, backend="flex-fna", return_lse=True, **extra)
        b, lb = NA[n](*args, return_lse=True, **extra)
        worst = max(worst, (a - b).abs().max().item(), (la - lb).abs().max().item())
    return f"; {cases} random problems: max |natten - natten-lite| (out, lse; fp32) {worst:.1e}"


def peak_mb_in_subprocess(code: str) -> float:
    """Peak extra memory (MB) that ``code`` stores in ``PEAK`` via papershelf_harness's
    ``peak_memory`` (imported for it), run in a fresh process.

    Large allocations are forced to fresh mmaps (MALLOC_MMAP_THRESHOLD_) so that the resident set
    tracks live tensors instead of reused heap.
    """
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    prelude = "from papershelf_harness import peak_memory\n"
    out = subprocess.run(
        [sys.executable, "-c", prelude + code + "\nprint(PEAK / 2**20)\n"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return float(out.stdout.split()[-1])


def _peak_mb(shape, kernel, heads, dim, method: str) -> float:
    """Extra peak memory (MB) of one forward in a fresh process."""
    code = f"""
import torch, natten_lite
import torch.nn.functional as F
from natten_lite import masks
torch.set_num_threads(2)
shape, kernel, H, D = {tuple(shape)!r}, {kernel}, {heads}, {dim}
q = torch.randn(1, *shape, H, D); k = torch.randn_like(q); v = torch.randn_like(q)
NA = {{1: natten_lite.na1d, 2: natten_lite.na2d, 3: natten_lite.na3d}}[len(shape)]
with torch.no_grad():
    if {method!r} == "dense":
        qh, kh, vh = (t.flatten(1, -3).transpose(1, 2) for t in (q, k, v))
        F.scaled_dot_product_attention(qh[:, :, :64], kh[:, :, :64], vh[:, :, :64])

        def run():
            m = masks.dense_mask(shape, kernel)
            return F.scaled_dot_product_attention(qh, kh, vh, attn_mask=m)
    else:
        def run():
            return NA(q, k, v, kernel, backend={method!r})
    PEAK = peak_memory(run)[1]
"""
    return peak_mb_in_subprocess(code)


def _rows(configs, repeats: int, memory: bool, flex: bool, natten) -> list[list]:
    rows = []
    for name, shape, kernel, heads, dim in configs:
        g = torch.Generator().manual_seed(0)
        q = torch.randn(1, *shape, heads, dim, generator=g)
        k, v = torch.randn_like(q), torch.randn_like(q)
        fn = NA[len(shape)]
        N = math.prod(shape)
        with torch.no_grad():
            tiled = _best_ms(lambda: fn(q, k, v, kernel, backend="tiled"), repeats)  # noqa: B023 - called within the iteration
            ref = _best_ms(lambda: fn(q, k, v, kernel, backend="reference"), max(1, repeats // 2))  # noqa: B023 - called within the iteration
            dense = (
                _best_ms(_dense_fn(q, k, v, shape, kernel), max(1, repeats // 2))
                if N <= DENSE_MAX
                else None
            )
            flex_ms = None
            if flex:
                try:
                    flex_ms = _best_ms(_flex_fn(q, k, v, shape, kernel), 2)
                except Exception as e:
                    print(f"  flex failed on {name}: {type(e).__name__}: {e}", file=sys.stderr)
            natten_ms = natten_err = None
            if natten is not None:
                nfn = getattr(natten, f"na{len(shape)}d")
                try:
                    theirs = nfn(q, k, v, kernel, backend="flex-fna")
                    natten_err = (theirs - fn(q, k, v, kernel)).abs().max().item()
                    natten_ms = _best_ms(lambda: nfn(q, k, v, kernel, backend="flex-fna"), 2)  # noqa: B023 - called within the iteration
                except Exception as e:
                    print(f"  natten failed on {name}: {type(e).__name__}: {e}", file=sys.stderr)
        # forward + backward
        qg, kg, vg = (t.clone().requires_grad_(True) for t in (q, k, v))

        def fb_tiled():
            fn(qg, kg, vg, kernel, backend="tiled").sum().backward()  # noqa: B023 - called within the iteration

        fb_t = _best_ms(fb_tiled, max(1, repeats // 2))
        fb_d = None
        if N <= DENSE_MAX:
            mask = masks.dense_mask(shape, kernel)

            def fb_dense():
                qh, kh, vh = (t.reshape(1, -1, heads, dim).transpose(1, 2) for t in (qg, kg, vg))  # noqa: B023 - called within the iteration
                F.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask).sum().backward()  # noqa: B023 - called within the iteration

            fb_d = _best_ms(fb_dense, max(1, repeats // 2))
        row = [
            name,
            round(dense, 2) if dense else None,
            round(ref, 2),
            round(tiled, 2),
            ratio(dense, tiled) if dense else "-",
            ratio(ref, tiled),
            round(fb_d, 2) if fb_d else None,
            round(fb_t, 2),
            ratio(fb_d, fb_t) if fb_d else "-",
            round(flex_ms, 2) if flex_ms else None,
        ]
        if natten is not None:
            row += [
                round(natten_ms, 2) if natten_ms else None,
                ratio(natten_ms, tiled) if natten_ms else "-",
                f"{natten_err:.1e}" if natten_err is not None else None,
            ]
        if memory:
            mt = _peak_mb(shape, kernel, heads, dim, "tiled")
            md = _peak_mb(shape, kernel, heads, dim, "dense") if N <= DENSE_MAX else None
            row += [round(md, 1) if md is not None else None, round(mt, 1)]
        rows.append(row)
        print(" | ".join(str(x) for x in row), flush=True)
    return rows


def _extra_args(p) -> None:
    p.add_argument("--memory", action="store_true", help="also measure peak memory (subprocesses)")
    p.add_argument(
        "--flex", action="store_true", help="also time compiled FlexAttention (slow to compile)"
    )
    p.add_argument(
        "--natten", action="store_true", help="also time NATTEN's flex-fna (if natten is installed)"
    )
    p.add_argument("--threads", type=int, default=2)


def run(args) -> Table:
    torch.set_num_threads(args.threads)
    natten = _natten() if args.natten else None
    columns = [
        "config", "dense_sdpa_ms", "reference_ms", "tiled_ms", "tiled_vs_dense", "tiled_vs_reference",
        "fwdbwd_dense_ms", "fwdbwd_tiled_ms", "fwdbwd_tiled_vs_dense", "flex_ms",
    ]  # fmt: skip
    if natten is not None:
        columns += ["natten_flex_fna_ms", "tiled_vs_natten", "max_abs_diff_vs_natten"]
    if args.memory:
        columns += ["dense_peak_mb", "tiled_peak_mb"]
    configs = QUICK if args.quick else CONFIGS
    rows = _rows(
        configs, repeats=2 if args.quick else 5, memory=args.memory, flex=args.flex, natten=natten
    )
    natten_note = (
        f"; natten {natten.__version__} (flex-fna, eager) on the same inputs"
        + _signature_note(natten)
        + _natten_sweep(natten, 6 if args.quick else 40)
        if natten is not None
        else ""
    )
    notes = (
        f"{RATIO_NOTE}; dense = SDPA with a Bool[N, N] mask (skipped above 16384 tokens); best of "
        f"repeats; heads 4, head dim 32 unless quick; {torch.get_num_threads()} thread(s), torch "
        f"{torch.__version__}{natten_note}"
    )
    return Table(columns, rows, notes)


main = bench_cli(
    run,
    title="neighborhood attention forward / forward+backward on CPU, ms (fp32, batch 1)",
    extra_args=_extra_args,
)

"""Benchmark one simple-global-attention layer against torch-geometric's SGFormerAttention and
quadratic softmax attention: forward time (best of repeats, ms) and peak extra memory (MiB, RSS
on CPU) at growing N, d = 64, one head, inference mode.

    python bench.py [--quick] [--json PATH] [--max-n N]
"""

from __future__ import annotations

import torch

from papershelf_harness import Table, bench_cli, peak_memory, ratio, timeit_ms


def run(args):
    import sgformer as S

    torch.set_num_threads(1)
    d = 64
    sizes = (
        [2_000, 4_000]
        if args.quick
        else [n for n in (2_000, 8_000, 16_000, 32_000, 128_000) if n <= args.max_n]
    )
    softmax_max = 4_000 if args.quick else args.softmax_max_n
    repeat = 2 if args.quick else 3
    try:
        from torch_geometric.nn.attention import SGFormerAttention
    except ImportError:  # the bench group installs it; without it the PyG column is empty
        SGFormerAttention = None
    torch.manual_seed(0)
    ours = S.SimpleGlobalAttention(d, d, normalize="row", bias=False).eval()
    pyg = SGFormerAttention(d, heads=1, head_channels=d).eval() if SGFormerAttention else None
    table = Table(
        [
            "N",
            "ours_ms",
            "pyg_ms",
            "softmax_ms",
            "pyg/ours",
            "softmax/ours",
            "ours_MiB",
            "pyg_MiB",
            "softmax_MiB",
        ]
    )
    first = None

    def measure(fn, reps):
        return timeit_ms(fn, repeat=reps).best_ms, peak_memory(fn)[1]

    def softmax_layer(x):
        q, k, v = ours.Wq(x)[:, None], ours.Wk(x)[:, None], ours.Wv(x)[:, None]
        return S.softmax_attention(q, k, v)

    for n in sizes:
        x = torch.randn(n, d)
        with torch.inference_mode():
            t_ours, m_ours = measure(lambda x=x: ours(x), repeat)
            t_pyg = m_pyg = t_soft = m_soft = None
            if pyg is not None:
                t_pyg, m_pyg = measure(lambda x=x: pyg(x[None]), repeat)
            if n <= softmax_max:
                t_soft, m_soft = measure(lambda x=x: softmax_layer(x), 1 if n > 8_000 else repeat)
        first = first or t_ours
        mib = lambda b: None if b is None else round(b / 2**20, 1)  # noqa: E731
        table.add(
            n,
            round(t_ours, 2),
            None if t_pyg is None else round(t_pyg, 2),
            None if t_soft is None else round(t_soft, 1),
            ratio(t_pyg, t_ours) if t_pyg else "n/a",
            ratio(t_soft, t_ours) if t_soft else "n/a",
            mib(m_ours),
            mib(m_pyg),
            mib(m_soft),
        )
    table.notes = (
        "ratios are baseline/ours (>1 = ours faster). Ours uses normalize='row' (PyG's rule); "
        f"t(N={sizes[-1]})/t(N={sizes[0]}) = {table.rows[-1][1] / first:.1f} for a "
        f"{sizes[-1] / sizes[0]:.0f}x larger N. Softmax skipped above N={softmax_max}. CPU, 1 thread."
    )
    return table


def _extra(parser):
    parser.add_argument("--max-n", type=int, default=128_000, help="largest N (default 128000)")
    parser.add_argument(
        "--softmax-max-n",
        type=int,
        default=16_000,
        help="largest N for softmax attention (its N x N matrix: 1 GiB at 16000; default 16000)",
    )


main = bench_cli(run, title="one attention layer, d=64: forward ms and peak MiB", extra_args=_extra)

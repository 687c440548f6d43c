"""Decoder cost: DEPICT-SA / DEPICT-CA against the Segmenter mask transformer (size, FLOPs, ms).

Rethinking Decoders for Transformer-based Semantic Segmentation (DEPICT, NeurIPS 2024) -
https://arxiv.org/abs/2411.03033. ADE20K-like head: K = 150 classes, a 512x512 image with
patch 16 (N = 1024 tokens; ``--quick``: 256x256, N = 256), batch 1, widths d = 192 (ViT-T) and
384 (ViT-S), and FLOPs only at 1024 (ViT-L; the paper's plot reads ~35 decoder GFLOPs for
DEPICT vs ~113 for Segmenter at 53.3 vs 51.8 mIoU). DEPICT: 3 layers of 3 x 100 heads (CA: + 3 MSCA layers of 3 x 50). Segmenter: its
own default of 2 layers (d/64 heads, 4d MLP) and the same depth, 3 layers.

    python bench.py [--quick] [--json PATH]

Columns: ``params`` decoder parameters; ``gflops`` forward FLOPs (torch's FlopCounterMode, 2 per
multiply-add); ``ms`` best CPU forward time under ``torch.no_grad()``; ``size_ratio`` and
``ms_ratio`` = Segmenter (2 layers) / this decoder (> 1: this decoder is smaller / faster).
"""

from __future__ import annotations

import depict_seg as ds
import torch

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms

torch.set_num_threads(1)
K = 150


def _decoders(d):
    common = dict(patch_size=16, d_model=d)
    return {
        "Segmenter (2 layers)": ds.SegmenterMaskTransformer(
            K, n_layers=2, n_heads=d // 64, **common
        ),
        "Segmenter (3 layers)": ds.SegmenterMaskTransformer(
            K, n_layers=3, n_heads=d // 64, **common
        ),
        "DEPICT-SA": ds.DepictDecoder(K, **common),
        "DEPICT-CA": ds.DepictDecoder(K, mode="ca", **common),
    }


def _gflops(fn):
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops() / 1e9


def run(args) -> Table:
    torch.manual_seed(0)
    side, widths, repeat = (128, (192,), 1) if args.quick else (512, (192, 384), 5)
    n = (side // 16) ** 2
    table = Table(["d", "decoder", "params", "gflops", "ms", "size_ratio", "ms_ratio"])
    for d in widths:
        tokens = torch.randn(1, n, d)
        rows = []
        with torch.no_grad():
            for name, dec in _decoders(d).items():
                dec.eval()
                call = lambda dec=dec, t=tokens: dec(t, (side, side))  # noqa: E731
                params = sum(p.numel() for p in dec.parameters())
                rows.append((name, params, _gflops(call), timeit_ms(call, repeat=repeat).best_ms))
        base_params, base_ms = rows[0][1], rows[0][3]
        for name, params, gflops, ms in rows:
            table.add(
                d,
                name,
                params,
                round(gflops, 3),
                round(ms, 2),
                ratio(base_params, params),
                ratio(base_ms, ms),
            )
    if not args.quick:  # ViT-L width: FLOPs and size only (the paper's plot), not timed
        tokens = torch.randn(1, n, 1024)
        decs = _decoders(1024)
        base = sum(p.numel() for p in decs["Segmenter (2 layers)"].parameters())
        with torch.no_grad():
            for name, dec in decs.items():
                params = sum(p.numel() for p in dec.parameters())
                gflops = _gflops(lambda dec=dec, t=tokens: dec(t, (side, side)))
                table.add(
                    1024, name, params, round(gflops, 3), "not timed", ratio(base, params), "-"
                )
    table.notes = (
        f"K = {K}, N = {n} tokens ({side}x{side}, patch 16), batch 1, CPU 1 thread. size_ratio, "
        "ms_ratio = Segmenter (2 layers) / row. " + RATIO_NOTE
    )
    return table


main = bench_cli(run, title="depict-seg: decoder size, FLOPs and CPU time vs Segmenter")

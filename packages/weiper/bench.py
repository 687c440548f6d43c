"""Speed of the vectorised per-sample histograms and of WeiPer+KLD scoring.

    python bench.py [--quick] [--json PATH]

Features Z [n, 512] (ReLU of Gaussians), a random final layer with C = 10 classes and r = 100
perturbations (r*C = 1000 perturbed logits per sample), n_bins = 100. The baseline is the
obvious loop: ``numpy.histogram`` per row (for the features and for the perturbed logits),
and, for the whole score, that loop plus per-row smoothing (np.convolve) and KL (the
perturbed logits computed in one matrix product in both). Per-row costs
are measured on a slice and given per 10^5 samples.
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import Table, bench_cli, ratio, timeit_ms


def _loop_hist(Z, L, z_range, l_range, n_bins):
    for z, l in zip(Z, L):
        np.histogram(z, bins=n_bins, range=z_range)
        np.histogram(l, bins=n_bins, range=l_range)


def _loop_kld(det, Z):
    """The WeiPer+KLD score one sample at a time (histogram, smoothing, KL by rows); the
    perturbed logits are computed for all rows at once, as ours are."""
    import weiper as wp

    out = []
    for z, l in zip(Z, wp.weiper_logits(Z, det.W_tilde_, det.b_tilde_)):
        terms = []
        for v, rng_, q, s, eps in (
            (z, det.z_range_, det.q_z_, det.s1, det.eps[0]),
            (l, det.wz_range_, det.q_wz_, det.s2, det.eps[1]),
        ):
            p = np.histogram(v, bins=det.n_bins, range=rng_)[0] / v.size
            left = (s - 1) // 2
            p = np.convolve(np.pad(p, (left, s - 1 - left), mode="edge"), np.ones(s) / s, "valid")
            p, qq = (p + eps) / (p + eps).sum(), (q + eps) / (q + eps).sum()
            terms.append(float(np.sum((p - qq) * (np.log(p) - np.log(qq)))))
        e = np.exp(l.reshape(-1, det.n_classes_) - l.max())
        m = float((e.max(axis=1) / e.sum(axis=1)).mean())
        out.append(-(terms[0] + det.lambda1 * terms[1] - det.lambda2 * m))
    return np.array(out)


def run(args):
    import weiper as wp

    n = 100 if args.quick else 10_000
    n_loop = 20 if args.quick else 1_000
    rng = np.random.default_rng(0)
    D, C, r = 512, 10, 100
    W, b = rng.normal(size=(C, D)) / np.sqrt(D), rng.normal(size=C)
    Z = np.maximum(rng.normal(size=(n, D)), 0.0)
    det = wp.WeiPerKLD(r=r, rng=0).fit(Z[: n // 2], W, b)
    L = wp.weiper_logits(Z, det.W_tilde_, det.b_tilde_)
    per = 100_000

    table = Table(["step", "ours_s_per_1e5", "loop_s_per_1e5", "ratio"])
    ours = timeit_ms(
        lambda: (
            wp.histogram_rows(Z, *det.z_range_, 100),
            wp.histogram_rows(L, *det.wz_range_, 100),
        ),
        repeat=3,
    )
    loop = timeit_ms(
        lambda: _loop_hist(Z[:n_loop], L[:n_loop], det.z_range_, det.wz_range_, 100), repeat=3
    )
    o, l = ours.best_ms / 1e3 * per / n, loop.best_ms / 1e3 * per / n_loop
    table.add("histograms of z (512) and W~z (1000)", round(o, 2), round(l, 2), ratio(l, o))

    ours = timeit_ms(lambda: det.score(Z), repeat=3)
    loop = timeit_ms(lambda: _loop_kld(det, Z[:n_loop]), repeat=1, warmup=0)
    np.testing.assert_allclose(_loop_kld(det, Z[:20]), det.score(Z[:20]), rtol=1e-9)
    o, l = ours.best_ms / 1e3 * per / n, loop.best_ms / 1e3 * per / n_loop
    table.add("WeiPer+KLD score (W~z batched in both)", round(o, 2), round(l, 2), ratio(l, o))
    table.notes = (
        f"ours on {n} samples, the loop on {n_loop}, both scaled to 10^5 samples; "
        "ratio = loop / ours (> 1: ours faster); the two scores agree to 1e-9"
    )
    return table


main = bench_cli(run, title="weiper: vectorised histograms and WeiPer+KLD vs per-row loops")

"""Speed of the vectorised criterion against a per-atom loop (the authors' evaluation style).

    python bench.py [--quick] [--json PATH]

Times one evaluation of value + gradient of the MDMC criterion (M draws x T atoms) in our
vectorised form and in a straightforward per-draw, per-atom Python loop (a re-implementation of
the evaluation pattern of the authors' scripts, written for this benchmark), and a full
`DPRobustLinearRegression.fit` against sklearn `Ridge` (the ambiguity-neutral closed form) for
scale. Ratio = loop / ours (> 1 means ours is faster).
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")


import numpy as np  # noqa: E402
from dp_robust import DPRobustLinearRegression, SmoothAmbiguityRisk, gaussian_prior  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402

from papershelf_harness import RATIO_NOTE, Table, bench_cli, ratio, timeit_ms  # noqa: E402


def _best_ms(fn, repeat):
    return timeit_ms(fn, repeat=repeat, warmup=0).best_ms


def _loop_value_grad(weights, atoms, theta, beta):
    """Per-atom loop: R_m = sum_j w_mj (y - x theta)^2, then the exp certainty equivalent."""
    M, T, _ = atoms.shape
    R = np.zeros(M)
    G = np.zeros((M, theta.size))
    for m in range(M):
        for j in range(T):
            y, x = atoms[m, j, 0], atoms[m, j, 1:]
            r = y - x @ theta
            R[m] += weights[m, j] * r * r
            G[m] += weights[m, j] * (-2.0 * r) * x
    z = R / beta
    lam = np.exp(z - z.max())
    lam /= lam.sum()
    return beta * (np.log(np.mean(np.exp(z - z.max()))) + z.max()), lam @ G


def run(args) -> Table:
    configs = [(50, 10, 20, 20)] if args.quick else [(100, 90, 300, 50), (1000, 20, 100, 100)]
    table = Table(
        ["config", "loop_eval_ms", "ours_eval_ms", "ratio", "ours_fit_ms", "ridge_fit_ms"],
        notes=f"{RATIO_NOTE} (baseline = per-atom loop, one value+gradient evaluation); "
        "fit = DPRobustLinearRegression (L-BFGS-B) vs sklearn Ridge; one BLAS thread",
    )
    for n, d, M, T in configs:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, d))
        y = X[:, 0] + rng.normal(size=n)
        risk = SmoothAmbiguityRisk(
            "squared", beta=1.0, alpha=2.0, base_sampler=gaussian_prior(d), M=M, T=T, rng=0
        ).draw(np.column_stack([y, X]))
        theta = 0.1 * rng.normal(size=d)
        v1, g1 = risk(theta)
        v2, g2 = _loop_value_grad(risk.weights, risk.atoms, theta, 1.0)
        assert np.isclose(v1, v2) and np.allclose(g1, g2), "vectorised and loop criteria disagree"
        ours = _best_ms(lambda theta=theta, risk=risk: risk(theta), 5)
        loop = _best_ms(
            lambda theta=theta, risk=risk: _loop_value_grad(risk.weights, risk.atoms, theta, 1.0), 1
        )
        fit = _best_ms(
            lambda X=X, y=y, M=M, T=T: DPRobustLinearRegression(
                alpha=2.0, M=M, T=T, random_state=0
            ).fit(X, y),
            1,
        )
        ridge = _best_ms(lambda X=X, y=y: Ridge(alpha=2.0).fit(X, y), 3)
        table.add(
            f"n={n},d={d},M={M},T={T}",
            round(loop, 2),
            round(ours, 3),
            ratio(loop, ours, digits=0),
            round(fit, 1),
            round(ridge, 2),
        )
    return table


main = bench_cli(run, title="criterion value+gradient, ms")

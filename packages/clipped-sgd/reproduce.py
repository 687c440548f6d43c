"""Reproduce the headline claims of Das et al. (NeurIPS 2024) at small scale.

Near-Optimal Streaming Heavy-Tailed Statistical Estimation with Clipped SGD -
https://arxiv.org/abs/2410.20135.  The paper is theoretical (no experiments); its headline is the
rate: with probability 1 - delta the Clipped-SGD error is at most (up to a constant)

    sqrt( [Tr(Sigma) + sqrt(Tr(Sigma) ||Sigma||_2) ln(ln T / delta)] / T ),

i.e. close to sqrt(Tr(Sigma)/T) with a lower-order delta dependence, under noise with only a finite
second moment, where the sample mean's upper quantiles blow up.  We measure error quantiles over
many independent streams, normalised by sqrt(Tr(Sigma)/T), for Clipped-SGD, the sample mean
(= unclipped SGD), median-of-means and geometric median-of-means, and print the paper's bound
(constant taken as 1) beside them.

Prints a table (claim | paper | measured | holds) and writes a JSON result that
`tools/collect.py` gathers into docs/reproductions.md. ``--quick`` shrinks every trial count to
1 % (a smoke test; the claims are not meaningful at that scale).

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import math

import numpy as np
from clipped_sgd import (
    ClippedSGD,
    StreamingMean,
    clip_level,
    geometric_median_of_means,
    heavy_tailed_noise,
    median_of_means,
    sample_mean,
)

from papershelf_harness import reproduce_cli

DELTA = 1e-3
QS = (0.5, 0.9, 0.99, 0.999)


def paper_bound(trace, op_norm, T, delta=DELTA):
    """The abstract's rate divided by sqrt(Tr/T), constant 1: sqrt(1 + sqrt(||S||/Tr) ln(ln T/delta))."""
    return math.sqrt(1 + math.sqrt(op_norm / trace) * math.log(math.log(T) / delta))


def mean_experiment(
    *, d, T, n_trials, kind, tail, scales=None, c=1.0, seed=0, chunk=500, baselines=True
):
    """Errors ||x_T - mu|| / sqrt(Tr(Sigma)/T) over n_trials independent streams.

    Noise: i.i.d. coordinates of ``heavy_tailed_noise`` (unit variance) times ``scales`` (so
    Sigma = diag(scales^2)); mean mu = (3, ..., 3); Clipped-SGD from x_1 = 0 with eta_t = 1/t and
    Gamma = clip_level(Tr(Sigma), T) (the true trace: the estimator-level ``"auto"`` is a separate
    claim).  Returns {method: (n_trials,) normalised errors} and Gamma.
    """
    rng = np.random.default_rng(seed)
    scales = np.ones(d) if scales is None else np.asarray(scales, dtype=float)
    trace = float(np.sum(scales**2))
    mu = np.full(d, 3.0)
    gamma = clip_level(trace, T, delta=DELTA, c=c, grad_norm_init=np.linalg.norm(mu))
    norm = math.sqrt(trace / T)
    out = {
        k: []
        for k in (["clipped_sgd", "sample_mean", "mom", "gmom"] if baselines else ["clipped_sgd"])
    }
    clipped_frac = []
    for start in range(0, n_trials, chunk):
        n = min(chunk, n_trials - start)
        X = mu + scales * heavy_tailed_noise((n, T, d), kind=kind, tail=tail, rng=rng)  # (n, T, d)
        opt = ClippedSGD(d, clip=gamma, x0=np.zeros((n, d)))  # n independent chains
        for t in range(T):
            opt.step(opt.x_ - X[:, t])  # g = x - xi
        out["clipped_sgd"].append(np.linalg.norm(opt.x_ - mu, axis=1) / norm)
        clipped_frac.append(opt.n_clipped_ / T)
        if baselines:
            out["sample_mean"].append(np.linalg.norm(sample_mean(X) - mu, axis=1) / norm)
            out["mom"].append(np.linalg.norm(median_of_means(X, delta=DELTA) - mu, axis=1) / norm)
            out["gmom"].append(
                np.linalg.norm(geometric_median_of_means(X, delta=DELTA) - mu, axis=1) / norm
            )
    res = {k: np.concatenate(v) for k, v in out.items()}
    return res, gamma, float(np.mean(np.concatenate(clipped_frac)))


def _q(v, q):
    return float(np.quantile(v, q))


def _fmt_q(v):
    return "/".join(f"{_q(v, q):.2f}" for q in QS)


def regression_experiment(*, d, T, n_trials, seed=0):
    """Linear regression, Student-t covariates (nu=4.5) and noise (nu=2.5), all unit variance.

    E[a a^T] = I so mu = 1; the per-sample smoothness E||a||^2 = d gives t0 = d - 1; the gradient
    noise at w* is a * eps with covariance I, Tr = d.  Clipped vs unclipped SGD, same steps and draws.
    Returns the (n_trials,) errors ||w_T - w*|| for both.
    """
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(d)
    gamma = clip_level(float(d), T, delta=DELTA, grad_norm_init=np.linalg.norm(w_star))
    chains = {
        "clipped": ClippedSGD(d, mu=1.0, L=float(d), clip=gamma, x0=np.zeros((n_trials, d))),
        "unclipped": ClippedSGD(d, mu=1.0, L=float(d), clip=None, x0=np.zeros((n_trials, d))),
    }
    for _ in range(T):
        A = heavy_tailed_noise((n_trials, d), kind="student_t", tail=4.5, rng=rng)
        b = A @ w_star + heavy_tailed_noise(n_trials, kind="student_t", tail=2.5, rng=rng)
        for opt in chains.values():
            r = np.einsum("nd,nd->n", A, opt.x_) - b
            opt.step(A * r[:, None])
    return {k: np.linalg.norm(o.x_ - w_star, axis=1) for k, o in chains.items()}


def logistic_experiment(*, d, T, n_trials, seed=0, radius=None):
    """Logistic regression with a heavy-tailed design (Student-t, nu=2.5, unit variance).

    mu, L (trace) and Tr(Sigma) at w* are computed by Monte Carlo on 200k fresh samples.  With
    ``radius`` both methods project onto the ball ||w|| <= radius (the paper's constrained setting).
    Returns the (n_trials,) errors ||w_T - w*|| for clipped and unclipped SGD (same steps, draws).
    """
    rng = np.random.default_rng(seed)
    w_star = np.full(d, 1.0 / math.sqrt(d))
    A = heavy_tailed_noise((200_000, d), kind="student_t", tail=2.5, rng=rng)
    p = 1 / (1 + np.exp(-A @ w_star))
    H = (A * (p * (1 - p))[:, None]).T @ A / A.shape[0]
    mu, L = float(np.linalg.eigvalsh(H)[0]), float(np.trace(H))
    trace = float(np.mean(np.einsum("nd,nd->n", A, A) * p * (1 - p)))  # E||grad f(w*)||^2
    gamma = clip_level(trace, T, delta=DELTA, grad_norm_init=0.5 * math.sqrt(d))
    ball = None if radius is None else ("ball", float(radius))  # ||w*|| = 1
    chains = {
        "clipped": ClippedSGD(
            d, mu=mu, L=L, clip=gamma, projection=ball, x0=np.zeros((n_trials, d))
        ),
        "unclipped": ClippedSGD(
            d, mu=mu, L=L, clip=None, projection=ball, x0=np.zeros((n_trials, d))
        ),
    }
    for _ in range(T):
        a = heavy_tailed_noise((n_trials, d), kind="student_t", tail=2.5, rng=rng)
        s = np.where(rng.uniform(size=n_trials) < 1 / (1 + np.exp(-a @ w_star)), 1.0, -1.0)
        for opt in chains.values():
            z = s * np.einsum("nd,nd->n", a, opt.x_)
            opt.step(-a * (s * 0.5 * (1 - np.tanh(0.5 * z)))[:, None])  # -s a sigmoid(-s a.w)
    return {k: np.linalg.norm(o.x_ - w_star, axis=1) for k, o in chains.items()}


def claims(args) -> list[dict]:
    """The claims for the parsed arguments (``--full``: paper scale; ``--quick``: 1 % of the trials)."""
    return claim_rows(args.full, scale=0.01 if args.quick else 1.0)


def claim_rows(full: bool = False, *, scale: float = 1.0, verbose: bool = True) -> list[dict]:
    """Each claim: {"claim", "paper", "measured", "holds": bool | None, "note"}.

    ``scale`` shrinks the trial counts (``--quick`` uses 0.01 to check the script runs).
    """
    rows = []
    say = print if verbose else (lambda *a, **k: None)
    n = lambda k: max(20, int(k * scale))  # noqa: E731

    # 1-2. Headline: sub-Gaussian tails vs the sample mean, Student-t and symmetric Pareto noise.
    d, T, trials = (20, 2000, 4000) if full else (10, 1000, 2000)
    for kind, tail in (("student_t", 2.5), ("pareto", 2.5)):
        res, gamma, frac = mean_experiment(
            d=d, T=T, n_trials=n(trials), kind=kind, tail=tail, seed=1
        )
        bound = paper_bound(d, 1.0, T)
        say(
            f"\nmean estimation, {kind}({tail}) noise, d={d}, T={T}, {n(trials)} streams, Gamma={gamma:.1f}"
            f" ({100 * frac:.3f}% of steps clipped); error / sqrt(Tr(Sigma)/T), quantiles {QS}:"
        )
        for k, v in res.items():
            say(f"  {k:12s} {_fmt_q(v)}   max {v.max():.2f}")
        c999, m999 = _q(res["clipped_sgd"], 0.999), _q(res["sample_mean"], 0.999)
        rows.append(
            {
                "claim": f"mean, {kind}({tail}): q99.9 err/sqrt(TrS/T), Clipped-SGD",
                "paper": f"<= C*{bound:.2f}",
                "measured": f"{c999:.2f}",
                "holds": bool(c999 <= bound),
                "note": f"d={d}, T={T}, {n(trials)} streams, delta={DELTA}; paper's rate with constant C=1; "
                f"quantiles 0.5/0.9/0.99/0.999 clipped {_fmt_q(res['clipped_sgd'])}, "
                f"sample mean {_fmt_q(res['sample_mean'])}, MoM {_fmt_q(res['mom'])}, GMoM {_fmt_q(res['gmom'])}",
            }
        )
        rows.append(
            {
                "claim": f"mean, {kind}({tail}): q99.9 clipped / q99.9 sample mean",
                "paper": "< 1 (mean not sub-Gaussian)",
                "measured": f"{c999 / m999:.2f}x",
                "holds": bool(c999 < m999),
                "note": f"medians: clipped {_q(res['clipped_sgd'], 0.5):.2f}, sample mean {_q(res['sample_mean'], 0.5):.2f}",
            }
        )
        g99 = _q(res["gmom"], 0.99)
        rows.append(
            {
                "claim": f"mean, {kind}({tail}): q99 streaming clipped / batch GMoM",
                "paper": "~1 (same sub-Gaussian rate)",
                "measured": f"{_q(res['clipped_sgd'], 0.99) / g99:.2f}x",
                "holds": bool(_q(res["clipped_sgd"], 0.99) <= 1.2 * g99),
                "note": "GMoM (Minsker 2015) with k = ceil(8 ln(1/delta)) blocks needs all T samples in memory",
            }
        )

    # 2b. Insensitivity to the clipping constant c in Gamma = c sqrt(T Tr / ln(ln T / delta)).
    qc = {}
    for c in (0.5, 1.0, 2.0):
        res, _, _ = mean_experiment(
            d=10, T=1000, n_trials=n(2000), kind="student_t", tail=2.5, c=c, seed=7, baselines=False
        )
        qc[c] = _q(res["clipped_sgd"], 0.999)
    say(
        f"\nclipping constant c: q99.9 err/sqrt(Tr/T) { ({k: round(v, 2) for k, v in qc.items()}) }"
    )
    rows.append(
        {
            "claim": "insensitive to c in [0.5, 2]: max/min of q99.9",
            "paper": "flat (any fixed c)",
            "measured": f"{max(qc.values()) / min(qc.values()):.2f}",
            "holds": bool(max(qc.values()) <= paper_bound(10, 1.0, 1000)),
            "note": f"q99.9 for c=0.5/1/2: {qc[0.5]:.2f}/{qc[1.0]:.2f}/{qc[2.0]:.2f}; holds = all below the C=1 bound "
            f"{paper_bound(10, 1.0, 1000):.2f}; Student-t(2.5), d=10, T=1000",
        }
    )

    # 3. Rate in T: q99 of err * sqrt(T) flat.
    Ts = (250, 1000, 4000)
    q99 = []
    for TT in Ts:
        res, _, _ = mean_experiment(
            d=10,
            T=TT,
            n_trials=n(1000 if not full else 4000),
            kind="student_t",
            tail=2.5,
            seed=2,
            baselines=False,
        )
        q99.append(_q(res["clipped_sgd"], 0.99))
    ratio = max(q99) / min(q99)
    say(f"\nrate in T: q99 of err/sqrt(Tr/T) for T={Ts}: {[round(v, 2) for v in q99]}")
    rows.append(
        {
            "claim": "rate 1/sqrt(T): max/min over T=250,1000,4000 of q99 err*sqrt(T/Tr)",
            "paper": "O(1) (flat)",
            "measured": f"{ratio:.2f}",
            "holds": bool(ratio < 1.3),
            "note": f"q99 normalised errors {[round(v, 2) for v in q99]}; Student-t(2.5), d=10",
        }
    )

    # 4. Dimension dependence: Tr(Sigma), not d ||Sigma||.
    d4, T4 = 50, 1000
    iso, _, _ = mean_experiment(
        d=d4, T=T4, n_trials=n(1000), kind="student_t", tail=2.5, seed=3, baselines=False
    )
    sc = np.full(d4, 0.1)
    sc[0] = 1.0  # Sigma = diag(1, 0.01, ..., 0.01): ||Sigma|| = 1, Tr = 1.49
    ani, _, _ = mean_experiment(
        d=d4, T=T4, n_trials=n(1000), kind="student_t", tail=2.5, scales=sc, seed=3, baselines=False
    )
    qi, qa = _q(iso["clipped_sgd"], 0.99), _q(ani["clipped_sgd"], 0.99)
    tr_a = float(np.sum(sc**2))
    say(
        f"\ndimension: q99 err/sqrt(Tr/T): isotropic {qi:.2f}, anisotropic {qa:.2f} "
        f"(bounds {paper_bound(d4, 1, T4):.2f} / {paper_bound(tr_a, 1, T4):.2f}); "
        f"sqrt(d||S||/Tr) = {math.sqrt(d4 / tr_a):.1f}"
    )
    rows.append(
        {
            "claim": "error tracks sqrt(Tr(S)/T): q99 ratio aniso/iso after normalising",
            "paper": f"<= {paper_bound(tr_a, 1, T4) / paper_bound(d4, 1, T4):.2f} (vs {math.sqrt(d4 / tr_a):.1f} if d||S||)",
            "measured": f"{qa / qi:.2f}",
            "holds": bool(qa / qi <= paper_bound(tr_a, 1, T4) / paper_bound(d4, 1, T4)),
            "note": f"d=50, T={T4}, Sigma = I vs diag(1, 0.01, ...); normalised q99 {qi:.2f} / {qa:.2f}",
        }
    )

    # 5. Linear regression with heavy-tailed covariates and noise.
    dT = (10, 5000, 500) if full else (10, 2000, 400)
    reg = regression_experiment(d=dT[0], T=dT[1], n_trials=n(dT[2]), seed=4)
    rc, ru = _q(reg["clipped"], 0.99), _q(reg["unclipped"], 0.99)
    say(
        f"\nlinear regression d={dT[0]}, T={dT[1]}: ||w_T - w*|| quantiles clipped {_fmt_q(reg['clipped'])}, "
        f"unclipped {_fmt_q(reg['unclipped'])}; sqrt(Tr/T) = {math.sqrt(dT[0] / dT[1]):.3f}"
    )
    rows.append(
        {
            "claim": "linear regression (t4.5 design, t2.5 noise): q99 clipped / unclipped",
            "paper": "< 1 (sub-Gaussian vs not)",
            "measured": f"{rc / ru:.2f}x",
            "holds": bool(rc < ru),
            "note": f"d={dT[0]}, T={dT[1]}, {n(dT[2])} streams, same steps eta_t = 1/(t + d - 1); "
            f"q99 clipped {rc:.3f} vs sqrt(Tr/T) {math.sqrt(dT[0] / dT[1]):.3f}",
        }
    )

    # 6. Logistic regression with a heavy-tailed design, unconstrained and projected on a ball.
    for radius in (None, 3.0):
        lg = logistic_experiment(
            d=5, T=2000 if not full else 5000, n_trials=n(400), seed=5, radius=radius
        )
        lc, lu = _q(lg["clipped"], 0.99), _q(lg["unclipped"], 0.99)
        where = "unconstrained" if radius is None else f"ball radius {radius:g}"
        say(
            f"\nlogistic regression d=5, {where}: ||w_T - w*|| quantiles clipped {_fmt_q(lg['clipped'])}, "
            f"unclipped {_fmt_q(lg['unclipped'])}"
        )
        rows.append(
            {
                "claim": f"logistic (t2.5 design, {where}): q99 clipped / unclipped",
                "paper": "<= 1",
                "measured": f"{lc / lu:.2f}x",
                "holds": bool(lc <= lu * (1 + 1e-9)),
                "note": f"medians clipped {_q(lg['clipped'], 0.5):.3f}, unclipped {_q(lg['unclipped'], 0.5):.3f}; "
                f"q99 clipped {lc:.3f}, unclipped {lu:.3f}, ||w*|| = 1",
            }
        )

    # 7. The estimator as users call it: StreamingMean(clip="auto") with a pilot estimate of Tr(Sigma).
    rng = np.random.default_rng(6)
    m = n(300 if not full else 1000)
    errs_auto, errs_mean = [], []
    for _ in range(m):
        X = 3.0 + heavy_tailed_noise((1000, 10), kind="student_t", tail=2.5, rng=rng)
        errs_auto.append(np.linalg.norm(StreamingMean().fit(X).mean_ - 3.0) / math.sqrt(10 / 1000))
        errs_mean.append(np.linalg.norm(X.mean(0) - 3.0) / math.sqrt(10 / 1000))
    a99, s99 = _q(np.array(errs_auto), 0.99), _q(np.array(errs_mean), 0.99)
    rows.append(
        {
            "claim": "StreamingMean(clip='auto'): q99 err/sqrt(TrS/T)",
            "paper": f"<= C*{paper_bound(10, 1, 1000):.2f}",
            "measured": f"{a99:.2f}",
            "holds": bool(a99 <= paper_bound(10, 1, 1000)),
            "note": f"d=10, T=1000, {m} streams, Tr(Sigma) estimated from a sqrt(T) pilot; sample mean q99 {s99:.2f}",
        }
    )
    return rows


main = reproduce_cli(claims)

"""Reproduce the out-of-sample comparisons of Bariletto & Ho (NeurIPS 2024) at small scale.

Prints claim | paper | measured | holds and writes a JSON result that `tools/collect.py` gathers
into docs/reproductions.md.

    python reproduce.py [--quick] [--full] [--json PATH]

Settings follow the authors' released scripts (github.com/nbariletto/BNP_for_DRO): their losses
are multiplied by 1e-3 and their ambiguity index is beta = 1, i.e. beta = 1000 in the loss units
used here; their SGD step eta_t = step0 / (100 + sqrt t) on the 1e-3-scaled gradient is
eta_t = (step0 * 1e-3) / (100 + sqrt t) here. Their DP concentration in the regression
experiments is a / n with a in {1, 2, 5, 10}. The paper reports these experiments as bar charts
(Figs. 2-4) without printed numbers, so the "paper" column states the qualitative result.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # many small mat-vecs: BLAS threads only thrash


import numpy as np  # noqa: E402
from dp_robust import (  # noqa: E402
    SmoothAmbiguityRisk,
    gaussian_prior,
    location_gaussian_prior,
    logistic_gaussian_prior,
    neutral_closed_form,
    neutral_mean_closed_form,
)
from sklearn.linear_model import LogisticRegression, RidgeCV  # noqa: E402

from papershelf_harness import Claim, reproduce_cli  # noqa: E402

#: the estimators of the sparse linear-regression experiment (Fig. 2), in report order
LINREG_METHODS = (
    "ols",
    "neutral",
    "averse_sgd",
    "averse_exact",
    "neutral_sgd",
    "averse_beta1",
    "ridge_cv",
)

PAPER = (
    "Bayesian Nonparametrics Meets Data-Driven Distributionally Robust Optimization (NeurIPS 2024)"
)
PAPER_BETA = 1000.0  # authors' beta = 1 on losses scaled by 1e-3


def _ms(x):
    x = np.asarray(x)
    return f"{x.mean():.3f} ({x.std(ddof=1):.3f})"


def _better(a, b):
    """True when a is below b by more than 2 standard errors of the paired difference."""
    diff = np.asarray(b) - np.asarray(a)
    return bool(diff.mean() > 2 * diff.std(ddof=1) / np.sqrt(diff.size))


def _compare(claim, paper, res, ours, base, note, *, label=""):
    """The claim "``ours`` beats ``base``" on the mean test metric, both reported as mean (sd)."""
    measured = f"{_ms(res[ours])} vs {label}{_ms(res[base])}"
    return Claim(
        claim, paper=paper, measured=measured, holds=_better(res[ours], res[base]), note=note
    )


def _diagnostic(claim, values, note):
    """A diagnostic row not in the paper: ``values`` reported as mean (sd), nothing asserted."""
    return Claim(
        claim=f"diagnostic: {claim}",
        paper="(not in paper)",
        measured=_ms(values),
        holds=None,
        note=note,
    )


def _both_beat(a, b, ref):
    """``a`` and ``b`` both beat ``ref`` on the mean (``_better``) and both have a smaller sd."""
    return bool(_better(a, ref) and _better(b, ref) and max(a.std(), b.std()) < ref.std())


def _averse(loss, data, beta, alpha, prior, M, T, rng):
    """The smooth-ambiguity risk of ``loss`` on ``data``, its M x T draws made."""
    risk = SmoothAmbiguityRisk(loss, beta=beta, alpha=alpha, base_sampler=prior, M=M, T=T, rng=rng)
    return risk.draw(data)


def _equicorrelated(rng, n, d, rho=0.3):
    z = rng.standard_normal((n, d))
    return np.sqrt(1 - rho) * z + np.sqrt(rho) * rng.standard_normal(
        (n, 1)
    )  # cov rho 11' + (1-rho) I


# --------------------------------------------------------------------------- Fig. 2
def sparse_linear(
    n_sims, a=2.0, *, n=100, d=90, n_test=5000, M=300, T=50, sgd_steps=10_000, seed=1234
):
    """Paper's high-dimensional sparse linear regression: test RMSE per method over n_sims datasets."""
    rng = np.random.default_rng(seed)
    coef = np.r_[np.ones(5), np.zeros(d - 5)]
    out = {k: [] for k in LINREG_METHODS}
    for _ in range(n_sims):
        X = _equicorrelated(rng, n + n_test, d)
        y = X @ coef + 0.5 * rng.standard_normal(n + n_test)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]

        def rmse(theta, Xte=Xte, yte=yte):
            return float(np.sqrt(np.mean((yte - Xte @ theta) ** 2)))

        out["ols"].append(rmse(np.linalg.lstsq(Xtr, ytr, rcond=None)[0]))
        alpha = a / n  # authors' scripts: DP concentration a / n, ridge penalty a / n
        out["neutral"].append(rmse(neutral_closed_form(Xtr, ytr, alpha=alpha)))
        cv = RidgeCV(alphas=np.logspace(-2, 3, 21), fit_intercept=False).fit(
            Xtr, ytr
        )  # tuned neutral
        out["ridge_cv"].append(rmse(cv.coef_))
        kw = dict(alpha=alpha, base_sampler=gaussian_prior(d), M=M, T=T, rng=rng)
        risk = SmoothAmbiguityRisk("squared", beta=PAPER_BETA, **kw).draw(
            np.column_stack([ytr, Xtr])
        )
        out["averse_sgd"].append(
            rmse(risk.minimize(solver="sgd", step0=0.05, n_steps=sgd_steps, rng=rng))
        )
        out["averse_exact"].append(rmse(risk.minimize()))
        risk.beta = 1.0  # genuinely averse: beta of the order of the per-draw risks
        out["averse_beta1"].append(rmse(risk.minimize()))
        risk.phi = "identity"  # same draws, same SGD, ambiguity-neutral criterion
        out["neutral_sgd"].append(
            rmse(risk.minimize(solver="sgd", step0=0.05, n_steps=sgd_steps, rng=rng))
        )
    return {k: np.array(v) for k, v in out.items()}


# --------------------------------------------------------------------------- brief's pilot
def sparse_linear_pilot(n_sims, *, n=50, d=40, n_test=2000, M=50, T=50, seed=7):
    """Brief's quick setting: 5 non-zeros ~ N(0, 4), sigma = 1, alpha = 2, sigma0 = 1."""
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ("ols", "neutral", "averse_1", "averse_03")}
    for _ in range(n_sims):
        coef = np.zeros(d)
        coef[rng.choice(d, 5, replace=False)] = 2.0 * rng.standard_normal(5)
        X = rng.standard_normal((n + n_test, d))
        y = X @ coef + rng.standard_normal(n + n_test)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]

        def rmse(theta, Xte=Xte, yte=yte):
            return float(np.sqrt(np.mean((yte - Xte @ theta) ** 2)))

        out["ols"].append(rmse(np.linalg.lstsq(Xtr, ytr, rcond=None)[0]))
        out["neutral"].append(rmse(neutral_closed_form(Xtr, ytr, alpha=2.0)))
        risk = _averse(
            "squared", np.column_stack([ytr, Xtr]), 1.0, 2.0, gaussian_prior(d), M, T, rng
        )
        for key, mult in (("averse_1", 1.0), ("averse_03", 0.3)):
            risk.beta = mult * float(np.var(ytr))
            out[key].append(rmse(risk.minimize()))
    return {k: np.array(v) for k, v in out.items()}


# --------------------------------------------------------------------------- Fig. 3
def gaussian_location(n_sims, a=5, *, n=10, n_out=3, mu_out=5.0, M=300, T=50, seed=12345):
    """Paper's Gaussian mean with outliers; p0 = N(contaminated mean, 1). Returns |theta| per method.

    Test loss on N(0, 1) is 1 + theta^2 exactly, so |theta| carries all the information.
    """
    rng = np.random.default_rng(seed)
    mu0 = n_out * mu_out / (n + n_out)
    out = {k: [] for k in ("mle", "neutral", "averse_paper", "averse_strong")}
    for _ in range(n_sims):
        x = np.r_[rng.standard_normal(n), mu_out + rng.standard_normal(n_out)]
        out["mle"].append(abs(x.mean()))
        out["neutral"].append(abs(neutral_mean_closed_form(x, alpha=a, prior_mean=mu0)[0]))
        risk = _averse("location", x, PAPER_BETA, a, location_gaussian_prior(mu0), M, T, rng)
        out["averse_paper"].append(abs(risk.minimize()[0]))
        risk.beta = 1.0
        out["averse_strong"].append(abs(risk.minimize()[0]))
    return {k: np.array(v) for k, v in out.items()}


def outlier_mean_brief(
    n_sims, *, n=50, frac=0.05, shift=10.0, alpha=2.0, beta=1.0, M=100, T=100, seed=3
):
    """Brief's setting: 5 % outliers at +10, p0 = N(0, 1); |theta| for MLE, neutral, averse."""
    rng = np.random.default_rng(seed)
    k = int(round(frac * n))
    out = {key: [] for key in ("mle", "neutral", "averse")}
    for _ in range(n_sims):
        x = np.r_[rng.standard_normal(n - k), shift + rng.standard_normal(k)]
        out["mle"].append(abs(x.mean()))
        out["neutral"].append(abs(neutral_mean_closed_form(x, alpha=alpha)[0]))
        risk = _averse("location", x, beta, alpha, location_gaussian_prior(0.0), M, T, rng)
        out["averse"].append(abs(risk.minimize()[0]))
    return {key: np.array(v) for key, v in out.items()}


# --------------------------------------------------------------------------- Fig. 4
def sparse_logistic(
    n_sims, a=2.0, *, n=100, d=90, n_test=5000, M=200, T=50, sgd_steps=50_000, seed=1234
):
    """Paper's sparse logistic regression: test log-loss of unpenalised, L2 (C = n/a), averse (SGD)."""
    rng = np.random.default_rng(seed)
    coef = np.r_[np.ones(5), np.zeros(d - 5)]
    out = {k: [] for k in ("unpenalized", "l2", "averse_sgd", "averse_exact")}
    for _ in range(n_sims):
        X = _equicorrelated(rng, n + n_test, d)
        y = np.where(rng.random(n + n_test) < 1 / (1 + np.exp(-X @ coef)), 1.0, -1.0)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]

        def loss(theta, Xte=Xte, yte=yte):
            return float(np.mean(np.logaddexp(0.0, -yte * (Xte @ np.ravel(theta)))))

        alpha = a / n
        un = LogisticRegression(C=np.inf, fit_intercept=False, max_iter=5000).fit(Xtr, ytr)
        l2 = LogisticRegression(C=1 / alpha, fit_intercept=False, max_iter=5000).fit(Xtr, ytr)
        out["unpenalized"].append(loss(un.coef_))
        out["l2"].append(loss(l2.coef_))
        risk = _averse(
            "logistic",
            np.column_stack([ytr, Xtr]),
            PAPER_BETA,
            alpha,
            logistic_gaussian_prior(d),
            M,
            T,
            rng,
        )
        out["averse_sgd"].append(
            loss(risk.minimize(solver="sgd", step0=1.0, n_steps=sgd_steps, rng=rng))
        )
        out["averse_exact"].append(loss(risk.minimize(max_iter=3000)))
    return {k: np.array(v) for k, v in out.items()}


def claims(args) -> Iterator[Claim]:
    """One Claim per figure-level comparison. ``--quick`` is a seconds-long smoke run (2 datasets
    per experiment, M = T = 20 draws, short SGD, small test sets), not a reproduction."""
    full, quick = args.full, args.quick
    scale = 0.0 if quick else 1.0
    tiny = dict(M=20, T=20) if quick else {}
    test = dict(n_test=500) if quick else {}

    def k(default, paper):
        return max(2, int(round((paper if full else default) * scale)))

    # ---- Fig. 2: sparse linear regression, a = 2 (full: 200 sims as in the paper)
    ns = k(10, 200)
    steps = 10_000 if scale >= 1 else 1000
    r = sparse_linear(ns, sgd_steps=steps, **tiny, **test)
    note = f"n=100, d=90, 5 active, rho=0.3, a=2 (alpha=a/n), M=300, T=50, {ns} datasets, test RMSE mean (sd)"
    yield _compare(
        "Fig2 linreg: averse (paper SGD) mean test RMSE < neutral (ridge)",
        "averse < neutral",
        r,
        "averse_sgd",
        "neutral",
        note,
    )
    yield Claim(
        claim="Fig2 linreg: averse (paper SGD) sd of test RMSE < neutral",
        paper="averse < neutral",
        measured=f"{r['averse_sgd'].std(ddof=1):.3f} vs {r['neutral'].std(ddof=1):.3f}",
        holds=bool(r["averse_sgd"].std() < r["neutral"].std()),
        note=note,
    )
    yield _compare(
        "Fig2 linreg: averse criterion minimised exactly (L-BFGS) < neutral",
        "averse < neutral",
        r,
        "averse_exact",
        "neutral",
        "same draws as the SGD row; the exact minimiser of the paper's criterion (beta=1000 in loss units)",
    )
    yield _diagnostic(
        "same SGD on the NEUTRAL criterion (phi = identity)",
        r["neutral_sgd"],
        "if close to the averse-SGD row, the gain comes from early-stopped SGD from 0, not from aversion",
    )
    yield _compare(
        "Fig2 linreg: strongly averse (beta=1 in loss units), exact, < neutral",
        "(paper's beta is 1000 here)",
        r,
        "averse_beta1",
        "neutral",
        "same draws; aversion at a beta that matters, minimised exactly",
    )
    yield _diagnostic(
        "neutral with a tuned penalty (RidgeCV, 21 alphas)",
        r["ridge_cv"],
        "the paper's neutral baseline uses penalty a/n = 0.02, far below the CV choice",
    )
    yield Claim(
        claim="Fig2 linreg: averse and neutral beat OLS (mean and sd)",
        paper="yes",
        measured=f"OLS {_ms(r['ols'])}",
        holds=_both_beat(r["averse_sgd"], r["neutral"], r["ols"]),
        note=note,
    )
    # ---- brief's pilot setting (numbers from the brief's own quick run, not from the paper)
    ns = k(30, 100)
    p = sparse_linear_pilot(ns, **tiny, **test)
    yield Claim(
        claim="pilot linreg n=50,d=40: averse(beta=var y) & neutral beat OLS, mean and sd",
        paper="brief: OLS 2.20 (0.38), neutral 1.84 (0.25), averse 1.90 (0.29)",
        measured=f"OLS {_ms(p['ols'])}, neutral {_ms(p['neutral'])}, averse {_ms(p['averse_1'])}",
        holds=_both_beat(p["averse_1"], p["neutral"], p["ols"]),
        note=f"{ns} datasets, alpha=2, M=T=50, exact L-BFGS; averse beta=0.3 var(y): {_ms(p['averse_03'])}",
    )
    yield Claim(
        claim="pilot linreg: averse beats neutral (mean test RMSE)",
        paper="brief: not reproduced (1.90 vs 1.84)",
        measured=f"{p['averse_1'].mean():.3f} vs {p['neutral'].mean():.3f}",
        holds=_better(p["averse_1"], p["neutral"]),
        note="reported, not asserted",
    )
    # ---- Fig. 3: Gaussian location with outliers
    ns = k(100, 100)
    g = gaussian_location(ns, **tiny)
    loss = {key: 1.0 + v**2 for key, v in g.items()}  # exact test loss E(x - theta)^2 on N(0, 1)
    note = (
        f"n=10 + 3 outliers at 5, p0=N(15/13, 1), a=5, beta=1000, M=300, T=50, {ns} sims; neutral "
        f"{_ms(loss['neutral'])}; strongly averse beta=1: {_ms(loss['averse_strong'])}"
    )
    yield _compare(
        "Fig3 location: averse test loss (1 + theta^2) mean < MLE",
        "averse < MLE",
        loss,
        "averse_paper",
        "mle",
        note,
        label="MLE ",
    )
    yield Claim(
        claim="Fig3 location: averse sd of test loss < MLE",
        paper="averse < MLE",
        measured=f"{loss['averse_paper'].std(ddof=1):.3f} vs {loss['mle'].std(ddof=1):.3f}",
        holds=bool(loss["averse_paper"].std() < loss["mle"].std()),
        note="same runs",
    )
    yield _compare(
        "Fig3 location: averse mean |theta - 0| < MLE",
        "averse < MLE",
        g,
        "averse_paper",
        "mle",
        "p0 is centred at the contaminated mean, so the DP shrinks variance, not bias",
        label="MLE ",
    )
    ns = k(100, 100)
    b = outlier_mean_brief(ns, **tiny)
    yield _compare(
        "brief location: 5% outliers at +10, mean |theta| averse < MLE",
        "brief: averse < MLE",
        b,
        "averse",
        "mle",
        f"n=50, p0=N(0,1), alpha=2, beta=1, {ns} sims; neutral {_ms(b['neutral'])}",
        label="MLE ",
    )
    # ---- Fig. 4: sparse logistic regression (SGD of 50k steps per fit: few datasets by default)
    ns = k(4, 200)
    lg = sparse_logistic(ns, sgd_steps=50_000 if scale >= 1 else 2000, **tiny, **test)
    yield Claim(
        claim="Fig4 logreg: averse (paper SGD) test log-loss < L2 and unpenalised",
        paper="averse < L2 < unpen.",
        measured=f"{_ms(lg['averse_sgd'])} vs L2 {_ms(lg['l2'])}, unpen. {_ms(lg['unpenalized'])}",
        holds=_better(lg["averse_sgd"], lg["l2"]) and _better(lg["averse_sgd"], lg["unpenalized"]),
        note=f"n=100, d=90, a=2, M=200, T=50, 50k SGD steps, {ns} datasets",
    )
    yield _compare(
        "Fig4 logreg: averse criterion minimised exactly (L-BFGS) < L2",
        "averse < L2",
        lg,
        "averse_exact",
        "l2",
        "same draws; the exact minimiser is nearly unregularised (prior mass a/(a+n) ~ 2e-4)",
        label="L2 ",
    )


main = reproduce_cli(claims, full_help="the paper's 200 datasets per experiment (hours)")

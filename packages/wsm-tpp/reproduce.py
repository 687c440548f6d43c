"""Reproduce the headline claims of the paper at small scale.

Prints a table (claim | paper | measured | holds) and writes a JSON result that
`tools/collect.py` gathers into docs/reproductions.md. ``--quick`` runs 20 / 20 / 50 sequences
(a smoke test: the claims are not meaningful at that size).

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from wsm_tpp import (
    ExpHawkes,
    GaussHawkes,
    InhomogeneousPoisson,
    fit,
    simulate_hawkes,
    simulate_poisson,
    weight,
)
from wsm_tpp._data import prepare

from papershelf_harness import Claim, reproduce_cli


def _est(res) -> np.ndarray:
    return np.concatenate([res.params["mu"], res.params["A"].ravel()])


def claims(args) -> Iterator[Claim]:
    """The claims for the parsed arguments (``--full``: paper scale; ``--quick``: tiny)."""
    if args.quick:
        return claim_rows(args.full, n_uni=20, n_biv=20, n_pois=50)
    return claim_rows(args.full)


def claim_rows(
    full: bool, n_uni: int | None = None, n_biv: int | None = None, n_pois: int | None = None
) -> Iterator[Claim]:
    """The claims, one Claim each."""
    n_uni = n_uni or (1000 if full else 200)
    n_biv = n_biv or (1000 if full else 300)
    T = 50.0
    # 1. univariate exp-Hawkes, beta = 2 known (Sec. 6.1 setting as in the brief's reference run)
    true = np.array([0.5, 0.8])
    seqs = [simulate_hawkes(0.5, 0.8, 2.0, T, rng=10_000 + i) for i in range(n_uni)]
    n_ev = sum(len(t) for t, _ in seqs)
    fits = {
        m: fit(seqs, method=m, model=ExpHawkes(1, beta=2.0), T=T, rng=0)
        for m in ("mle", "awsm", "asm", "dsm")
    }
    fits["awsm-product"] = fit(
        seqs, method="awsm", model=ExpHawkes(1, beta=2.0), T=T, weight="two_sided_product"
    )
    mae = {m: float(np.abs(_est(r) - true).mean()) for m, r in fits.items()}
    est = {m: "(" + ", ".join(f"{v:.3f}" for v in _est(r)) + ")" for m, r in fits.items()}
    note = (
        f"mu=0.5, a=0.8, beta=2 known, T=50, {n_uni} seqs ({n_ev} events); (mu, a) estimates. "
        "Paper column: reference run quoted in the package brief (the paper reports (A)WSM ~ MLE, (A)SM failing)"
    )
    uni_rows = [  # (fit, claim, paper column, holds when the MAE is ...)
        ("mle", "uni Hawkes: MLE recovers (mu, a)", "(0.502, 0.800)", "< 0.05"),
        ("awsm", "uni Hawkes: AWSM recovers (mu, a) like MLE", "(0.515, 0.805)", "< 0.05"),
        ("asm", "uni Hawkes: ASM (h = 1) fails", "(~0, ~0)", "> 0.3"),
        ("awsm-product", "weight ablation: h = product also consistent", "consistent", "< 0.05"),
    ]
    for m, claim, paper, cond in uni_rows:
        ok = mae[m] < 0.05 if cond == "< 0.05" else mae[m] > 0.3
        yield Claim(
            claim=claim, paper=paper, measured=f"{est[m]} MAE {mae[m]:.3f}", holds=ok, note=note
        )
    yield Claim(
        claim="DSM (sigma = 0.1, 4 draws) worse than AWSM",
        paper="DSM < AWSM",
        measured=f"{est['dsm']} MAE {mae['dsm']:.3f}",
        holds=mae["dsm"] > mae["awsm"],
        note="the paper shows DSM behind AWSM on deep TPPs; here it collapses like ASM",
    )
    # 2. objective identity (consistency theorem): E[loss(theta) - loss(theta*)] = 1/2 E[h (psi - psi*)^2]
    ev = prepare(seqs, T, 1)
    h, dh = weight(ev.t, ev.tprev, ev.tend)

    def terms(model):
        pairs = [model.score_terms(s, T=T) for s in seqs]
        return np.concatenate([p for p, _ in pairs]), np.concatenate([d for _, d in pairs])

    p0, d0 = terms(ExpHawkes(1, beta=2.0, mu=[0.5], A=[[0.8]]))
    zs, rels = [], []
    for mu, a in [(0.7, 0.6), (0.3, 0.5), (0.4, 0.9)]:
        p, d = terms(ExpHawkes(1, beta=2.0, mu=[mu], A=[[a]]))
        lhs = (0.5 * h * p**2 + h * d + dh * p) - (0.5 * h * p0**2 + h * d0 + dh * p0)
        rhs = 0.5 * h * (p - p0) ** 2
        resid = lhs - rhs
        se = np.bincount(ev.seq, resid, n_uni).std(ddof=1) * np.sqrt(n_uni) / ev.M
        zs.append(abs(resid.mean()) / se)
        rels.append(abs(resid.mean()) / rhs.mean())
    yield Claim(
        claim="AWSM loss = 1/2 E[h (psi - psi*)^2] + const",
        paper="identity (Thm.)",
        measured=f"max z {max(zs):.2f} (rel {max(rels):.3f})",
        holds=max(zs) < 4,
        note="3 parameter points; |z| = |mean residual| / s.e. over sequences (< 4 expected)",
    )
    # 3. bivariate exp-Hawkes
    mu2, A2 = np.array([0.3, 0.4]), np.array([[0.3, 0.2], [0.1, 0.4]])
    true2 = np.concatenate([mu2, A2.ravel()])
    seqs2 = [simulate_hawkes(mu2, A2, 2.0, T, rng=20_000 + i) for i in range(n_biv)]
    mae2 = {
        m: float(
            np.abs(_est(fit(seqs2, method=m, model=ExpHawkes(2, beta=2.0), T=T)) - true2).mean()
        )
        for m in ("mle", "awsm", "asm")
    }
    note2 = f"mu=(0.3,0.4), A=[[0.3,0.2],[0.1,0.4]], beta=2, T=50, {n_biv} seqs; MAE over 6 params"
    yield Claim(
        claim="bivariate Hawkes: MAE(AWSM) <= 2 x MAE(MLE)",
        paper="AWSM ~ MLE",
        measured=f"{mae2['awsm']:.4f} vs {mae2['mle']:.4f}",
        holds=mae2["awsm"] <= 2 * mae2["mle"],
        note=note2,
    )
    yield Claim(
        claim="bivariate Hawkes: MAE(ASM) >= 5 x MAE(MLE)",
        paper="ASM fails",
        measured=f"{mae2['asm']:.4f} vs {mae2['mle']:.4f}",
        holds=mae2["asm"] >= 5 * mae2["mle"],
        note=note2,
    )
    # 3b. Gaussian-kernel Hawkes (centre 1, width 0.5 known)
    gseqs = [
        simulate_hawkes(0.5, 0.6, 1.0, T, kernel="gauss", sigma=0.5, rng=40_000 + i)
        for i in range(n_uni)
    ]
    gtrue = np.array([0.5, 0.6])
    gfits = {
        m: fit(gseqs, method=m, model=GaussHawkes(1, m=1.0, sigma=0.5), T=T)
        for m in ("mle", "awsm", "asm")
    }
    gmae = {m: float(np.abs(_est(r) - gtrue).mean()) for m, r in gfits.items()}
    gnote = f"Gaussian kernel, mu=0.5, a=0.6, centre 1, width 0.5 (known), T=50, {n_uni} seqs"
    yield Claim(
        claim="Gauss Hawkes: AWSM ~ MLE, ASM fails",
        paper="AWSM ~ MLE; ASM fails",
        measured=f"MAE {gmae['awsm']:.3f} / {gmae['mle']:.3f} / {gmae['asm']:.3f} (AWSM/MLE/ASM)",
        holds=gmae["awsm"] < 0.05 and gmae["mle"] < 0.05 and gmae["asm"] > 0.3,
        note=gnote,
    )
    # 4. Poisson: AWSM closed-form minimiser sum h' / sum h vs MLE N / T
    n_p = n_pois or (2000 if full else 500)
    pseqs = [simulate_poisson(2.0, 10.0, rng=30_000 + i) for i in range(n_p)]
    pev = prepare(pseqs, 10.0, 1)
    ph, pdh = weight(pev.t, pev.tprev, pev.tend)
    aw = float(
        np.exp(
            fit(pseqs, method="awsm", model=InhomogeneousPoisson(0), T=10.0).params["weights"][0]
        )
    )
    mle = pev.M / (n_p * 10.0)
    hs, dhs = np.bincount(pev.seq, ph, n_p), np.bincount(pev.seq, pdh, n_p)
    se = float(
        np.hypot(
            np.std(dhs - aw * hs, ddof=1) / np.sqrt(n_p) / hs.mean(), np.sqrt(2.0 / (n_p * 10.0))
        )
    )
    yield Claim(
        claim="Poisson rate: AWSM (sum h'/sum h) ~ MLE (N/T)",
        paper="WSM ~ MLE",
        measured=f"{aw:.3f} vs {mle:.3f} (true 2)",
        holds=abs(aw - mle) < 4 * se and abs(aw - dhs.sum() / hs.sum()) < 1e-6,
        note=f"{n_p} seqs, T=10; tolerance 4 s.e. = {4 * se:.3f}",
    )


main = reproduce_cli(claims)

"""Reproduce the headline checks of dattri: A Library for Efficient Data Attribution (NeurIPS 2024)
at laptop scale (the brief's checks 1-6).

Setup: scikit-learn digits (bundled, no download), pixels/16 plus a bias feature, 500 train / 30
test, multinomial logistic regression (650 parameters) with mean cross-entropy + λ/2‖W‖²,
λ = 1e-2, fitted to high precision with L-BFGS. Attribution uses the plain cross-entropy as the
task's loss and ``regularization=λ`` for influence functions, so H + λI is the Hessian of the
training objective.

    python reproduce.py [--quick] [--json PATH]
"""

from __future__ import annotations

import time

import numpy as np
import torch
from data_attrib import fit_to_optimum
from torch.func import functional_call

from papershelf_harness import Claim, reproduce_cli

LAM = 1e-2


def _data(n_train, n_test, seed=0):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = np.hstack([X / 16.0, np.ones((X.shape[0], 1))])
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    X = torch.tensor(X[idx], dtype=torch.float64)
    y = torch.tensor(y[idx], dtype=torch.long)
    return (X[:n_train], y[:n_train]), (
        X[n_train : n_train + n_test],
        y[n_train : n_train + n_test],
    )


def _fit(X, Y, W0=None, iters=200):
    W = (torch.zeros(10, X.shape[1], dtype=X.dtype) if W0 is None else W0.clone()).requires_grad_()

    def objective():
        return torch.nn.functional.cross_entropy(X @ W.T, Y) + 0.5 * LAM * (W**2).sum()

    fit_to_optimum(W, objective, max_iter=iters, tolerance_grad=1e-10, tolerance_change=1e-14)
    return W.detach()


def _model(W):
    m = torch.nn.Linear(W.shape[1], 10, bias=False).double()
    with torch.no_grad():
        m.weight.copy_(W)
    return m


def _task(da, W, checkpoints=None):
    model = _model(W)

    def loss(params, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(functional_call(model, params, (x,)), y)

    return da.AttributionTask(loss, model, checkpoints=checkpoints)


def _test_target(W, test):
    X, Y = test
    with torch.no_grad():
        return -torch.nn.functional.cross_entropy(X @ W.T, Y, reduction="none").numpy()


def _rel(a, b):
    return float((a - b).norm() / b.norm())


def claims(args):
    import data_attrib as da

    torch.set_num_threads(1)
    quick = args.quick
    iters = 40 if quick else 200  # L-BFGS iterations per fit

    def fit(X, Y, W0=None):
        return _fit(X, Y, W0, iters=iters)

    n_train, n_test = (60, 6) if quick else (500, 30)
    n_loo, n_subsets = (6, 6) if quick else (60, 50)
    train, test = _data(n_train, n_test)
    W = fit(*train)
    task = _task(da, W)
    t0 = time.perf_counter()

    # 1. IHVP solvers agree with the explicit inverse ----------------------------------------
    ex = da.IFExplicit(task, regularization=LAM)
    ex.cache(train)
    s_ex = ex.attribute(train, test)
    h = ex.hessian() + LAM * torch.eye(task.n_params, dtype=torch.float64)
    lam_max = float(torch.linalg.eigvalsh(h).max())
    cg = da.IFCG(task, regularization=LAM, max_iter=50)
    cg.cache(train)
    s_cg = cg.attribute(train, test)
    depth = 120 if quick else 2000
    li = da.IFLiSSA(task, regularization=LAM, depth=depth, scale=1.05 * lam_max, batch_size=n_train)
    li.cache(train)
    s_li = li.attribute(train, test)
    ar = da.IFArnoldi(
        task,
        regularization=LAM,
        k=task.n_params,
        max_iter=task.n_params,
        generator=torch.Generator().manual_seed(0),
    )
    ar.cache(train)
    s_ar = ar.attribute(train, test)
    for name, s, tol in (
        ("CG (50 iterations)", s_cg, 1e-3),
        (f"LiSSA (scale 1.05 λmax, depth {depth}, full batch)", s_li, 5e-2),
        ("Arnoldi (k = n_params)", s_ar, 1e-4),
    ):
        e = _rel(s, s_ex)
        yield Claim(
            f"IF-{name} scores match IF-explicit",
            paper=f"rel. error < {tol:g}",
            measured=f"{e:.2e}",
            holds=e < tol,
            note=f"{task.n_params} parameters",
        )
    # the Hessian-vector product (reverse-over-reverse) against a central finite difference
    v = torch.randn(task.n_params, generator=torch.Generator().manual_seed(7), dtype=W.dtype)
    v = v / v.norm()
    fns, _ = cg._hvp_fns(0)
    hv = cg._mean_hvp(fns, n_train, v[None])[0] - LAM * v
    eps = 1e-4
    shifted = [{"weight": W + s * eps * v.reshape(W.shape)} for s in (1, -1)]
    t_fd = _task(da, W, checkpoints=shifted)
    g_plus, g_minus = (t_fd.per_sample_grads(train, checkpoint=k).mean(0) for k in (0, 1))
    fd = (g_plus - g_minus) / (2 * eps)
    e_fd = _rel(hv, fd)
    yield Claim(
        "Hessian-vector product matches a central finite difference of gradients",
        paper="rel. error < 1e-4",
        measured=f"{e_fd:.1e}",
        holds=e_fd < 1e-4,
        note="ε = 1e-4, float64",
    )
    yield Claim.not_run(
        "EK-FAC matches explicit K-FAC on a linear layer",
        paper="< 1e-4",
        why="EK-FAC is not implemented in this package",
    )

    # 2. influence approximates leave-one-out retraining -----------------------------------
    rng = np.random.default_rng(1)
    loo_idx = np.sort(rng.choice(n_train, n_loo, replace=False))
    base = _test_target(W, test)
    change = []
    for i in loo_idx:
        keep = np.delete(np.arange(n_train), i)
        Wi = fit(train[0][keep], train[1][keep], W0=W)
        change.append(base - _test_target(Wi, test))  # test-loss increase
    change = np.stack(change)
    c_if = da.loo_corr(s_ex[loo_idx], change)
    tracin = da.TracIn(task)
    s_tr = tracin.attribute(train, test)
    c_tr = da.loo_corr(s_tr[loo_idx], change)
    for claim, paper, corr, holds in (
        (
            f"IF-explicit vs leave-one-out retraining ({n_loo} points): per-test Pearson",
            ">= 0.95 (calibrated 1.00)",
            c_if,
            c_if >= 0.95,
        ),
        (
            "TracIn grad-dot vs leave-one-out: per-test Pearson (lower than IF)",
            "0.61",
            c_tr,
            c_tr < c_if,
        ),
    ):
        yield Claim(claim, paper=paper, measured=f"{corr:.3f}", holds=holds)

    # 3. LDS ----------------------------------------------------------------------------------
    def train_fn(idx):
        return _test_target(fit(train[0][idx], train[1][idx], W0=W), test)

    gt = da.retrain_lds(train_fn, n_train, n_subsets=n_subsets, ratio=0.5, rng=2)
    l_ex = da.lds(s_ex, *gt)
    l_cg = da.lds(s_cg, *gt)
    l_tr = da.lds(s_tr, *gt)
    l_rand = da.lds(np.random.default_rng(3).standard_normal(s_ex.shape), *gt)
    trak_scores = {}
    for reg in (1e-6,) if quick else (1e-6, 1e-3):
        t = da.TRAK(
            task, proj_dim=256, regularization=reg, generator=torch.Generator().manual_seed(4)
        )
        t.cache(train)
        trak_scores[reg] = da.lds(t.attribute(train, test), *gt)
    l_trak = max(trak_scores.values())
    best_reg = max(trak_scores, key=trak_scores.get)
    subs = [
        np.sort(rng.choice(n_train, n_train // 2, replace=False)) for _ in range(2 if quick else 5)
    ]
    ckpts = [{"weight": fit(train[0][s], train[1][s], W0=W)} for s in subs]
    ens = da.TRAK(
        _task(da, W, checkpoints=ckpts),
        proj_dim=256,
        regularization=best_reg,
        generator=torch.Generator().manual_seed(4),
    )
    ens.cache(train)
    l_ens = da.lds(ens.attribute(train, test), *gt)
    # one row per method: claim, paper, measured, holds, note
    for row in (
        (
            "LDS of IF-explicit",
            ">= 0.8 (calibrated 0.98)",
            f"{l_ex:.3f}",
            l_ex >= 0.8,
            f"{n_subsets} subsets of 50%, target -test loss",
        ),
        (
            "LDS of TracIn grad-dot",
            "0.3-0.9 (calibrated 0.61)",
            f"{l_tr:.3f}",
            0.3 <= l_tr <= 0.9,
            "",
        ),
        (
            "LDS of random scores",
            "|LDS| < 0.1 (calibrated -0.02)",
            f"{l_rand:.3f}",
            abs(l_rand) < 0.1,
            "",
        ),
        (
            "LDS of IF-CG within 0.02 of IF-explicit",
            "|diff| < 0.02",
            f"{l_cg - l_ex:+.4f}",
            abs(l_cg - l_ex) < 0.02,
            "",
        ),
        (
            "LDS of TRAK (proj 256, 1 model, best λ of 1e-6/1e-3)",
            ">= 0.3 (calibrated 0.39-0.44)",
            f"{l_trak:.3f}",
            l_trak >= 0.3,
            ", ".join(f"λ={r:g}: {v:.3f}" for r, v in trak_scores.items()),
        ),
        (
            f"LDS of TRAK, {len(subs)} models on random 50% subsets: not lower than 1 model",
            ">= 1-model (calibrated 0.47)",
            f"{l_ens:.3f}",
            l_ens >= l_trak - 0.01,
            f"1 model {l_trak:.3f}; tolerance 0.01",
        ),
    ):
        yield Claim(*row)
    yield Claim(
        "paper direction: IF beats TracIn and TRAK on LDS for logistic regression",
        paper="IF best on LR/MLP",
        measured=f"IF {l_ex:.2f}, TracIn {l_tr:.2f}, TRAK {l_trak:.2f}",
        holds=l_ex > max(l_tr, l_trak),
    )

    # 4. noisy-label detection ------------------------------------------------------------------
    flip_rng = np.random.default_rng(5)
    n_flip = n_train // 10
    flipped = np.zeros(n_train, dtype=bool)
    flipped[flip_rng.choice(n_train, n_flip, replace=False)] = True
    y_noisy = train[1].clone()
    shift = torch.tensor(flip_rng.integers(1, 10, n_flip))
    y_noisy[torch.tensor(flipped)] = (y_noisy[torch.tensor(flipped)] + shift) % 10
    noisy = (train[0], y_noisy)
    Wn = fit(*noisy)
    tn = _task(da, Wn)
    exn = da.IFExplicit(tn, regularization=LAM)
    exn.cache(noisy)
    auc_if = da.mislabel_auc(exn.self_attribute(noisy), flipped)
    auc_tr = da.mislabel_auc(da.TracIn(tn).self_attribute(noisy), flipped)
    auc_rand = da.mislabel_auc(flip_rng.standard_normal(n_train), flipped)
    for claim, paper, auc, note in (
        (
            f"noisy labels ({n_flip} of {n_train} flipped): AUC of IF self-influence",
            ">= 0.9 (calibrated 0.99)",
            auc_if,
            "",
        ),
        (
            "noisy labels: AUC of TracIn self-influence ‖g‖²",
            ">= 0.9 (calibrated 0.996)",
            auc_tr,
            f"random scores: {auc_rand:.3f}",
        ),
    ):
        yield Claim(claim, paper=paper, measured=f"{auc:.3f}", holds=auc >= 0.9, note=note)

    # 5. JL projection preserves inner products ------------------------------------------------
    t = da.TRAK(task, proj_dim=512, generator=torch.Generator().manual_seed(6))
    t.cache(train)
    P = t._proj[0]
    G = task.per_sample_grads((train[0][:100], train[1][:100]))
    nrm = G.norm(dim=1)
    err = ((G @ P) @ (G @ P).T - G @ G.T).abs() / (nrm[:, None] * nrm[None, :])
    frac = float((err < 0.1).double().mean())
    t2 = da.TRAK(task, proj_dim=512, generator=torch.Generator().manual_seed(6))
    t2.cache(train)
    var = float(P.pow(2).mean()) * 512
    yield Claim(
        "JL projection (k=512): pairwise gradient inner products within ±10% "
        "(of |a||b|) for 95% of pairs",
        paper=">= 95%",
        measured=f"{100 * frac:.1f}%",
        holds=frac >= 0.95,
        note=f"seeded: {bool(torch.equal(P, t2._proj[0]))}; k·var(P) = {var:.3f}",
    )

    # 6. API checks ---------------------------------------------------------------------------
    rows = np.array([0, 5, 17])
    sub = ex.attribute((train[0][rows], train[1][rows]), test)
    ok_rows = bool(torch.allclose(sub, s_ex[rows], rtol=1e-8, atol=1e-12))
    ok_shape = tuple(s_ex.shape) == (n_train, n_test)
    yield Claim(
        "API: scores are [n_train, n_test]; a train subset gives the matching rows",
        paper="exact",
        measured=f"shape {tuple(s_ex.shape)}, rows equal: {ok_rows}",
        holds=ok_rows and ok_shape,
        note=f"total {time.perf_counter() - t0:.0f} s",
    )


main = reproduce_cli(
    claims, quick=True
)  # package, paper and --help from this file and pyproject.toml

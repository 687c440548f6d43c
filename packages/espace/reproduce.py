"""Reproduce the headline claims of ESPACE (Sakr & Khailany, NeurIPS 2024) at small scale.

Synthetic layers (K = 64, activation eigenvalues 0.85^i) for the exact identities and the
activation-vs-weight factorisation comparison, then a byte-level Llama from papershelf-tinylm
(4 layers, d = 128, trained on first use and cached) compressed at 20 % and 50 % of its block weights,
without and with 200 retraining steps.

    python reproduce.py [--quick] [--full] [--json PATH]
"""

from __future__ import annotations

import copy
import math

import numpy as np
import torch
from torch import nn

from papershelf_harness import Claim, reproduce_cli

DETAILS: dict = {}


def _synthetic(K=64, n=4000, decay=0.85, seed=0):
    """Inputs x = Q diag(sqrt(decay^i)) z (C_X eigenvalues decay^i), train and held-out."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((K, K)))[0]
    scale = np.sqrt(decay ** np.arange(K))
    train = (rng.standard_normal((n, K)) * scale) @ Q.T
    test = (rng.standard_normal((n, K)) * scale) @ Q.T
    return torch.tensor(train), torch.tensor(test)


def _out_mse(W, What, X):
    return float(((X @ (W - What).T) ** 2).sum(1).mean())


def _layer_errors(W, Xtr, Xte, L):
    import espace

    lin = nn.Linear(W.shape[1], W.shape[0], bias=False).double()
    with torch.no_grad():
        lin.weight.copy_(W)
    C = Xtr.T @ Xtr / len(Xtr)
    CW = W.T @ W / W.shape[0]
    P_mse = espace.projection_from_stats(C, L)
    P_go = espace.projection_from_stats(C @ CW + CW @ C, L)
    P_go_abs = espace.projection_from_stats(C @ CW + CW @ C, L, sort="abs")
    return {
        "mse": _out_mse(W, W @ P_mse @ P_mse.T, Xte),
        "go": _out_mse(W, W @ P_go @ P_go.T, Xte),
        "go_abs": _out_mse(W, W @ P_go_abs @ P_go_abs.T, Xte),
        "weight_svd": _out_mse(W, espace.svd_linear(lin, L).weight.detach(), Xte),
        "whitened_svd": _out_mse(W, espace.whitened_svd(lin, C, L).weight.detach(), Xte),
    }


def synthetic_claims(args):
    import espace

    K = 64
    Xtr, Xte = _synthetic(K, n=1000 if args.quick else 4000)
    g = torch.Generator().manual_seed(0)

    # 1. exactness
    torch.manual_seed(0)
    lin = nn.Linear(K, K)
    x = Xte[:256].float()
    full = espace.ProjectedLinear.from_linear(lin, espace.random_projection(K, K, generator=g))
    with torch.no_grad():
        rel = float((full(x) - lin(x)).norm() / lin(x).norm())
    P8 = espace.random_projection(K, 8, generator=g)
    t = espace.ProjectedLinear.from_linear(lin, P8, mode="train")
    i = espace.ProjectedLinear.from_linear(lin, P8, mode="inference")
    with torch.no_grad():
        assoc = float((t(x) - i(x)).abs().max())
    yield Claim(
        "L = K reproduces the layer; train and inference forms agree (associativity)",
        paper="exact (rel. err < 1e-6; < 1e-5 fp32)",
        measured=f"rel err {rel:.1e}; max |train - inference| {assoc:.1e}",
        holds=rel < 1e-6 and assoc < 1e-5,
        note="fp32, 256 tokens",
    )

    # 2. Eckart-Young on the calibration activations
    C = Xtr.T @ Xtr / len(Xtr)
    eig = torch.linalg.eigvalsh(C).flip(0)
    worst, vs_random, vs_svd = 0.0, True, True
    W = torch.randn(K, K, dtype=torch.float64, generator=g) / math.sqrt(K)
    Vw = torch.linalg.svd(W)[2].T  # the weight SVD's input subspace
    at8 = {}
    for L in range(1, K):
        P = espace.projection_from_stats(C, L)
        err = float(((Xtr - Xtr @ P @ P.T) ** 2).sum(1).mean())
        worst = max(worst, abs(err - float(eig[L:].sum())) / float(eig[L:].sum()))
        R = espace.random_projection(K, L, dtype=torch.float64, generator=g)
        err_r = float(((Xtr - Xtr @ R @ R.T) ** 2).sum(1).mean())
        Vl = Vw[:, :L]
        err_s = float(((Xtr - Xtr @ Vl @ Vl.T) ** 2).sum(1).mean())
        vs_random &= err <= err_r
        vs_svd &= err <= err_s
        if L == 8:
            at8 = {"pca": err, "random": err_r, "weight_svd_subspace": err_s}
    DETAILS["eckart_young_L8"] = at8
    yield Claim(
        "mean ||x - PP^T x||^2 = sum of discarded eigenvalues, <= random and weight-SVD subspaces",
        paper="exact (rel. err < 1e-8); 1.82 vs 5.86 (random) at L = 8",
        measured=f"max rel err {worst:.1e} over L = 1..63; {at8['pca']:.2f} vs "
        f"{at8['random']:.2f} (random) at L = 8",
        holds=worst < 1e-8 and vs_random and vs_svd,
        note=f"<= random for every L: {vs_random}; <= weight-SVD subspace: {vs_svd}",
    )

    # 3. activation vs weight factorisation, and the reverse for a low-rank W
    rows = {}
    for L in (8, 16):
        rows[L] = _layer_errors(W, Xtr, Xte, L)
    DETAILS["full_rank_W"] = rows
    r8, r16 = rows[8], rows[16]
    ok = all(
        r["mse"] < r["weight_svd"] and min(r.values()) >= r["whitened_svd"] - 1e-12
        for r in rows.values()
    )
    yield Claim(
        "full-rank W: held-out output MSE of the MSE calibrator < weight SVD >= whitened optimum",
        paper="1.70 vs 4.20 (whitened 1.48) at L = 8; 0.48 vs 2.92 (0.33) at L = 16",
        measured=f"{r8['mse']:.2f} vs {r8['weight_svd']:.2f} ({r8['whitened_svd']:.2f}) at L = 8;"
        f" {r16['mse']:.2f} vs {r16['weight_svd']:.2f} ({r16['whitened_svd']:.2f}) at L = 16",
        holds=ok,
        note="W ~ N(0, 1/K), 64 x 64; the paper's numbers are the brief's own synthetic trial",
    )
    A = torch.randn(K, 8, dtype=torch.float64, generator=g)
    B = torch.randn(8, K, dtype=torch.float64, generator=g)
    W_low = A @ B / math.sqrt(8 * K) + 0.01 * torch.randn(K, K, dtype=torch.float64, generator=g)
    low = _layer_errors(W_low, Xtr, Xte, 8)
    DETAILS["low_rank_W"] = low
    yield Claim(
        "reverse for a strongly low-rank W: weight SVD < MSE calibrator",
        paper="weight SVD 0.48 vs PCA 4.17 (brief's trial)",
        measured=f"weight SVD {low['weight_svd']:.3f} vs MSE calibrator {low['mse']:.2f} "
        f"(GO {low['go']:.2f}, GO |eig| {low['go_abs']:.3f}) at L = 8",
        holds=low["weight_svd"] < low["mse"],
        note="W = rank-8 product + 0.01 noise",
    )
    # 6. calibrator ordering is empirical
    yield Claim.reported(
        "calibrator ordering is empirical: eigen-sorted GO vs MSE on the full-rank layer",
        paper="GO 2.31 vs MSE 1.70 at L = 8 (brief's trial); paper picks per layer",
        measured=f"GO {r8['go']:.2f} (|eig| {r8['go_abs']:.2f}) vs MSE {r8['mse']:.2f} at L = 8",
        note="no ordering is claimed; reported for the per-layer selection",
    )


def _tiny_lm(quick):
    """papershelf-tinylm's 4-layer d = 128 byte-level Llama (its micro 2 x 64 model in --quick)."""
    import papershelf_tinylm as tl

    return tl.load_model("micro-target" if quick else "target", seed=0)


def _ppl(model, quick):
    import papershelf_tinylm as tl

    model.eval()
    with torch.no_grad():
        return math.exp(tl.heldout_loss(model, n_seqs=2 if quick else 16, seq_len=64))


def _retrain(model, steps, seed):
    import papershelf_tinylm as tl

    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.0)  # a converged model: small steps
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        ids = torch.from_numpy(tl.lm_batch(rng, 8, 64))
        logits = model(ids).logits
        loss = nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.shape[-1]),
            ids[:, 1:].reshape(-1),
            ignore_index=tl.PAD_ID,
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    model.eval()
    return model


def _compress_weight_svd(model, ranks, stats=None):
    import espace
    from espace.layers import _set_module

    for name, L in ranks.items():
        layer = model.get_submodule(name)
        new = (
            espace.svd_linear(layer, L)
            if stats is None
            else espace.whitened_svd(layer, stats[name], L)
        )
        _set_module(model, name, new)
    return model


def tinylm_claims(args):
    import espace

    import papershelf_tinylm as tl

    torch.set_num_threads(1)  # tiny GEMMs: extra threads only spin on a shared machine
    torch.manual_seed(0)
    base = _tiny_lm(args.quick)
    base_ppl = _ppl(base, args.quick)
    names = espace.default_targets(base)
    rng = np.random.default_rng(7)
    calib = [torch.from_numpy(tl.lm_batch(rng, 8, 64)) for _ in range(1 if args.quick else 8)]
    stats = {obj: espace.calibrate(base, calib, objective=obj) for obj in espace.OBJECTIVES}
    steps = 5 if args.quick else 200
    control = _ppl(_retrain(copy.deepcopy(base), steps, seed=11), args.quick)
    DETAILS["tinylm"] = {"base_ppl": base_ppl, "base_retrained_ppl": control, "layers": names}
    for ratio in (0.2, 0.5):
        ranks = {}
        for n in names:
            N, K = espace.layers.linear_parts(base.get_submodule(n))[0].shape
            ranks[n] = espace.rank_for_compression(N, K, ratio)
        ppl = {}
        for obj in espace.OBJECTIVES:
            Ps = {n: espace.projection_from_stats(stats[obj][n], ranks[n]) for n in names}
            ppl[obj] = _ppl(espace.apply_espace(copy.deepcopy(base), Ps), args.quick)
        ppl["weight_svd"] = _ppl(_compress_weight_svd(copy.deepcopy(base), ranks), args.quick)
        ppl["whitened_svd"] = _ppl(
            _compress_weight_svd(copy.deepcopy(base), ranks, stats["mse"]), args.quick
        )
        best = min(espace.OBJECTIVES, key=lambda o: ppl[o])
        yield Claim(
            f"{int(ratio * 100)} % compression, no retraining: best ESPACE calibrator vs weight SVD",
            paper="ESPACE beats matrix factorisation (Llama2-7B)",
            measured=f"base {base_ppl:.2f}; MSE {ppl['mse']:.2f}, GO {ppl['go']:.2f}, "
            f"NL {ppl['nl']:.2f}; weight SVD {ppl['weight_svd']:.2f} "
            f"(whitened SVD {ppl['whitened_svd']:.2f})",
            holds=ppl[best] < ppl["weight_svd"],
            note=f"held-out byte ppl; {len(names)} block GEMMs projected; equal parameters",
        )
        Ps = {n: espace.projection_from_stats(stats[best][n], ranks[n]) for n in names}
        model = espace.apply_espace(copy.deepcopy(base), Ps, mode="train")
        after = _ppl(_retrain(model, steps, seed=11), args.quick)
        for n in names:
            model.get_submodule(n).to_inference()
        exported = _ppl(model, args.quick)
        gap_before = ppl[best] - base_ppl
        closed = (ppl[best] - after) / gap_before if gap_before > 0 else float("nan")
        DETAILS[f"tinylm_{int(ratio * 100)}"] = {
            "ranks": ranks,
            "ppl": ppl,
            "best": best,
            "retrained": after,
            "exported": exported,
            "gap_closed": closed,
        }
        yield Claim(
            f"{int(ratio * 100)} % compression: {steps} retraining steps (P frozen) close >= 50 % "
            "of the gap",
            paper="+0.18 ppl at 50 % (GPT3-22B); -0.38 at 20-40 % (GPT3-8B)",
            measured=f"{best.upper()} {ppl[best]:.2f} -> {after:.2f} (base {base_ppl:.2f}; "
            f"base retrained alike {control:.2f}); {100 * closed:.0f} % of the gap closed",
            holds=bool(closed >= 0.5) if not args.quick else None,
            note=f"inference export {exported:.2f} (same as train form)"
            + ("; --quick: 5 steps, not checked" if args.quick else ""),
        )


main = reproduce_cli([synthetic_claims, tinylm_claims], quick=True, details=lambda args: DETAILS)

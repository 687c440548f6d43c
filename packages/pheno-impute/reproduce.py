"""Reproduce the headline claims of Unified Insights: Harnessing Multi-modal Data for Phenotype
Imputation via View Decoupling (MPI, NeurIPS 2024) at small scale, on synthetic cohorts (no UK
Biobank access): latent factors drive phenotypes and (with weight bio_signal) two biological
modalities; 30% of the observed phenotype entries are held out.

    python reproduce.py [--quick] [--full] [--json PATH]

Default: 1000 patients x 100 phenotypes + 80 features, 1 seed (a few minutes on 2 loaded
cores); --full: 3 seeds; --quick: a tiny smoke run.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from papershelf_harness import Claim, reproduce_cli

K = (10, 20, 50)


def _scale(args):
    if args.quick:
        return dict(n=60, m=20, mods={"prot": 6, "metab": 3}, epochs=3, seeds=[0], iters=1)
    seeds = [0, 1, 2] if args.full else [0]
    # epochs=200, the estimator's default: a run at epochs=100 (measured, 633 s on the loaded
    # machine, no faster in wall clock) flipped two noise-biology claims (Hit@10 -4.6 pts,
    # AUC -0.036 against phenotypes only, vs +0.2 pts / -0.001 at 200), so it is kept
    return dict(n=1000, m=100, mods={"prot": 60, "metab": 20}, epochs=200, seeds=seeds, iters=5)


def _metrics(P, truth, h):
    from pheno_impute import hit_at_k, mrr
    from sklearn.metrics import roc_auc_score

    test_pos = h.test_mask & (truth == 1)
    out = {f"hit@{k}": hit_at_k(P, test_pos, h.train_mask, k=k) for k in K}
    out["mrr"] = mrr(P, test_pos, h.train_mask)
    out["auc"] = roc_auc_score(truth[h.test_mask], P[h.test_mask])
    return out


def _runs(args):
    """Every method on the informative and the pure-noise cohort, per seed."""
    from pheno_impute import MPIImputer
    from pheno_impute.data import holdout, synthetic_cohort
    from pheno_impute.imputer import _RawFeatureMPIImputer
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer, KNNImputer

    s = _scale(args)
    m, ep = s["m"], s["epochs"]
    mods = list(s["mods"].values())
    results = []  # (seed, signal, subset, method, metrics, seconds)
    for seed in s["seeds"]:
        for signal in (1.0, 0.0):
            c = synthetic_cohort(s["n"], m, modalities=s["mods"], bio_signal=signal, rng=seed)
            h = holdout(c.X, n_phenotypes=m, fraction=0.3, rng=seed + 100)
            kw = dict(n_phenotypes=m, modalities=mods, epochs=ep, random_state=seed)
            methods = {
                "MPI": MPIImputer(**kw),
                "MPI, raw features instead of RQ factors": _RawFeatureMPIImputer(**kw),
                "KNNImputer": KNNImputer(n_neighbors=10),
                "IterativeImputer": IterativeImputer(max_iter=s["iters"], random_state=seed),
            }
            if signal == 1.0:  # the phenotype-only model never sees the biology
                methods["MPI without KD"] = MPIImputer(**kw, kd_weight=0.0)
                methods["LightGCN (phenotypes only)"] = MPIImputer(epochs=ep, random_state=seed)
            for name, est in methods.items():
                X = h.X[:, :m] if "phenotypes only" in name else h.X
                t = time.perf_counter()
                with warnings.catch_warnings():  # IterativeImputer's early-stopping notice
                    warnings.simplefilter("ignore")
                    P = est.fit_transform(X)[:, :m]
                dt = time.perf_counter() - t
                results.append((seed, signal, 1.0, name, _metrics(P, c.phenotypes, h), dt))
            if signal == 1.0:  # 30% of the cohort
                keep = np.random.default_rng(seed).permutation(s["n"])[: int(0.3 * s["n"])]
                sub = _sub(h, keep)
                truth = c.phenotypes[keep]
                for name, X, kw in (
                    ("MPI", sub.X, dict(n_phenotypes=m, modalities=mods)),
                    ("LightGCN (phenotypes only)", sub.X[:, :m], {}),
                ):
                    est = MPIImputer(epochs=ep, random_state=seed, **kw)
                    P = est.fit_transform(X)[:, :m]
                    results.append((seed, signal, 0.3, name, _metrics(P, truth, sub), 0.0))
    return results


def _sub(h, keep):
    from pheno_impute.data import Holdout

    return Holdout(h.X[keep], h.test_mask[keep], h.train_mask[keep])


def _mean(results, signal, subset, method, key):
    vals = [r[4][key] for r in results if r[1:4] == (signal, subset, method)]
    return float(np.mean(vals))


def claims(args):
    from pheno_impute import MPIImputer, ResidualQuantizer, hit_at_k, mrr
    from pheno_impute.data import synthetic_cohort

    # 1. metrics equal a naive per-patient loop on random integer scores (many ties)
    rng = np.random.default_rng(0)
    S = rng.integers(0, 5, (200, 15)).astype(float)
    train = rng.random(S.shape) < 0.3
    test = (rng.random(S.shape) < 0.2) & ~train
    ranks = []
    for s, t, tr in zip(S, test, train):
        if t.any():
            best = max(s[j] for j in range(15) if t[j])
            ranks.append(1 + sum(1 for j in range(15) if not tr[j] and not t[j] and s[j] >= best))
    ranks = np.array(ranks)
    ok = (
        all(abs(hit_at_k(S, test, train, k=k) - np.mean(ranks <= k)) < 1e-12 for k in (1, 5, 10))
        and abs(mrr(S, test, train) - np.mean(1 / ranks)) < 1e-12
    )
    yield Claim(
        "Hit@K and MRR equal hand/naive computation; training positives never count",
        paper="(check 1)",
        measured="equal to 1e-12" if ok else "differ",
        holds=ok,
    )

    # 2. residual quantization error non-increasing in L = 1..4, codes deterministic
    Z = rng.standard_normal((500, 8))
    rq = ResidualQuantizer(levels=4, codebook_size=16, random_state=0).fit(Z)
    codes = rq.encode(Z)
    err = [float(np.mean(np.sum((Z - rq.decode(codes[:, :L])) ** 2, 1))) for L in range(1, 5)]
    det = np.array_equal(codes, rq.encode(Z))
    yield Claim(
        "RQ reconstruction error non-increasing in levels L = 1..4; codes deterministic",
        paper="(check 2)",
        measured="MSE " + " > ".join(f"{e:.3f}" for e in err),
        holds=bool(np.all(np.diff(err) <= 1e-12) and det),
    )

    results = _runs(args)
    n_seeds = len(_scale(args)["seeds"])
    table = " | ".join(
        f"{meth} AUC {_mean(results, 1.0, 1.0, meth, 'auc'):.3f} Hit@10 "
        f"{_mean(results, 1.0, 1.0, meth, 'hit@10'):.3f}"
        for meth in ("MPI", "LightGCN (phenotypes only)", "KNNImputer", "IterativeImputer")
    )
    # 3. biology helps, more so on 30% of the cohort
    g_full = _mean(results, 1.0, 1.0, "MPI", "hit@10") - _mean(
        results, 1.0, 1.0, "LightGCN (phenotypes only)", "hit@10"
    )
    g_sub = _mean(results, 1.0, 0.3, "MPI", "hit@10") - _mean(
        results, 1.0, 0.3, "LightGCN (phenotypes only)", "hit@10"
    )
    yield Claim(
        "informative biology: MPI Hit@10 >= phenotype-only LightGCN + 2 pts",
        paper="MPI best on all metrics (check 3)",
        measured=f"gap {100 * g_full:+.1f} pts (mean of {n_seeds} seed(s))",
        holds=bool(g_full >= 0.02),
    )
    yield Claim(
        "the gap grows when only 30% of the cohort is used",
        paper="(check 3)",
        measured=f"gap {100 * g_sub:+.1f} pts at 30% vs {100 * g_full:+.1f} at 100%",
        holds=bool(g_sub > g_full),
    )
    for key in ("hit@10", "hit@20", "hit@50", "mrr", "auc"):
        ours = _mean(results, 1.0, 1.0, "MPI", key)
        peers = {
            meth: _mean(results, 1.0, 1.0, meth, key)
            for meth in ("LightGCN (phenotypes only)", "KNNImputer", "IterativeImputer")
        }
        best_peer = max(peers, key=peers.get)
        yield Claim(
            f"MPI beats phenotype-only LightGCN, KNNImputer, IterativeImputer on {key}",
            paper="MPI best (Table 2; UK Biobank numbers not retrieved)",
            measured=f"MPI {ours:.3f}; best peer {best_peer} {peers[best_peer]:.3f}",
            holds=bool(ours > peers[best_peer]),
        )
    # 4. pure-noise biology costs little, concatenation peers lose more
    auc_phe = _mean(results, 1.0, 1.0, "LightGCN (phenotypes only)", "auc")
    auc_noise = _mean(results, 0.0, 1.0, "MPI", "auc")
    yield Claim(
        "pure-noise biology costs MPI at most 0.04 AUC against phenotypes alone",
        paper="robust to noisy biology (issue: <= 0.04 AUC)",
        measured=f"MPI(noise) {auc_noise:.3f} vs phenotypes only {auc_phe:.3f} "
        f"({auc_noise - auc_phe:+.3f})",
        holds=bool(auc_phe - auc_noise <= 0.04),
    )
    h_phe = _mean(results, 1.0, 1.0, "LightGCN (phenotypes only)", "hit@10")
    h_noise = _mean(results, 0.0, 1.0, "MPI", "hit@10")
    yield Claim(
        "pure-noise biology: MPI within 1 pt Hit@10 of phenotype-only LightGCN",
        paper="(check 4)",
        measured=f"{100 * (h_noise - h_phe):+.1f} pts",
        holds=bool(h_phe - h_noise <= 0.01),
    )
    loss = {
        meth: _mean(results, 0.0, 1.0, meth, "auc") - auc_phe
        for meth in ("MPI", "KNNImputer", "IterativeImputer")
    }
    yield Claim(
        "noise biology: concatenated-table imputers fall further below phenotypes-only than MPI",
        paper="view decoupling (check 4; issue prototype: IterativeImputer 0.86 -> 0.63)",
        measured="AUC vs phenotype-only LightGCN: "
        + ", ".join(f"{k} {v:+.3f}" for k, v in loss.items()),
        holds=bool(loss["MPI"] > max(loss["KNNImputer"], loss["IterativeImputer"])),
    )
    # 5. ablations: no distillation; raw features instead of the RQ factors
    mrr_mpi = _mean(results, 1.0, 1.0, "MPI", "mrr")
    raw = "MPI, raw features instead of RQ factors"
    for text, method, ours, theirs in (
        ("removing the cross-view distillation", "MPI without KD", "with KD", "without"),
        ("replacing RQ factors by raw features", raw, "with RQ factors", "with raw features"),
    ):
        other = _mean(results, 1.0, 1.0, method, "mrr")
        yield Claim(
            f"{text} lowers MRR",
            paper="ablation (check 5)",
            measured=f"MRR {mrr_mpi:.3f} {ours} vs {other:.3f} {theirs}",
            holds=bool(mrr_mpi > other),
        )
    auc_raw_noise = _mean(results, 0.0, 1.0, raw, "auc")
    yield Claim(
        "noise biology: the raw-feature view costs more AUC than the RQ factors",
        paper="RQ + distillation filter noisy biology (issue prototype: raw encoder outputs -0.08)",
        measured=f"AUC vs phenotype-only: RQ factors {auc_noise - auc_phe:+.3f}, "
        f"raw features {auc_raw_noise - auc_phe:+.3f}",
        holds=bool(auc_raw_noise < auc_noise),
    )
    # 6. missing modalities and all-missing rows
    s = _scale(args)
    c = synthetic_cohort(100, 10, modalities=s["mods"], rng=7)
    est = MPIImputer(n_phenotypes=10, modalities=list(s["mods"].values()), epochs=5).fit(c.X)
    new = c.X[:4].copy()
    new[0, 10:] = np.nan
    new[1, :10] = np.nan
    new[2] = np.nan
    out = est.transform(new)
    ok = bool(np.isfinite(out).all() and (out[:, :10] >= 0).all() and (out[:, :10] <= 1).all())
    yield Claim(
        "patients without biology, without phenotypes or with nothing are still scored",
        paper="(check 6)",
        measured="finite probabilities for all 4 rows" if ok else "failed",
        holds=ok,
    )
    yield Claim.reported(
        "summary on the informative cohort",
        paper="-",
        measured=table,
        note="for reading, not a claim",
    )


main = reproduce_cli(claims)

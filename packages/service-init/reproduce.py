"""Reproduce the headline claims of the paper at small scale (synthetic users).

Initializing Services in Interactive ML Systems for Diverse Users (NeurIPS 2024),
https://arxiv.org/abs/2312.11846. The paper's experiments use US Census and MovieLens-10M, which are
not available offline; the claims are measured on planted synthetic populations instead:

1. Theorem (Sec. 3): E[L(AcQUIre)] <= C (ln k + O(1)) OPT; for squared distances C (ln k + 2) = 8 (ln
   k + 2). Checked EXACTLY on small instances (exact expectation over all query sequences, exact
   OPT over all partitions), Euclidean and Mahalanobis users.
2. The same ratio on a planted mixture with outliers (N = 2020) against Random, epsilon-Greedy and
   Greedy initialisation; OPT estimated by best-of-5 k-means (an upper bound on OPT).
3. General losses (Mahalanobis and linear-regression users): AcQUIre's total loss is lower than
   Random's and Greedy's at initialisation and after 10 rounds of alternating minimisation, which
   also converges in fewer rounds from AcQUIre.
4. Data efficiency: exactly k users are queried.
5. Fair AcQUIre lowers the worst group's loss against AcQUIre (minority group of 10 %).

    python reproduce.py [--quick] [--full] [--trials N] [--json PATH]

``--quick`` is ``--trials 2`` (a smoke test; the claims are not meaningful at that size).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from service_init import (
    CallableUsers,
    QuadraticUsers,
    RegressionUsers,
    acquire,
    acquire_expected_loss,
    alternating_minimization,
    balanced_random_init,
    eps_greedy_init,
    exact_optimum,
    fair_acquire,
    greedy_init,
    max_group_loss,
    random_init,
    total_loss,
)

from papershelf_harness import reproduce_cli


def spd(rng, n, d, cond=10.0):
    """(n, d, d) random SPD metrics with eigenvalues in [1, cond]."""
    q, _ = np.linalg.qr(rng.normal(size=(n, d, d)))
    ev = rng.uniform(1.0, cond, size=(n, d))
    ev[:, 0], ev[:, -1] = 1.0, cond
    return np.einsum("nij,nj,nkj->nik", q, ev, q)


def kmeanspp_bound(k):
    return 8.0 * (math.log(k) + 2.0)


# -- claim 1: exact ratio on small instances -----------------------------------------------
def exact_small(trials, rng):
    rows = {"euclid": [], "maha": []}
    rand = []
    n, k = 10, 3
    for _ in range(trials):
        centers = rng.normal(0, 4, size=(k, 2))
        x = centers[rng.integers(k, size=n)] + rng.normal(0, 0.7, size=(n, 2))
        for kind in rows:
            users = (
                QuadraticUsers(x) if kind == "euclid" else QuadraticUsers(x, metrics=spd(rng, n, 2))
            )
            opt = exact_optimum(users, k)[0]
            rows[kind].append(acquire_expected_loss(users, k) / opt)
            if kind == "euclid":
                combos = itertools.combinations(range(n), k)
                rand.append(np.mean([total_loss(users, x[list(c)]) for c in combos]) / opt)
    return rows, rand


def exact_vs_k(trials, rng, ks=(2, 3, 4, 5), n=8):
    """Worst exact E[L]/OPT over ``trials`` clustered Euclidean instances, for each k."""
    worst = {}
    for k in ks:
        r = []
        for _ in range(trials):
            centers = rng.normal(0, 4, size=(k, 2))
            x = centers[rng.integers(k, size=n)] + rng.normal(0, 0.7, size=(n, 2))
            users = QuadraticUsers(x)
            r.append(acquire_expected_loss(users, k) / exact_optimum(users, k)[0])
        worst[k] = max(r)
    return worst


# -- claim 2: planted mixture with outliers -------------------------------------------------
def planted(trials, rng, n=2000, k=10, d=5):
    from sklearn.cluster import KMeans

    ratios = {"AcQUIre": [], "Random": [], "eps-Greedy": [], "Greedy": []}
    for _ in range(trials):
        means = rng.normal(0, 10, size=(k, d))
        x = means[rng.integers(k, size=n)] + rng.normal(size=(n, d))
        out = rng.normal(size=(20, d))
        x = np.vstack([x, 60 * out / np.linalg.norm(out, axis=1, keepdims=True)])
        users = QuadraticUsers(x)
        opt = KMeans(k, n_init=5, random_state=0).fit(x).inertia_ / len(x)
        s = int(rng.integers(2**31))
        for name, f in (
            ("AcQUIre", acquire),
            ("Random", random_init),
            ("eps-Greedy", eps_greedy_init),
            ("Greedy", greedy_init),
        ):
            ratios[name].append(total_loss(users, f(users, k, rng=s)[0]) / opt)
    return {key: float(np.mean(v)) for key, v in ratios.items()}


# -- claim 3: general losses and dynamics ---------------------------------------------------
def _niche(rng, x, frac, radius=40.0):
    """Move a fraction of users to far-away, scattered personal optima (niche users)."""
    m = int(round(frac * x.shape[0]))
    if m:
        v = rng.normal(size=(m, x.shape[1]))
        x[:m] = radius * v / np.linalg.norm(v, axis=1, keepdims=True)
    return x


def mahalanobis_population(rng, outliers=0.0, n=1000, d=3, k=8):
    means = rng.normal(0, 6, size=(k, d))
    x = _niche(rng, means[rng.integers(k, size=n)] + rng.normal(size=(n, d)), outliers)
    return QuadraticUsers(x, metrics=spd(rng, n, d), offsets=rng.uniform(0, 0.5, n)), k


def regression_population(rng, outliers=0.0, n=600, d=3, k=8):
    thetas = rng.normal(0, 4, size=(k, d))
    true = _niche(rng, thetas[rng.integers(k, size=n)] + 0.3 * rng.normal(size=(n, d)), outliers)
    xs, ys = [], []
    for i in range(n):
        m = int(rng.integers(5, 21))
        xm = rng.normal(size=(m, d))
        xs.append(xm)
        ys.append(xm @ true[i] + 0.5 * rng.normal(size=m))
    return RegressionUsers(xs, ys), k


def rounds_to(hist, target, factor=1.05):
    """Rounds until the loss is within 5 % of ``target``; len(hist) if never (censored)."""
    hit = np.flatnonzero(hist <= factor * target)
    return int(hit[0]) if hit.size else len(hist)


def general(trials, rng, make, outliers):
    init, final, rounds = ({m: [] for m in ("AcQUIre", "Random", "Greedy")} for _ in range(3))
    for _ in range(trials):
        users, k = make(rng, outliers)
        s = int(rng.integers(2**31))
        hists = {}
        for name, f in (("AcQUIre", acquire), ("Random", random_init), ("Greedy", greedy_init)):
            c0, _ = f(users, k, rng=s)
            hists[name] = alternating_minimization(users, c0, iters=10)[2]
        best = min(h[-1] for h in hists.values())
        for name, hist in hists.items():
            init[name].append(hist[0])
            final[name].append(hist[-1])
            rounds[name].append(rounds_to(hist, best))
    return [{m: float(np.mean(v[m])) for m in v} for v in (init, final, rounds)]


# -- claim 4: queries ------------------------------------------------------------------------
def count_queries(rng, k=12):
    x = rng.normal(size=(500, 2))
    calls = []
    users = CallableUsers(
        lambda c: ((x[:, None] - c[None]) ** 2).sum(-1),
        lambda i: calls.append(i) or x[i],
        n_users=500,
        dim=2,
    )
    acquire(users, k, rng=rng)
    return len(calls), k


# -- claim 5: fairness -------------------------------------------------------------------------
def fairness(trials, rng, n=2000, k=6):
    res = {"AcQUIre": [], "Fair AcQUIre": [], "Balanced random": []}
    for _ in range(trials):
        n_min = n // 10
        maj_means = rng.normal(0, 3, size=(6, 2))
        min_means = np.array([15.0, 0.0]) + rng.normal(0, 3, size=(3, 2))
        x = np.vstack(
            [
                maj_means[rng.integers(6, size=n - n_min)] + rng.normal(size=(n - n_min, 2)),
                min_means[rng.integers(3, size=n_min)] + rng.normal(size=(n_min, 2)),
            ]
        )
        groups = np.r_[np.zeros(n - n_min, int), np.ones(n_min, int)]
        users = QuadraticUsers(x)
        s = int(rng.integers(2**31))
        res["AcQUIre"].append(max_group_loss(users, acquire(users, k, rng=s)[0], groups))
        res["Fair AcQUIre"].append(
            max_group_loss(users, fair_acquire(users, k, groups, rng=s)[0], groups)
        )
        res["Balanced random"].append(
            max_group_loss(users, balanced_random_init(users, k, groups, rng=s)[0], groups)
        )
    return {m: float(np.mean(v)) for m, v in res.items()}


def claims(args) -> list[dict]:
    """The claims for the parsed arguments (``--trials`` wins over ``--quick``)."""
    trials = args.trials if args.trials is not None else (2 if args.quick else None)
    return claim_rows(args.full, trials)


def claim_rows(full: bool, trials: int | None = None) -> list[dict]:
    """Each claim: {"claim", "paper", "measured", "holds": bool | None, "note"}."""
    t = trials if trials is not None else (100 if full else 20)

    def rng_for(claim_id):  # one independent stream per claim: rows do not shift each other
        return np.random.default_rng([2024, claim_id])

    out = []

    ex, rand = exact_small(max(2, t // 2), rng_for(1))
    b3 = kmeanspp_bound(3)
    worst = max(ex["euclid"])
    out.append(
        {
            "claim": "exact E[L]/OPT, Euclidean users (k-means++ case)",
            "paper": f"<= 8(ln k+2) = {b3:.1f}",
            "measured": f"max {worst:.2f}, mean {np.mean(ex['euclid']):.2f}",
            "holds": bool(worst <= b3),
            "note": f"N=10, k=3, {len(rand)} instances, exact expectation and exact OPT; "
            f"Random's exact mean ratio {np.mean(rand):.2f}",
        }
    )
    worst_m = max(ex["maha"])
    out.append(
        {
            "claim": "exact E[L]/OPT, Mahalanobis users (cond 10)",
            "paper": "C(ln k+O(1)), C grows w/ cond",
            "measured": f"max {worst_m:.2f}, mean {np.mean(ex['maha']):.2f}",
            "holds": bool(worst_m <= b3),
            "note": f"N=10, k=3; compared with the Euclidean constant 8(ln k+2)={b3:.1f}",
        }
    )

    wk = exact_vs_k(max(2, t // 8), rng_for(2))
    out.append(
        {
            "claim": "exact worst E[L]/OPT as k grows (Euclidean, N=8)",
            "paper": "<= " + ", ".join(f"{kmeanspp_bound(k):.1f}" for k in wk),
            "measured": ", ".join(f"k={k}: {v:.2f}" for k, v in wk.items()),
            "holds": bool(all(v <= kmeanspp_bound(k) for k, v in wk.items())),
            "note": f"worst of {max(2, t // 8)} clustered instances per k; bound 8(ln k+2)",
        }
    )

    pl = planted(max(2, t), rng_for(3))
    b10 = kmeanspp_bound(10)
    holds = pl["AcQUIre"] <= b10 and pl["AcQUIre"] < pl["Random"] < pl["Greedy"]
    out.append(
        {
            "claim": "planted mixture + outliers: mean L/OPT (k=10)",
            "paper": f"AcQUIre best; <= {b10:.1f}",
            "measured": " ".join(f"{m}={v:.2f}" for m, v in pl.items()),
            "holds": bool(holds),
            "note": f"N=2020, d=5, {max(2, t)} instances; OPT ~ best-of-5 sklearn k-means "
            "(an upper bound on OPT)",
        }
    )

    pops = (("Mahalanobis", mahalanobis_population), ("regression", regression_population))
    for (label, make), frac in itertools.product(pops, (0.0, 0.02)):
        n_inst = max(2, t // 2)
        init, final, rounds = general(n_inst, rng_for(4 + int(100 * frac)), make, frac)
        a, f = init["AcQUIre"], final["AcQUIre"]
        setting = "clean clusters" if frac == 0 else f"{frac:.0%} niche users"
        out.append(
            {
                "claim": f"{label} users, {setting}: loss Random/A, Greedy/A",
                "paper": "> 1 (AcQUIre best)",
                "measured": f"init {init['Random'] / a:.2f}x {init['Greedy'] / a:.2f}x; "
                f"10 rds {final['Random'] / f:.2f}x {final['Greedy'] / f:.2f}x",
                "holds": bool(min(init["Random"], init["Greedy"]) > a),
                "note": f"{n_inst} instances, k=8; A = AcQUIre; 'init' right after seeding, "
                "'10 rds' after 10 rounds of alternating minimisation",
            }
        )
        out.append(
            {
                "claim": f"{label}, {setting}: alt-min rounds to 1.05x best",
                "paper": "fewer from AcQUIre",
                "measured": f"A={rounds['AcQUIre']:.1f} R={rounds['Random']:.1f} "
                f"G={rounds['Greedy']:.1f}",
                "holds": bool(rounds["AcQUIre"] <= min(rounds["Random"], rounds["Greedy"])),
                "note": "mean rounds until the loss is within 5 % of the best final loss of the "
                "three runs on that instance (11 = never within 10 rounds)",
            }
        )

    q, k = count_queries(rng_for(5))
    out.append(
        {
            "claim": "users queried by AcQUIre",
            "paper": "k",
            "measured": str(q),
            "holds": q == k,
            "note": f"k={k}, N=500, counted through the query callback",
        }
    )

    fr = fairness(max(2, t), rng_for(6))
    imp = 1 - fr["Fair AcQUIre"] / fr["AcQUIre"]
    out.append(
        {
            "claim": "Fair AcQUIre: max group loss reduction vs AcQUIre",
            "paper": ">=15% (sex), 7-26% (race)",
            "measured": f"{100 * imp:.0f}%",
            "holds": bool(imp >= 0.07),
            "note": f"synthetic: minority 10 % with its own clusters, k=6, {max(2, t)} instances; "
            f"balanced random {fr['Balanced random']:.2f} vs Fair {fr['Fair AcQUIre']:.2f} vs "
            f"AcQUIre {fr['AcQUIre']:.2f} (paper: Census, not available offline)",
        }
    )
    return out


def _extra_args(parser):
    parser.add_argument("--trials", type=int, default=None, help="instances per claim")


main = reproduce_cli(claims, full_help="more instances (slow)", extra_args=_extra_args)

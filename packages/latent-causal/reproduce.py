"""Reproduce the checks of Learning nonparametric latent causal graphs with unknown interventions
(NeurIPS 2023) at small scale: hand-built oracle cases, random oracle instances, finite samples,
necessity of one intervention per hidden variable, and the fork case's non-identifiability.

    python reproduce.py [--quick] [--full] [--json PATH]

The "prototype" numbers are those of issue 17's prototype of the same pipeline (the paper
reports no such rates; it proves identifiability).
"""

from __future__ import annotations

import numpy as np

from papershelf_harness import Claim, reproduce_cli


def _hand_models():
    import latent_causal as lc

    bip = np.zeros((5, 3), dtype=int)
    bip[[0, 1, 2], [0, 1, 2]] = 1
    bip[3, [0, 1]] = 1
    bip[4, [1, 2]] = 1
    out = {}
    for name, edges in {
        "collider": [(0, 2), (1, 2)],
        "chain": [(0, 1), (1, 2)],
        "fork": [(0, 1), (0, 2)],
    }.items():
        lat = np.zeros((3, 3), dtype=int)
        for i, j in edges:
            lat[i, j] = 1
        out[name] = lc.MeasurementModel(lat, bip)
    return out


def _oracle_inputs(model, targets=None):
    import latent_causal as lc

    targets = list(range(model.n_latent)) if targets is None else list(targets)
    udgs = [lc.oracle_udg(model)] + [lc.oracle_udg(model, t) for t in targets]
    shifts = [lc.oracle_shift_set(model, t) for t in targets]
    return udgs, shifts


def _aligned(children, model):
    """perm with children[i] == true[perm[i]] for all i, or None."""
    true = model.children()
    if sorted(map(sorted, children)) != sorted(map(sorted, true)):
        return None
    return [true.index(c) for c in children]


def _dag_exact(adj, perm, model):
    truth = np.asarray(model.latent_adj, dtype=int)[np.ix_(perm, perm)]
    return bool(np.array_equal(adj, truth))


def _random_rates(m, n, trials, rng):
    """Oracle pipeline on random models; returns counts."""
    import latent_causal as lc

    c = dict(trials=trials, skel_forced=0, bip=0, skel=0, dag_shift=0, dag_noshift=0, equiv=0)
    for _ in range(trials):
        model = lc.random_measurement_model(m, n, rng=rng)
        order = rng.permutation(m)
        udgs, shifts = _oracle_inputs(model, order)
        ch = lc.recover_bipartite(udgs)
        perm = _aligned(ch, model)
        if perm is None:
            # is the failure forced? the recovered bipartite graph with the true latent DAG
            # gives the same UDGs and shift sets (observationally equivalent inputs)
            if len(ch) == m:
                mp = lc.match_hidden(ch, model.children())
                bip = np.zeros((n, m), dtype=bool)
                for i, s in enumerate(ch):
                    bip[list(s), mp[i]] = True
                alt = lc.MeasurementModel(model.latent_adj, bip)
                u2, s2 = _oracle_inputs(alt, order)
                if (
                    all(np.array_equal(a, b) for a, b in zip(udgs, u2, strict=True))
                    and s2 == shifts
                ):
                    c["equiv"] += 1
            continue
        c["bip"] += 1
        a_s = lc.recover_latent_dag(ch, udgs, shift_sets=shifts)
        a_n = lc.recover_latent_dag(ch, udgs)
        truth = np.asarray(model.latent_adj, dtype=int)[np.ix_(perm, perm)]
        skel = (a_s + a_s.T) > 0
        ok = bool(np.array_equal(skel, (truth + truth.T) > 0))
        c["skel"] += ok
        if not ok:  # forced when the equivalence class holds DAGs with different skeletons
            cls = lc.equivalence_class(ch, udgs, shift_sets=shifts)
            sk = cls | np.swapaxes(cls, 1, 2)
            c["skel_forced"] += bool(np.any(sk != sk[0]))
        c["dag_shift"] += _dag_exact(a_s, perm, model)
        c["dag_noshift"] += _dag_exact(a_n, perm, model)
    return c


def _pct(a, b):
    return 100.0 * a / max(b, 1)


def claims(args):
    import latent_causal as lc

    rng = np.random.default_rng(0)
    hand = _hand_models()

    # 1. hand-built oracle cases
    for name, model in hand.items():
        udgs, shifts = _oracle_inputs(model)
        ch = lc.recover_bipartite(udgs)
        perm = _aligned(ch, model)
        a_n = lc.recover_latent_dag(model.children(), udgs)
        a_s = lc.recover_latent_dag(model.children(), udgs, shift_sets=shifts)
        n_dir = int(np.sum((a_n == 1) & (a_n.T == 0)))
        n_und = int(np.sum((a_n == 1) & (a_n.T == 1)) // 2)
        exact_s = _dag_exact(a_s, list(range(3)), model)
        if name == "fork":
            yield Claim.reported(
                "1. fork H0->H1, H0->H2: children sets (brief: ch(H0) = {X0, X3})",
                paper="not identifiable (issue)",
                measured=f"recovered {[sorted(s) for s in ch]}",
                note="{X0,X3,X4} is an imaginary subset: see the non-identifiability claim",
            )
        else:
            yield Claim(
                f"1. {name}: children sets exact",
                paper="exact",
                measured="exact" if perm is not None else f"{[sorted(s) for s in ch]}",
                holds=perm is not None,
            )
        expect = {"collider": (2, 0), "chain": (0, 2), "fork": (0, 2)}[name]
        yield Claim(
            f"1. {name}: edges oriented / undirected without shift sets",
            paper=f"{expect[0]} / {expect[1]}",
            measured=f"{n_dir} / {n_und}",
            holds=(n_dir, n_und) == expect,
        )
        yield Claim(
            f"1. {name}: full DAG exact with shift sets",
            paper="exact",
            measured="exact" if exact_s else str(a_s.tolist()),
            holds=exact_s,
        )

    # fork non-identifiability, by computation
    fork = hand["fork"]
    bip2 = np.array(fork.bipartite)
    bip2[4, 0] = True
    fork2 = lc.MeasurementModel(fork.latent_adj, bip2)
    u1, s1 = _oracle_inputs(fork)
    u2, s2 = _oracle_inputs(fork2)
    same = all(np.array_equal(a, b) for a, b in zip(u1, u2, strict=True)) and s1 == s2
    yield Claim(
        "fork + H0->X4 gives the same UDGs (all 4 envs) and shift sets as the fork",
        paper="brief: regression test; issue: not identifiable",
        measured=f"identical: {same}",
        holds=same,
        note="so no method can return ch(H0) = {X0, X3}; we return the maximal set",
    )

    # 2. random oracle instances
    trials = 8 if args.quick else (1000 if args.full else 300)
    proto = {3: (87, 100, 25), 4: (67, 95, 16)}
    for m, n in ((3, 6), (4, 7)):
        c = _random_rates(m, n, trials, rng)
        fails = trials - c["bip"]
        yield Claim(
            f"2. m={m}, n={n}: exact bipartite graph ({trials} random oracle instances)",
            paper=f"prototype {proto[m][0]}% (brief {84 if m == 3 else 56}%"
            + (", asserts >= 80%)" if m == 3 else ")"),
            measured=f"{_pct(c['bip'], trials):.1f}%",
            holds=None if (args.quick or m != 3) else c["bip"] / trials >= 0.8,
            note=f"{c['equiv']}/{fails} failures are forced: the recovered graph gives identical "
            "UDGs and shift sets",
        )
        yield Claim(
            f"2. m={m}: given exact bipartite graph, skeleton exact",
            paper="100% (brief)",
            measured=f"{_pct(c['skel'], c['bip']):.1f}%",
            holds=True if c["skel"] == c["bip"] else None,
            note=f"{c['skel_forced']}/{c['bip'] - c['skel']} misses forced: the equivalence class "
            "holds DAGs with different skeletons (the edge is left out)",
        )
        yield Claim(
            f"2. m={m}: given exact bipartite graph, full DAG exact with shift sets",
            paper=f"prototype {proto[m][1]}%",
            measured=f"{_pct(c['dag_shift'], c['bip']):.1f}%",
            holds=c["dag_shift"] / max(c["bip"], 1) >= proto[m][1] / 100 - 0.05,
        )
        yield Claim.reported(
            f"2. m={m}: given exact bipartite graph, full DAG exact without shift sets",
            paper=f"prototype {proto[m][2]}% (brief 18-27%)",
            measured=f"{_pct(c['dag_noshift'], c['bip']):.1f}%",
            note="the rest keep undirected (unidentifiable) edges",
        )

    # 3. finite samples
    for sem, test, n_inst in (("linear", "pearson", 30), ("nonlinear", "xi", 20)):
        n_inst = 1 if args.quick else (3 * n_inst if args.full else n_inst)
        n_samples = 300 if args.quick else 2000
        env_ok = env_total = e2e = oracle_ok = 0
        for _ in range(n_inst):
            model = lc.random_measurement_model(3, 6, rng=rng)
            targets = rng.permutation(3)
            envs = lc.sample_environments(model, n_samples, targets=targets, sem=sem, rng=rng)
            res = lc.learn(envs, test=test, alpha=0.01)
            udgs, shifts = _oracle_inputs(model, targets)
            env_ok += sum(np.array_equal(a, b) for a, b in zip(res.udgs, udgs, strict=True))
            env_total += 4
            perm = _aligned(res.children, model)
            e2e += perm is not None and _dag_exact(res.adjacency, perm, model)
            och = lc.recover_bipartite(udgs)
            operm = _aligned(och, model)
            oracle_ok += operm is not None and _dag_exact(
                lc.recover_latent_dag(och, udgs, shift_sets=shifts), operm, model
            )
        yield Claim(
            f"3. {sem} SEM, {test} test, {n_samples}/env: estimated UDG = oracle UDG",
            paper=">= 90% of environments (brief target, linear/pearson)",
            measured=f"{_pct(env_ok, env_total):.1f}% of {env_total}",
            holds=(None if (args.quick or sem != "linear") else env_ok / env_total >= 0.9),
        )
        yield Claim(
            f"3. {sem} SEM, {test} test: end-to-end exact (children + DAG, shift sets)",
            paper="within 10 points of the oracle rate (brief target)",
            measured=f"{_pct(e2e, n_inst):.1f}% vs oracle {_pct(oracle_ok, n_inst):.1f}% ({n_inst} models)",
            holds=(None if (args.quick or sem != "linear") else oracle_ok - e2e <= 0.1 * n_inst),
        )

    # 4. necessity of one intervention per hidden variable
    n_models = 4 if args.quick else 100
    still = lost = wrong = cases = 0
    for _ in range(n_models):
        model = lc.random_measurement_model(3, 6, latent_density=0.7, rng=rng)
        if not model.latent_adj.any():
            continue
        for drop in range(3):
            targets = [t for t in range(3) if t != drop]
            udgs, shifts = _oracle_inputs(model, targets)
            a = lc.recover_latent_dag(model.children(), udgs, shift_sets=shifts)
            truth = np.asarray(model.latent_adj, dtype=int)
            cases += 1
            if np.array_equal(a, truth):
                still += 1
            elif np.any((a == 1) & (a.T == 0) & (truth == 0)):
                wrong += 1
            else:
                lost += 1
    yield Claim(
        "4. m interventions minus one: DAG no longer exact (edges undirected/missing)",
        paper="necessity (brief)",
        measured=f"{_pct(lost, cases):.1f}% lose edges, {_pct(still, cases):.1f}% still exact, "
        f"{wrong} wrongly oriented ({cases} cases)",
        holds=wrong == 0 and lost > 0,
        note="still-exact cases: the missing target's edges are fixed by the other environments",
    )


main = reproduce_cli(
    claims, quick=True
)  # package, paper and --help from this file and pyproject.toml

"""Recovery is exact from oracle inputs, checked against the true graph and by brute force."""

import itertools

import latent_causal as lc
import numpy as np
import pytest
from latent_causal._recover import _all_dags


def _inputs(model, targets):
    udgs = [lc.oracle_udg(model)] + [lc.oracle_udg(model, t) for t in targets]
    return udgs, [lc.oracle_shift_set(model, t) for t in targets]


def _all_dags_naive(k):
    out = []
    pairs = [(i, j) for i in range(k) for j in range(k) if i != j]
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        a = np.zeros((k, k), dtype=bool)
        for (i, j), b in zip(pairs, bits, strict=True):
            a[i, j] = b
        try:
            lc.MeasurementModel(a, np.eye(k))
        except ValueError:
            continue
        out.append(a)
    return out


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_dag_enumeration_matches_brute_force(k):
    assert len(_all_dags(k)) == [1, 3, 25, 543][k - 1]  # OEIS A003024
    got = {a.tobytes() for a in _all_dags(k)}
    assert got == {a.tobytes() for a in _all_dags_naive(k)}


def _pure_model(lat):
    k = lat.shape[0]
    return lc.MeasurementModel(lat, np.eye(k, dtype=int))


@pytest.mark.parametrize("k", [2, 3])
def test_every_small_dag_is_recovered_exactly_with_shift_sets(k):
    # exhaustive: every DAG on k nodes, pure children only, targets in a shuffled order
    rng = np.random.default_rng(k)
    for lat in _all_dags(k):
        model = _pure_model(lat)
        targets = rng.permutation(k)
        udgs, shifts = _inputs(model, targets)
        ch = lc.recover_bipartite(udgs)
        assert ch == [frozenset({i}) for i in range(k)]
        adj = lc.recover_latent_dag(ch, udgs, shift_sets=shifts)
        np.testing.assert_array_equal(adj, lat.astype(int))


def test_without_shift_sets_the_answer_is_the_equivalence_class():
    # brute force: the DAGs giving the same oracle UDGs (over any target order) define which
    # edges are oriented; check recover_latent_dag against that definition on all 3-node DAGs
    k = 3
    dags = _all_dags(k)
    sig = {}
    for lat in dags:
        model = _pure_model(lat)
        pats = frozenset(lc.oracle_udg(model, t).tobytes() for t in range(k))
        sig[lat.tobytes()] = (lc.oracle_udg(model).tobytes(), pats)
    for lat in dags:
        cls = [d for d in dags if sig[d.tobytes()] == sig[lat.tobytes()]]
        model = _pure_model(lat)
        udgs, _ = _inputs(model, range(k))
        adj = lc.recover_latent_dag([{i} for i in range(k)], udgs)
        for i, j in itertools.combinations(range(k), 2):
            in_all = all(d[i, j] or d[j, i] for d in cls)
            fwd = all(d[i, j] for d in cls)
            bwd = all(d[j, i] for d in cls)
            expect = (int(in_all and (fwd or not bwd)), int(in_all and (bwd or not fwd)))
            assert (adj[i, j], adj[j, i]) == expect
        assert lat[adj.astype(bool) & ~adj.T.astype(bool)].all()  # oriented edges are true


@pytest.mark.parametrize("seed", range(30))
def test_random_models_recovered_when_identifiable(seed):
    # whenever the recovered children sets differ from the truth, the truth is not identifiable:
    # the recovered measurement graph gives identical UDGs and shift sets
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 5))
    model = lc.random_measurement_model(m, m + 3, rng=rng)
    targets = rng.permutation(m)
    udgs, shifts = _inputs(model, targets)
    ch = lc.recover_bipartite(udgs)
    assert len(ch) == m
    true = model.children()
    perm = lc.match_hidden(ch, true)
    if sorted(map(sorted, ch)) != sorted(map(sorted, true)):
        bip = np.zeros_like(model.bipartite)
        for i, s in enumerate(ch):
            bip[list(s), perm[i]] = True
        alt = lc.MeasurementModel(model.latent_adj, bip)
        u2, s2 = _inputs(alt, targets)
        assert all(np.array_equal(a, b) for a, b in zip(udgs, u2, strict=True)) and s2 == shifts
    adj = lc.recover_latent_dag(ch, udgs, shift_sets=shifts)
    truth = np.asarray(model.latent_adj, dtype=int)[np.ix_(perm, perm)]
    directed = (adj == 1) & (adj.T == 0)
    assert truth[directed].all()  # never a wrong orientation
    np.testing.assert_array_equal(adj + adj.T > 0, truth + truth.T > 0)  # skeleton exact


def test_hand_built_cases():
    bip = np.zeros((5, 3), dtype=int)
    bip[[0, 1, 2], [0, 1, 2]] = 1
    bip[3, [0, 1]] = 1
    bip[4, [1, 2]] = 1
    collider = lc.MeasurementModel([[0, 0, 1], [0, 0, 1], [0, 0, 0]], bip)
    chain = lc.MeasurementModel([[0, 1, 0], [0, 0, 1], [0, 0, 0]], bip)
    for model in (collider, chain):
        udgs, shifts = _inputs(model, [2, 0, 1])
        assert sorted(map(sorted, lc.recover_bipartite(udgs))) == [[0, 3], [1, 3, 4], [2, 4]]
    udgs, _ = _inputs(collider, [2, 0, 1])
    np.testing.assert_array_equal(
        lc.recover_latent_dag(collider.children(), udgs), collider.latent_adj
    )
    udgs, shifts = _inputs(chain, [2, 0, 1])
    und = lc.recover_latent_dag(chain.children(), udgs)
    np.testing.assert_array_equal(und, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    full = lc.recover_latent_dag(chain.children(), udgs, shift_sets=shifts)
    np.testing.assert_array_equal(full, chain.latent_adj)
    # shift sets aligned with udgs (observational first, empty) are accepted too
    full2 = lc.recover_latent_dag(chain.children(), udgs, shift_sets=[set(), *shifts])
    np.testing.assert_array_equal(full2, full)


def test_learn_end_to_end_on_a_chain():
    model = lc.MeasurementModel([[0, 1, 0], [0, 0, 1], [0, 0, 0]], np.repeat(np.eye(3), 2, axis=0))
    envs = lc.sample_environments(model, 3000, targets=[1, 2, 0], rng=3)
    res = lc.learn(envs, test="pearson", alpha=0.01)
    assert res.children == [frozenset({0, 1}), frozenset({2, 3}), frozenset({4, 5})]
    np.testing.assert_array_equal(res.adjacency, model.latent_adj)
    res2 = lc.learn(envs, test="pearson", alpha=0.01, use_shifts=False)
    np.testing.assert_array_equal(res2.adjacency, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    assert res2.shift_sets is None


@pytest.mark.parametrize("seed", range(4))
def test_large_models_with_shift_sets_use_the_closure_path(seed):
    # m = 7 > 5: the descendant relation from the shift sets restricts the candidates; the
    # true DAG must be in the class, every edge reported is a true edge with its orientation
    rng = np.random.default_rng(100 + seed)
    model = lc.random_measurement_model(7, 9, latent_density=0.4, rng=rng)
    targets = rng.permutation(7)
    udgs, shifts = _inputs(model, targets)
    ch = model.children()
    adj = lc.recover_latent_dag(ch, udgs, shift_sets=shifts)
    truth = np.asarray(model.latent_adj)
    cls = lc.equivalence_class(ch, udgs, shift_sets=shifts)
    assert any(np.array_equal(d, truth) for d in cls)
    assert truth[adj.astype(bool)].all()
    assert not np.any(adj & adj.T)  # the closure is known: nothing is left undirected
    with pytest.raises(ValueError, match="children"):
        lc.recover_latent_dag(ch, udgs)


@pytest.mark.parametrize("seed", range(10))
def test_closure_path_agrees_with_exhaustive_path(seed):
    import latent_causal._recover as rec

    rng = np.random.default_rng(200 + seed)
    model = lc.random_measurement_model(4, 6, latent_density=0.6, rng=rng)
    udgs, shifts = _inputs(model, rng.permutation(4))
    ch = model.children()
    exhaustive = lc.recover_latent_dag(ch, udgs, shift_sets=shifts)
    old = rec.MAX_EXHAUSTIVE
    rec.MAX_EXHAUSTIVE = 3
    try:
        closure = lc.recover_latent_dag(ch, udgs, shift_sets=shifts)
    finally:
        rec.MAX_EXHAUSTIVE = old
    np.testing.assert_array_equal(closure, exhaustive)

"""AcQUIre, Fair AcQUIre and the baselines against independent references."""

import math

import numpy as np
import pytest
from conftest import spd
from scipy.stats import chisquare
from service_init import (
    CallableUsers,
    QuadraticUsers,
    acquire,
    acquire_expected_loss,
    balanced_greedy_init,
    balanced_random_init,
    eps_greedy_init,
    exact_optimum,
    fair_acquire,
    greedy_init,
    random_init,
    total_loss,
)
from service_init.seeding import _scores
from sklearn.cluster import kmeans_plusplus


def d2_weights(x, chosen):
    """k-means++ D^2 weights, written independently (naive loops)."""
    out = np.empty(len(x))
    for i, p in enumerate(x):
        out[i] = min(float(np.sum((p - x[c]) ** 2)) for c in chosen)
    return out / out.sum()


def test_sampling_mass_equals_kmeanspp_d2_weights(rng):
    x = rng.normal(size=(50, 3))
    users = QuadraticUsers(x)
    chosen = [3, 17, 41]
    current = users.losses(x[chosen]).min(axis=1)
    p = _scores(users, current, excess=False)
    np.testing.assert_allclose(p / p.sum(), d2_weights(x, chosen), rtol=1e-12, atol=1e-15)


def _second_pick_exact(x):
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)  # (N, N)
    return (d2 / d2.sum(axis=1, keepdims=True)).mean(axis=0)  # first pick uniform


def _second_pick_counts_ok(n_ours, n_sklearn):
    x = np.random.default_rng(7).normal(size=(30, 2))
    users = QuadraticUsers(x)
    p2 = _second_pick_exact(x)
    rng = np.random.default_rng(0)
    ours = np.bincount([acquire(users, 2, rng=rng)[1][1] for _ in range(n_ours)], minlength=30)
    sk = np.bincount(
        [kmeans_plusplus(x, 2, random_state=s, n_local_trials=1)[1][1] for s in range(n_sklearn)],
        minlength=30,
    )
    assert chisquare(ours, p2 * n_ours).pvalue > 0.01
    assert chisquare(sk, p2 * n_sklearn).pvalue > 0.01


def test_second_pick_distribution_matches_exact_and_sklearn():
    """Chi^2 on a 30-point instance: ours (10^4 seeds) and sklearn n_local_trials=1 (1500)."""
    _second_pick_counts_ok(10_000, 1_500)


@pytest.mark.slow
def test_second_pick_distribution_matches_sklearn_1e4():
    _second_pick_counts_ok(10_000, 10_000)


def test_exact_expectation_matches_monte_carlo(rng):
    x = rng.normal(size=(8, 2))
    users = QuadraticUsers(x, metrics=spd(rng, 8, 2), offsets=rng.uniform(0, 0.2, 8))
    exact = acquire_expected_loss(users, 3)
    g = np.random.default_rng(1)
    vals = np.array([total_loss(users, acquire(users, 3, rng=g)[0]) for _ in range(4000)])
    se = vals.std() / math.sqrt(vals.size)
    assert abs(vals.mean() - exact) < 4 * se


def test_kmeanspp_guarantee_exact_small_instances():
    """E[L] <= 8 (ln k + 2) OPT (Arthur & Vassilvitskii; the paper's Euclidean special case)."""
    g = np.random.default_rng(3)
    for _ in range(5):
        x = np.concatenate([g.normal(c, 0.3, size=(3, 2)) for c in ([0, 0], [5, 0], [0, 5])])
        users = QuadraticUsers(x)
        opt = exact_optimum(users, 3)[0]
        exp = acquire_expected_loss(users, 3)
        assert opt <= exp <= 8 * (math.log(3) + 2) * opt


def test_exact_optimum_not_beaten_by_lloyd(rng):
    from sklearn.cluster import KMeans

    x = rng.normal(size=(9, 2))
    users = QuadraticUsers(x)
    opt, centers, assign = exact_optimum(users, 3)
    km = KMeans(3, n_init=50, random_state=0).fit(x)
    assert opt <= km.inertia_ / 9 + 1e-12
    assert opt == pytest.approx(km.inertia_ / 9, rel=1e-9)  # 50 restarts find it on 9 points
    assert total_loss(users, centers) == pytest.approx(opt)


def test_exactly_k_queries_and_centers_are_optima(rng):
    x = rng.normal(size=(60, 2))
    calls = []

    def argmin(i):
        calls.append(i)
        return x[i]

    users = CallableUsers(
        lambda c: ((x[:, None] - c[None]) ** 2).sum(-1), argmin, n_users=60, dim=2
    )
    centers, queried = acquire(users, 7, rng=rng)
    assert len(calls) == 7 and list(queried) == calls
    np.testing.assert_array_equal(centers, x[queried])
    groups = np.arange(60) % 3
    for f in (
        lambda: fair_acquire(users, 5, groups, rng=rng),
        lambda: greedy_init(users, 5, rng=rng),
        lambda: eps_greedy_init(users, 5, rng=rng),
        lambda: random_init(users, 5, rng=rng),
        lambda: balanced_random_init(users, 5, groups, rng=rng),
        lambda: balanced_greedy_init(users, 5, groups, rng=rng),
    ):
        calls.clear()
        c, q = f()
        assert len(calls) == 5 and c.shape == (5, 2) and q.dtype == np.int64


def test_acquire_never_requeries_a_covered_user(rng):
    x = rng.normal(size=(20, 2))
    for s in range(20):
        _, q = acquire(QuadraticUsers(x), 20, rng=s)
        assert len(set(q.tolist())) == 20


def test_greedy_baselines_never_requery(rng):
    """Regression: a queried user with a large irreducible loss stayed the argmax and greedy
    re-queried them for every remaining service; eps-greedy's random step re-drew queried
    users; balanced greedy re-picked inside an exhausted group."""
    n = 30
    optima = rng.normal(size=(n, 2))
    offsets = np.zeros(n)
    offsets[7] = 1e6  # user 7's own optimum leaves them with the largest loss
    users = QuadraticUsers(optima, offsets=offsets)
    _, q = greedy_init(users, 6, rng=0)
    assert len(set(q.tolist())) == 6 and 7 in q.tolist()
    # each pick is the argmax over the users not queried yet
    for s in range(1, 6):
        cur = users.losses(users.optima[q[:s]]).min(axis=1)
        cur[q[:s]] = -np.inf
        assert q[s] == np.argmax(cur)
    groups = np.array([0] * 25 + [1] * 5)
    plain = QuadraticUsers(optima)
    for seed in range(5):
        for f in (
            lambda u, k, seed=seed: eps_greedy_init(u, k, rng=seed, eps=0.5),
            lambda u, k, seed=seed: balanced_greedy_init(u, k, groups, rng=seed),
            lambda u, k, seed=seed: greedy_init(u, k, rng=seed),
        ):
            _, q = f(plain, n)  # k = N: every user exactly once
            assert sorted(q.tolist()) == list(range(n))
            _, q = f(users, 12)
            assert len(set(q.tolist())) == 12


def test_greedy_picks_argmax_loss(rng):
    x = rng.normal(size=(40, 2))
    users = QuadraticUsers(x)
    _, q = greedy_init(users, 4, rng=rng)
    for s in range(1, 4):
        d = ((x[:, None] - x[q[:s]][None]) ** 2).sum(-1).min(1)
        assert q[s] == int(np.argmax(d))


def test_excess_variant_ignores_irreducible_loss(rng):
    # user 0 has a huge irreducible loss but sits on the first service: never sampled by excess
    x = np.array([[0.0], [0.0], [1.0], [2.0]])
    users = QuadraticUsers(x, offsets=np.array([100.0, 0, 0, 0]), weights=[1e-12, 1, 1, 1])
    for s in range(50):
        _, q = acquire(users, 2, rng=s, excess=True)
        assert q[1] != 0
    current = users.loss_to(x[1])
    assert _scores(users, current, excess=True)[0] == 0.0


def test_fair_proportional_equals_two_stage_group_then_user():
    """rule='proportional': P(i) = P(group g) * P(i | g) with P(g) proportional to L_g."""
    g0 = np.random.default_rng(4)
    x = np.concatenate([g0.normal(0, 1, (18, 1)), g0.normal(6, 0.5, (2, 1))])
    groups = np.array([0] * 18 + [1] * 2)
    users = QuadraticUsers(x)
    w = users.weights
    expected = np.zeros(20)
    for first in range(20):  # first query: a group uniformly, then a user by pi within it
        p_first = 0.5 * w[first] / w[groups == groups[first]].sum()
        cur = users.loss_to(x[first])
        mass = np.array([np.sum((w * cur)[groups == g]) for g in (0, 1)])
        avg = mass / np.array([w[groups == g].sum() for g in (0, 1)])
        expected += p_first * (avg / avg.sum())[groups] * (w * cur) / mass[groups]
    rng = np.random.default_rng(0)
    n = 3000
    counts = np.bincount(
        [fair_acquire(users, 2, groups, rng=rng)[1][1] for _ in range(n)], minlength=20
    )
    assert chisquare(counts, expected * n).pvalue > 0.01


def test_fair_worst_group_samples_inside_worst_group():
    x = np.concatenate([np.zeros((10, 1)), np.linspace(5, 6, 5)[:, None]])
    groups = np.array(["a"] * 10 + ["b"] * 5)
    users = QuadraticUsers(x)
    for s in range(20):
        _, q = fair_acquire(users, 2, groups, rng=s, rule="worst-group")
        if q[0] < 10:  # first service covers group a perfectly: b is the worst group
            assert q[1] >= 10


def test_fair_acquire_covers_minority():
    g = np.random.default_rng(5)
    x = np.concatenate(
        [
            g.normal(0, 1, (950, 2)),
            g.normal(0, 1, (950, 2)) + [0, 0],
            g.normal([30, 0], 0.1, (100, 2)),
        ]
    )
    x[:950] += [-8, 0]
    groups = np.array([0] * 1900 + [1] * 100)
    users = QuadraticUsers(x)
    # with k=2 the minority cluster (5 % of users) is queried far more often by Fair AcQUIre
    hits_fair = sum(fair_acquire(users, 2, groups, rng=s)[1].max() >= 1900 for s in range(200))
    hits_plain = sum(acquire(users, 2, rng=s)[1].max() >= 1900 for s in range(200))
    assert hits_fair > hits_plain


def test_balanced_random_alternates_groups(rng):
    users = QuadraticUsers(rng.normal(size=(30, 2)))
    groups = np.arange(30) % 3
    _, q = balanced_random_init(users, 6, groups, rng=rng)
    assert sorted(np.bincount(groups[q]).tolist()) == [2, 2, 2]
    assert len(set(q.tolist())) == 6
    _, q = balanced_greedy_init(users, 6, groups, rng=rng)
    assert sorted(np.bincount(groups[q]).tolist()) == [2, 2, 2]


def test_random_init_distinct_and_reproducible(rng):
    users = QuadraticUsers(rng.normal(size=(30, 2)))
    a = random_init(users, 10, rng=3)[1]
    assert len(set(a.tolist())) == 10
    np.testing.assert_array_equal(a, random_init(users, 10, rng=3)[1])
    np.testing.assert_array_equal(acquire(users, 5, rng=9)[1], acquire(users, 5, rng=9)[1])


@pytest.mark.parametrize(
    "call, err, match",
    [
        (lambda u: acquire(u, 0, rng=0), ValueError, "k must"),
        (lambda u: acquire(u, 11, rng=0), ValueError, "k must"),
        (lambda u: acquire(u, 2.0, rng=0), TypeError, "k must"),
        (lambda u: acquire(u, 2, rng="seed"), TypeError, "rng"),
        (lambda u: acquire("users", 2, rng=0), TypeError, "users"),
        (lambda u: fair_acquire(u, 2, np.zeros(3), rng=0), ValueError, "groups"),
        (lambda u: fair_acquire(u, 2, np.zeros(10), rng=0, rule="max"), ValueError, "rule"),
        (lambda u: eps_greedy_init(u, 2, rng=0, eps=1.5), ValueError, "eps"),
        (lambda u: balanced_random_init(u, 2, np.zeros(9), rng=0), ValueError, "groups"),
    ],
)
def test_seeding_validation(call, err, match):
    users = QuadraticUsers(np.arange(20.0).reshape(10, 2))
    with pytest.raises(err, match=match):
        call(users)


def test_weighted_users_match_weighted_kmeanspp():
    """With weights pi, both picks follow sklearn's sample_weight k-means++ law."""
    g = np.random.default_rng(11)
    x = g.normal(size=(15, 2))
    w = g.uniform(0.1, 3.0, 15)
    users = QuadraticUsers(x, weights=w)
    pw = w / w.sum()
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)  # (N, N)
    law = pw @ (pw[None, :] * d2 / (d2 @ pw)[:, None])  # P(second = m)
    rng = np.random.default_rng(0)
    n = 5000
    ours = np.bincount([acquire(users, 2, rng=rng)[1][1] for _ in range(n)], minlength=15)
    assert chisquare(ours, law * n).pvalue > 0.01
    m = 1000
    sk = np.bincount(
        [
            kmeans_plusplus(x, 2, sample_weight=w, random_state=s, n_local_trials=1)[1][1]
            for s in range(m)
        ],
        minlength=15,
    )
    assert chisquare(sk, law * m).pvalue > 0.01


def test_results_are_named_tuples_that_unpack_as_before(rng):
    from service_init import (
        AlternatingResult,
        Optimum,
        Seeding,
        WeightsResult,
        alternating_minimization,
        multiplicative_weights,
    )

    users = QuadraticUsers(rng.normal(size=(6, 2)))
    res = acquire(users, 2, rng=0)
    assert (
        isinstance(res, Seeding) and res.centers.shape == (2, 2) and res.queried.dtype == np.int64
    )
    centers, queried = res
    np.testing.assert_array_equal(centers, res.centers)
    for seeder in (random_init, greedy_init, eps_greedy_init):
        assert isinstance(seeder(users, 2, rng=0), Seeding)
    am = alternating_minimization(users, centers, iters=2)
    assert isinstance(am, AlternatingResult) and am.assignment.shape == (6,)
    mw = multiplicative_weights(users, centers, iters=2)
    assert isinstance(mw, WeightsResult) and mw.resp.shape == (6, 2)
    opt = exact_optimum(users, 2)
    assert isinstance(opt, Optimum) and opt.loss <= total_loss(users, am.centers) + 1e-12

"""Exact checks against independent references (closed forms, naive loops)."""

import numpy as np
import pytest
from clipped_sgd import (
    ClippedSGD,
    PlainSGD,
    StreamingLinearRegression,
    StreamingLogisticRegression,
    StreamingMean,
    clip_level,
    clip_norm,
    geometric_median,
    geometric_median_of_means,
    median_of_means,
    project_ball,
    sample_mean,
    strongly_convex_step,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays


def test_unclipped_mean_is_running_sample_mean():
    # eta_t = 1/t from x_1 = 0 with Gamma = inf reproduces the running mean exactly
    rng = np.random.default_rng(0)
    X = rng.standard_t(2.5, size=(500, 4)) + 2.0
    opt = PlainSGD(4)
    for t, x in enumerate(X, start=1):
        opt.step(opt.x_ - x)
        np.testing.assert_allclose(opt.x_, X[:t].mean(axis=0), rtol=0, atol=1e-12)
    est = StreamingMean(clip=None).fit(X)
    np.testing.assert_allclose(est.mean_, X.mean(axis=0), atol=1e-12)
    assert est.n_clipped_ == 0


def test_clipped_sgd_matches_naive_loop():
    rng = np.random.default_rng(1)
    d, T, gamma = 3, 200, 1.5
    G = rng.standard_t(2.1, size=(T, d)) * 3
    opt = ClippedSGD(d, mu=0.5, L=2.0, clip=gamma, projection=("ball", 5.0), x0=np.ones(d))
    x = np.ones(d)
    n_clipped, avg = 0, np.zeros(d)
    for t in range(1, T + 1):
        g = G[t - 1] + x  # gradient of ||x||^2/2 plus heavy-tailed noise
        opt.step(opt.x_ + G[t - 1])
        nrm = np.sqrt(sum(v * v for v in g))
        if nrm > gamma:
            g = g * gamma / nrm
            n_clipped += 1
        eta = 1.0 / (0.5 * (t + 2.0 / 0.5 - 1))  # t0 = kappa - 1
        x = x - eta * g
        r = np.sqrt(sum(v * v for v in x))
        if r > 5.0:
            x = x * 5.0 / r
        avg = avg + (x - avg) / t
        np.testing.assert_allclose(opt.x_, x, atol=1e-12)
    np.testing.assert_allclose(opt.x_avg_, avg, atol=1e-12)
    assert opt.n_clipped_ == n_clipped > 0


def test_batched_chains_match_single_chains():
    rng = np.random.default_rng(2)
    G = rng.standard_t(2.5, size=(50, 3, 4))
    many = ClippedSGD(4, clip=1.0, x0=np.zeros((3, 4)))
    singles = [ClippedSGD(4, clip=1.0) for _ in range(3)]
    for g in G:
        many.step(many.x_ - g)
        for i, s in enumerate(singles):
            s.step(s.x_ - g[i])
    np.testing.assert_allclose(many.x_, np.stack([s.x_ for s in singles]), atol=1e-12)
    assert many.n_clipped_.tolist() == [s.n_clipped_ for s in singles]


@settings(derandomize=True, deadline=None, max_examples=60)
@given(
    arrays(np.float64, (5, 3), elements=st.floats(-1e6, 1e6)),
    st.floats(1e-3, 1e3),
)
def test_clip_never_increases_norm_and_is_identity_inside(v, level):
    out, was = clip_norm(v, level)
    n_in, n_out = np.linalg.norm(v, axis=1), np.linalg.norm(out, axis=1)
    assert np.all(n_out <= np.maximum(n_in, 0) + 1e-9 * (1 + n_in))
    assert np.all(n_out <= level * (1 + 1e-12) + 1e-300)
    np.testing.assert_array_equal(out[~was], v[~was])
    # direction preserved
    assert np.all(np.einsum("ij,ij->i", out, v) >= -1e-9)


def test_project_ball_and_schedules():
    np.testing.assert_allclose(
        project_ball(np.array([0.0, 2.0]), 1.0, center=[0.0, 5.0]), [0.0, 4.0]
    )
    assert strongly_convex_step(1, mu=0.1, L=1.0) == pytest.approx(1.0)  # eta_1 = 1/L
    assert strongly_convex_step(1000, mu=0.1, L=1.0) == pytest.approx(1 / (0.1 * 1009))
    # Gamma = sqrt(T Tr / ln(ln T / delta)), floored at 2 ||grad F(x_1)||
    assert clip_level(4.0, 100, delta=0.01) == pytest.approx(
        np.sqrt(400 / np.log(np.log(100) / 0.01))
    )
    assert clip_level(4.0, 100, delta=0.01, grad_norm_init=50.0) == 100.0


def test_median_of_means_reference():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((2, 103, 3))
    k = 10
    naive = np.stack(
        [np.median(np.stack([b.mean(0) for b in np.split(x[3:], k)]), axis=0) for x in X]
    )
    np.testing.assert_allclose(median_of_means(X, n_blocks=k), naive, atol=1e-12)
    np.testing.assert_allclose(sample_mean(X), X.mean(axis=1))
    assert median_of_means(X[0], n_blocks=1) == pytest.approx(X[0].mean(axis=0))


def test_geometric_median_minimises_sum_of_distances():
    rng = np.random.default_rng(4)
    Z = rng.standard_t(1.5, size=(25, 4))
    z = geometric_median(Z)
    f = lambda y: np.linalg.norm(Z - y, axis=1).sum()  # noqa: E731
    for _ in range(200):
        assert f(z) <= f(z + 1e-3 * rng.standard_normal(4)) + 1e-9
    X = np.zeros((40, 2))
    X[:3] = 1e8  # corrupt fewer than half the blocks
    np.testing.assert_allclose(geometric_median_of_means(X, n_blocks=10), 0.0, atol=1e-6)


def test_linear_regression_unclipped_matches_naive_sgd():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((300, 2))
    y = A @ [1.0, 2.0] + rng.standard_normal(300)
    est = StreamingLinearRegression(clip=None, mu=0.5, L=2.0, fit_intercept=False).fit(A, y)
    w = np.zeros(2)
    for t, (a, b) in enumerate(zip(A, y), start=1):
        w = w - (1 / (0.5 * (t + 3.0))) * a * (a @ w - b)
    np.testing.assert_allclose(est.coef_, w, atol=1e-10)


def test_partial_fit_equals_fit_with_numeric_parameters():
    rng = np.random.default_rng(6)
    X = rng.standard_t(3, size=(400, 3))
    a = StreamingMean(clip=2.0).fit(X)
    b = StreamingMean(clip=2.0)
    for chunk in np.array_split(X, 7):
        b.partial_fit(chunk)
    np.testing.assert_allclose(a.mean_, b.mean_, atol=1e-12)
    assert a.n_clipped_ == b.n_clipped_ > 0


def test_minibatch_step_uses_batch_mean():
    X = np.arange(12.0).reshape(6, 2)
    est = StreamingMean(clip=None, batch_size=3).fit(X)
    np.testing.assert_allclose(est.mean_, X.mean(axis=0))  # eta = 1/t over batch means
    assert est.t_ == 2


@pytest.mark.parametrize("clip", [0.5, 3.0, "auto", None])
@pytest.mark.parametrize("batch_size", [1, 3])
def test_streaming_mean_fast_path_matches_step_by_step(clip, batch_size):
    # The estimator's vectorised path against the plain ClippedSGD loop (the reference update).
    rng = np.random.default_rng(7)
    X = rng.standard_t(2.2, size=(700, 3)) * 2 + 1
    est = StreamingMean(clip=clip, batch_size=batch_size, average=True).fit(X)
    level = None if clip is None else (est.clip_level_ if clip == "auto" else clip)
    opt = ClippedSGD(3, clip=level)
    for i in range(0, 700, batch_size):
        opt.step(opt.x_ - X[i : i + batch_size].mean(axis=0))
    np.testing.assert_allclose(est.mean_, opt.x_avg_, rtol=0, atol=1e-10)
    est_last = StreamingMean(clip=clip, batch_size=batch_size).fit(X)
    np.testing.assert_allclose(est_last.mean_, opt.x_, rtol=0, atol=1e-10)
    assert est.n_clipped_ == opt.n_clipped_ and est.t_ == opt.t_
    if clip == 0.5:
        assert est.n_clipped_ > 100  # the path with many clipping events is exercised


def test_streaming_mean_anytime_level_matches_reference():
    rng = np.random.default_rng(8)
    X = rng.standard_t(2.2, size=(500, 2))
    est = StreamingMean()  # horizon=None: anytime Gamma_t
    est.partial_fit(X[:50])
    est.partial_fit(X[50:])
    opt = ClippedSGD(2, clip=est._opt.clip)  # the same schedule t -> Gamma_t
    for x in X:
        opt.step(opt.x_ - x)
    np.testing.assert_allclose(est.mean_, opt.x_, atol=1e-10)
    assert est.n_clipped_ == opt.n_clipped_


@pytest.mark.parametrize("clip", [0.7, "auto"])
@pytest.mark.parametrize("batch_size", [1, 4])
def test_regression_estimators_match_clipped_sgd_loop(clip, batch_size):
    from clipped_sgd import StreamingLogisticRegression

    rng = np.random.default_rng(9)
    A = rng.standard_t(3.0, size=(400, 3))
    y = A @ [1.0, -1.0, 0.5] + rng.standard_t(2.5, size=400)
    s = np.where(y > 0, 1.0, -1.0)
    for est, target, grad in (
        (
            StreamingLinearRegression(clip=clip, batch_size=batch_size),
            y,
            lambda w, a, b: a.T @ (a @ w - b) / len(b),
        ),
        (
            StreamingLogisticRegression(clip=clip, batch_size=batch_size),
            s,
            lambda w, a, b: -(a.T @ (b / (1 + np.exp(b * (a @ w))))) / len(b),
        ),
    ):
        est.fit(A, target)
        Ab = np.hstack([A, np.ones((400, 1))])
        opt = ClippedSGD(4, mu=est.mu_, L=est.L_, clip=est.clip_level_)
        for i in range(0, 400, batch_size):
            opt.step(grad(opt.x_, Ab[i : i + batch_size], target[i : i + batch_size]))
        np.testing.assert_allclose(np.r_[np.ravel(est.coef_), est.intercept_], opt.x_, atol=1e-10)
        assert est.n_clipped_ == opt.n_clipped_ > 0


def test_partial_fit_one_row_per_call_buffers_the_pilot():
    # Regression: clip="auto" used to raise on a first partial_fit call with a single row, so the
    # plain streaming loop `for x in stream: est.partial_fit(x[None])` failed. Rows are now
    # buffered until the pilot has 2 (d + 1) rows; the result equals feeding those rows at once.
    rng = np.random.default_rng(11)
    X = 2.0 + rng.standard_t(2.5, size=(300, 3))
    rows = StreamingMean()
    for i, x in enumerate(X):
        rows.partial_fit(x[None])
        if i < 7:  # 2 (d + 1) = 8 rows are needed: nothing happens before
            assert rows.t_ == 0 and np.all(rows.mean_ == 0.0)
    ref = StreamingMean().partial_fit(X[:8])
    for x in X[8:]:
        ref.partial_fit(x[None])
    np.testing.assert_allclose(rows.mean_, ref.mean_, atol=1e-12)
    assert rows.t_ == ref.t_ == 300 and rows.n_clipped_ == ref.n_clipped_
    assert np.linalg.norm(rows.mean_ - 2.0) < 0.5

    A = rng.standard_normal((400, 2))
    y = A @ [1.0, -1.0] + 0.5 + rng.standard_t(2.5, size=400)
    reg = StreamingLinearRegression()
    for i in range(400):
        reg.partial_fit(A[i : i + 1], y[i : i + 1])
    ref = StreamingLinearRegression().partial_fit(A[:8], y[:8])  # p = 3 with the intercept
    ref.partial_fit(A[8:], y[8:])
    np.testing.assert_allclose(reg.coef_, ref.coef_, atol=1e-10)
    assert np.linalg.norm(reg.coef_ - [1.0, -1.0]) < 0.5

    s = (A @ [2.0, -1.0] + rng.logistic(size=400) > 0).astype(int)
    clf = StreamingLogisticRegression()
    clf.partial_fit(A[:1], s[:1], classes=[0, 1])  # classes given once, on the first call
    for i in range(1, 400):
        clf.partial_fit(A[i : i + 1], s[i : i + 1])
    ref = StreamingLogisticRegression().partial_fit(A[:8], s[:8], classes=[0, 1])
    ref.partial_fit(A[8:], s[8:])
    np.testing.assert_allclose(clf.coef_, ref.coef_, atol=1e-10)
    assert clf.t_ == 400
    with pytest.raises(ValueError, match="features"):  # buffered calls still check the width
        StreamingMean().partial_fit(X[:1]).partial_fit(X[:1, :2])

"""Objectives, scores and likelihoods against independent naive implementations."""

import numpy as np
import pytest
from scipy.integrate import quad
from wsm_tpp import (
    ExpHawkes,
    GaussHawkes,
    InhomogeneousPoisson,
    log_likelihood,
    objective,
    simulate_hawkes,
    simulate_poisson,
)
from wsm_tpp._data import prepare
from wsm_tpp._naive import naive_awsm as _naive_awsm
from wsm_tpp.objectives import make_noise, objective_and_grad

MU, A, BETA = np.array([0.3, 0.4]), np.array([[0.3, 0.2], [0.1, 0.4]]), 2.0


def _biv_seqs(n=4, T=15.0):
    return [simulate_hawkes(MU, A, BETA, T, rng=i) for i in range(n)], T


@pytest.mark.parametrize("kind", ["two_sided_min", "two_sided_product", "none"])
def test_awsm_matches_naive_bivariate(kind):
    seqs, T = _biv_seqs()
    model = ExpHawkes(2, beta=BETA, mu=MU * 1.2, A=A * 0.8)
    method = "asm" if kind == "none" else "awsm"
    ours = objective(
        model, seqs, method=method, T=T, weight=kind if kind != "none" else "two_sided_min"
    )
    ref = _naive_awsm(model, seqs, T, kind)
    assert ours == pytest.approx(ref, rel=1e-5, abs=1e-6)


def test_score_terms_match_finite_differences():
    times, marks = simulate_hawkes(0.5, 0.8, 2.0, 30.0, rng=3)
    m = ExpHawkes(1, beta=2.0, mu=[0.6], A=[[0.5]])
    psi, dpsi = m.score_terms((times, marks), T=30.0)
    for n in [0, 5, len(times) - 1]:
        hist = (times[:n], marks[:n])
        d = 1e-5

        def f(s, hist=hist, d=d):
            lam = m.intensity([s], hist)[0, 0]
            dl = (m.intensity([s + d], hist)[0, 0] - m.intensity([s - d], hist)[0, 0]) / (2 * d)
            return dl / lam - lam

        assert psi[n] == pytest.approx(f(times[n]), rel=1e-6, abs=1e-8)
        assert dpsi[n] == pytest.approx(
            (f(times[n] + 1e-4) - f(times[n] - 1e-4)) / 2e-4, rel=1e-4, abs=1e-6
        )


def _naive_loglik(m, seqs, T):
    """Log-likelihood by definition: sum of log intensities at the events minus the compensator
    by adaptive quadrature between consecutive events (history frozen on each piece)."""
    ref = 0.0
    for times, marks in seqs:
        edges = np.concatenate([[0.0], times, [T]])
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            ref -= quad(
                lambda s, a=a, times=times, marks=marks: m.intensity(
                    [s], (times[times <= a], marks[times <= a])
                ).sum(),
                a,
                b,
            )[0]
        for n, (t, k) in enumerate(zip(times, marks, strict=True)):
            ref += np.log(m.intensity([t], (times[:n], marks[:n]))[0, k])
    return ref


def test_hawkes_loglik_matches_numerical_integration():
    seqs, T = _biv_seqs(n=3)
    m = ExpHawkes(2, beta=BETA, mu=MU, A=A)
    ref = _naive_loglik(m, seqs, T)
    assert log_likelihood(m, seqs, T=T, per_event=False) == pytest.approx(ref, rel=1e-8)


def test_poisson_loglik_quadrature_matches_closed_form():
    # log lambda(t) = w0 + w1 t: int_0^T = e^w0 (e^{w1 T} - 1) / w1
    w = np.array([0.2, 0.1])
    seq = simulate_poisson(lambda t: np.exp(w[0] + w[1] * t), 8.0, rng=0)
    m = InhomogeneousPoisson(1, weights=w)
    exact = (w[0] + w[1] * seq[0]).sum() - np.exp(w[0]) * (np.exp(w[1] * 8.0) - 1) / w[1]
    assert log_likelihood(m, [seq], T=8.0, per_event=False) == pytest.approx(exact, rel=1e-10)


CASES = [
    ("hawkes-fixed-beta", lambda: ExpHawkes(2, beta=BETA, mu=MU * 1.2, A=A * 0.8)),
    ("hawkes-free-beta", lambda: ExpHawkes(2, mu=MU * 1.2, A=A * 0.8)),
    ("gauss-hawkes", lambda: GaussHawkes(2, m=0.7, sigma=0.4, mu=MU * 1.2, A=A * 0.8)),
    ("poisson-quadratic", lambda: InhomogeneousPoisson(2, scale=10.0, weights=[-0.5, 0.3, -0.2])),
]


@pytest.mark.parametrize("method", ["awsm", "asm", "dsm", "mle"])
@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(name, make, method):
    model = make()
    seqs, T = _biv_seqs(n=3)
    if isinstance(model, InhomogeneousPoisson):
        seqs = [(t, np.zeros_like(k)) for t, k in seqs]
    ev = prepare(seqs, T, model.K)
    noise = make_noise(ev, 0.1, 2, 0) if method == "dsm" else None
    theta = model._theta()
    _, g = objective_and_grad(model, theta, ev, method, noise=noise)
    fd = np.zeros_like(theta)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = 1e-6
        fd[i] = (
            objective_and_grad(model, theta + e, ev, method, noise=noise)[0]
            - objective_and_grad(model, theta - e, ev, method, noise=noise)[0]
        ) / 2e-6
    np.testing.assert_allclose(g, fd, rtol=1e-4, atol=1e-6)


def test_gauss_hawkes_awsm_and_loglik_match_naive():
    seqs, T = _biv_seqs(n=3)
    m = GaussHawkes(2, m=0.7, sigma=0.4, mu=MU * 1.2, A=A * 0.8)
    assert objective(m, seqs, method="awsm", T=T) == pytest.approx(
        _naive_awsm(m, seqs, T, "two_sided_min"), rel=1e-5
    )
    ref = _naive_loglik(m, seqs, T)
    assert log_likelihood(m, seqs, T=T, per_event=False) == pytest.approx(ref, rel=1e-7)

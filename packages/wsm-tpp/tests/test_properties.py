"""Properties: weights vanish on the boundary and h' is h's derivative; other models and options."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wsm_tpp import (
    ExpHawkes,
    InhomogeneousPoisson,
    fit,
    log_likelihood,
    simulate_hawkes,
    simulate_poisson,
    type_accuracy,
    weight,
)


@settings(derandomize=True, deadline=None, max_examples=60)
@given(
    tprev=st.floats(0, 10),
    gap=st.floats(0.01, 10),
    frac=st.floats(0.01, 0.99),
    kind=st.sampled_from(["two_sided_min", "two_sided_product", "one_sided"]),
)
def test_weight_vanishes_at_tprev_and_dh_is_derivative(tprev, gap, frac, kind):
    T = tprev + gap
    t = tprev + frac * gap
    h0, _ = weight(np.array([tprev]), np.array([tprev]), T, kind=kind)
    assert h0[0] == 0.0
    if kind != "one_sided":
        assert weight(np.array([T]), np.array([tprev]), T, kind=kind)[0][0] == 0.0
    h, dh = weight(np.array([t]), np.array([tprev]), T, kind=kind)
    assert h[0] >= 0
    d = 1e-6 * gap
    if kind != "two_sided_min" or abs(frac - 0.5) > 1e-3:  # min has a kink at the midpoint
        fd = (
            weight(np.array([t + d]), np.array([tprev]), T, kind=kind)[0]
            - weight(np.array([t - d]), np.array([tprev]), T, kind=kind)[0]
        ) / (2 * d)
        assert dh[0] == pytest.approx(fd[0], rel=1e-5, abs=1e-5)


def test_inhomogeneous_poisson_awsm_recovers_log_linear_rate():
    w, T, S = np.array([0.5, 0.08]), 10.0, 300  # lambda(t) = exp(0.5 + 0.08 t)
    seqs = [simulate_poisson(lambda t: np.exp(w[0] + w[1] * t), T, rng=i) for i in range(S)]
    mle = fit(seqs, method="mle", model=InhomogeneousPoisson(1), T=T).params["weights"]
    awsm = fit(seqs, method="awsm", model=InhomogeneousPoisson(1), T=T).params["weights"]
    # MLE: s.e. from the Fisher information S * int lambda phi phi^T dt
    x, q = np.polynomial.legendre.leggauss(64)
    t = (x + 1) * T / 2
    phi = np.stack([np.ones_like(t), t], 1)
    fisher = S * np.einsum("q,qi,qj->ij", q * T / 2 * np.exp(phi @ w), phi, phi)
    se_mle = np.sqrt(np.diag(np.linalg.inv(fisher)))
    assert np.all(np.abs(mle - w) < 4 * se_mle)
    # AWSM: s.e. from 5 disjoint folds (t_4 99.9% quantile ~ 8.6)
    folds = np.array(
        [
            fit(seqs[f::5], method="awsm", model=InhomogeneousPoisson(1), T=T).params["weights"]
            for f in range(5)
        ]
    )
    se_awsm = folds.std(0, ddof=1) / np.sqrt(5)
    assert np.all(np.abs(awsm - w) < 8.6 * se_awsm)


def test_free_beta_mle_and_awsm_recover_beta():
    seqs = [simulate_hawkes(0.5, 0.8, 2.0, 50.0, rng=500 + i) for i in range(150)]
    for method in ("mle", "awsm"):
        res = fit(seqs, method=method, T=50.0)  # default model: ExpHawkes(K=1) with beta learned
        assert res.params["beta"] == pytest.approx(2.0, rel=0.15)
        assert res.params["A"][0, 0] == pytest.approx(0.8, abs=0.08)
        assert res.trace and res.trace[-1] == pytest.approx(res.objective, rel=1e-8, abs=1e-10)


def test_type_accuracy_and_tll_prefer_true_model():
    mu, A = np.array([0.3, 0.4]), np.array([[0.6, 0.0], [0.0, 0.6]])
    seqs = [simulate_hawkes(mu, A, 2.0, 30.0, rng=i) for i in range(60)]
    true = ExpHawkes(2, beta=2.0, mu=mu, A=A)
    wrong = ExpHawkes(2, beta=2.0, mu=mu[::-1], A=A[::-1])
    assert type_accuracy(true, seqs, T=30.0) > type_accuracy(wrong, seqs, T=30.0)
    assert log_likelihood(true, seqs, T=30.0) > log_likelihood(wrong, seqs, T=30.0)
    # mark-blind baseline: always predict the most frequent mark
    marks = np.concatenate([k for _, k in seqs])
    assert type_accuracy(true, seqs, T=30.0) > np.bincount(marks).max() / marks.size


def test_fit_does_not_modify_input_model_and_accepts_bare_arrays():
    m = ExpHawkes(1, beta=2.0, mu=[1.0], A=[[0.1]])
    seqs = [simulate_hawkes(0.5, 0.8, 2.0, 30.0, rng=i)[0] for i in range(20)]  # bare time arrays
    res = fit(seqs, method="awsm", model=m, T=30.0)
    assert m.mu[0] == 1.0 and res.model is not m and res.method == "awsm"

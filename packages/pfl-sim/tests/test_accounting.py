"""Accountants against closed forms and independent numerical integrals (no dp-accounting here;
tests/test_dp_accounting.py compares with it directly)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pfl_sim import RDP_ORDERS, compute_epsilon, compute_noise_multiplier, compute_rdp
from scipy import integrate, optimize
from scipy.stats import norm


def gaussian_delta(eps, mu):
    """Exact privacy curve of a Gaussian mechanism with mu = sqrt(T) / sigma (Dong et al.)."""
    return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)


def exact_gaussian_epsilon(sigma, steps, delta):
    mu = math.sqrt(steps) / sigma
    return optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, 200.0, xtol=1e-12)


@pytest.mark.parametrize(("sigma", "steps", "delta"), [(1.0, 4, 1e-5), (3.0, 50, 1e-6)])
@pytest.mark.parametrize("accountant", ["pld", "prv"])
def test_pld_matches_composed_gaussian_closed_form(sigma, steps, delta, accountant):
    exact = exact_gaussian_epsilon(sigma, steps, delta)
    eps = compute_epsilon(sigma, sampling_prob=1.0, steps=steps, delta=delta, accountant=accountant)
    assert eps == pytest.approx(exact, rel=2e-3)
    if accountant == "pld":  # a pessimistic estimate never undercounts (beyond float noise)
        assert eps >= exact * (1 - 1e-9)


def single_step_delta(eps, sigma, q):
    """Exact hockey-stick divergence of one Poisson-subsampled Gaussian, max over add/remove."""
    x = sigma**2 * math.log((math.exp(eps) - (1 - q)) / q) + 0.5  # remove: loss > eps <=> z > x
    remove = (1 - q) * norm.sf(x / sigma) + q * norm.sf((x - 1) / sigma)
    remove -= math.exp(eps) * norm.sf(x / sigma)
    add = 0.0
    if math.exp(-eps) > 1 - q:  # add: loss > eps <=> z < x'
        xa = sigma**2 * math.log((math.exp(-eps) - (1 - q)) / q) + 0.5
        add = norm.cdf(xa / sigma) - math.exp(eps) * (
            (1 - q) * norm.cdf(xa / sigma) + q * norm.cdf((xa - 1) / sigma)
        )
    return max(remove, add)


@pytest.mark.parametrize(("sigma", "q"), [(0.7, 0.2), (1.5, 0.05)])
def test_subsampled_single_step_matches_closed_form(sigma, q):
    delta = 1e-4
    exact = optimize.brentq(lambda e: single_step_delta(e, sigma, q) - delta, 1e-9, 50.0)
    eps = compute_epsilon(sigma, sampling_prob=q, steps=1, delta=delta)
    assert eps == pytest.approx(exact, rel=5e-3)
    assert eps >= exact * (1 - 1e-9)


def rdp_by_quadrature(q, sigma, alpha):
    """log E_{z ~ N(0, s^2)} [((1 - q) + q exp((2z - 1) / (2 s^2)))^alpha] / (alpha - 1)."""

    def f(z):
        return (
            norm.pdf(z, scale=sigma)
            * ((1 - q) + q * math.exp((2 * z - 1) / (2 * sigma**2))) ** alpha
        )

    val, _ = integrate.quad(f, -12 * sigma, 12 * sigma + alpha, limit=400, epsabs=0, epsrel=1e-12)
    return math.log(val) / (alpha - 1)


@pytest.mark.parametrize("alpha", [2.0, 3.5, 8.0, 1.7])
def test_subsampled_rdp_matches_quadrature(alpha):
    q, sigma = 0.05, 1.2
    ours = compute_rdp(sigma, sampling_prob=q, orders=[alpha])[0]
    exact = rdp_by_quadrature(q, sigma, alpha)
    if alpha.is_integer():  # the binomial expansion is exact
        assert ours == pytest.approx(exact, rel=1e-7)
    else:  # Mironov et al.'s fractional series (dp-accounting's) is a valid upper bound,
        # measurably loose near alpha = 1 (+8.6% at 1.7, +0.08% at 3.5 here)
        assert exact <= ours <= exact * 1.1


def test_rdp_epsilon_closed_form_without_subsampling():
    sigma, steps, delta = 2.0, 10, 1e-5
    a = np.asarray(RDP_ORDERS)
    r = steps * a / (2 * sigma**2)
    expected = np.min(r + np.log1p(-1 / a) - np.log(delta * a) / (a - 1))
    eps = compute_epsilon(sigma, sampling_prob=1.0, steps=steps, delta=delta, accountant="rdp")
    assert eps == pytest.approx(expected, rel=1e-12)


def test_orders_are_dp_accountings_defaults():
    assert len(RDP_ORDERS) == 99 + 53 + 4
    assert RDP_ORDERS[0] == pytest.approx(1.1) and RDP_ORDERS[-1] == 1024


def test_pld_tighter_than_rdp_and_prv_close_to_pld():
    kw = {"sampling_prob": 0.02, "steps": 200, "delta": 1e-6}
    pld = compute_epsilon(1.0, **kw)
    assert pld < compute_epsilon(1.0, accountant="rdp", **kw)
    assert compute_epsilon(1.0, accountant="prv", **kw) == pytest.approx(pld, rel=1e-2)
    assert compute_epsilon(1.3, **kw) < pld  # more noise, less epsilon


def test_noise_multiplier_is_the_smallest_to_a_tenth_of_a_percent():
    kw = {"sampling_prob": 0.05, "steps": 8, "delta": 1e-5, "discretization": 1e-3}
    sigma = compute_noise_multiplier(2.0, **kw)
    assert compute_epsilon(sigma, **kw) <= 2.0
    assert compute_epsilon(sigma / 1.001, **kw) > 2.0
    kw.pop("discretization")
    sigma_rdp = compute_noise_multiplier(2.0, accountant="rdp", **kw)
    assert compute_epsilon(sigma_rdp, accountant="rdp", **kw) <= 2.0
    assert compute_epsilon(sigma_rdp / 1.001, accountant="rdp", **kw) > 2.0
    assert sigma < sigma_rdp  # the tighter accountant needs less noise


def test_doctest_value_single_gaussian():
    assert compute_epsilon(1.0, sampling_prob=1.0, steps=1, delta=1e-5) == pytest.approx(
        exact_gaussian_epsilon(1.0, 1, 1e-5), rel=1e-3
    )

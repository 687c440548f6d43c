"""Our PLD and RDP against direct dp-accounting calls (the reference pfl itself uses).

dp-accounting is an unlocked peer (it pins attrs < 24): `nox -s tests_extras` installs it."""

from __future__ import annotations

import pytest
from pfl_sim import RDP_ORDERS, compute_epsilon, compute_noise_multiplier

dp_accounting = pytest.importorskip("dp_accounting")

CASES = [
    (1.0, 0.01, 1000, 1e-6),
    (0.8, 0.05, 200, 1e-5),
    (2.0, 0.001, 500, 1e-6),
    (1.0, 1.0, 10, 1e-5),
]


def reference(sigma, q, steps, delta, kind):
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )
    if kind == "pld":
        acc = dp_accounting.pld.PLDAccountant()
    else:
        acc = dp_accounting.rdp.RdpAccountant(list(RDP_ORDERS))
    return acc.compose(event).get_epsilon(delta)


@pytest.mark.parametrize(("sigma", "q", "steps", "delta"), CASES)
def test_pld_within_1e6_of_dp_accounting(sigma, q, steps, delta):
    ours = compute_epsilon(sigma, sampling_prob=q, steps=steps, delta=delta)
    assert ours == pytest.approx(reference(sigma, q, steps, delta, "pld"), rel=1e-6)


@pytest.mark.parametrize(("sigma", "q", "steps", "delta"), CASES)
def test_rdp_equals_dp_accounting(sigma, q, steps, delta):
    ours = compute_epsilon(sigma, sampling_prob=q, steps=steps, delta=delta, accountant="rdp")
    assert ours == pytest.approx(reference(sigma, q, steps, delta, "rdp"), rel=1e-9)


def test_default_rdp_orders_are_dp_accountings():
    acc = dp_accounting.rdp.RdpAccountant()
    assert list(acc._orders) == pytest.approx(list(RDP_ORDERS))


def test_prv_within_1_percent_of_dp_accounting_pld():
    sigma, q, steps, delta = CASES[0]
    ours = compute_epsilon(sigma, sampling_prob=q, steps=steps, delta=delta, accountant="prv")
    assert ours == pytest.approx(reference(sigma, q, steps, delta, "pld"), rel=1e-2)


def test_noise_multiplier_meets_dp_accountings_budget():
    sigma = compute_noise_multiplier(2.0, sampling_prob=0.01, steps=1000, delta=1e-6)
    assert reference(sigma, 0.01, 1000, 1e-6, "pld") <= 2.0 * (1 + 1e-6)
    assert reference(0.99 * sigma, 0.01, 1000, 1e-6, "pld") > 2.0

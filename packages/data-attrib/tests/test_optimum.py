"""fit_to_optimum: reaches the minimiser, reports the true gradient norm, fits in place."""

from __future__ import annotations

import data_attrib as da
import pytest
import torch
from _lr import LAM, ce_loss, make_data, make_model, penalty


def _quadratic(seed=0, n=6, cond=1e3):
    g = torch.Generator().manual_seed(seed)
    Q, _ = torch.linalg.qr(torch.randn(n, n, generator=g, dtype=torch.float64))
    A = Q @ torch.diag(torch.logspace(0, torch.log10(torch.tensor(cond)).item(), n).double()) @ Q.T
    c = torch.randn(n, generator=g, dtype=torch.float64)
    return A, c


def test_quadratic_reaches_the_minimiser_and_reports_its_gradient():
    A, c = _quadratic()
    x = torch.zeros(6, dtype=torch.float64, requires_grad=True)
    fit = da.fit_to_optimum(x, lambda: 0.5 * (x - c) @ A @ (x - c))
    assert isinstance(fit, da.OptimumFit)
    assert torch.allclose(x.detach(), c, atol=1e-8)
    assert fit.grad_norm == pytest.approx(float((A @ (x.detach() - c)).norm()), rel=1e-6, abs=1e-14)
    assert fit.grad_norm < 1e-6  # tolerance_change stops it once the loss is ~1e-16
    assert fit.loss == pytest.approx(0.0, abs=1e-14)
    assert x.grad is None  # no stale gradient left on the parameters


def test_an_early_stop_reports_the_gradient_it_stopped_at():
    A, c = _quadratic(cond=1e6)
    x = torch.zeros(6, dtype=torch.float64, requires_grad=True)
    fit = da.fit_to_optimum(x, lambda: 0.5 * (x - c) @ A @ (x - c), max_iter=1)
    true = float((A @ (x.detach() - c)).norm())
    assert true > 1e-3  # one iteration is not an optimum ...
    assert fit.grad_norm == pytest.approx(true, rel=1e-9)  # ... and the fit says so
    more = da.fit_to_optimum(x, lambda: 0.5 * (x - c) @ A @ (x - c), max_iter=1, rounds=200)
    assert more.grad_norm < fit.grad_norm


def test_a_module_fit_is_a_stationary_point_of_the_objective_influence_functions_invert():
    (X, Y), _ = make_data()
    model = make_model()
    fit = da.fit_to_optimum(
        model,
        lambda: (
            torch.nn.functional.cross_entropy(model(X), Y) + penalty(dict(model.named_parameters()))
        ),
        max_iter=100,
        rounds=3,
    )
    task = da.AttributionTask(ce_loss(model), model)
    # mean per-example gradient + λθ: the gradient of the objective that IF(regularization=λ) uses
    full = task.per_sample_grads((X, Y)).mean(0) + LAM * task.flat_params()
    assert float(full.norm()) < 1e-6
    assert fit.grad_norm == pytest.approx(float(full.norm()), rel=1e-6)


def test_a_list_of_tensors_is_fitted_together():
    a = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    b = torch.zeros((), dtype=torch.float64, requires_grad=True)
    fit = da.fit_to_optimum([a, b], lambda: ((a - 2.0) ** 2).sum() + (a.sum() + b) ** 2)
    assert torch.allclose(a.detach(), torch.tensor([2.0, 2.0], dtype=torch.float64), atol=1e-8)
    assert float(b.detach()) == pytest.approx(-4.0, abs=1e-7)
    assert fit.grad_norm < 1e-6


def test_a_diverging_objective_is_a_value_error():
    x = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    with pytest.raises(ValueError, match="objective"):
        da.fit_to_optimum(x, lambda: torch.log(x.sum() - 1.0).sum(), max_iter=2)

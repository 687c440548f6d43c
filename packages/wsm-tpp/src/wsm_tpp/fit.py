"""``fit``: estimate a parametric point process by AWSM, ASM, DSM or MLE with L-BFGS-B.

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
(Sec. 5-6: AWSM versus the (A)SM, DSM and MLE baselines).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from ._checks import check_float, check_int
from ._data import check_model, prepare
from .models import ExpHawkes
from .objectives import check_options, make_noise, objective_and_grad


@dataclass(frozen=True)
class FitResult:
    """Result of :func:`fit`.

    Attributes:
        model: the fitted model (a copy; the input model is not modified).
        params: the fitted parameters (``{"mu", "A", "beta"}`` for ExpHawkes).
        method: the estimator used.
        objective: final objective value (mean per event).
        trace: objective value after each L-BFGS-B iteration.
        n_iter: iterations.
        success: optimizer convergence flag.
        message: optimizer message.
    """

    model: object
    params: dict
    method: str
    objective: float
    trace: list = field(default_factory=list)
    n_iter: int = 0
    success: bool = True
    message: str = ""


def fit(
    seqs,
    *,
    method: str = "awsm",
    weight: str = "two_sided_min",  # the original code's default "two_side_op"
    mark_coef: float = 1.0,  # gamma = 1: conditional likelihood of the mark
    T=None,
    model=None,
    sigma: float = 0.1,
    n_noise: int = 4,
    rng=None,
    maxiter: int = 1000,
    tol: float = 1e-10,
) -> FitResult:
    """Fit a point-process model to event sequences.

    Args:
        seqs: list of ``(times (N,), marks (N,))`` pairs (or bare 1-D time arrays).
        method: ``"awsm"`` (autoregressive weighted score matching, the paper's estimator),
            ``"asm"`` (unweighted autoregressive score matching, h = 1), ``"dsm"`` (denoising score
            matching) or ``"mle"`` (maximum likelihood; exact compensator for ExpHawkes,
            Gauss-Legendre quadrature for InhomogeneousPoisson).
        weight: AWSM weight, ``"two_sided_min"`` | ``"two_sided_product"`` | ``"one_sided"`` | ``"none"``.
        mark_coef: coefficient >= 0 of the mark cross-entropy term (K > 1).
        T: observation horizon, scalar or (S,); default the largest event time. Pass the true
            window: AWSM's weight vanishes at T.
        model: an :class:`~wsm_tpp.ExpHawkes`, :class:`~wsm_tpp.GaussHawkes` or
            :class:`~wsm_tpp.InhomogeneousPoisson`; its current parameters (if set) are the
            starting point. Default: ``ExpHawkes(K)`` with K from the marks and beta learned.
        sigma: DSM noise standard deviation > 0.
        n_noise: DSM noise draws per event (an int >= 1, fixed during the optimisation).
        rng: ``numpy.random.Generator``, int seed >= 0 or None, for the DSM noise.
        maxiter, tol: L-BFGS-B settings (an int >= 1 and a finite number >= 0).

    Every option is checked whatever the method (a bad ``sigma`` is an error for AWSM too).

    Returns:
        :class:`FitResult`.

    >>> from wsm_tpp import simulate_hawkes
    >>> seqs = [simulate_hawkes(0.5, 0.8, 2.0, 50.0, rng=i) for i in range(20)]
    >>> res = fit(seqs, method="awsm", model=ExpHawkes(1, beta=2.0), T=50.0)
    >>> res.params["mu"].shape, res.params["A"].shape
    ((1,), (1, 1))
    """
    method, weight, mark_coef, sigma, n_noise, rng = check_options(
        method, weight, mark_coef, sigma, n_noise, rng
    )
    maxiter = check_int(maxiter, "maxiter", minimum=1)
    tol = check_float(tol, "tol", minimum=0.0)
    if model is not None:
        check_model(model)
    ev = prepare(seqs, T, None if model is None else model.K)
    model = ExpHawkes(ev.K) if model is None else model.copy()
    if any(v is None for v in model.params.values()):
        model._init_from(ev)
    noise = make_noise(ev, sigma, n_noise, rng) if method == "dsm" else None
    trace: list[float] = []

    def fun(theta):
        return objective_and_grad(
            model, theta, ev, method, weight=weight, mark_coef=mark_coef, noise=noise
        )

    def callback(theta):
        trace.append(fun(theta)[0])

    theta0 = model._theta()
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        res = minimize(
            fun,
            theta0,
            jac=True,
            method="L-BFGS-B",
            bounds=model._bounds(),
            callback=callback,
            options={"maxiter": int(maxiter), "ftol": tol, "gtol": 1e-9},
        )
    model._set_theta(res.x)
    return FitResult(
        model=model,
        params={
            k: (np.copy(v) if isinstance(v, np.ndarray) else v) for k, v in model.params.items()
        },
        method=method,
        objective=float(res.fun),
        trace=trace,
        n_iter=int(res.nit),
        success=bool(res.success),
        message=str(res.message),
    )

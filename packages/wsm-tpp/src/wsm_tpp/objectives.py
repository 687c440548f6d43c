"""Estimation objectives: AWSM (the paper's estimator), ASM, DSM and MLE, with exact gradients.

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
Sec. 4 (weighted score matching), Sec. 5 (autoregressive WSM, Eq. for l_n), Sec. 6 (baselines).

Per event n with conditional density p(t) = lambda(t) exp(-int_{t_{n-1}}^t lambda) on
(t_{n-1}, T), score psi = lambda'/lambda - lambda and dpsi = d psi / dt:

    AWSM:  l_n = 1/2 h psi^2 + h dpsi + h' psi       (h vanishes at t_{n-1} and T)
    ASM:   the same with h = 1, h' = 0               (incomplete: biased for Hawkes)
    DSM:   1/2 (psi(t_n + sigma eps) + eps / sigma)^2, eps ~ N(0, 1)
    MLE:   -log lambda_{k_n}(t_n) + compensator / M

Score-matching objectives add ``mark_coef * (log lambda(t_n) - log lambda_{k_n}(t_n))`` (the
conditional cross-entropy of the mark, zero when K = 1). All are means over the M events.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_float, check_int, check_option, check_rng
from ._data import Events, check_model, check_params_set, prepare
from .weights import WEIGHTS, _weight

METHODS = ("awsm", "asm", "dsm", "mle")


def _score_loss(loc, h, dh):
    """Per-event AWSM loss and its partials w.r.t. (L, L1, L2)."""
    L, L1, L2 = loc["L"], loc["L1"], loc["L2"]
    r = L1 / L
    psi = r - L
    dpsi = L2 / L - r**2 - L1
    ell = 0.5 * h * psi**2 + h * dpsi + dh * psi
    a = h * psi + dh  # d ell / d psi
    gL = a * (-r / L - 1.0) + h * (-L2 / L**2 + 2.0 * r**2 / L)
    gL1 = a / L + h * (-2.0 * r / L - 1.0)
    gL2 = h / L
    return ell, gL, gL1, gL2


def _get_cache(model, theta, ev: Events) -> dict:
    """The model's theta-independent cache, memoised on the events while beta is unchanged."""
    key = (id(model), None if model.fixed_beta else float(model._unpack(theta)[2]))
    memo = ev.__dict__.setdefault("_memo", {})
    if key not in memo:
        memo.clear()
        memo[key] = model._cache(theta, ev)
    return memo[key]


def _analytic(model, theta, ev: Events, method, weight, mark_coef, noise):
    cache = _get_cache(model, theta, ev)
    M = ev.M
    zeros = np.zeros(M)
    if method == "mle":
        loc = model._local(theta, ev, cache)
        comp, g_comp = model._compensator(theta, ev, cache)
        val = (-np.log(loc["Lk"]).sum() + comp) / M
        g = model._vjp(theta, ev, cache, loc, zeros, zeros, zeros, -1.0 / loc["Lk"]) + g_comp
        return val, g / M
    loc = model._local(theta, ev, cache)
    val = 0.0
    g = np.zeros(theta.shape[0])
    if method in ("awsm", "asm"):
        h, dh = _weight(ev.t, ev.tprev, ev.tend, "none" if method == "asm" else weight)
        ell, gL, gL1, gL2 = _score_loss(loc, h, dh)
        val += ell.sum()
    else:  # dsm: closed-form psi at perturbed times, one pass per noise draw
        sigma, eps = noise
        gL = zeros.copy()
        gL1 = gL2 = zeros
        for d in range(eps.shape[0]):
            locd = model._local(theta, ev, cache, shift=sigma * eps[d])
            Ld, L1d = locd["L"], locd["L1"]
            resid = L1d / Ld - Ld + eps[d] / sigma
            val += 0.5 * (resid**2).sum() / eps.shape[0]
            gd = resid / eps.shape[0]
            g = g + model._vjp(
                theta, ev, cache, locd, gd * (-L1d / Ld**2 - 1.0), gd / Ld, zeros, zeros
            )
    gLk = zeros
    if mark_coef and model.K > 1:
        val += mark_coef * (np.log(loc["L"]) - np.log(loc["Lk"])).sum()
        gL = gL + mark_coef / loc["L"]
        gLk = -mark_coef / loc["Lk"]
    g = g + model._vjp(theta, ev, cache, loc, gL, gL1, gL2, gLk)
    return val / M, g / M


def objective_and_grad(
    model, theta, ev: Events, method="awsm", *, weight="two_sided_min", mark_coef=1.0, noise=None
):
    """Objective (mean over events) and its gradient w.r.t. the model's unconstrained theta."""
    val, g = _analytic(model, theta, ev, method, weight, mark_coef, noise)
    for i in model._fd_indices():  # learned beta: central difference (recursion depends on it)
        step = 1e-5
        tp, tm = theta.copy(), theta.copy()
        tp[i] += step
        tm[i] -= step
        fp = _analytic(model, tp, ev, method, weight, mark_coef, noise)[0]
        fm = _analytic(model, tm, ev, method, weight, mark_coef, noise)[0]
        g[i] = (fp - fm) / (2 * step)
    return float(val), g


def check_options(
    method, weight, mark_coef, sigma, n_noise, rng
) -> tuple[str, str, float, float, int, np.random.Generator]:
    """The options shared by :func:`objective` and :func:`~wsm_tpp.fit`, all checked always
    (the DSM ones too, so a bad value is not silently ignored by the other methods)."""
    method = check_option(method, "method", METHODS)
    weight = check_option(weight, "weight", WEIGHTS)
    mark_coef = check_float(mark_coef, "mark_coef", minimum=0.0)
    sigma = check_float(sigma, "sigma", minimum=0.0, min_inclusive=False)
    n_noise = check_int(n_noise, "n_noise", minimum=1)
    return method, weight, mark_coef, sigma, n_noise, check_rng(rng)


def make_noise(ev: Events, sigma: float, n_noise: int, rng):
    """DSM noise draws ``(sigma, eps (n_noise, M))`` (other arguments checked by ``check_options``)."""
    return float(sigma), check_rng(rng).standard_normal((int(n_noise), ev.M))


def objective(
    model,
    seqs,
    *,
    method: str = "awsm",
    T=None,
    weight: str = "two_sided_min",
    mark_coef: float = 1.0,
    sigma: float = 0.1,
    n_noise: int = 4,
    rng=None,
) -> float:
    """Value of an estimation objective at the model's current parameters (mean per event).

    Args:
        model: an :class:`~wsm_tpp.ExpHawkes` or :class:`~wsm_tpp.InhomogeneousPoisson` with parameters set.
        seqs: list of ``(times, marks)``.
        method: ``"awsm"``, ``"asm"``, ``"dsm"`` or ``"mle"`` (negative log-likelihood per event).
        T: horizon, scalar or (S,); default the largest event time.
        weight: weight function for ``"awsm"`` (see :mod:`wsm_tpp.weights`).
        mark_coef: coefficient of the mark cross-entropy (score-matching methods, K > 1).
        sigma, n_noise, rng: DSM noise standard deviation, draws per event and generator.

    >>> from wsm_tpp import ExpHawkes, log_likelihood, simulate_hawkes
    >>> seqs = [simulate_hawkes(0.5, 0.8, 2.0, 50.0, rng=i) for i in range(3)]
    >>> m = ExpHawkes(1, beta=2.0, mu=[0.5], A=[[0.8]])
    >>> bool(np.isclose(objective(m, seqs, method="mle", T=50.0), -log_likelihood(m, seqs, T=50.0)))
    True
    """
    method, weight, mark_coef, sigma, n_noise, rng = check_options(
        method, weight, mark_coef, sigma, n_noise, rng
    )
    check_model(model)
    check_params_set(model)
    ev = prepare(seqs, T, model.K)
    noise = make_noise(ev, sigma, n_noise, rng) if method == "dsm" else None
    return objective_and_grad(
        model, model._theta(), ev, method, weight=weight, mark_coef=mark_coef, noise=noise
    )[0]

"""Evaluation: test log-likelihood per event and next-mark accuracy.

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
(Sec. 6.2 reports TLL and type accuracy).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_bool
from ._data import check_model, check_params_set, prepare


def log_likelihood(model, seqs, *, T=None, per_event: bool = True) -> float:
    """Log-likelihood of ``seqs`` under ``model`` (``sum log lambda_{k_n}(t_n) - int_0^T sum_k lambda_k``).

    Exact for :class:`~wsm_tpp.ExpHawkes`; Gauss-Legendre quadrature for
    :class:`~wsm_tpp.InhomogeneousPoisson`.

    Args:
        model: a model with parameters set.
        seqs: list of ``(times, marks)``.
        T: horizon, scalar or (S,); default the largest event time.
        per_event: divide by the number of events (the paper's TLL); else the total.

    >>> from wsm_tpp import InhomogeneousPoisson
    >>> m = InhomogeneousPoisson(0, weights=[0.0])       # rate 1
    >>> round(log_likelihood(m, [np.array([0.5, 1.5])], T=2.0), 6)   # (0 - 2) / 2
    -1.0
    """
    check_model(model)
    check_params_set(model)
    per_event = check_bool(per_event, "per_event")
    ev = prepare(seqs, T, model.K)
    theta = model._theta()
    cache = model._cache(theta, ev)
    loc = model._local(theta, ev, cache)
    comp, _ = model._compensator(theta, ev, cache)
    ll = float(np.log(loc["Lk"]).sum() - comp)
    return ll / ev.M if per_event else ll


def type_accuracy(model, seqs, *, T=None) -> float:
    """Fraction of events whose mark is the arg-max of ``lambda_k(t_n | history)``."""
    check_model(model)
    check_params_set(model)
    ev = prepare(seqs, T, model.K)
    if model.K == 1:
        return 1.0
    theta = model._theta()
    cache = model._cache(theta, ev)
    mu, A, _ = model._unpack(theta)
    R = cache["R"][0] if isinstance(cache["R"], tuple) else cache["R"]  # (M, K)
    lam = mu[None, :] + np.einsum("ml,kl->mk", R, A)  # (M, K)
    return float(np.mean(lam.argmax(1) == ev.k))

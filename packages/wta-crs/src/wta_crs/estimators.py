"""Numpy estimators of the weight gradient ``Gᵀ X`` of a linear layer, and their exact MSE.

``X`` (n, d_in) holds the layer's input rows (n = batch x tokens), ``G`` (n, d_out) the
output gradients; the exact weight gradient is ``Gᵀ X = Σ_i g_i x_iᵀ`` of shape (d_out, d_in).

* :func:`crs_matmul_grad` - column-row sampling: ``k`` i.i.d. draws with probabilities ``p``,
  each scaled by ``1 / (k p_i)``; unbiased.
* :func:`wta_crs_matmul_grad` - winner-take-all CRS: the ``c`` rows with the largest ``p`` are
  kept exactly, ``k - c`` i.i.d. draws from the rest (probabilities ``p_j / (1 - P_C)``) each
  scaled by ``(1 - P_C) / ((k - c) p_j)``; unbiased for any ``p`` positive wherever
  ``g_i x_iᵀ != 0``.
* :func:`topk_matmul_grad` - the ``k`` rows with the largest ``‖x_i‖‖g_i‖``, unscaled: the biased
  deterministic baseline.
* :func:`crs_variance`, :func:`wta_crs_variance` - ``E‖estimate - GᵀX‖²_F`` in closed form.

``p`` is any non-negative weight vector of length n (normalised here); by default
``p_i ∝ ‖x_i‖·‖g_i‖``, the variance-optimal choice for CRS.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._checks import check_rng
from ._validation import check_k, check_num_deterministic, check_pair, check_weights

__all__ = [
    "choose_num_deterministic",
    "crs_matmul_grad",
    "crs_variance",
    "topk_matmul_grad",
    "wta_crs_matmul_grad",
    "wta_crs_variance",
]


def _prepare(X: Any, G: Any, k: Any, p: Any, *, at_most_n: bool):
    X, G = check_pair(X, G)
    n = X.shape[0]
    k = check_k(k, n if at_most_n else None)
    norms = np.linalg.norm(X, axis=1) * np.linalg.norm(G, axis=1)  # ‖g_i x_iᵀ‖_F
    if p is None:
        total = norms.sum()
        p = norms / total if total > 0 else np.full(n, 1.0 / n)
    else:
        p = check_weights(p, "p", n)
    return X, G, k, p, norms


def _order(p: np.ndarray) -> np.ndarray:
    """Indices by decreasing p; ties broken by the lower index (deterministic)."""
    return np.argsort(-p, kind="stable")


def _num_deterministic(p: np.ndarray, k: int) -> int:
    """argmin over 0 <= c <= min(k - 1, n) of (1 - Σ_{top c} p) / (k - c) (smallest c on ties)."""
    n = p.shape[0]
    c_max = min(k - 1, n)
    top = p[_order(p)][:c_max]
    mass_left = np.maximum(1.0 - np.concatenate(([0.0], np.cumsum(top))), 0.0)
    score = mass_left / (k - np.arange(c_max + 1))
    return int(np.argmin(score))


def choose_num_deterministic(p: Any, k: Any) -> int:
    """The number ``c`` of rows WTA-CRS keeps exactly (the paper's adaptive rule).

    ``c = argmin_{0 <= c < k} (1 - Σ_{top c} p) / (k - c)`` with ``p`` normalised to sum 1 and
    sorted decreasingly (``c`` is also at most ``len(p)``); the smallest ``c`` wins ties, so
    ``c = 0`` (value ``1/k``, plain CRS) unless keeping winners strictly helps. The score is
    the leading factor of the WTA-CRS variance bound, minimised over ``c``.
    """
    k = check_k(k, None)
    p = check_weights(p, "p", None)
    return _num_deterministic(p, k)


def crs_matmul_grad(X: Any, G: Any, k: Any, *, p: Any = None, rng: Any = None) -> np.ndarray:
    """Column-row-sampling estimate of ``Gᵀ X`` from ``k`` i.i.d. draws (with replacement).

    Draw indices ``i_1..i_k`` with probabilities ``p`` and return
    ``Σ_j g_{i_j} x_{i_j}ᵀ / (k p_{i_j})`` (d_out, d_in). Unbiased when ``p_i > 0`` wherever
    ``g_i x_iᵀ != 0``; ``k`` may exceed n.
    """
    X, G, k, p, _ = _prepare(X, G, k, p, at_most_n=False)
    gen = check_rng(rng)
    counts = np.bincount(gen.choice(p.shape[0], size=k, p=p), minlength=p.shape[0])
    rows = np.flatnonzero(counts)
    scale = counts[rows] / (k * p[rows])
    return (G[rows] * scale[:, None]).T @ X[rows]


def _split(p: np.ndarray, k: int, num_deterministic: Any):
    c = check_num_deterministic(num_deterministic, k, p.shape[0])
    if c == "adaptive":
        c = _num_deterministic(p, k)
    order = _order(p)
    winners, rest = order[:c], order[c:]
    return c, winners, rest


def wta_crs_matmul_grad(
    X: Any,
    G: Any,
    k: Any,
    *,
    p: Any = None,
    num_deterministic: Any = "adaptive",
    rng: Any = None,
) -> np.ndarray:
    """Winner-take-all column-row-sampling estimate of ``Gᵀ X`` with a budget of ``k`` rows.

    The ``c`` rows with the largest ``p`` (``c = num_deterministic``, or
    :func:`choose_num_deterministic` for ``"adaptive"``; ``0 <= c < k``) enter exactly; ``k - c``
    indices are drawn i.i.d. from the other rows with probabilities ``p_j / (1 - P_C)`` and
    each adds ``(1 - P_C) / ((k - c) p_j) · g_j x_jᵀ``, ``P_C`` the winners' mass. If the other
    rows carry no mass the stochastic part is empty. Needs ``k <= n``.
    """
    X, G, k, p, _ = _prepare(X, G, k, p, at_most_n=True)
    gen = check_rng(rng)
    c, winners, rest = _split(p, k, num_deterministic)
    scale = np.zeros(p.shape[0])
    scale[winners] = 1.0
    mass = p[rest].sum()
    if rest.size and mass > 0:
        m = k - c
        q = p.copy()
        q[winners] = 0.0
        counts = np.bincount(gen.choice(p.shape[0], size=m, p=q / mass), minlength=p.shape[0])
        hit = np.flatnonzero(counts)
        scale[hit] += counts[hit] * mass / (m * p[hit])
    rows = np.flatnonzero(scale)
    return (G[rows] * scale[rows, None]).T @ X[rows]


def topk_matmul_grad(X: Any, G: Any, k: Any) -> np.ndarray:
    """Deterministic top-k: ``Σ_{i in top k of ‖x_i‖‖g_i‖} g_i x_iᵀ``, unscaled (biased).

    Ties are broken by the lower row index. Needs ``k <= n``.
    """
    X, G, k, _, norms = _prepare(X, G, k, None, at_most_n=True)
    rows = _order(norms)[:k]
    return G[rows].T @ X[rows]


def _mse(X, G, rows, p, m):
    """``E‖(mass/m) Σ_r g x / p - Σ_{rows} g x‖²_F`` for ``m`` i.i.d. draws among ``rows``."""
    sq = (np.linalg.norm(X[rows], axis=1) * np.linalg.norm(G[rows], axis=1)) ** 2
    pr = p[rows]
    seen = pr > 0
    mass = pr.sum()
    reach = rows[seen]
    missed = rows[~seen]
    a_seen = G[reach].T @ X[reach]
    a_missed = G[missed].T @ X[missed]
    bias_sq = float(np.sum(a_missed**2))
    if mass <= 0:  # nothing reachable: the estimate of this part is 0
        return bias_sq
    var = (mass * np.sum(sq[seen] / pr[seen]) - float(np.sum(a_seen**2))) / m
    return max(var, 0.0) + bias_sq


def crs_variance(X: Any, G: Any, k: Any, *, p: Any = None) -> float:
    """``E‖crs_matmul_grad(X, G, k, p=p) - GᵀX‖²_F`` in closed form.

    ``(1/k)(Σ_i ‖x_i‖²‖g_i‖²/p_i - ‖GᵀX‖²_F)`` (p normalised); rows with ``p_i = 0`` are never
    drawn and add their squared bias ``‖Σ_{p_i=0} g_i x_iᵀ‖²_F``.
    """
    X, G, k, p, _ = _prepare(X, G, k, p, at_most_n=False)
    return _mse(X, G, np.arange(p.shape[0]), p, k)


def wta_crs_variance(
    X: Any, G: Any, k: Any, *, p: Any = None, num_deterministic: Any = "adaptive"
) -> float:
    """``E‖wta_crs_matmul_grad(X, G, k, p=p, num_deterministic=...) - GᵀX‖²_F`` in closed form.

    ``(1/(k-c))[(1 - P_C) Σ_{i∉C} ‖x_i‖²‖g_i‖²/p_i - ‖Σ_{i∉C} g_i x_iᵀ‖²_F]`` (plus the squared
    bias of non-winner rows with ``p_i = 0``).
    """
    X, G, k, p, _ = _prepare(X, G, k, p, at_most_n=True)
    c, _, rest = _split(p, k, num_deterministic)
    return _mse(X, G, rest, p, k - c)

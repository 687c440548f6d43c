"""Draft selection with k drafts: K-SEQ, its closed forms, and the exact optimal-transport LP.

SpecTr: Fast Speculative Decoding via Optimal Transport (Sun, Suresh, Ro, Beirami, Jain, Yu;
NeurIPS 2023) - https://arxiv.org/abs/2310.15141

Implemented here (numpy/scipy only, no torch):

* Sec. 3 - draft selection as optimal transport with membership cost; the optimal acceptance
  alpha*_k as a linear program (:func:`optimal_acceptance_lp`) and, as an independent check, the
  same value from max-flow/min-cut (:func:`optimal_acceptance_mincut`), plus the upper bound
  ``sum_y min(q(y), 1 - (1 - p(y))^k)`` (:func:`acceptance_upper_bound`). k = 1 is the maximal
  coupling, ``sum_x min(p, q)`` (:func:`maximal_coupling_acceptance`).
* Sec. 4 - K-SEQ(rho): accept draft ``X_i`` with probability ``min(1, q/(rho p))``, else fall back
  to the residual ``p_res ∝ q - min(p, q/rho) (1 - (1-beta)^k) / beta`` (:func:`kseq_select`,
  :func:`kseq_residual`), with ``rho*`` the root of ``1 - (1-beta(rho))^k = rho beta(rho)`` on
  ``[1, k]`` found by bisection (:func:`solve_rho`); its acceptance ``1 - (1-beta(rho*))^k`` is at
  least ``(1 - 1/e)`` times the LP optimum (:func:`kseq_acceptance`).

Notation: ``p`` is the draft (small model) distribution, ``q`` the target distribution, both
``float[V]`` on the same vocabulary.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import brentq

from ._checks import check_array, check_float, check_int, check_rng

__all__ = [
    "acceptance_upper_bound",
    "beta",
    "kseq_acceptance",
    "kseq_output_distribution",
    "kseq_residual",
    "kseq_select",
    "maximal_coupling_acceptance",
    "optimal_acceptance_lp",
    "optimal_acceptance_mincut",
    "solve_rho",
]

_SUM_TOL = 1e-6


def _check_dist(x, name: str) -> np.ndarray:
    """A probability vector ``float[V]``: finite, non-negative, summing to 1 (within 1e-6)."""
    a = check_array(x, name, ndim=1)
    if np.any(a < 0):
        raise ValueError(f"{name} must be non-negative, got minimum {a.min():.3g}")
    s = a.sum()
    if abs(s - 1.0) > _SUM_TOL:
        raise ValueError(f"{name} must sum to 1 (within {_SUM_TOL}), got {s:.8g}")
    return a / s


def _check_pair(p, q) -> tuple[np.ndarray, np.ndarray]:
    p, q = _check_dist(p, "p"), _check_dist(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"q has {q.shape[0]} entries but p has {p.shape[0]}; they must match")
    return p, q


def _check_k(k) -> int:
    return check_int(k, "k", minimum=1)


def _beta(p: np.ndarray, q: np.ndarray, rho: float) -> float:
    return float(np.minimum(p, q / rho).sum())


def beta(p, q, rho: float) -> float:
    """``beta(rho) = sum_x min(p(x), q(x) / rho)``: one draft's acceptance probability in K-SEQ(rho).

    >>> beta([0.5, 0.5], [0.9, 0.1], 1.0)
    0.6
    """
    p, q = _check_pair(p, q)
    rho = check_float(rho, "rho", minimum=1.0)
    return _beta(p, q, rho)


def _gap(p, q, k, rho) -> float:
    b = _beta(p, q, rho)
    return 1.0 - (1.0 - b) ** k - rho * b


def _solve_rho(p: np.ndarray, q: np.ndarray, k: int, tol: float) -> float:
    if k == 1:
        return 1.0
    lo, hi = 1.0, float(k)
    if _gap(p, q, k, lo) <= 0.0:  # p == q (beta(1) = 1) or degenerate: rho = 1 is already valid
        return 1.0
    if _beta(p, q, hi) == 0.0:  # disjoint supports: nothing can be accepted, any rho is valid
        return 1.0
    # gap(rho) = 1 - (1 - beta)^k - rho*beta decreases in rho, >= 0 at 1 and <= 0 at k (Sec. 4).
    # Brent's method (superlinear: ~10 O(V) evaluations instead of ~35 for plain bisection) ...
    if _gap(p, q, k, hi) > 0.0:  # only possible through rounding
        return hi
    root = brentq(lambda r: _gap(p, q, k, r), lo, hi, xtol=tol * hi, rtol=4 * np.finfo(float).eps)
    # ... then step to the side where gap <= 0, on which the residual is provably non-negative
    step = tol * hi
    while _gap(p, q, k, root) > 0.0 and root < hi:
        root = min(hi, root + step)
        step *= 2.0
    return root


def solve_rho(p, q, k: int, *, tol: float = 1e-10) -> float:
    """``rho*`` in ``[1, k]``: the root of ``1 - (1 - beta(rho))^k = rho * beta(rho)`` (Sec. 4).

    The gap ``1 - (1 - beta)^k - rho beta`` is monotone in ``rho``, so a bracketed root finder
    (Brent's method; each evaluation costs O(V)) converges on ``[1, k]``. The returned value is
    then moved, if needed, to the side where the gap is <= 0, on which the residual distribution
    is non-negative, so :func:`kseq_select` is exactly valid, at an acceptance loss of order
    ``tol`` (relative). ``k = 1`` gives 1
    (standard speculative sampling).

    Args:
        p: draft distribution, ``float[V]``.
        q: target distribution, ``float[V]``.
        k: number of i.i.d. drafts.
        tol: relative width of the final bracket.

    >>> round(solve_rho([0.5, 0.5], [0.9, 0.1], 2), 6)
    1.430074
    """
    p, q = _check_pair(p, q)
    k = _check_k(k)
    tol = check_float(
        tol, "tol", minimum=0.0, maximum=1.0, min_inclusive=False, max_inclusive=False
    )
    return _solve_rho(p, q, k, tol)


def _residual(p: np.ndarray, q: np.ndarray, k: int, rho: float) -> tuple[np.ndarray, float]:
    """Normalised residual and the total acceptance 1 - (1 - beta)^k."""
    b = _beta(p, q, rho)
    reject_all = (1.0 - b) ** k
    if b <= 0.0:
        return q.copy(), 0.0
    if reject_all <= 0.0:  # every draft accepted surely; the residual is never used
        return q.copy(), 1.0
    scale = (1.0 - reject_all) / b
    r = q - np.minimum(p, q / rho) * scale
    r = np.maximum(r, 0.0)  # clip rounding noise (the exact residual is >= 0 at rho >= rho*)
    total = r.sum()
    if total <= 0.0:
        return q.copy(), 1.0 - reject_all
    return r / total, 1.0 - reject_all


def kseq_residual(p, q, k: int, *, rho: float | None = None) -> np.ndarray:
    """Residual distribution ``p_res`` of K-SEQ, sampled when all ``k`` drafts are rejected.

    ``p_res(x) ∝ q(x) - min(p(x), q(x)/rho) * (1 - (1 - beta)^k) / beta`` (normaliser
    ``(1 - beta)^k``); ``rho`` defaults to :func:`solve_rho`. When acceptance is certain
    (``p == q``) the residual is never used and ``q`` is returned.

    >>> kseq_residual([0.5, 0.5], [0.9, 0.1], 1).round(6).tolist()
    [1.0, 0.0]
    """
    p, q = _check_pair(p, q)
    k = _check_k(k)
    rho = _solve_rho(p, q, k, 1e-12) if rho is None else _check_rho(rho, k)
    return _residual(p, q, k, rho)[0]


def _check_rho(rho, k: int) -> float:
    return check_float(rho, "rho", minimum=1.0, maximum=float(k))


def kseq_acceptance(p, q, k: int) -> float:
    """Closed-form acceptance of K-SEQ(rho*): ``1 - (1 - beta(rho*))^k`` (Sec. 4, Thm. 3).

    Non-decreasing in ``k``; equals ``sum_x min(p, q)`` at ``k = 1``; at least ``(1 - 1/e)``
    times the optimal acceptance.

    >>> round(kseq_acceptance([0.5, 0.5], [0.9, 0.1], 1), 6)
    0.6
    """
    p, q = _check_pair(p, q)
    k = _check_k(k)
    rho = _solve_rho(p, q, k, 1e-12)
    return 1.0 - (1.0 - _beta(p, q, rho)) ** k


def kseq_output_distribution(p, q, k: int, *, rho: float | None = None) -> np.ndarray:
    """Exact law of K-SEQ's output token, computed step by step from the algorithm.

    ``P(Y = x) = sum_{i=1..k} P(reject)^{i-1} p(x) a(x) + P(reject)^k p_res(x)`` with
    ``a(x) = min(1, q(x)/(rho p(x)))`` and ``P(reject) = sum_x p(x)(1 - a(x))``, evaluated
    directly (not through the closed form), so it equals ``q`` only if the residual is right.
    For tests and research; ``rho`` defaults to :func:`solve_rho`.
    """
    p, q = _check_pair(p, q)
    k = _check_k(k)
    rho = _solve_rho(p, q, k, 1e-12) if rho is None else _check_rho(rho, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, np.minimum(1.0, q / (rho * p)), 0.0)
    reject = float((p * (1.0 - a)).sum())
    out = np.zeros_like(p)
    for i in range(k):
        out += reject**i * p * a
    res, _ = _residual(p, q, k, rho)
    return out + reject**k * res


def kseq_select(draft_tokens, p, q, *, rng=None, rho: float | None = None) -> tuple[int, bool]:
    """One K-SEQ(rho) selection step: the output token and whether a draft was accepted.

    Drafts are examined in order; draft ``X_i`` is accepted with probability
    ``min(1, q(X_i) / (rho p(X_i)))``. If all are rejected a token is drawn from
    :func:`kseq_residual`. When ``draft_tokens`` are i.i.d. draws from ``p``, the output is
    distributed exactly as ``q``.

    Args:
        draft_tokens: ``int[k]``, the k i.i.d. draft tokens (k >= 1).
        p: draft distribution the tokens were drawn from, ``float[V]``.
        q: target distribution, ``float[V]``.
        rng: ``None``, an int seed or a ``numpy.random.Generator``.
        rho: K-SEQ parameter in ``[1, k]``; default :func:`solve_rho` ``(p, q, k)``.

    Returns:
        ``(token, accepted)``.

    >>> kseq_select([1, 1], [0.5, 0.5], [0.5, 0.5], rng=0)
    (1, True)
    """
    p, q = _check_pair(p, q)
    x = check_array(draft_tokens, "draft_tokens", ndim=1, dtype="int")
    if x.min() < 0 or x.max() >= p.size:
        raise ValueError(f"draft_tokens must lie in [0, {p.size}), got {x.min()}..{x.max()}")
    rng = check_rng(rng)
    k = int(x.size)
    rho = _solve_rho(p, q, k, 1e-12) if rho is None else _check_rho(rho, k)
    return _kseq_select(x, p, q, k, rho, rng)


def _kseq_select(x, p, q, k, rho, rng) -> tuple[int, bool]:
    u = rng.random(k)
    for i in range(k):
        t = int(x[i])
        if p[t] > 0 and u[i] * rho * p[t] <= q[t]:  # u < min(1, q / (rho p)) without dividing
            return t, True
    res, _ = _residual(p, q, k, rho)
    return int(rng.choice(res.size, p=res)), False


def maximal_coupling_acceptance(p, q) -> float:
    """``sum_x min(p(x), q(x)) = 1 - TV(p, q)``: the optimal acceptance with one draft.

    >>> maximal_coupling_acceptance([0.5, 0.5], [0.9, 0.1])
    0.6
    """
    p, q = _check_pair(p, q)
    return float(np.minimum(p, q).sum())


def acceptance_upper_bound(p, q, k: int) -> float:
    """``sum_y min(q(y), 1 - (1 - p(y))^k)`` >= the optimal k-draft acceptance (Sec. 3).

    Token ``y`` can be accepted only if it is among the k drafts, which happens with
    probability ``1 - (1 - p(y))^k``.
    """
    p, q = _check_pair(p, q)
    k = _check_k(k)
    with np.errstate(divide="ignore"):  # p(y) = 1 gives log1p(-1) = -inf, i.e. coverage 1
        cover = -np.expm1(k * np.log1p(-np.minimum(p, 1.0)))
    return float(np.minimum(q, cover).sum())


MAX_LP_VARIABLES = 200_000


def optimal_acceptance_lp(p, q, k: int, *, max_variables: int = MAX_LP_VARIABLES) -> float:
    """Exact optimal k-draft acceptance ``alpha*_k`` by linear programming (Sec. 3, Eq. 3).

    Variables ``pi(x^k, y) >= 0`` (``V^(k+1)`` of them) with marginals ``prod_i p(x_i)`` and
    ``q(y)``; maximise ``sum pi(x^k, y) 1{y in x^k}``. Solved with scipy's HiGHS. One marginal
    row is redundant and is dropped, and ``q`` is rescaled to the exact total of the product
    marginal, so rounding cannot make the program infeasible.

    Args:
        p, q: draft and target distributions, ``float[V]``.
        k: number of drafts.
        max_variables: refuse (ValueError) when ``V^(k+1)`` exceeds this.

    >>> round(optimal_acceptance_lp([0.5, 0.5], [0.9, 0.1], 2), 6)
    0.85
    """
    from scipy import sparse
    from scipy.optimize import linprog

    p, q = _check_pair(p, q)
    k = _check_k(k)
    max_variables = check_int(max_variables, "max_variables", minimum=1)
    V = p.size
    n_var = V ** (k + 1)
    if n_var > max_variables:
        raise ValueError(
            f"the LP has V^(k+1) = {V}^{k + 1} = {n_var} variables, above max_variables="
            f"{max_variables}; use acceptance_upper_bound or kseq_acceptance instead"
        )
    seqs = np.array(list(itertools.product(range(V), repeat=k)), dtype=np.int64).reshape(
        -1, k
    )  # (V^k, k)
    n_seq = seqs.shape[0]
    marg = np.prod(p[seqs], axis=1)  # (V^k,)
    # variable index: s * V + y
    member = np.zeros((n_seq, V), dtype=bool)
    member[np.arange(n_seq)[:, None], seqs] = True
    c = -member.ravel().astype(np.float64)
    rows_x = sparse.kron(sparse.identity(n_seq, format="csr"), np.ones((1, V)), format="csr")
    rows_y = sparse.kron(np.ones((1, n_seq)), sparse.identity(V, format="csr"), format="csr")
    A = sparse.vstack([rows_x, rows_y[:-1]], format="csr")  # drop one redundant row
    qs = q * (marg.sum() / q.sum())
    b = np.concatenate([marg, qs[:-1]])
    res = linprog(c, A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"linprog failed: {res.message}")
    return float(min(1.0, max(0.0, -res.fun)))


def optimal_acceptance_mincut(p, q, k: int, *, max_vocab: int = 20) -> float:
    """``alpha*_k`` by max-flow/min-cut: ``min_T [q(T) + 1 - p(T)^k]`` over subsets ``T``.

    The LP of :func:`optimal_acceptance_lp` is a bipartite transportation problem (supply
    ``P(x^k)``, demand ``q(y)``, arcs where ``y in x^k``); cutting the demand arcs of ``T``
    forces cutting every draft tuple with a member outside ``T``, of mass ``1 - p(T)^k``. The
    enumeration costs ``2^V`` but is independent of ``k``; an independent check of the LP.

    >>> round(optimal_acceptance_mincut([0.5, 0.5], [0.9, 0.1], 2), 6)
    0.85
    """
    p, q = _check_pair(p, q)
    k = _check_k(k)
    max_vocab = check_int(max_vocab, "max_vocab", minimum=1)
    V = p.size
    if V > max_vocab:
        raise ValueError(f"enumerating 2^V subsets needs V <= max_vocab={max_vocab}, got V={V}")
    masks = ((np.arange(2**V)[:, None] >> np.arange(V)) & 1).astype(np.float64)  # (2^V, V)
    return float(np.min(masks @ q + 1.0 - (masks @ p) ** k))

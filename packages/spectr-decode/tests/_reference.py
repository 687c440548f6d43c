"""Exact law of one SpecTr iteration on tabular Markov models, by brute-force enumeration.

Independent of the package's decoding loop: it enumerates every k x L draft matrix with its
probability and follows the paper's selection rule (Sec. 5) with exact acceptance
probabilities. ``winner_only=True`` gives the law of the wrong variant that keeps only the draft
that won at each position (instead of every draft carrying the accepted token).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
from spectr_decode import kseq_residual, solve_rho


def block_law(T, D, start: int, k: int, L: int, *, winner_only: bool = False) -> dict[tuple, float]:
    """P(iteration emits the token tuple b) for every b, starting after token ``start``."""
    T, D = np.asarray(T, float), np.asarray(D, float)
    V = T.shape[0]
    law: dict[tuple, float] = defaultdict(float)
    for flat in itertools.product(range(V), repeat=k * L):
        X = np.array(flat).reshape(k, L)
        pr = 1.0
        for r in range(k):
            prev = start
            for t in range(L):
                pr *= D[prev, X[r, t]]
                prev = X[r, t]
        if pr == 0.0:
            continue
        _select(T, D, X, list(range(k)), 0, start, (), pr, law, L, winner_only)
    return dict(law)


def _select(T, D, X, alive, t, prev, out, mass, law, L, winner_only):
    if t == L:
        for y in range(T.shape[0]):
            law[(*out, y)] += mass * T[prev, y]
        return
    p, q = D[prev], T[prev]
    kk = len(alive)
    rho = solve_rho(p, q, kk, tol=1e-13) if kk > 1 else 1.0
    reject = 1.0
    for i, r in enumerate(alive):
        x = X[r, t]
        a = min(1.0, q[x] / (rho * p[x])) if p[x] > 0 else 0.0
        m = mass * reject * a
        if m > 0:
            nxt = [r] if winner_only else [s for s in alive if X[s, t] == x]
            _select(T, D, X, nxt, t + 1, x, (*out, x), m, law, L, winner_only)
        reject *= 1.0 - a
        del i
    if reject > 0:
        res = kseq_residual(p, q, kk, rho=rho)
        for y in range(T.shape[0]):
            if res[y] > 0:
                law[(*out, y)] += mass * reject * res[y]


def first_two_law(law: dict[tuple, float], T) -> np.ndarray:
    """Joint law of the first two generated tokens implied by a block law (``float[V, V]``)."""
    T = np.asarray(T, float)
    V = T.shape[0]
    out = np.zeros((V, V))
    for b, m in law.items():
        if len(b) >= 2:
            out[b[0], b[1]] += m
        else:  # the next iteration starts after b[0]: its first token is an exact target sample
            out[b[0]] += m * T[b[0]]
    return out


def expected_length(law: dict[tuple, float]) -> float:
    return sum(len(b) * m for b, m in law.items())

"""Independent references for the tests: brute-force enumeration and naive loops."""

from __future__ import annotations

from math import comb

import numpy as np


def sparse_mdp(rng, S=3, A=2, branches=2, gamma=0.35):
    """A random MDP whose every (s, a) reaches `branches` next states, with rewards that depend
    on s' (so E[R M(s')] != E[R] E[M(s')])."""
    import risk_model_eq as rme

    P = np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            nxt = rng.choice(S, size=branches, replace=False)
            P[s, a, nxt] = rng.dirichlet(np.ones(branches))
    R = rng.uniform(-1.0, 1.0, size=(S, A, S))
    return rme.TabularMDP(P, R, gamma=gamma)


def enumerate_return_moments(mdp, pi, start, depth, m):
    """Raw moments 0..m of sum_{t < depth} gamma^t R_t from `start`, by expanding every
    trajectory (atoms of the truncated return with their probabilities)."""
    S, A = mdp.n_states, mdp.n_actions
    vals = np.zeros(1)
    probs = np.ones(1)
    states = np.array([start])
    disc = 1.0
    for _ in range(depth):
        nv, npb, ns = [], [], []
        for a in range(A):
            for t in range(S):
                w = pi[states, a] * mdp.P[states, a, t]
                keep = w > 0
                nv.append(vals[keep] + disc * mdp.R[states[keep], a, t])
                npb.append(probs[keep] * w[keep])
                ns.append(np.full(int(keep.sum()), t))
        vals, probs, states = np.concatenate(nv), np.concatenate(npb), np.concatenate(ns)
        disc *= mdp.gamma
    return np.array([np.sum(probs * vals**i) for i in range(m + 1)])


def naive_operator(P, R, gamma, pi, M):
    """(T M)_i(s) by explicit loops over s, a, s', j."""
    k, S = M.shape
    A = P.shape[1]
    out = np.zeros((k, S))
    for i in range(k):
        for s in range(S):
            tot = 0.0
            for a in range(A):
                for t in range(S):
                    for j in range(i + 1):
                        tot += (
                            pi[s, a]
                            * P[s, a, t]
                            * comb(i, j)
                            * R[s, a, t] ** j
                            * gamma ** (i - j)
                            * M[i - j, t]
                        )
            out[i, s] = tot
    return out


def naive_moments(P, R, gamma, pi, m, n_iter=3000):
    """Raw moments by iterating the naive operator from zero (a contraction per moment)."""
    S = P.shape[0]
    M = np.zeros((m + 1, S))
    M[0] = 1.0
    for _ in range(n_iter):
        M = naive_operator(P, R, gamma, pi, M)
    return M


def shortcut_moments(P, R, gamma, pi, m=2, n_iter=5000):
    """The reference code's second moment: E[R] E[M1(S')] in the cross term (wrong when R
    depends on s')."""
    r = np.einsum("sat,sat->sa", P, R)
    r2 = np.einsum("sat,sat->sa", P, R**2)
    P_pi = np.einsum("sa,sat->st", pi, P)
    S = P.shape[0]
    M1 = np.zeros(S)
    M2 = np.zeros(S)
    for _ in range(n_iter):
        pm1 = P @ M1  # (S, A)
        pm2 = P @ M2
        M1, M2 = (
            np.sum(pi * (r + gamma * pm1), axis=1),
            np.sum(pi * (r2 + 2 * gamma * r * pm1 + gamma**2 * pm2), axis=1),
        )
    del P_pi
    return np.stack([np.ones(S), M1, M2])

"""Raw return moments: the moment Bellman operator, exact evaluation and the equivalence loss.

For a policy pi, the return G(s) = sum_t gamma^t R_t has raw moments M_i(s) = E[G(s)^i]
(M_0 = 1). With the reward a function of the transition (s, a, s'), they satisfy

    M_i(s) = sum_a pi(a|s) sum_s' P(s'|s,a) sum_{j=0}^{i} C(i, j) R(s,a,s')^j gamma^(i-j) M_{i-j}(s'),

the *joint* form E[R^j M_{i-j}(S')] (the paper's reference code multiplies E[R] by E[M(S')],
which is exact only when R does not depend on s').
"""

from __future__ import annotations

from math import comb

import numpy as np

from ._validation import (
    check_count,
    check_moments,
    check_policies,
    check_policy,
    check_same_spaces,
    mdp_arrays,
)


def _coefficients(k: int, gamma: float) -> np.ndarray:
    """K[i, j] = C(i, j) gamma^(i - j) for j <= i < k, zero above the diagonal."""
    K = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1):
            K[i, j] = comb(i, j) * gamma ** (i - j)
    return K


def _reward_powers(P: np.ndarray, R: np.ndarray, k: int) -> np.ndarray:
    """PR[j] = P * R^j for j < k: (k, S, A, S)."""
    out = np.empty((k, *P.shape))
    out[0] = P
    for j in range(1, k):
        out[j] = out[j - 1] * R
    return out


def _pair_product(PR_j: np.ndarray, M_l: np.ndarray) -> np.ndarray:
    """Y[n, s, a] = sum_t PR_j[s, a, t] M_l[n, t] (one matrix product)."""
    S, A, _ = PR_j.shape
    return (PR_j.reshape(S * A, S) @ M_l.T).reshape(S, A, -1).transpose(2, 0, 1)


def _operator(PR: np.ndarray, gamma: float, pis: np.ndarray, M: np.ndarray) -> np.ndarray:
    """The moment Bellman operator of the model (PR, gamma), batched.

    pis (N, S, A), M (N, k, S) -> T M (N, k, S) with k <= len(PR)."""
    N, k, S = M.shape
    K = _coefficients(k, gamma)
    out = np.zeros((N, k, S))
    for i in range(k):
        for j in range(i + 1):
            Y = _pair_product(PR[j], M[:, i - j])
            out[:, i] += K[i, j] * np.einsum("nsa,nsa->ns", pis, Y)
    return out


def _moments(P: np.ndarray, R: np.ndarray, gamma: float, pis: np.ndarray, m: int) -> np.ndarray:
    """Exact raw moments (N, m + 1, S) of N policies: one linear solve per moment (the system
    is triangular in i: M_i = (I - gamma^i P_pi)^{-1} b_i with b_i built from M_0..M_{i-1})."""
    N, S, _ = pis.shape
    PR = _reward_powers(P, R, m + 1)
    K = _coefficients(m + 1, gamma)
    # B[n, j, s, t] = sum_a pi[n, s, a] P[s, a, t] R[s, a, t]^j
    B = np.einsum("nsa,jsat->njst", pis, PR)
    M = np.zeros((N, m + 1, S))
    M[:, 0] = 1.0
    eye = np.eye(S)
    for i in range(1, m + 1):
        b = np.zeros((N, S))
        for j in range(1, i + 1):
            b += K[i, j] * np.einsum("nst,nt->ns", B[:, j], M[:, i - j])
        A = eye[None] - gamma**i * B[:, 0]
        M[:, i] = np.linalg.solve(A, b[..., None])[..., 0]
    return M


def moment_evaluation(mdp, pi, m) -> np.ndarray:
    """Exact raw moments of the return of ``pi``: an (m + 1, S) array, row i = E[G(s)^i]
    (row 0 is 1). ``m`` >= 1 is the highest moment."""
    P, R, gamma = mdp_arrays(mdp)
    pi = check_policy(pi, mdp, "pi")
    m = check_count(m, "m")
    return _moments(P, R, gamma, pi[None], m)[0]


def moment_bellman(mdp, pi, M) -> np.ndarray:
    """One application of the moment Bellman operator of ``mdp`` (a true MDP or a model) under
    ``pi`` to a moment array ``M`` (k, S): returns (T M) of shape (k, S), with

    (T M)_i(s) = E_pi[ sum_{j<=i} C(i, j) R^j gamma^(i-j) M_{i-j}(S') | s ]  (joint in (R, S')).

    Row 0 of ``M`` is used as given (it is 1 for moments; the operator keeps it at 1)."""
    P, R, gamma = mdp_arrays(mdp)
    pi = check_policy(pi, mdp, "pi")
    M = check_moments(M, mdp.n_states, "M")
    PR = _reward_powers(P, R, M.shape[0])
    return _operator(PR, gamma, pi[None], M[None])[0]


def moment_loss(model, mdp, policies, *, m) -> float:
    """The proper m-moment equivalence loss of ``model`` for ``mdp`` over ``policies``:

    mean over pi of sum_s sum_{i=1..m} ((T^pi_model M^pi)_i(s) - M^pi_i(s))^2,

    where M^pi = moment_evaluation(mdp, pi, m) are the true moments (only the model's operator
    is applied). ``m = 1`` is the proper value-equivalence (PVE) loss. ``policies`` is
    (N, S, A), a sequence of (S, A) arrays, or one (S, A) policy."""
    Pm, Rm, gm = mdp_arrays(model, "model")
    P, R, gamma = mdp_arrays(mdp)
    check_same_spaces(model, mdp)
    pis = check_policies(policies, mdp)
    m = check_count(m, "m")
    M = _moments(P, R, gamma, pis, m)
    TM = _operator(_reward_powers(Pm, Rm, m + 1), gm, pis, M)
    return float(np.mean(np.sum((TM[:, 1:] - M[:, 1:]) ** 2, axis=(1, 2))))


def _loss_and_grads(
    P: np.ndarray, R: np.ndarray, gamma: float, pis: np.ndarray, M: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """The loss of the model (P, R) against true moments M (N, k, S), M[:, 0] = 1, and its
    gradients with respect to P and R (both (S, A, S)): exact reverse-mode derivatives of
    ``moment_loss``. Only the (j, l = i - j) pairs with i <= k - 1 are formed, and the l = 0
    ones use M_0 = 1 (row sums, no product)."""
    N, k, S = M.shape
    A = P.shape[1]
    PR = _reward_powers(P, R, k)
    K = _coefficients(k, gamma)
    pairs = [(i, j) for i in range(1, k) for j in range(i + 1)]
    TM = np.zeros((N, k, S))
    for i, j in pairs:
        if i == j:  # l = 0: E[R^i]
            TM[:, i] += K[i, j] * np.einsum("nsa,sa->ns", pis, PR[j].sum(axis=-1))
        else:
            TM[:, i] += K[i, j] * np.einsum("nsa,nsa->ns", pis, _pair_product(PR[j], M[:, i - j]))
    E = TM - M
    E[:, 0] = 0.0
    loss = float(np.sum(E**2) / N)
    dPR = np.zeros_like(PR)
    for i, j in pairs:
        dY = (2.0 / N) * K[i, j] * E[:, i, :, None] * pis  # dL/dY[n, s, a]
        if i == j:
            dPR[j] += dY.sum(axis=0)[:, :, None]
        else:
            dPR[j] += (dY.transpose(1, 2, 0).reshape(S * A, N) @ M[:, i - j]).reshape(S, A, S)
    gP = dPR[0].copy()
    gR = np.zeros_like(R)
    Rpow = np.ones_like(R)  # R^(j-1)
    for j in range(1, k):
        gP += dPR[j] * Rpow * R
        gR += dPR[j] * j * Rpow * P
        Rpow = Rpow * R
    return loss, gP, gR

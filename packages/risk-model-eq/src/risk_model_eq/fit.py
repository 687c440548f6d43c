"""Learning a model by minimising the proper moment-equivalence loss (numpy only).

The loss separates over states: the residuals (T~ M^pi)_i(s) - M^pi_i(s) of state s depend only
on the model's parameters of s (its rows P~(s, ., .) and R~(s, ., .)). ``fit_model`` therefore
runs one small Levenberg-Marquardt problem per state, all states batched.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int, check_option, check_rng
from ._validation import check_count, check_policies, mdp_arrays
from .mdp import TabularMDP
from .moments import _coefficients, _moments, _pair_product, _reward_powers

POLICY_KINDS = ("deterministic", "stochastic", "mixed")

#: fit_model stops when the (moment-normalised) loss falls below this fraction of its initial
#: value, or when no state can improve any more.
RTOL = 1e-14

#: multiples of the Levenberg-Marquardt step tried per state at every iteration
STEP_FRACTIONS = (2.0, 1.0, 0.5, 0.25)

#: fit_model also stops when the loss has not halved in this many iterations
STALL = 200


class FittedModel(TabularMDP):
    """A :class:`TabularMDP` returned by :func:`fit_model`, with how the fit went.

    Attributes (besides the MDP's): ``loss`` (the final :func:`moment_loss` on the training
    policies), ``m``, ``n_steps`` (Levenberg-Marquardt iterations run), ``converged`` (the loss
    fell below ``RTOL`` times its initial value; ``False`` when ``steps`` ran out or progress
    stalled: less than a halving of the loss in ``STALL`` iterations)."""

    def __init__(self, P, R, *, gamma, init, loss, m, n_steps, converged):
        super().__init__(P, R, gamma=gamma, init=init)
        self.loss, self.m, self.n_steps, self.converged = float(loss), m, n_steps, converged

    def __repr__(self) -> str:
        return (
            f"FittedModel(n_states={self.n_states}, n_actions={self.n_actions}, "
            f"gamma={self.gamma}, m={self.m}, loss={self.loss:.3g})"
        )


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _residuals(P, R, gamma, pis, M) -> np.ndarray:
    """Per-state residual vectors (S, N * m), entry (n, i - 1) = (T~ M_n)_i(s) - M_n,i(s)."""
    N, k, S = M.shape
    PR = _reward_powers(P, R, k)
    K = _coefficients(k, gamma)
    TM = np.zeros((N, k, S))
    for i in range(1, k):
        for j in range(i + 1):
            if j == i:  # M_0 = 1
                TM[:, i] += K[i, j] * np.einsum("nsa,sa->ns", pis, PR[j].sum(axis=-1))
            else:
                Y = _pair_product(PR[j], M[:, i - j])
                TM[:, i] += K[i, j] * np.einsum("nsa,nsa->ns", pis, Y)
    return (TM - M)[:, 1:].transpose(2, 0, 1).reshape(S, N * (k - 1))


def _jacobian(P, R, gamma, pis, M, idx) -> np.ndarray:
    """d residuals / d (logits, R~) of the states ``idx``: (c, N * m, 2 A S)."""
    N, k, S = M.shape
    A = P.shape[1]
    K = _coefficients(k, gamma)
    pc = pis[:, idx].transpose(1, 0, 2)  # (c, N, A)
    Pc, Rc = P[idx], R[idx]  # (c, A, S)
    c = len(idx)
    JP = np.zeros((c, N, k - 1, A, S))
    JR = np.zeros((c, N, k - 1, A, S))
    for i in range(1, k):
        for j in range(i + 1):
            # d (T M)_i / d (P R^j)[s, a, t] = K[i, j] pi[n, s, a] M[n, i - j, t]
            D = K[i, j] * pc[:, :, :, None] * M[None, :, i - j, None, :]
            JP[:, :, i - 1] += D * (Rc**j)[:, None]
            if j >= 1:
                JR[:, :, i - 1] += D * (j * Rc ** (j - 1) * Pc)[:, None]
    Pb = Pc[:, None, None]
    JL = Pb * (JP - np.sum(JP * Pb, axis=-1, keepdims=True))  # through the softmax
    return np.concatenate(
        [JL.reshape(c, N * (k - 1), A * S), JR.reshape(c, N * (k - 1), A * S)], axis=2
    )


def _damping(d: np.ndarray) -> np.ndarray:
    """Marquardt scaling: each diagonal entry plus the row's mean (1 where all are zero)."""
    out = d + d.mean(axis=1, keepdims=True)
    return np.where(out > 0, out, 1.0)


def _lm_step(J: np.ndarray, r: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Damped Gauss-Newton steps for a batch of problems: J (c, n, p), r (c, n), mu (c,).
    Uses the n x n (minimum-norm) form when n <= p, the p x p normal equations otherwise."""
    n, p = J.shape[1:]
    if n <= p:
        G = J @ J.transpose(0, 2, 1)
        d = np.einsum("cii->ci", G)
        G[:, np.arange(n), np.arange(n)] += mu[:, None] * _damping(d)
        y = np.linalg.solve(G, r[..., None])
        return -(J.transpose(0, 2, 1) @ y)[..., 0]
    H = J.transpose(0, 2, 1) @ J
    d = np.einsum("cii->ci", H)
    H[:, np.arange(p), np.arange(p)] += mu[:, None] * _damping(d)
    return -np.linalg.solve(H, (J.transpose(0, 2, 1) @ r[..., None]))[..., 0]


def fit_model(mdp, policies, *, m, steps=2000, rng=None) -> FittedModel:
    """Fit a model (P~, R~) of ``mdp`` that is proper m-moment equivalent on ``policies``.

    The model has free transition logits (P~ = softmax over s') and free per-transition rewards
    R~ (S, A, S). It minimises :func:`moment_loss`, i.e. sum over policies, states and moments
    i = 1..m of ((T~^pi M^pi)_i(s) - M^pi_i(s))^2 with M^pi the exact true moments (only the
    model's operator depends on the parameters). Each moment's residuals are divided by the
    largest |M^pi_i| for conditioning (this changes the path, not the zero set), and the
    problem, which separates over states, is solved by batched Levenberg-Marquardt for at most
    ``steps`` iterations from uniform transitions and rewards ~ U(-1, 1) drawn from ``rng``.
    ``m = 1`` fits a PVE (proper value-equivalent) model.

    Returns a :class:`FittedModel` (a :class:`TabularMDP` with ``loss``, ``m``, ``n_steps``,
    ``converged``) with ``mdp``'s gamma and init."""
    P, R, gamma = mdp_arrays(mdp)
    pis = check_policies(policies, mdp)
    m = check_count(m, "m")
    steps = check_int(steps, "steps", minimum=1)
    g = check_rng(rng)
    S, A = mdp.n_states, mdp.n_actions
    N = pis.shape[0]
    M = _moments(P, R, gamma, pis, m)
    top = np.abs(M[:, 1:]).max(axis=(0, 2))
    w = np.tile(1.0 / np.where(top > 0, top, 1.0), N)  # per residual row (n, i)
    logits = np.zeros((S, A, S))
    Rm = g.uniform(-1.0, 1.0, size=(S, A, S))

    def residuals(lg, Rx):
        return _residuals(_softmax(lg), Rx, gamma, pis, M) * w

    r = residuals(logits, Rm)
    cost = np.sum(r**2, axis=1)
    start = float(cost.sum())
    mu = np.full(S, 1e-3)
    chunk = max(1, int(4e6 // (N * m * 2 * A * S)))
    n_steps, converged = 0, start == 0.0
    history = [start]
    while not converged and n_steps < steps:
        n_steps += 1
        Pm = _softmax(logits)
        step = np.empty((S, 2 * A * S))
        for c0 in range(0, S, chunk):
            idx = np.arange(c0, min(S, c0 + chunk))
            J = _jacobian(Pm, Rm, gamma, pis, M, idx) * w[None, :, None]
            step[idx] = _lm_step(J, r[idx], mu[idx])
        # per state, the best of a few multiples of the step (a crude line search: the
        # softmax makes exact zeros of P~ reachable only asymptotically)
        best_cost, best_f = cost.copy(), np.zeros(S)
        best_r = r.copy()
        for f in STEP_FRACTIONS:
            new_r = residuals(
                logits + f * step[:, : A * S].reshape(S, A, S),
                Rm + f * step[:, A * S :].reshape(S, A, S),
            )
            new_cost = np.sum(new_r**2, axis=1)
            take = new_cost < best_cost
            best_cost = np.where(take, new_cost, best_cost)
            best_f = np.where(take, f, best_f)
            best_r = np.where(take[:, None], new_r, best_r)
        logits = logits + best_f[:, None, None] * step[:, : A * S].reshape(S, A, S)
        Rm = Rm + best_f[:, None, None] * step[:, A * S :].reshape(S, A, S)
        r, cost = best_r, best_cost
        mu = np.where(
            best_f >= 1.0, np.maximum(mu / 3.0, 1e-12), np.where(best_f > 0, mu * 2.0, mu * 4.0)
        )
        mu = np.minimum(mu, 1e12)
        history.append(float(cost.sum()))
        converged = history[-1] <= RTOL * start
        if np.all(mu >= 1e12) or (len(history) > STALL and history[-1] > 0.5 * history[-1 - STALL]):
            break  # stuck, or stalled: less than a halving of the loss in STALL iterations
    Pm = _softmax(logits)
    loss = float(np.sum(_residuals(Pm, Rm, gamma, pis, M) ** 2) / N)
    return FittedModel(
        Pm,
        Rm,
        gamma=gamma,
        init=mdp.init,
        loss=loss,
        m=m,
        n_steps=n_steps,
        converged=converged,
    )


def random_policies(n_policies, n_states, n_actions, *, kind="mixed", rng=None) -> np.ndarray:
    """``n_policies`` random policies (N, S, A): ``"deterministic"`` (a uniform action per
    state, one-hot), ``"stochastic"`` (normalised U(0, 1) rows, as in the reference code), or ``"mixed"`` (each policy one of
    the two with probability 1/2, the reference code's training distribution)."""
    N = check_int(n_policies, "n_policies", minimum=1)
    S = check_int(n_states, "n_states", minimum=1)
    A = check_int(n_actions, "n_actions", minimum=1)
    check_option(kind, "kind", POLICY_KINDS)
    g = check_rng(rng)
    det = np.zeros((N, S, A))
    idx = g.integers(0, A, size=(N, S))
    np.put_along_axis(det, idx[..., None], 1.0, axis=-1)
    sto = g.uniform(0.0, 1.0, size=(N, S, A))
    sto /= sto.sum(axis=-1, keepdims=True)
    if kind == "deterministic":
        return det
    if kind == "stochastic":
        return sto
    pick = g.random(N) < 0.5
    return np.where(pick[:, None, None], det, sto)

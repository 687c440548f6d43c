"""Exact, model-based tools: periodic policy evaluation, brute-force periodic optima, the cyclic
limit of the (state, agent state, action) chain under a periodic behaviour policy, and the
Theorem-1 limit of PASQL.

Time t runs in phase [[t]] = t mod L. All computations are on the joint chain of
(s_t, z_t) (evaluation) or (s_t, z_t, a_t) (limits), built from the POMDP and the tabulated
agent state.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from papershelf_mdp import check_stochastic

from ._checks import check_array, check_float, check_int
from ._validation import check_agent_state, check_gamma, check_periodic_policy
from .agent_state import tabulate
from .pomdp import TabularPOMDP, check_pomdp

#: Mass below which an (l, z, a) entry counts as never visited in the cyclic limit.
UNVISITED_MASS = 1e-12


class PeriodicOptimum(NamedTuple):
    """``value`` J*_L and a deterministic period-L ``policy`` (L, Z, A) attaining it."""

    value: float
    policy: np.ndarray


class _Model:
    """The POMDP and the tabulated agent state as arrays."""

    def __init__(self, pomdp: TabularPOMDP, agent_state):
        check_pomdp(pomdp)
        Z = check_agent_state(agent_state)
        S, A, Y = pomdp.n_states, pomdp.n_actions, pomdp.n_obs
        init_tab, upd = tabulate(agent_state, Y, A)
        # H0[s, z] = sum_y O(y|s) 1{init(y) = z}
        H0 = np.zeros((S, Z))
        for y in range(Y):
            H0[np.arange(S), init_tab[y]] += pomdp.O[:, y]
        self.pomdp, self.S, self.A, self.Y, self.Z = pomdp, S, A, Y, Z
        self.H0 = H0
        self.init_tab, self.upd = init_tab, upd
        self.r = pomdp.expected_reward()
        self.nu0 = pomdp.init[:, None] * H0  # law of (s_0, z_0)
        self._G = self._T = None

    @property
    def G(self) -> np.ndarray:
        """G[z, a, s', z'] = sum_y' O(y'|s') 1{update(z, y', a) = z'} (built on first use)."""
        if self._G is None:
            S, A, Y, Z = self.S, self.A, self.Y, self.Z
            G = np.zeros((Z, A, S, Z))
            zz, aa = np.meshgrid(np.arange(Z), np.arange(A), indexing="ij")
            for y in range(Y):
                G[zz[..., None], aa[..., None], np.arange(S), self.upd[:, y, :][..., None]] += (
                    self.pomdp.O[:, y]
                )
            self._G = G
        return self._G

    @property
    def T(self) -> np.ndarray:
        """T[a, s, z, s', z'] = P(s'|s,a) G[z, a, s', z'] (built on first use)."""
        if self._T is None:
            self._T = np.einsum("sat,zatw->asztw", self.pomdp.P, self.G)
        return self._T

    def policy(self, policy, name="policy"):
        return check_periodic_policy(policy, name, n_agent_states=self.Z, n_actions=self.A)

    def kernel(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(s, z) -> (s', z') kernel (n, n) and reward (n,) of a decision rule pi (Z, A)."""
        n = self.S * self.Z
        K = np.einsum("za,aszTw->szTw", pi, self.T).reshape(n, n)
        r = np.einsum("za,sa->sz", pi, self.r).reshape(n)
        return K, r


def _value(nu0: np.ndarray, Pi: np.ndarray, w: np.ndarray, gL: float) -> np.ndarray:
    """J = nu0 (I - gamma^L Pi)^{-1} w, batched over leading axes of Pi (.., n, n), w (.., n)."""
    n = nu0.shape[0]
    M = np.eye(n) - gL * Pi
    v = np.linalg.solve(M, w[..., None])[..., 0]
    return v @ nu0


def evaluate_periodic(pomdp, agent_state, policy) -> float:
    """Exact discounted value J = E[sum_t gamma^t R_t] of a periodic policy.

    ``policy`` (L, Z, A) (or a stationary (Z, A)): at time t the action is drawn from
    ``policy[t mod L, z_t]``. Computed by one linear solve on the (s, z) chain over a period."""
    m = _Model(pomdp, agent_state)
    pi, _ = m.policy(policy)
    g = pomdp.gamma
    L = pi.shape[0]
    n = m.S * m.Z
    prod = np.eye(n)
    w = np.zeros(n)
    for l in range(L):
        K, r = m.kernel(pi[l])
        w = w + g**l * (prod @ r)
        prod = prod @ K
    return float(_value(m.nu0.reshape(n), prod, w, g**L))


def best_periodic_bruteforce(pomdp, agent_state, period, *, max_policies=2**22) -> PeriodicOptimum:
    """J*_L: the best value over all deterministic period-L policies, by enumeration of the
    (A^Z)^L policies (vectorised; ``max_policies`` guards the count).

    Returns ``PeriodicOptimum(value, policy)``; among policies within 1e-12 (relative) of the
    best, the first in lexicographic order of (a(0, z=0), a(0, 1), ..., a(L-1, Z-1)) is returned
    (so ties go to the lowest action index, earliest phase first)."""
    m = _Model(pomdp, agent_state)
    L = check_int(period, "period", minimum=1)
    cap = check_int(max_policies, "max_policies", minimum=1)
    Z, A = m.Z, m.A
    D = A**Z
    total = D**L
    if total > cap:
        raise ValueError(
            f"period {L} gives (A^Z)^L = ({A}^{Z})^{L} = {total} deterministic policies, more "
            f"than max_policies={cap}"
        )
    g = pomdp.gamma
    n = m.S * Z
    nu0 = m.nu0.reshape(n)
    # every decision rule d: Z -> A, index d = sum_z a_z A^(Z-1-z)
    rules = np.array(list(itertools.product(range(A), repeat=Z)), dtype=np.int64)  # (D, Z)
    onehot = np.eye(A)[rules]  # (D, Z, A)
    Kd = np.empty((D, n, n))
    rd = np.empty((D, n))
    for d in range(D):
        Kd[d], rd[d] = m.kernel(onehot[d])
    budget = max(1, 2**22 // (n * n))  # leaves per vectorised batch
    inner = 0
    while inner < L and D ** (inner + 1) <= budget:
        inner += 1
    outer = L - inner
    values = np.empty(total)
    pos = 0
    for prefix in itertools.product(range(D), repeat=outer):
        P = np.eye(n)[None]
        w = np.zeros((1, n))
        for l, d in enumerate(prefix):
            w = w + g**l * (P @ rd[d])
            P = P @ Kd[d]
        for l in range(outer, L):
            B = P.shape[0]
            w = (w[:, None, :] + g**l * np.einsum("bij,dj->bdi", P, rd)).reshape(B * D, n)
            P = np.matmul(P[:, None], Kd[None]).reshape(B * D, n, n)
        vals = _value(nu0, P, w, g**L)
        values[pos : pos + vals.size] = vals
        pos += vals.size
    best = values.max()
    idx = int(np.argmax(values >= best - 1e-12 * max(1.0, abs(best))))
    digits = np.unravel_index(idx, (D,) * L) if L > 0 else ()
    policy = np.stack([onehot[int(d)] for d in digits])
    return PeriodicOptimum(float(values[idx]), policy)


def _lazy_limit(Pi: np.ndarray) -> np.ndarray:
    """lim_k ((I + Pi)/2)^k: the Cesaro-limit projector of the stochastic matrix Pi (the lazy
    chain has the same invariant laws and is aperiodic), by repeated squaring (2^64 steps at
    most)."""
    n = Pi.shape[0]
    Q = 0.5 * (np.eye(n) + Pi)
    for _ in range(64):
        Q2 = Q @ Q
        Q2 /= Q2.sum(axis=1, keepdims=True)
        if np.max(np.abs(Q2 - Q)) < 1e-14:
            return Q2
        Q = Q2
    return Q


def _reachable(nu: np.ndarray, Ms: list[np.ndarray]) -> np.ndarray:
    """Indices of the (s, z, a) reachable from the support of nu under the phase kernels."""
    adj = np.zeros(Ms[0].shape, dtype=bool)
    for M in Ms:
        adj |= M > 0
    seen = nu > 0
    frontier = seen.copy()
    while frontier.any():
        new = adj[frontier].any(axis=0) & ~seen
        seen |= new
        frontier = new
    return np.flatnonzero(seen)


def _chain(m: _Model, mu: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Phase kernels M_l on (s, z, a) (l -> l+1 uses mu^{l+1}) and the law of X_0."""
    L = mu.shape[0]
    n3 = m.S * m.Z * m.A
    Ms = []
    for l in range(L):
        mu_next = mu[(l + 1) % L]
        M = np.einsum("sat,zatw,wb->szatwb", m.pomdp.P, m.G, mu_next)
        Ms.append(M.reshape(n3, n3))
    nu = (m.nu0[:, :, None] * mu[0][None]).reshape(n3)
    return Ms, nu


def _cyclic(m: _Model, mu: np.ndarray) -> np.ndarray:
    L = mu.shape[0]
    Ms, nu = _chain(m, mu)
    keep = _reachable(nu, Ms)  # the limit lives on the reachable part (frame stacks: small)
    Ms_r = [M[np.ix_(keep, keep)] for M in Ms]
    Pi = Ms_r[0]
    for M in Ms_r[1:]:
        Pi = Pi @ M
    zeta_r = nu[keep] @ _lazy_limit(Pi)
    out = np.zeros((L, m.S * m.Z * m.A))
    for l in range(L):
        zeta_r = np.clip(zeta_r, 0.0, None)
        zeta_r /= zeta_r.sum()
        out[l, keep] = zeta_r
        zeta_r = zeta_r @ Ms_r[l]
    return out.reshape(L, m.S, m.Z, m.A)


def cyclic_limit(pomdp, agent_state, behavior) -> np.ndarray:
    """The cyclic limit zeta (L, S, Z, A) of X_t = (s_t, z_t, a_t) under a periodic behaviour
    policy ``behavior`` (L, Z, A): ``zeta[l]`` is the limiting law of X_{kL+l} as k grows,
    the Cesaro mean (1/K) sum_{k<K} law(X_{kL+l}) when that sequence oscillates (a periodic
    chain). Each ``zeta[l]`` sums to 1 and zeta[l+1] = zeta[l] M_l. A stationary (Z, A) behaviour
    gives the (S, Z, A) law (the Cesaro mean over time)."""
    m = _Model(pomdp, agent_state)
    mu, stationary = m.policy(behavior, "behavior")
    zeta = _cyclic(m, mu)
    return zeta[0] if stationary else zeta


def _solve_periodic(
    r: np.ndarray, P: np.ndarray, gamma: float, fixed: np.ndarray | None = None, fill=0.0
) -> np.ndarray:
    """Q^l(z,a) = r^l(z,a) + gamma sum_z' P^l(z'|z,a) max_a' Q^{l+1}(z',a') by policy iteration.
    Entries with ``fixed`` True are held at ``fill``."""
    L, Z, A = r.shape
    if fixed is not None:
        r = np.where(fixed, fill, r)
        P = np.where(fixed[..., None], 0.0, P)
    pi = np.argmax(r, axis=-1)
    nxt = (np.arange(L) + 1) % L
    Q = r
    for _ in range(10_000):
        # V^l(z) = r^l(z, pi) + gamma sum P^l(z'|z, pi) V^{l+1}(z')
        rp = np.take_along_axis(r, pi[..., None], -1)[..., 0]  # (L, Z)
        Pp = np.take_along_axis(P, pi[..., None, None], 2)[:, :, 0, :]  # (L, Z, Z)
        M = np.zeros((L, Z, L, Z))
        M[np.arange(L), :, nxt, :] = Pp
        M = M.reshape(L * Z, L * Z)
        V = np.linalg.solve(np.eye(L * Z) - gamma * M, rp.reshape(L * Z)).reshape(L, Z)
        Q = r + gamma * np.einsum("lzaw,lw->lza", P, V[nxt])
        best = Q.max(axis=-1)
        cur = np.take_along_axis(Q, pi[..., None], -1)[..., 0]
        improve = cur < best - 1e-12 * np.maximum(1.0, np.abs(best))
        if not improve.any():
            return Q
        pi = np.where(improve, np.argmax(Q, axis=-1), pi)
    return Q  # pragma: no cover - policy iteration terminates finitely


def periodic_bellman_solve(r, P, *, gamma) -> np.ndarray:
    """The unique solution Q (L, Z, A) of the periodic Bellman optimality system
    Q^l(z, a) = r^l(z, a) + gamma sum_z' P^l(z'|z, a) max_a' Q^{[[l+1]]}(z', a'),
    for rewards ``r`` (L, Z, A) and kernels ``P`` (L, Z, A, Z) (exact: policy iteration)."""
    r = check_array(r, "r", ndim=3)
    P = check_array(P, "P", ndim=4)
    if P.shape != (*r.shape, r.shape[1]):
        raise ValueError(
            f"P must have shape {(*r.shape, r.shape[1])} (L, Z, A, Z) to match r {r.shape}, got "
            f"{P.shape}"
        )
    check_stochastic(P, "P")
    return _solve_periodic(r, P, check_gamma(gamma))


def limit_q(pomdp, agent_state, behavior, *, q_init=0.0) -> np.ndarray:
    """The Theorem-1 limit Q_mu (L, Z, A) of PASQL under the periodic behaviour ``behavior``.

    Q^l(z,a) = r^l(z,a) + gamma sum_z' P^l(z'|z,a) max_a' Q^{l+1}(z',a') with
    r^l(z,a) = sum_s zeta^l(s|z,a) r(s,a) and
    P^l(z'|z,a) = sum_{s,s',y'} zeta^l(s|z,a) P(s'|s,a) O(y'|s') 1{update(z,y',a) = z'},
    zeta the :func:`cyclic_limit`. Entries the limit never visits (zeta^l(z,a) = 0, e.g. an action
    the behaviour never takes) are never updated by PASQL and stay at ``q_init``.
    With L = 1 this is the limit of agent-state Q-learning (ASQL)."""
    m = _Model(pomdp, agent_state)
    mu, stationary = m.policy(behavior, "behavior")
    q0 = check_float(q_init, "q_init")
    zeta = _cyclic(m, mu)
    mass = zeta.sum(axis=1)  # (L, Z, A)
    visited = mass > UNVISITED_MASS
    safe = np.where(visited, mass, 1.0)
    rbar = np.einsum("lsza,sa->lza", zeta, m.r) / safe
    Pbar = np.einsum("lsza,sat,zatw->lzaw", zeta, pomdp.P, m.G) / safe[..., None]
    Q = _solve_periodic(rbar, Pbar, pomdp.gamma, fixed=~visited, fill=q0)
    return Q[0] if stationary else Q


def greedy_periodic(Q, *, tol=0.0) -> np.ndarray:
    """The greedy periodic policy of Q (L, Z, A) (or (Z, A)): one-hot action probabilities of
    the same shape, pi^l(z) = argmax_a Q^l(z, a); ties (within ``tol``) go to the lowest index."""
    Q = check_array(Q, "Q", ndim=(2, 3))
    tol = check_float(tol, "tol", minimum=0.0)
    best = Q.max(axis=-1, keepdims=True)
    a = np.argmax(Q >= best - tol, axis=-1)
    return np.eye(Q.shape[-1])[a]


def epsilon_greedy(policy, epsilon) -> np.ndarray:
    """(1 - epsilon) * policy + epsilon / A: a behaviour policy with full support around a
    (periodic or stationary) policy of shape (..., A)."""
    pi = check_array(policy, "policy", ndim=(2, 3))
    check_stochastic(pi, "policy")
    eps = check_float(epsilon, "epsilon", minimum=0.0, maximum=1.0)
    return (1.0 - eps) * pi + eps / pi.shape[-1]

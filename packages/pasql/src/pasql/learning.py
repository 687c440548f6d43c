"""PASQL (periodic agent-state based Q-learning) and its special case ASQL (L = 1).

At time t, with phase l = t mod L and transition (z_t, a_t, R_t, z_{t+1}), only the entry
(l, z_t, a_t) changes:

    Q^l(z_t, a_t) += alpha_n [R_t + gamma max_a' Q^{[[l+1]]}(z_{t+1}, a') - Q^l(z_t, a_t)],

alpha_n = step_size(n), n = the number of earlier updates of that entry (default
(1 + n)^-0.6). The data come from a periodic behaviour policy mu (L, Z, A).
"""

from __future__ import annotations

import bisect
import math
from typing import NamedTuple

import numpy as np

from ._checks import check_array, check_float, check_int, check_rng, check_same_length, describe
from ._validation import (
    check_agent_state,
    check_code,
    check_gamma,
    check_periodic_policy,
    check_step_size,
    step_size_table,
)
from .exact import _Model
from .pomdp import _alias, _cdf

#: Runs at or above which the seed-vectorised numpy kernel is used (below: a per-step loop).
VECTOR_MIN_RUNS = 4
_BLOCK = 4096


class Trajectories(NamedTuple):
    """Sampled runs, each (n_runs, n_steps) or (n_runs, n_steps + 1): ``states`` and
    ``observations`` s_0..s_T, y_0..y_T, ``agent_states`` z_0..z_T, ``actions`` and
    ``rewards`` a_0..a_{T-1}, R_0..R_{T-1}."""

    states: np.ndarray
    observations: np.ndarray
    agent_states: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray


# ---------------------------------------------------------------------- kernels
def _kernel_loop(z, a, r, phase0, L, Z, A, gamma, alpha, Q, N):
    """Per-step reference kernel for one run (Python scalars; Q, N flat lists, updated)."""
    T = len(a)
    for t in range(T):
        l = (phase0 + t) % L
        l1 = (l + 1) % L
        i = (l * Z + z[t]) * A + a[t]
        j = (l1 * Z + z[t + 1]) * A
        m = max(Q[j : j + A])
        n = N[i]
        N[i] = n + 1
        q = Q[i]
        Q[i] = q + alpha[n] * (r[t] + gamma * m - q)


def _block_counts(local: np.ndarray, N: np.ndarray) -> np.ndarray:
    """For per-run entry codes ``local`` (B, R) in [0, size), in time order: the number of
    earlier updates of each step's entry (N (R, size) before the block plus earlier steps of the
    block). N is advanced."""
    B, R = local.shape
    size = N.shape[1]
    runs = np.arange(R)
    key = (runs[None, :] * size + local).ravel()  # time-major, so a stable sort keeps time order
    if R * size < 1 << 15:
        key = key.astype(np.int16)  # numpy sorts 16-bit keys stably by radix sort
    perm = np.argsort(key, kind="stable")
    srt = key[perm]
    new_group = np.empty(srt.size, dtype=bool)
    new_group[0] = True
    np.not_equal(srt[1:], srt[:-1], out=new_group[1:])
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, srt.size))
    rank = np.arange(srt.size) - np.repeat(starts, sizes)
    srt = srt.astype(np.int64)
    Nflat = N.reshape(-1)
    n = np.empty(srt.size, dtype=np.int64)
    n[perm] = Nflat[srt] + rank
    Nflat[srt[starts]] += sizes
    return n.reshape(B, R)


def _kernel_vec(z, a, r, phase0, L, Z, A, gamma, step_size, Qf, Nf, alpha):
    """Seed-vectorised kernel: z (R, T+1), a, r (R, T); Qf, Nf flat (R*L*Z*A,), updated in place.
    The same floating-point operations as :func:`_kernel_loop`, run by run. Returns the
    (possibly extended) step-size table."""
    R, T = a.shape
    size = L * Z * A
    off = (np.arange(R) * size)[None, :]
    arA = np.arange(A)
    for t0 in range(0, T, _BLOCK):
        t1 = min(T, t0 + _BLOCK)
        ph = (phase0 + np.arange(t0, t1)) % L
        zt = np.ascontiguousarray(z[:, t0 : t1 + 1].T)  # (B+1, R), time-major
        at = np.ascontiguousarray(a[:, t0:t1].T)
        local = (ph[:, None] * Z + zt[:-1]) * A + at  # (B, R)
        idx = off + local
        nxt = off + (((ph + 1) % L)[:, None] * Z + zt[1:]) * A
        nxt1 = nxt + 1
        rew = np.ascontiguousarray(r[:, t0:t1].T)
        n = _block_counts(local, Nf.reshape(R, size))
        if n.max() >= len(alpha):
            alpha = step_size_table(step_size, max(int(n.max()) + 1, 2 * len(alpha)))
        al = alpha[n]
        for k in range(t1 - t0):
            i = idx[k]
            if A == 2:
                m = np.maximum(Qf[nxt[k]], Qf[nxt1[k]])
            else:
                m = Qf[nxt[k][:, None] + arA].max(axis=1)
            q = Qf[i]
            m *= gamma
            m += rew[k]
            m -= q
            m *= al[k]
            m += q
            Qf[i] = m
    return alpha


def _learn(z, a, r, L, Z, A, gamma, step_size, q_init, *, vectorised=None):
    """Run the kernel on (R, T+1) agent states, (R, T) actions and rewards -> Q (R, L, Z, A)."""
    R, T = a.shape
    size = L * Z * A
    # the largest count any entry reaches bounds the step-size table
    counts = np.zeros(R * size, dtype=np.int64)
    ph = np.arange(T) % L
    flat = (np.arange(R)[:, None] * size + (ph[None] * Z + z[:, :-1]) * A + a).ravel()
    np.add.at(counts, flat, 1)
    alpha = step_size_table(step_size, int(counts.max()))
    if vectorised is None:
        vectorised = R >= VECTOR_MIN_RUNS
    if vectorised:
        Qf = np.full(R * size, q_init)
        Nf = np.zeros(R * size, dtype=np.int64)
        _kernel_vec(z, a, r, 0, L, Z, A, gamma, step_size, Qf, Nf, alpha)
        return Qf.reshape(R, L, Z, A)
    alpha_l = alpha.tolist()
    out = np.empty((R, L, Z, A))
    for k in range(R):
        Q = [q_init] * size
        N = [0] * size
        _kernel_loop(z[k].tolist(), a[k].tolist(), r[k].tolist(), 0, L, Z, A, gamma, alpha_l, Q, N)
        out[k] = np.asarray(Q).reshape(L, Z, A)
    return out


# ---------------------------------------------------------------------- public API
def pasql_from_data(
    agent_states,
    actions,
    rewards,
    *,
    period,
    gamma,
    n_agent_states=None,
    n_actions=None,
    step_size=None,
    q_init=0.0,
):
    """PASQL on recorded data: Q (L, Z, A) (or (n_runs, L, Z, A) for batched data).

    ``agent_states`` z_0..z_T (T+1,), ``actions`` a_0..a_{T-1} (T,), ``rewards`` (T,); or
    batches of runs (n_runs, T+1), (n_runs, T), (n_runs, T), learned independently (seed-
    vectorised). Transition t is in phase t mod ``period``. ``n_agent_states`` and ``n_actions``
    default to 1 + the largest code seen."""
    L = check_int(period, "period", minimum=1)
    g = check_gamma(gamma)
    step_size = check_step_size(step_size)
    q0 = check_float(q_init, "q_init")
    z = check_array(agent_states, "agent_states", ndim=(1, 2), dtype="int")
    a = check_array(actions, "actions", ndim=(1, 2), dtype="int")
    r = check_array(rewards, "rewards", ndim=(1, 2))
    if not (z.ndim == a.ndim == r.ndim):
        raise ValueError(
            f"agent_states, actions and rewards must all be 1-d (one run) or all 2-d (runs); got "
            f"{z.ndim}-d, {a.ndim}-d and {r.ndim}-d"
        )
    single = z.ndim == 1
    if single:
        z, a, r = z[None], a[None], r[None]
    check_same_length(agent_states=z, actions=a, rewards=r)
    if a.shape[1] != r.shape[1]:
        raise ValueError(
            f"rewards has {r.shape[1]} steps but actions has {a.shape[1]}; they must match"
        )
    if z.shape[1] != a.shape[1] + 1:
        raise ValueError(
            f"agent_states must hold z_0..z_T, one more than actions ({a.shape[1]} steps), got "
            f"{z.shape[1]}"
        )
    for arr, nm in ((z, "agent_states"), (a, "actions")):
        if arr.min() < 0:
            raise ValueError(f"{nm} must be codes >= 0, got {arr.min()}")
    Z = (
        int(z.max()) + 1
        if n_agent_states is None
        else check_int(n_agent_states, "n_agent_states", minimum=1)
    )
    A = int(a.max()) + 1 if n_actions is None else check_int(n_actions, "n_actions", minimum=1)
    if z.max() >= Z:
        raise ValueError(f"agent_states must be codes < n_agent_states={Z}, got {z.max()}")
    if a.max() >= A:
        raise ValueError(f"actions must be codes < n_actions={A}, got {a.max()}")
    Q = _learn(z.astype(np.int64), a.astype(np.int64), r, L, Z, A, g, step_size, q0)
    return Q[0] if single else Q


def _env_api(env):
    if not (callable(getattr(env, "reset", None)) and callable(getattr(env, "step", None))):
        raise TypeError(
            f"env must have the gymnasium API (reset(seed=...) and step(a)), got {describe(env)}"
        )


def pasql(
    env,
    agent_state,
    behavior,
    n_steps,
    *,
    gamma,
    step_size=None,
    q_init=0.0,
    rng=None,
    phase_reset=True,
):
    """PASQL on any environment with the gymnasium API: Q (L, Z, A).

    One trajectory of ``n_steps`` transitions under the periodic behaviour policy ``behavior``
    (L, Z, A) (a stationary (Z, A) gives ASQL and a (Z, A) result), agent states from
    ``agent_state`` (``init(y)``, ``update(z, y, a)``). The env is reset once with a seed drawn
    from ``rng``. If it ends an episode, a terminal transition's target is its reward alone (a
    truncated one bootstraps), the env is reset and, with ``phase_reset`` (default), the phase
    restarts with the episode (a departure from the continuing-task theory)."""
    _env_api(env)
    Z = check_agent_state(agent_state)
    mu, stationary = check_periodic_policy(behavior, "behavior", n_agent_states=Z)
    T = check_int(n_steps, "n_steps", minimum=1)
    g = check_gamma(gamma)
    step_size = check_step_size(step_size)
    q0 = check_float(q_init, "q_init")
    phase_reset = bool(phase_reset)
    rand = check_rng(rng)
    L, _, A = mu.shape
    n_env = getattr(env, "n_actions", None)
    if n_env is None:
        n_env = getattr(getattr(env, "action_space", None), "n", None)
    if n_env is not None and int(n_env) != A:
        raise ValueError(f"behavior has {A} actions (last axis) but env has {int(n_env)}")
    cdf = _cdf(mu).tolist()
    alpha = step_size_table(step_size, min(T, 1 << 16)).tolist()
    size = L * Z * A
    Q = [q0] * size
    N = [0] * size
    u = rand.random(T).tolist()

    def as_z(v):
        try:
            return check_code(v, "agent_state", Z)
        except (TypeError, ValueError) as e:
            raise type(e)(f"agent_state returned {v!r}: {e}") from None

    y, _ = env.reset(seed=int(rand.integers(2**63 - 1)))
    z = as_z(agent_state.init(y))
    l = 0
    for t in range(T):
        row = cdf[l][z]
        act = min(bisect.bisect_right(row, u[t]), A - 1)
        y, rew, term, trunc, _ = env.step(act)
        rew = float(rew)
        if not math.isfinite(rew):
            raise ValueError(f"env returned a non-finite reward {rew} at step {t}")
        z2 = as_z(agent_state.update(z, y, act))
        l1 = (l + 1) % L
        i = (l * Z + z) * A + act
        n = N[i]
        N[i] = n + 1
        if n >= len(alpha):
            alpha = step_size_table(step_size, 2 * len(alpha)).tolist()
        target = rew if term else rew + g * max(Q[(l1 * Z + z2) * A : (l1 * Z + z2) * A + A])
        q = Q[i]
        Q[i] = q + alpha[n] * (target - q)
        if term or trunc:
            y, _ = env.reset()
            z = as_z(agent_state.init(y))
            l = 0 if phase_reset else l1
        else:
            z, l = z2, l1
    out = np.asarray(Q).reshape(L, Z, A)
    return out[0] if stationary else out


def asql(env, agent_state, behavior, n_steps, *, gamma, step_size=None, q_init=0.0, rng=None):
    """Agent-state Q-learning (ASQL, the stationary baseline): :func:`pasql` with a stationary
    behaviour policy (Z, A); returns Q (Z, A). With ``FrameStack`` agent states it is
    frame-stack Q-learning."""
    arr = check_array(behavior, "behavior", ndim=2)
    return pasql(
        env, agent_state, arr, n_steps, gamma=gamma, step_size=step_size, q_init=q_init, rng=rng
    )


def _model_and_mu(pomdp, agent_state, behavior, n_runs):
    m = _Model(pomdp, agent_state)
    arr = check_array(behavior, "behavior", ndim=(2, 3, 4))
    if arr.ndim == 4:
        if arr.shape[0] != n_runs:
            raise ValueError(
                f"behavior has {arr.shape[0]} per-run policies (axis 0) but n_runs is {n_runs}"
            )
        mus = [m.policy(arr[k], "behavior")[0] for k in range(n_runs)]
        mu = np.stack(mus)
        stationary = False
    else:
        mu1, stationary = m.policy(arr, "behavior")
        mu = np.broadcast_to(mu1, (n_runs, *mu1.shape))
    return m, mu, stationary


def sample_trajectories(pomdp, agent_state, behavior, n_steps, *, n_runs=1, rng=None):
    """Sample ``n_runs`` trajectories of ``n_steps`` transitions of a :class:`TabularPOMDP` under
    the periodic behaviour ``behavior`` (L, Z, A) (or per run (n_runs, L, Z, A)); vectorised over
    runs. Returns :class:`Trajectories`."""
    R = check_int(n_runs, "n_runs", minimum=1)
    m, mu, _ = _model_and_mu(pomdp, agent_state, behavior, R)
    T = check_int(n_steps, "n_steps", minimum=1)
    rand = check_rng(rng)
    L = mu.shape[1]
    cP, cO, cI = _cdf(pomdp.P), _cdf(pomdp.O), _cdf(pomdp.init)
    cmu = _cdf(np.ascontiguousarray(mu))
    runs = np.arange(R)
    S_ = np.empty((R, T + 1), dtype=np.int64)
    Y_ = np.empty((R, T + 1), dtype=np.int64)
    Z_ = np.empty((R, T + 1), dtype=np.int64)
    A_ = np.empty((R, T), dtype=np.int64)
    R_ = np.empty((R, T))
    u = rand.random((R, 2))
    s = (cI[None] <= u[:, :1]).sum(1)
    y = (cO[s] <= u[:, 1:]).sum(1)
    z = m.init_tab[y]
    S_[:, 0], Y_[:, 0], Z_[:, 0] = s, y, z
    sas = pomdp.reward_kind == "sas"
    for t in range(T):
        u = rand.random((R, 3))
        a = (cmu[runs, t % L, z] <= u[:, :1]).sum(1)
        s2 = (cP[s, a] <= u[:, 1:2]).sum(1)
        y = (cO[s2] <= u[:, 2:]).sum(1)
        R_[:, t] = pomdp.R[s, a, s2] if sas else pomdp.R[s, a]
        z = m.upd[z, y, a]
        s = s2
        A_[:, t], S_[:, t + 1], Y_[:, t + 1], Z_[:, t + 1] = a, s, y, z
    return Trajectories(S_, Y_, Z_, A_, R_)


#: Largest joint (s, z, a) space that pasql_many simulates as one chain (else factor by factor).
JOINT_MAX_STATES = 512


def _alias_draw(prob, alias, K, rows, j, u):
    """Alias draws: rows (R,) table rows, j (R,) columns floor(u1 K), u (R,) second uniforms."""
    c = rows * K
    c += j
    return np.where(u < prob[c], j, alias[c])


class _JointChain:
    """Simulate X_t = (s_t, z_t, a_t) directly: one alias draw per step (small problems)."""

    def __init__(self, m, mu, which, firsts, rand):
        S, Z, A = m.S, m.Z, m.A
        L = mu.shape[1]
        n3 = S * Z * A
        self.n3, self.L, self.rand = n3, L, rand
        # (s,z,a) at phase l -> (s',z',a') with a' ~ mu^{l+1}
        PG = np.einsum("sat,zatw->szatw", m.pomdp.P, m.G).reshape(n3, S * Z)
        tabs = []
        for k in firsts:
            Ms = []
            for l in range(L):
                mu_next = np.tile(mu[k, (l + 1) % L], (S, 1))  # row (s', z') -> mu(.|z')
                Ms.append((PG[:, :, None] * mu_next[None]).reshape(n3, n3))
            tabs.append(_alias(np.concatenate(Ms)))
        self.prob = np.concatenate([t[0] for t in tabs]).ravel()
        self.alias = np.concatenate([t[1] for t in tabs]).ravel()
        # table row of (run k, phase l, x): which[k] * L * n3 + l * n3 + x
        self.base = np.stack([which * (L * n3) + l * n3 for l in range(L)])  # (L, R)
        self.s_of = np.repeat(np.arange(S), Z * A)
        self.z_of = np.tile(np.repeat(np.arange(Z), A), S)
        self.a_of = np.tile(np.arange(A), S * Z)
        self.sas = m.pomdp.reward_kind == "sas"
        self.rew = m.pomdp.R[self.s_of, self.a_of]  # (n3,) or (n3, S)
        R = len(which)
        nu = (m.nu0[:, :, None] * mu[:, 0][:, None]).reshape(R, n3)
        self.x = (_cdf(nu) <= rand.random((R, 1))).sum(1)

    def block(self, t0, B):
        R, n3 = self.x.shape[0], self.n3
        u = self.rand.random((2, B, R))
        j = np.minimum((u[0] * n3).astype(np.int64), n3 - 1)
        rows = self.base[(t0 + np.arange(B)) % self.L]  # (B, R)
        xs = np.empty((B + 1, R), dtype=np.int64)
        x = xs[0] = self.x
        for k in range(B):
            x = _alias_draw(self.prob, self.alias, n3, rows[k] + x, j[k], u[1, k])
            xs[k + 1] = x
        self.x = x
        xs = xs.T
        prev = xs[:, :-1]
        rb = self.rew[prev, self.s_of[xs[:, 1:]]] if self.sas else self.rew[prev]
        return self.z_of[xs], self.a_of[prev], rb


class _Factored:
    """Simulate action, next state, observation and agent state one after the other (alias draws
    per factor): memory linear in the tables, for large agent states."""

    def __init__(self, m, mu, which, firsts, rand):
        pom = m.pomdp
        S, Z, A, Y = m.S, m.Z, m.A, m.Y
        L = mu.shape[1]
        self.S, self.Z, self.A, self.Y, self.L, self.rand = S, Z, A, Y, L, rand
        self.Pp, self.Pa = (t.ravel() for t in _alias(pom.P.reshape(S * A, S)))
        self.Op, self.Oa = (t.ravel() for t in _alias(pom.O))
        mus = np.concatenate([mu[k].reshape(L * Z, A) for k in firsts])
        self.Mp, self.Ma = (t.ravel() for t in _alias(mus))
        self.mbase = np.stack([(which * L + l) * Z for l in range(L)])  # (L, R)
        self.upd = m.upd.ravel()
        self.R_ = pom.R
        self.sas = pom.reward_kind == "sas"
        R = len(which)
        u = rand.random((R, 2))
        self.s = (_cdf(pom.init)[None] <= u[:, :1]).sum(1)
        y = (_cdf(pom.O)[self.s] <= u[:, 1:]).sum(1)
        self.z = m.init_tab[y]

    def block(self, t0, B):
        S, A, Y = self.S, self.A, self.Y
        R = self.s.shape[0]
        u = self.rand.random((6, B, R))
        ja = np.minimum((u[0] * A).astype(np.int64), A - 1)
        js = np.minimum((u[2] * S).astype(np.int64), S - 1)
        jy = np.minimum((u[4] * Y).astype(np.int64), Y - 1)
        mrows = self.mbase[(t0 + np.arange(B)) % self.L]
        zs = np.empty((B + 1, R), dtype=np.int64)
        acts = np.empty((B, R), dtype=np.int64)
        rews = np.empty((B, R))
        s, z = self.s, self.z
        zs[0] = z
        for k in range(B):
            a = _alias_draw(self.Mp, self.Ma, A, mrows[k] + z, ja[k], u[1, k])
            s2 = _alias_draw(self.Pp, self.Pa, S, s * A + a, js[k], u[3, k])
            y = _alias_draw(self.Op, self.Oa, Y, s2, jy[k], u[5, k])
            rews[k] = self.R_[s, a, s2] if self.sas else self.R_[s, a]
            z = self.upd[(z * Y + y) * A + a]
            s = s2
            zs[k + 1], acts[k] = z, a
        self.s, self.z = s, z
        return zs.T, acts.T, rews.T


def pasql_many(
    pomdp,
    agent_state,
    behavior,
    n_steps,
    n_runs,
    *,
    gamma=None,
    step_size=None,
    q_init=0.0,
    rng=None,
):
    """``n_runs`` independent PASQL runs on a :class:`TabularPOMDP`, vectorised over runs:
    Q (n_runs, L, Z, A) (or (n_runs, Z, A) for a stationary behaviour (Z, A)).

    ``behavior`` (L, Z, A), or one per run (n_runs, L, Z, A); ``gamma`` defaults to the
    POMDP's. The runs are simulated on the joint chain of (s, z, a) in blocks and learned with
    the seed-vectorised kernel; the same law of data as :func:`pasql` on ``pomdp`` as an env."""
    R = check_int(n_runs, "n_runs", minimum=1)
    m, mu, stationary = _model_and_mu(pomdp, agent_state, behavior, R)
    T = check_int(n_steps, "n_steps", minimum=1)
    g = pomdp.gamma if gamma is None else check_gamma(gamma)
    step_size = check_step_size(step_size)
    q0 = check_float(q_init, "q_init")
    rand = check_rng(rng)
    L = mu.shape[1]
    S, Z, A = m.S, m.Z, m.A
    # distinct behaviours get one set of tables each
    distinct: dict[bytes, int] = {}
    which = np.empty(R, dtype=np.int64)
    for k in range(R):
        which[k] = distinct.setdefault(mu[k].tobytes(), len(distinct))
    firsts = [int(np.flatnonzero(which == d)[0]) for d in range(len(distinct))]
    if S * Z * A <= JOINT_MAX_STATES:
        sim = _JointChain(m, mu, which, firsts, rand)
    else:
        sim = _Factored(m, mu, which, firsts, rand)
    size = L * Z * A
    Qf = np.full(R * size, q0)
    Nf = np.zeros(R * size, dtype=np.int64)
    alpha = step_size_table(step_size, min(T, 1 << 16))
    vec = R >= VECTOR_MIN_RUNS
    al = None
    Ql = [[q0] * size for _ in range(R)]
    Nl = [[0] * size for _ in range(R)]
    t0 = 0
    while t0 < T:
        B = min(_BLOCK, T - t0)
        zb, ab, rb = sim.block(t0, B)
        need = max(max(n) for n in Nl) + B if not vec else 0
        if need > len(alpha):
            alpha = step_size_table(step_size, max(need, 2 * len(alpha)))
            al = None
        if vec:
            alpha = _kernel_vec(zb, ab, rb, t0 % L, L, Z, A, g, step_size, Qf, Nf, alpha)
        else:
            if al is None:
                al = alpha.tolist()
            for k in range(R):
                _kernel_loop(
                    zb[k].tolist(),
                    ab[k].tolist(),
                    rb[k].tolist(),
                    t0 % L,
                    L,
                    Z,
                    A,
                    g,
                    al,
                    Ql[k],
                    Nl[k],
                )
        t0 += B
    Q = Qf.reshape(R, L, Z, A) if vec else np.asarray(Ql).reshape(R, L, Z, A)
    return Q[:, 0] if stationary else Q

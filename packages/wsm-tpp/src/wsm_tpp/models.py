"""Parametric point-process models with closed-form score terms.

Is Score Matching Suitable for Estimating Point Processes? - https://arxiv.org/abs/2410.04037
(Sec. 4-5: the autoregressive score psi(t) = d/dt log lambda(t) - lambda(t) of event n's
conditional density, and its time derivative, in closed form for parametric intensities).

Every model exposes, for each observed event n (given its history), the *local* quantities

    L = lambda(t_n) (ground intensity), L1 = lambda'(t_n), L2 = lambda''(t_n),
    Lk = lambda_{k_n}(t_n) (intensity of the observed mark),

and the vector-Jacobian product of these w.r.t. the unconstrained parameter vector theta.
Every objective in :mod:`wsm_tpp.objectives` is built from them, so a new model only has to
provide ``_local``, ``_vjp`` and (for MLE) ``_compensator``.
"""

from __future__ import annotations

import copy

import numpy as np

from ._checks import check_array, check_int, describe
from ._data import (
    Events,
    check_excitation,
    check_positive_number,
    check_rates,
    check_sequence,
    check_times,
    prepare,
)

_LOG_BOUNDS = (-25.0, 8.0)  # bounds of log-parameters for L-BFGS-B


class ExpHawkes:
    """Multivariate Hawkes process with exponential kernel.

    ``lambda_k(t) = mu_k + sum_{t_j < t} A[k, k_j] * beta * exp(-beta (t - t_j))``.
    With ``E_k(t) = lambda_k(t) - mu_k`` and ``e = sum_k E_k``: ``lambda' = -beta e`` and
    ``lambda'' = beta^2 e`` (Sec. 6.1), so the score terms cost O(N K) via the recursion
    ``R_n = exp(-beta (t_n - t_{n-1})) (R_{n-1} + beta onehot(k_{n-1}))``.

    Args:
        K: number of marks.
        beta: fixed decay rate (the paper's synthetic experiments treat it as known); ``None``
            learns it too (its gradient is then a central finite difference).
        mu: (K,) initial / current base rates (default: set from the data by ``fit``).
        A: (K, K) initial / current branching matrix.

    >>> m = ExpHawkes(1, beta=2.0, mu=[0.5], A=[[0.8]])
    >>> m.intensity([1.0], (np.array([0.5]), np.array([0]))).round(4).tolist()
    [[1.0886]]
    """

    def __init__(self, K: int = 1, *, beta: float | None = None, mu=None, A=None):
        self.K = check_int(K, "K", minimum=1)
        self.fixed_beta = beta is not None
        self.beta = check_positive_number(beta, "beta") if beta is not None else 1.0
        self.mu = None if mu is None else check_rates(mu, "mu", self.K)
        self.A = None if A is None else check_excitation(A, self.K, "A")

    # ---------------------------------------------------------------- parameters
    @property
    def params(self) -> dict:
        return {"mu": self.mu, "A": self.A, "beta": self.beta}

    @property
    def n_params(self) -> int:
        return self.K + self.K * self.K + (0 if self.fixed_beta else 1)

    def _init_from(self, ev: Events) -> None:
        if self.mu is None:
            self.mu = np.full(self.K, 0.5 * ev.M / (self.K * ev.T.sum()))
        if self.A is None:
            self.A = np.full((self.K, self.K), 0.2 / self.K)

    def _theta(self) -> np.ndarray:
        a = np.maximum(self.A.ravel(), np.exp(_LOG_BOUNDS[0]))
        th = [np.log(self.mu), np.log(a)]
        if not self.fixed_beta:
            th.append([np.log(self.beta)])
        return np.concatenate(th)

    def _unpack(self, theta):
        K = self.K
        mu = np.exp(theta[:K])
        A = np.exp(theta[K : K + K * K]).reshape(K, K)
        beta = self.beta if self.fixed_beta else float(np.exp(theta[-1]))
        return mu, A, beta

    def _set_theta(self, theta) -> None:
        self.mu, self.A, self.beta = self._unpack(np.asarray(theta, dtype=float))

    def _bounds(self):
        return [_LOG_BOUNDS] * self.n_params

    def _fd_indices(self) -> list[int]:
        return [] if self.fixed_beta else [self.n_params - 1]

    def copy(self) -> ExpHawkes:
        return copy.deepcopy(self)

    # ---------------------------------------------------------------- recursions
    def _cache(self, theta, ev: Events) -> dict:
        """theta-independent (given beta) quantities: R (M, K) and the compensator's G (K,)."""
        _, _, beta = self._unpack(theta)
        S, nmax = ev.padded_t.shape
        R = np.zeros((S, nmax, self.K))
        r = np.zeros((S, self.K))
        rows = np.arange(S)
        for n in range(1, nmax):
            d = ev.padded_t[:, n] - ev.padded_t[:, n - 1]  # (S,) >= 0 (padding repeats T)
            r = r.copy()
            r[rows, ev.padded_k[:, n - 1]] += beta
            r *= np.exp(-beta * d)[:, None]
            R[:, n] = r
        R = R[ev.mask]  # (M, K): R[n, l] = sum_{j<n, k_j=l} beta exp(-beta (t_n - t_j))
        onehot = np.zeros((ev.M, self.K))
        onehot[np.arange(ev.M), ev.k] = 1.0
        # (K,) sum over events of mark l of int_{t_j}^T beta exp(-beta (s - t_j)) ds
        G = np.einsum("mk,m->k", onehot, 1.0 - np.exp(-beta * (ev.tend - ev.t)))
        return {"beta": beta, "R": R, "onehot": onehot, "G": G, "T_total": ev.T.sum()}

    def _local(self, theta, ev: Events, cache: dict, shift=None) -> dict:
        """Local quantities at t_n + shift (shift (M,) for DSM; None = at the events)."""
        mu, A, beta = self._unpack(theta)
        R = cache["R"]
        if shift is not None:
            R = R * np.exp(-beta * shift)[:, None]
        E = np.einsum("ml,kl->mk", R, A)  # (M, K) excitation of each mark
        e = E.sum(1)
        L = mu.sum() + e
        Lk = mu[ev.k] + E[np.arange(ev.M), ev.k]
        return {"L": L, "L1": -beta * e, "L2": beta**2 * e, "Lk": Lk, "R": R}

    def _vjp(self, theta, ev, cache, loc, gL, gL1, gL2, gLk) -> np.ndarray:
        """sum_n (gL dL/dtheta + gL1 dL1/dtheta + gL2 dL2/dtheta + gLk dLk/dtheta)."""
        mu, A, beta = self._unpack(theta)
        R = loc["R"]
        v = gL - beta * gL1 + beta**2 * gL2  # (M,)
        g_mu = gL.sum() + np.einsum("mk,m->k", cache["onehot"], gLk)  # (K,)
        g_A = np.einsum("m,ml->l", v, R)[None, :] + np.einsum(
            "mk,m,ml->kl", cache["onehot"], gLk, R
        )
        g = np.concatenate([g_mu * mu, (g_A * A).ravel()])
        if not self.fixed_beta:
            g = np.append(g, 0.0)  # filled by finite differences in objectives
        return g

    def _compensator(self, theta, ev, cache) -> tuple[float, np.ndarray]:
        """sum over sequences of int_0^T sum_k lambda_k, and its gradient (exact)."""
        mu, A, _ = self._unpack(theta)
        G = cache["G"]
        val = cache["T_total"] * mu.sum() + float(np.einsum("kl,l->", A, G))
        g = np.concatenate([cache["T_total"] * mu, (np.outer(np.ones(self.K), G) * A).ravel()])
        if not self.fixed_beta:
            g = np.append(g, 0.0)
        return float(val), g

    # ---------------------------------------------------------------- user API
    def intensity(self, t, history) -> np.ndarray:
        """Conditional intensities ``lambda_k(t | history)`` (direct sum, for checks and plots).

        Args:
            t: (n,) query times.
            history: ``(times, marks)``; only events strictly before each query count.

        Returns:
            (n, K) intensities.
        """
        self._require_params()
        times, marks = _check_history(history, self.K)
        t = check_times(t)
        dt = t[:, None] - times[None, :]  # (n, N)
        ker = np.where(dt > 0, self.beta * np.exp(-self.beta * np.where(dt > 0, dt, 0.0)), 0.0)
        return self.mu[None, :] + np.einsum("nj,kj->nk", ker, self.A[:, marks])

    def score_terms(self, seq, *, T=None) -> tuple[np.ndarray, np.ndarray]:
        """Closed-form ``(psi, dpsi)`` at the event times of one sequence, each (N,).

        ``psi = lambda'/lambda - lambda`` and ``dpsi = lambda''/lambda - (lambda'/lambda)^2 - lambda'``.
        """
        self._require_params()
        ev = prepare(seq, T, self.K, name="seq", single=True)
        theta = self._theta()
        loc = self._local(theta, ev, self._cache(theta, ev))
        return _psi(loc)

    def _require_params(self):
        if self.mu is None or self.A is None:
            raise ValueError("model parameters are not set: set mu and A (or call fit) first")

    def __repr__(self) -> str:
        return f"ExpHawkes(K={self.K}, beta={self.beta!r}, mu={self.mu!r}, A={self.A!r})"


class InhomogeneousPoisson:
    """Log-linear inhomogeneous Poisson process ``lambda(t) = exp(w . phi(t))``.

    Args:
        basis: an int d (polynomial ``phi_j(t) = (t / scale)^j``, j = 0..d) or a callable
            ``basis(t: (n,)) -> (Phi, dPhi, d2Phi)`` each (n, P).
        scale: time scale of the polynomial basis.
        weights: (P,) initial / current weights (default: log of the mean rate, then zeros).
        n_quad: Gauss-Legendre nodes per sequence for the MLE compensator (no closed form in general).

    >>> m = InhomogeneousPoisson(0, weights=[np.log(2.0)])
    >>> m.intensity([0.5, 3.0]).round(6).tolist()
    [[2.0], [2.0]]
    """

    K = 1

    def __init__(self, basis=1, *, scale: float = 1.0, weights=None, n_quad: int = 64):
        self.scale = check_positive_number(scale, "scale")
        if callable(basis):
            self._basis = basis
            self.n_params = None
            P = _check_basis(basis)
        else:
            if isinstance(basis, bool | np.bool_) or not isinstance(basis, int | np.integer):
                raise TypeError(
                    f"basis must be a polynomial degree (an int >= 0) or a callable, got {describe(basis)}"
                )
            deg = check_int(basis, "basis", minimum=0)
            self._basis = self._poly(deg, self.scale)
            self.n_params = P = deg + 1
        self.weights = None
        if weights is not None:
            self.weights = check_array(weights, "weights", ndim=1)
            if self.weights.shape != (P,):
                raise ValueError(
                    f"weights must have shape ({P},) (one per basis function), "
                    f"got shape {self.weights.shape}"
                )
        self.n_quad = check_int(n_quad, "n_quad", minimum=1)
        self.fixed_beta = True

    @staticmethod
    def _poly(deg: int, scale: float):
        def basis(t):
            x = np.asarray(t, dtype=np.float64)[:, None] / scale
            j = np.arange(deg + 1)[None, :]
            Phi = x**j
            dPhi = np.where(j >= 1, j * x ** np.maximum(j - 1, 0), 0.0) / scale
            d2Phi = np.where(j >= 2, j * (j - 1) * x ** np.maximum(j - 2, 0), 0.0) / scale**2
            return Phi, dPhi, d2Phi

        return basis

    @property
    def params(self) -> dict:
        return {"weights": self.weights}

    def _init_from(self, ev: Events) -> None:
        if self.weights is None:
            P = self._basis(np.zeros(1))[0].shape[1]
            self.weights = np.zeros(P)
            self.weights[0] = np.log(ev.M / ev.T.sum())

    def _theta(self):
        return np.array(self.weights, dtype=float)

    def _set_theta(self, theta):
        self.weights = np.array(theta, dtype=float)

    def _bounds(self):
        return [(None, None)] * self._theta().shape[0]

    def _fd_indices(self):
        return []

    def copy(self):
        return copy.deepcopy(self)

    def _cache(self, theta, ev):
        x, wq = np.polynomial.legendre.leggauss(self.n_quad)
        nodes = (ev.T[:, None] * (x[None, :] + 1.0) / 2.0).ravel()  # (S * Q,)
        qw = (ev.T[:, None] * wq[None, :] / 2.0).ravel()
        return {"Phi_q": self._basis(nodes)[0], "qw": qw}

    def _local(self, theta, ev, cache, shift=None):
        t = ev.t if shift is None else ev.t + shift
        Phi, dPhi, d2Phi = self._basis(t)
        s1 = np.einsum("mp,p->m", dPhi, theta)
        L = np.exp(np.einsum("mp,p->m", Phi, theta))
        L1 = L * s1
        L2 = L * (np.einsum("mp,p->m", d2Phi, theta) + s1**2)
        return {
            "L": L,
            "L1": L1,
            "L2": L2,
            "Lk": L,
            "Phi": Phi,
            "dPhi": dPhi,
            "d2Phi": d2Phi,
            "s1": s1,
        }

    def _vjp(self, theta, ev, cache, loc, gL, gL1, gL2, gLk):
        L, L1, L2, s1 = loc["L"], loc["L1"], loc["L2"], loc["s1"]
        Phi, dPhi, d2Phi = loc["Phi"], loc["dPhi"], loc["d2Phi"]
        g = np.einsum("m,mp->p", (gL + gLk) * L, Phi)
        g = g + np.einsum("m,mp->p", gL1, L1[:, None] * Phi + L[:, None] * dPhi)
        g = g + np.einsum(
            "m,mp->p", gL2, L2[:, None] * Phi + L[:, None] * (d2Phi + 2 * s1[:, None] * dPhi)
        )
        return g

    def _compensator(self, theta, ev, cache):
        lam = np.exp(np.einsum("qp,p->q", cache["Phi_q"], theta)) * cache["qw"]
        return float(lam.sum()), np.einsum("q,qp->p", lam, cache["Phi_q"])

    def intensity(self, t, history=None) -> np.ndarray:
        """(n, 1) intensity at ``t`` (``history`` is ignored: a Poisson process has none)."""
        if self.weights is None:
            raise ValueError("model parameters are not set: set weights (or call fit) first")
        t = check_times(t)
        return np.exp(np.einsum("np,p->n", self._basis(t)[0], self.weights))[:, None]

    def score_terms(self, seq, *, T=None):
        """Closed-form autoregressive ``(psi, dpsi)`` at the event times, each (N,)."""
        if self.weights is None:
            raise ValueError("model parameters are not set: set weights (or call fit) first")
        ev = prepare(seq, T, 1, name="seq", single=True)
        theta = self._theta()
        return _psi(self._local(theta, ev, self._cache(theta, ev)))

    def __repr__(self):
        return f"InhomogeneousPoisson(weights={self.weights!r})"


def _check_history(history, K: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``history`` of ``intensity``: a (times, marks) sequence (may be empty), marks < K."""
    times, marks = check_sequence(history, name="history")
    if marks.size and marks.max() >= K:
        raise ValueError(f"history marks must be < K={K}, found {marks.max()}")
    return times, marks


def _check_basis(basis) -> int:
    """A callable basis returns (Phi, dPhi, d2Phi), each (n, P); returns P."""
    t = np.array([0.0, 0.5])
    out = basis(t)
    if not (isinstance(out, tuple | list) and len(out) == 3):
        raise ValueError(
            f"basis(t) must return a tuple (Phi, dPhi, d2Phi), each of shape (n, P), got {describe(out)}"
        )
    arrs = [check_array(a, f"basis(t)[{i}]", ndim=2) for i, a in enumerate(out)]
    shapes = {a.shape for a in arrs}
    if len(shapes) != 1 or arrs[0].shape[0] != t.shape[0]:
        raise ValueError(
            f"basis(t) must return Phi, dPhi, d2Phi of one shape (n, P) for t of shape {t.shape}, "
            f"got shapes {[a.shape for a in arrs]}"
        )
    return arrs[0].shape[1]


def _psi(loc: dict) -> tuple[np.ndarray, np.ndarray]:
    L, L1, L2 = loc["L"], loc["L1"], loc["L2"]
    r = L1 / L
    return r - L, L2 / L - r**2 - L1


class GaussHawkes:
    """Multivariate Hawkes process with a Gaussian kernel of known centre and width.

    ``lambda_k(t) = mu_k + sum_{t_j < t} A[k, k_j] g(t - t_j)`` with
    ``g(s) = exp(-(s - m)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)`` (the paper's Gaussian-kernel
    Hawkes, Sec. 6.1). The kernel's mass on s > 0 is ``Phi(m / sigma)``, so the branching matrix
    is ``A * Phi(m / sigma)``. ``lambda'`` and ``lambda''`` use ``g'`` and ``g''`` in closed form;
    the sums over the history are pairwise (O(N^2) per sequence).

    Args:
        K: number of marks.
        m: kernel centre (mean delay), fixed.
        sigma: kernel width > 0, fixed.
        mu: (K,) initial / current base rates; A: (K, K) initial / current excitation.

    >>> m = GaussHawkes(1, m=1.0, sigma=0.5, mu=[0.5], A=[[0.6]])
    >>> m.intensity([1.5], (np.array([0.5]), np.array([0]))).round(4).tolist()
    [[0.9787]]
    """

    def __init__(self, K: int = 1, *, m: float = 1.0, sigma: float = 0.5, mu=None, A=None):
        self.K = check_int(K, "K", minimum=1)
        self.m = check_positive_number(m, "m", allow_zero=True)
        self.sigma = check_positive_number(sigma, "sigma")
        self.mu = None if mu is None else check_rates(mu, "mu", self.K)
        self.A = None if A is None else check_excitation(A, self.K, "A")
        self.fixed_beta = True

    @property
    def params(self) -> dict:
        return {"mu": self.mu, "A": self.A}

    @property
    def n_params(self) -> int:
        return self.K + self.K * self.K

    _init_from = ExpHawkes._init_from
    _bounds = ExpHawkes._bounds
    copy = ExpHawkes.copy
    _require_params = ExpHawkes._require_params

    def _theta(self):
        a = np.maximum(self.A.ravel(), np.exp(_LOG_BOUNDS[0]))
        return np.concatenate([np.log(self.mu), np.log(a)])

    def _unpack(self, theta):
        K = self.K
        return np.exp(theta[:K]), np.exp(theta[K:]).reshape(K, K), None

    def _set_theta(self, theta):
        self.mu, self.A, _ = self._unpack(np.asarray(theta, dtype=float))

    def _fd_indices(self):
        return []

    def _kernel(self, s):
        """g, g', g'' at delays s (zero for s <= 0)."""
        z = (s - self.m) / self.sigma
        g = np.where(s > 0, np.exp(-0.5 * z**2) / (np.sqrt(2 * np.pi) * self.sigma), 0.0)
        return g, -g * z / self.sigma, g * (z**2 - 1.0) / self.sigma**2

    def _features(self, ev: Events, shift=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """R0, R1, R2 (M, K): sums over earlier events of mark l of g, g', g'' at t_n (+ shift)."""
        t = ev.t if shift is None else ev.t + shift
        out = [np.zeros((ev.M, self.K)) for _ in range(3)]
        starts = np.concatenate([[0], np.cumsum(ev.mask.sum(1))])
        for a, b in zip(starts[:-1], starts[1:], strict=True):
            if b - a < 2:
                continue
            dt = t[a:b, None] - ev.t[None, a:b]  # (N, N)
            earlier = np.tri(b - a, k=-1, dtype=bool)
            onehot = np.zeros((b - a, self.K))
            onehot[np.arange(b - a), ev.k[a:b]] = 1.0
            for r, g in zip(out, self._kernel(np.where(earlier, dt, -1.0)), strict=True):
                r[a:b] = np.einsum("nj,jl->nl", np.where(earlier, g, 0.0), onehot)
        return tuple(out)

    def _cache(self, theta, ev):
        from scipy.special import ndtr

        onehot = np.zeros((ev.M, self.K))
        onehot[np.arange(ev.M), ev.k] = 1.0
        mass = ndtr((ev.tend - ev.t - self.m) / self.sigma) - ndtr(-self.m / self.sigma)
        R0, R1, R2 = self._features(ev)
        return {
            "R": (R0, R1, R2),
            "onehot": onehot,
            "G": np.einsum("mk,m->k", onehot, mass),
            "T_total": ev.T.sum(),
        }

    def _local(self, theta, ev, cache, shift=None):
        mu, A, _ = self._unpack(theta)
        R0, R1, R2 = cache["R"] if shift is None else self._features(ev, shift)
        E = np.einsum("ml,kl->mk", R0, A)
        L = mu.sum() + E.sum(1)
        L1 = np.einsum("ml,kl->m", R1, A)
        L2 = np.einsum("ml,kl->m", R2, A)
        Lk = mu[ev.k] + E[np.arange(ev.M), ev.k]
        return {"L": L, "L1": L1, "L2": L2, "Lk": Lk, "R": (R0, R1, R2)}

    def _vjp(self, theta, ev, cache, loc, gL, gL1, gL2, gLk):
        mu, A, _ = self._unpack(theta)
        R0, R1, R2 = loc["R"]
        g_mu = gL.sum() + np.einsum("mk,m->k", cache["onehot"], gLk)
        v = (
            np.einsum("m,ml->l", gL, R0)
            + np.einsum("m,ml->l", gL1, R1)
            + np.einsum("m,ml->l", gL2, R2)
        )
        g_A = v[None, :] + np.einsum("mk,m,ml->kl", cache["onehot"], gLk, R0)
        return np.concatenate([g_mu * mu, (g_A * A).ravel()])

    _compensator = ExpHawkes._compensator

    def intensity(self, t, history) -> np.ndarray:
        """(n, K) conditional intensities at ``t`` given ``history = (times, marks)``."""
        self._require_params()
        times, marks = _check_history(history, self.K)
        t = check_times(t)
        g = self._kernel(t[:, None] - times[None, :])[0]  # (n, N)
        return self.mu[None, :] + np.einsum("nj,kj->nk", g, self.A[:, marks])

    def score_terms(self, seq, *, T=None):
        """Closed-form ``(psi, dpsi)`` at the event times of one sequence, each (N,)."""
        self._require_params()
        ev = prepare(seq, T, self.K, name="seq", single=True)
        theta = self._theta()
        return _psi(self._local(theta, ev, self._cache(theta, ev)))

    def __repr__(self):
        return f"GaussHawkes(K={self.K}, m={self.m!r}, sigma={self.sigma!r}, mu={self.mu!r}, A={self.A!r})"

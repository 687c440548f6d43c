"""The smooth-ambiguity robust criterion and its Monte Carlo approximation (Sec. 2, 4, 5).

Bariletto & Ho, "Bayesian Nonparametrics Meets Data-Driven Distributionally Robust
Optimization", NeurIPS 2024 —
https://papers.nips.cc/paper_files/paper/2024/hash/402542c2341e5d2eadc1dd0891275901-Abstract-Conference.html

    V_n(theta) = E_{p ~ DP(alpha + n, G_n)} phi( E_{xi ~ p} h(theta, xi) )

approximated with M posterior draws of T atoms each (SBMC or MDMC, see :mod:`dp_robust.posterior`):

    V_hat(theta) = (1/M) sum_m phi( R_m(theta) ),   R_m(theta) = sum_j w_mj h(theta, xi_mj).

``phi`` follows the authors' code: ``phi(t) = beta (exp(t / beta) - 1)``, the "ambiguity index"
``beta > 0`` (small = more averse; ``beta -> inf`` gives ``phi(t) -> t``, ambiguity neutrality).
We minimise the certainty equivalent ``phi^{-1}(V_hat)``: for the exponential ``phi`` that is
``beta * log mean_m exp(R_m / beta)`` (stable log-sum-exp, same minimiser; the authors also report
``phi^{-1}`` of the criterion). Draws are fixed during optimisation (common random numbers).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize, special

from ._checks import (
    check_array,
    check_bool,
    check_callable,
    check_float,
    check_int,
    check_option,
    check_rng,
)
from ._validation import check_phi, check_positive
from .posterior import DirichletProcessPosterior

__all__ = ["SmoothAmbiguityRisk", "LOSSES", "PHIS"]


# --------------------------------------------------------------------------- losses
# A linear-model loss is l(y, eta) with eta = x @ theta (+ intercept); atoms are rows (y, x).
# Each entry returns (value, d value / d eta), both shaped like eta.


def _squared(y, eta):
    r = eta - y
    return r * r, 2.0 * r


def _absolute(y, eta):
    r = eta - y
    return np.abs(r), np.sign(r)


def _logistic(y, eta):
    # y in {-1, +1}: log(1 + exp(-y eta)), derivative -y sigmoid(-y eta)
    z = -y * eta
    return np.logaddexp(0.0, z), -y * special.expit(z)


LOSSES: dict[str, Callable] = {"squared": _squared, "absolute": _absolute, "logistic": _logistic}


def _location(atoms, theta):
    """Squared location loss ||xi - theta||^2 on atoms (K, p); gradient (K, p)."""
    r = theta[None, :] - atoms  # (K, p)
    return np.sum(r * r, axis=1), 2.0 * r


# --------------------------------------------------------------------------- phi


def _phi_exp(R, beta):
    """Certainty equivalent of phi(t) = beta (exp(t/beta) - 1) and its weights d CE / d R_m."""
    z = R / beta
    ce = beta * (special.logsumexp(z) - np.log(z.size))
    return ce, special.softmax(z)


def _phi_power(R, q):
    """CE of phi(t) = t^q (q >= 1, nonnegative losses): (mean R^q)^(1/q)."""
    Rq = np.maximum(R, 0.0) ** q
    m = Rq.mean()
    if m <= 0:
        return 0.0, np.full(R.size, 1.0 / R.size)
    ce = m ** (1.0 / q)
    return ce, ce ** (1.0 - q) * np.maximum(R, 0.0) ** (q - 1.0) / R.size


def _phi_identity(R, _):
    return R.mean(), np.full(R.size, 1.0 / R.size)


PHIS = {"exp": _phi_exp, "power": _phi_power, "identity": _phi_identity}


class SmoothAmbiguityRisk:
    """Monte Carlo smooth-ambiguity criterion, a callable ``theta -> (value, gradient)``.

    Args:
        loss: ``"squared"``, ``"absolute"`` or ``"logistic"`` (linear-model losses on atoms
            ``(y, x)``; logistic wants ``y in {-1, +1}``), ``"location"`` (``||xi - theta||^2``),
            or a callable ``loss(theta, atoms (K, D)) -> (K,)``.
        grad: for a callable ``loss``, ``grad(theta, atoms) -> (K, n_params)``; ignored otherwise.
        phi: ``"exp"`` (default, ``beta (exp(t/beta) - 1)``), ``"power"`` (``t^beta``, beta >= 1),
            ``"identity"`` (ambiguity neutral), or a pair ``(phi, phi_prime)`` of vectorised
            callables (then the value is ``mean_m phi(R_m)`` itself).
        beta: ambiguity index (exp) or exponent (power).
        alpha: DP prior concentration.
        base_sampler: ``p0`` as ``sampler(rng, size) -> (size, D)``.
        method: ``"mdmc"`` (default, recommended by the paper) or ``"sbmc"``.
        M, T: number of posterior draws and atoms per draw.
        fit_intercept: add an intercept to ``eta`` (linear-model losses only); it is the last
            parameter.
        rng: seed or ``numpy.random.Generator`` for the draws.

    Call :meth:`draw` with the data (or :meth:`set_draws` with your own weights and atoms) first.

    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(30, 2)); y = X @ np.array([1.0, -1.0])
    >>> from dp_robust.posterior import gaussian_prior
    >>> risk = SmoothAmbiguityRisk("squared", beta=1.0, alpha=1.0, base_sampler=gaussian_prior(2),
    ...                            M=20, T=50, rng=0).draw(np.column_stack([y, X]))
    >>> theta = risk.minimize(np.zeros(2))
    >>> theta.shape
    (2,)
    """

    def __init__(
        self,
        loss="squared",
        *,
        grad=None,
        phi="exp",
        beta: float = 1.0,
        alpha: float = 1.0,
        base_sampler=None,
        method: str = "mdmc",
        M: int = 100,
        T: int = 100,
        fit_intercept: bool = False,
        rng=None,
    ):
        if isinstance(loss, str):
            check_option(loss, "loss", [*LOSSES, "location"])
        elif not callable(loss):
            raise TypeError(
                f"loss must be one of {[*LOSSES, 'location']} or a callable, got {type(loss).__name__}"
            )
        else:
            check_callable(grad, "grad")  # a callable loss needs grad(theta, atoms) -> (K, p)
        phi = check_phi(phi)
        beta = check_positive(beta, "beta")
        if phi == "power" and beta < 1:
            raise ValueError(f"beta must be >= 1 with phi='power' (convex phi), got {beta}")
        alpha = check_positive(alpha, "alpha")
        if base_sampler is not None:
            check_callable(base_sampler, "base_sampler")
        check_option(method, "method", ("mdmc", "sbmc"))
        self.loss, self.grad, self.phi, self.beta = loss, grad, phi, beta
        self.alpha, self.base_sampler, self.method = alpha, base_sampler, method
        self.M, self.T = check_int(M, "M", minimum=1), check_int(T, "T", minimum=1)
        self.fit_intercept = check_bool(fit_intercept, "fit_intercept")
        self.rng = check_rng(rng)
        self.weights = None
        self.atoms = None

    # ------------------------------------------------------------------ draws
    def draw(self, data) -> SmoothAmbiguityRisk:
        """Sample (and keep) M posterior draws given data rows; returns self."""
        if self.base_sampler is None:
            raise ValueError("base_sampler (p0) is required to draw from the DP posterior")
        post = DirichletProcessPosterior(data, self.alpha, self.base_sampler, rng=self.rng)
        w, atoms = post.sample(self.M, self.T, method=self.method)
        return self.set_draws(w, atoms)

    def set_draws(self, weights, atoms) -> SmoothAmbiguityRisk:
        """Use given weights (M, T) and atoms (M, T, D); returns self."""
        weights = check_array(weights, "weights", ndim=2)
        atoms = check_array(atoms, "atoms", ndim=(2, 3))
        if atoms.ndim == 2:
            atoms = atoms[..., None]
        if atoms.shape[:2] != weights.shape:
            raise ValueError(
                f"atoms must have shape (M, T, D) = {(*weights.shape, 'D')} to match weights, "
                f"got shape {atoms.shape}"
            )
        if np.any(weights < 0):
            raise ValueError("weights must be non-negative")
        if isinstance(self.loss, str) and self.loss != "location" and atoms.shape[2] < 2:
            raise ValueError(
                f"atoms must be rows (y, x_1, ..., x_d) with d >= 1 for loss={self.loss!r}, "
                f"got shape {atoms.shape}"
            )
        return self._install(weights, atoms)

    def _install(self, weights, atoms) -> SmoothAmbiguityRisk:
        """Keep checked draws (the SGD loop swaps single draws in without re-checking)."""
        self.weights, self.atoms = weights, atoms
        M, T, D = atoms.shape
        flat = atoms.reshape(M * T, D)
        if isinstance(self.loss, str) and self.loss != "location":
            self._y = np.ascontiguousarray(flat[:, 0])  # (M*T,)
            self._X = np.ascontiguousarray(flat[:, 1:])  # (M*T, d)
        self._flat = flat
        return self

    @property
    def n_params(self) -> int:
        if self.atoms is None:
            raise RuntimeError("call draw() or set_draws() first")
        D = self.atoms.shape[2]
        if self.loss == "location":
            return D
        return D - 1 + int(self.fit_intercept)

    # ------------------------------------------------------------------ evaluation
    def _theta(self, theta) -> np.ndarray:
        p = self.n_params
        theta = check_array(theta, "theta", ndim=(0, 1)).ravel()
        if theta.size != p:
            raise ValueError(f"theta must have {p} entries (n_params), got {theta.size}")
        return theta

    def risks(self, theta) -> tuple[np.ndarray, np.ndarray]:
        """Per-draw risks R_m (M,) and their gradients (M, n_params)."""
        return self._risks(self._theta(theta))

    def _risks(self, theta):
        M, T, _ = self.atoms.shape
        w = self.weights  # (M, T)
        if callable(self.loss):
            h = np.asarray(self.loss(theta, self._flat), dtype=float).reshape(M, T)
            g = np.asarray(self.grad(theta, self._flat), dtype=float).reshape(M, T, -1)
            return np.einsum("mt,mt->m", w, h), np.einsum("mt,mtp->mp", w, g)
        if self.loss == "location":
            h, g = _location(self._flat, theta)
            return np.einsum("mt,mt->m", w, h.reshape(M, T)), np.einsum(
                "mt,mtp->mp", w, g.reshape(M, T, -1)
            )
        R, c = self._linear_parts(theta)
        M, T = c.shape
        d = self._X.shape[1]
        # gradient of each R_m: sum_t c_mt x_mt -> (M, d), as a batched matmul
        G = np.matmul(c[:, None, :], self._X.reshape(M, T, d))[:, 0, :]
        if self.fit_intercept:
            G = np.column_stack([G, c.sum(axis=1)])
        return R, G

    def _linear_parts(self, theta):
        """Per-draw risks R (M,) and per-atom coefficients c = w * dl/deta (M, T)."""
        M, T = self.weights.shape
        d = self._X.shape[1]
        eta = self._X @ theta[:d]  # (M*T,)
        if self.fit_intercept:
            eta = eta + theta[d]
        h, dh = LOSSES[self.loss](self._y, eta)
        R = np.einsum("mt,mt->m", self.weights, h.reshape(M, T))  # (M,)
        return R, self.weights * dh.reshape(M, T)

    def __call__(self, theta) -> tuple[float, np.ndarray]:
        """Certainty-equivalent criterion value and gradient at theta."""
        theta = self._theta(theta)
        if isinstance(self.loss, str) and self.loss != "location":
            # fast path: gradient = X^T (lambda_m c_mt), one matrix-vector product
            R, c = self._linear_parts(theta)
            if isinstance(self.phi, tuple):
                value, lam = float(np.mean(self.phi[0](R))), self.phi[1](R) / R.size
            else:
                value, lam = PHIS[self.phi](R, self.beta)
            a = (lam[:, None] * c).ravel()  # (M*T,)
            g = self._X.T @ a
            if self.fit_intercept:
                g = np.append(g, a.sum())
            return float(value), g
        R, G = self._risks(theta)
        if isinstance(self.phi, tuple):
            f, fp = self.phi
            return float(np.mean(f(R))), (fp(R)[:, None] * G).mean(axis=0)
        ce, lam = PHIS[self.phi](R, self.beta)
        return float(ce), lam @ G

    def value(self, theta) -> float:
        """Criterion value (certainty equivalent ``phi^{-1}(mean_m phi(R_m))``)."""
        return self(theta)[0]

    # ------------------------------------------------------------------ optimisation
    def minimize(
        self,
        theta0=None,
        *,
        solver: str = "lbfgs",
        max_iter: int = 1000,
        tol: float = 1e-10,
        step0: float = 0.05,
        n_steps: int = 10_000,
        rng=None,
    ) -> np.ndarray:
        """Minimise the criterion over theta.

        Args:
            theta0: start (zeros by default).
            solver: ``"lbfgs"`` (scipy L-BFGS-B, to convergence) or ``"sgd"``: the authors'
                scheme, one posterior draw per step (draws visited in a fresh random order each
                pass), ``theta <- theta - eta_t phi'(R_m) grad R_m`` with
                ``eta_t = step0 / (100 + sqrt(t))``, for ``n_steps`` steps.
            max_iter, tol: L-BFGS-B limits.
            step0, n_steps, rng: SGD settings.

        Returns:
            (n_params,) minimiser.
        """
        p = self.n_params
        if theta0 is None:
            theta0 = np.zeros(p)
        else:
            theta0 = check_array(theta0, "theta0", ndim=(0, 1)).ravel().copy()
            if theta0.size != p:
                raise ValueError(f"theta0 must have {p} entries (n_params), got {theta0.size}")
        check_option(solver, "solver", ("lbfgs", "sgd"))
        max_iter = check_int(max_iter, "max_iter", minimum=1)
        tol = check_float(tol, "tol", minimum=0.0)
        step0 = check_positive(step0, "step0")
        n_steps = check_int(n_steps, "n_steps", minimum=1)
        value, grad = self(theta0)
        if not (np.isfinite(value) and np.all(np.isfinite(grad))):
            raise ValueError(
                f"the criterion is not finite at theta0 (value {value}): check loss, grad, phi "
                "and the draws (weights, atoms)"
            )
        if solver == "lbfgs":
            res = optimize.minimize(
                self,
                theta0,
                jac=True,
                method="L-BFGS-B",
                options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-9},
            )
            self.optimize_result_ = res
            return res.x
        return self._sgd(theta0, step0, n_steps, check_rng(rng))

    def _sgd(self, theta, step0, n_steps, rng):
        M = self.weights.shape[0]
        full_w, full_a = self.weights, self.atoms
        t = 0
        try:
            while t < n_steps:
                for m in rng.permutation(M):
                    if t >= n_steps:
                        break
                    t += 1
                    self._install(full_w[m : m + 1], full_a[m : m + 1])
                    R, G = self._risks(theta)
                    if isinstance(self.phi, tuple):
                        slope = self.phi[1](R)[0]
                    elif self.phi == "exp":
                        slope = np.exp(min(R[0] / self.beta, 700.0))
                    elif self.phi == "power":
                        slope = self.beta * max(R[0], 0.0) ** (self.beta - 1.0)
                    else:
                        slope = 1.0
                    theta = theta - step0 / (100.0 + np.sqrt(t)) * slope * G[0]
        finally:
            self._install(full_w, full_a)
        return theta

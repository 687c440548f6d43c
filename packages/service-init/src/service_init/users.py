"""User populations: personal losses over service parameters.

Initializing Services in Interactive ML Systems for Diverse Users (Bose et al., NeurIPS 2024)
- https://arxiv.org/abs/2312.11846. Sec. 2 (setting: N users with weights pi_i, each with a personal
loss l_i(theta); user i picks the service minimising l_i) and Sec. 3 (the loss classes covered by the
guarantee: losses that grow quadratically around the personal optimum, e.g. linear regression).

Every population exposes the same small interface, which is all the seeding algorithms and the
learning dynamics use:

- ``n_users``, ``dim``, ``weights`` ((N,) summing to one),
- ``losses(centers) -> (N, k)``: l_i(theta_j) for every user and service (chunked, vectorised),
- ``loss_to(center) -> (N,)``: one column of the above (what AcQUIre observes after deploying one
  more service),
- ``query(i) -> (d,)``: the personal optimum theta_i^* (the one "data collection" the learner pays for),
- ``optimal_losses -> (N,)``: l_i(theta_i^*) (needed only for the excess-loss variant),
- ``fit(assignment, k, previous)``: the services' best response to a user partition (alternating
  minimisation), ``fit_weighted(resp, previous)`` for soft (multiplicative-weights) assignments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ._checks import check_array, check_callable, check_int, describe
from ._validation import as_float_array, check_weights, nonnegative

__all__ = ["QuadraticUsers", "RegressionUsers", "CallableUsers"]

# Max number of float64 entries materialised at once by the chunked loss computations (~32 MB).
_CHUNK_ENTRIES = 4_000_000


class QuadraticUsers:
    """Users with quadratic personal losses around a personal optimum.

    ``l_i(theta) = offsets[i] + (theta - optima[i])^T A_i (theta - optima[i])`` where ``A_i`` is
    the identity (``metrics=None``: squared Euclidean distance, the k-means case), a diagonal
    (``metrics`` of shape (N, d)) or a full PSD matrix (``metrics`` of shape (N, d, d): Mahalanobis
    users; linear-regression users are exactly of this form, see :class:`RegressionUsers`).

    Args:
        optima: (N, d) personal optima theta_i^*.
        metrics: None, (N, d) non-negative diagonals, or (N, d, d) symmetric PSD matrices A_i.
        offsets: (N,) non-negative irreducible losses l_i(theta_i^*); zeros if None.
        weights: (N,) non-negative user weights pi_i (normalised to sum to one); uniform if None.

    >>> users = QuadraticUsers(np.array([[0.0, 0.0], [3.0, 4.0]]))
    >>> users.losses(np.array([[0.0, 0.0]]))[:, 0]
    array([ 0., 25.])
    """

    _psd_by_construction = False  # RegressionUsers: X^T X / n is PSD, skip the eigen check

    def __init__(self, optima, *, metrics=None, offsets=None, weights=None):
        optima = as_float_array(optima, "optima", ndim=2)
        n, d = optima.shape
        self.optima = optima  # (N, d)
        if metrics is None:
            self.metrics = None
            self._kind = "identity"
        else:
            metrics = as_float_array(metrics, "metrics")
            if metrics.ndim not in (2, 3):
                raise ValueError(
                    f"metrics must have shape (N, d)={n, d} or (N, d, d)={n, d, d}, got {metrics.shape}"
                )
            if metrics.shape == (n, d):
                if np.any(metrics < 0):
                    raise ValueError("metrics (diagonal form) must be non-negative")
                self._kind = "diag"
            elif metrics.shape == (n, d, d):
                if not np.allclose(metrics, np.swapaxes(metrics, 1, 2), rtol=1e-8, atol=1e-10):
                    raise ValueError("metrics must be symmetric matrices A_i = A_i^T")
                metrics = 0.5 * (metrics + np.swapaxes(metrics, 1, 2))
                if not self._psd_by_construction:
                    lam_min = np.linalg.eigvalsh(metrics)[:, 0]
                    scale = np.abs(metrics).reshape(n, -1).max(axis=1)
                    if np.any(lam_min < -1e-9 * np.maximum(scale, 1.0)):
                        raise ValueError("metrics must be positive semi-definite")
                self._kind = "full"
            else:
                raise ValueError(
                    f"metrics must have shape (N, d)={n, d} or (N, d, d)={n, d, d}, "
                    f"got {metrics.shape}"
                )
            self.metrics = metrics
        if offsets is None:
            self.offsets = np.zeros(n)
        else:
            offsets = check_array(offsets, "offsets", ndim=1, shape=(n,))
            if np.any(offsets < 0):
                raise ValueError("offsets must be non-negative (losses are non-negative)")
            self.offsets = offsets
        self.weights = check_weights(weights, n)

    # -- interface ------------------------------------------------------------------------
    @property
    def n_users(self) -> int:
        return self.optima.shape[0]

    @property
    def dim(self) -> int:
        return self.optima.shape[1]

    @property
    def optimal_losses(self) -> np.ndarray:
        """(N,) l_i(theta_i^*) = offsets."""
        return self.offsets

    def query(self, i: int) -> np.ndarray:
        """Collect user ``i``'s data: return their personal optimum theta_i^* as a (d,) copy."""
        return self.optima[check_int(i, "i", minimum=0, maximum=self.n_users - 1)].copy()

    def loss_to(self, center) -> np.ndarray:
        """(N,) losses of every user at one service ``center`` (d,)."""
        center = _check_center(center, self.dim)
        diff = center[None, :] - self.optima  # (N, d)
        if self._kind == "identity":
            q = np.einsum("nd,nd->n", diff, diff)
        elif self._kind == "diag":
            q = np.einsum("nd,nd,nd->n", diff, self.metrics, diff)
        else:
            q = np.einsum("nd,nd->n", np.matmul(self.metrics, diff[:, :, None])[:, :, 0], diff)
        return self.offsets + np.maximum(q, 0.0)

    def losses(self, centers) -> np.ndarray:
        """(N, k) matrix of l_i(theta_j), computed in chunks of services."""
        centers = _check_centers(centers, self.dim)
        n, d = self.optima.shape
        k = centers.shape[0]
        out = np.empty((n, k))
        if self._kind == "full":
            for j in range(k):
                out[:, j] = self.loss_to(centers[j])
            return out
        step = max(1, _CHUNK_ENTRIES // max(1, n * d))
        for s in range(0, k, step):
            diff = centers[None, s : s + step, :] - self.optima[:, None, :]  # (N, kc, d)
            if self._kind == "identity":
                q = np.einsum("nkd,nkd->nk", diff, diff)
            else:
                q = np.einsum("nkd,nd,nkd->nk", diff, self.metrics, diff)
            out[:, s : s + step] = self.offsets[:, None] + np.maximum(q, 0.0)
        return out

    def fit(self, assignment, k: int, previous) -> np.ndarray:
        """Services' best response to a hard partition (the "service update" of the dynamics).

        theta_j = argmin_theta sum_{i: a_i = j} pi_i l_i(theta)
                = (sum pi_i A_i)^+ (sum pi_i A_i theta_i^*); a service with no users keeps
        ``previous[j]``.

        Args:
            assignment: (N,) service index in [0, k) chosen by each user.
            k: number of services (an int >= 1).
            previous: (k, d) current services.

        Returns:
            (k, d) updated services.
        """
        return self.fit_weighted(_one_hot(assignment, k, self.n_users), previous)

    def fit_weighted(self, resp, previous) -> np.ndarray:
        """Best response to soft assignments ``resp`` (N, k): minimise sum_i pi_i r_ij l_i(theta_j)."""
        resp, previous = _check_resp(resp, previous, self.n_users, self.dim)
        w = self.weights[:, None] * resp  # (N, k)
        mass = w.sum(axis=0)  # (k,)
        new = previous.copy()
        if self._kind == "identity":
            num = w.T @ self.optima  # (k, d)
            ok = mass > 0
            new[ok] = num[ok] / mass[ok, None]
            return new
        if self._kind == "diag":
            den = w.T @ self.metrics  # (k, d)
            num = w.T @ (self.metrics * self.optima)  # (k, d)
            ok = den > 1e-300
            new[ok] = num[ok] / den[ok]
            return new
        n, d = self.optima.shape
        b = np.matmul(self.metrics, self.optima[:, :, None])[:, :, 0]  # (N, d)  A_i theta_i^*
        big_m = (w.T @ self.metrics.reshape(n, d * d)).reshape(-1, d, d)  # (k, d, d)
        rhs = w.T @ b  # (k, d)
        for j in np.flatnonzero(mass > 0):
            sol, *_ = np.linalg.lstsq(big_m[j], rhs[j], rcond=None)
            new[j] = sol
        return new


class RegressionUsers(QuadraticUsers):
    """Linear-regression users: user i holds data (X_i, y_i); l_i(theta) = mean (X_i theta - y_i)^2.

    Since ``mean((X theta - y)^2) = r_i + (theta - theta_i^*)^T (X^T X / n_i) (theta - theta_i^*)``
    with theta_i^* the least-squares fit and r_i its residual MSE, these users are stored exactly as
    :class:`QuadraticUsers` with ``metrics = X_i^T X_i / n_i`` and ``offsets = r_i`` (the minimum-
    norm solution is used when X_i is rank deficient; the identity still holds).

    Args:
        X_list: sequence of N arrays (n_i, d), or one (N, n, d) array.
        y_list: sequence of N arrays (n_i,), or one (N, n) array.
        weights: (N,) user weights; uniform if None.

    >>> X = [np.eye(2), np.eye(2)]
    >>> y = [np.array([1.0, 2.0]), np.array([0.0, 0.0])]
    >>> RegressionUsers(X, y).query(0)
    array([1., 2.])
    """

    _psd_by_construction = True

    def __init__(self, X_list, y_list, *, weights=None):
        xs, ys = _check_regression_data(X_list, y_list)
        n = len(xs)
        d = xs[0].shape[1]
        optima = np.empty((n, d))
        metrics = np.empty((n, d, d))
        offsets = np.empty(n)
        sizes = np.array([x.shape[0] for x in xs])
        for m in np.unique(sizes):  # batch users with the same sample size
            idx = np.flatnonzero(sizes == m)
            xb = np.stack([xs[i] for i in idx])  # (B, m, d)
            yb = np.stack([ys[i] for i in idx])  # (B, m)
            theta = np.matmul(np.linalg.pinv(xb), yb[:, :, None])[:, :, 0]  # (B, d) min-norm LS
            r = np.matmul(xb, theta[:, :, None])[:, :, 0] - yb  # (B, m)
            optima[idx] = theta
            metrics[idx] = np.matmul(np.swapaxes(xb, 1, 2), xb) / m
            offsets[idx] = np.maximum(np.einsum("bm,bm->b", r, r) / m, 0.0)
        super().__init__(optima, metrics=metrics, offsets=offsets, weights=weights)
        self.X_list = xs
        self.y_list = ys


class CallableUsers:
    """Users defined by arbitrary callables (for losses that are not quadratic).

    Args:
        loss_fn: ``loss_fn(centers (k, d)) -> (N, k)`` non-negative losses l_i(theta_j).
        argmin_fn: ``argmin_fn(i) -> (d,)`` personal optimum of user i (the query).
        n_users: N; inferred from ``loss_fn`` at user 0's optimum when omitted.
        dim: d; inferred from ``argmin_fn(0)`` when omitted.
        fit_fn: optional ``fit_fn(resp (N, k), previous (k, d)) -> (k, d)`` service best response
            to (soft) assignments, needed only by the learning dynamics.
        optimal_losses: optional (N,) l_i(theta_i^*), needed only for ``excess=True``.
        weights: (N,) user weights; uniform if None.

    >>> x = np.array([0.0, 1.0, 5.0])
    >>> users = CallableUsers(lambda c: np.abs(x[:, None] - c[None, :, 0]),
    ...                       lambda i: np.array([x[i]]), n_users=3, dim=1)
    >>> users.losses(np.array([[1.0]]))[:, 0]
    array([1., 0., 4.])
    """

    def __init__(
        self,
        loss_fn: Callable,
        argmin_fn: Callable,
        *,
        n_users: int | None = None,
        dim: int | None = None,
        fit_fn: Callable | None = None,
        optimal_losses=None,
        weights=None,
    ):
        check_callable(loss_fn, "loss_fn")
        check_callable(argmin_fn, "argmin_fn")
        if fit_fn is not None:
            check_callable(fit_fn, "fit_fn")
        self._loss_fn, self._argmin_fn, self._fit_fn = loss_fn, argmin_fn, fit_fn
        if dim is None:
            dim = _as_numbers(argmin_fn(0), "argmin_fn(0)").reshape(-1).shape[0]
        self._d = check_int(dim, "dim", minimum=1)
        if n_users is None:
            out = _as_numbers(loss_fn(self._query(0)[None, :]), "loss_fn(centers)")
            if out.ndim != 2 or out.shape[1] != 1:
                raise ValueError(
                    f"loss_fn(centers (1, {self._d})) must return shape (N, 1), got {out.shape}"
                )
            n_users = out.shape[0]
        self._n = check_int(n_users, "n_users", minimum=1)
        self.weights = check_weights(weights, self._n)
        if optimal_losses is not None:
            optimal_losses = nonnegative(
                check_array(optimal_losses, "optimal_losses", ndim=1, shape=(self._n,)),
                "optimal_losses",
            )
        self._optimal_losses = optimal_losses

    @property
    def n_users(self) -> int:
        return self._n

    @property
    def dim(self) -> int:
        return self._d

    @property
    def optimal_losses(self) -> np.ndarray:
        if self._optimal_losses is None:
            raise ValueError("excess-loss sampling needs CallableUsers(..., optimal_losses=...)")
        return self._optimal_losses

    def query(self, i: int) -> np.ndarray:
        return self._query(check_int(i, "i", minimum=0, maximum=self._n - 1))

    def _query(self, i: int) -> np.ndarray:
        theta = _as_numbers(self._argmin_fn(i), f"argmin_fn({i})").reshape(-1)
        if theta.shape != (self._d,) or not np.all(np.isfinite(theta)):
            raise ValueError(f"argmin_fn({i}) must return a finite ({self._d},) vector")
        return theta

    def losses(self, centers) -> np.ndarray:
        centers = _check_centers(centers, self._d)
        out = _as_numbers(self._loss_fn(centers), "loss_fn(centers)")
        if out.shape != (self._n, centers.shape[0]):
            raise ValueError(
                f"loss_fn must return shape ({self._n}, {centers.shape[0]}), got {out.shape}"
            )
        if not np.all(np.isfinite(out)) or np.any(out < 0):
            raise ValueError("loss_fn must return finite non-negative losses")
        return out

    def loss_to(self, center) -> np.ndarray:
        return self.losses(_check_center(center, self._d)[None, :])[:, 0]

    def fit(self, assignment, k: int, previous) -> np.ndarray:
        return self.fit_weighted(_one_hot(assignment, k, self._n), previous)

    def fit_weighted(self, resp, previous) -> np.ndarray:
        if self._fit_fn is None:
            raise ValueError("learning dynamics need CallableUsers(..., fit_fn=...)")
        resp, previous = _check_resp(resp, previous, self._n, self._d)
        new = _as_numbers(self._fit_fn(resp, previous), "fit_fn(resp, previous)")
        if new.shape != previous.shape or not np.all(np.isfinite(new)):
            raise ValueError(
                f"fit_fn must return finite services of shape {previous.shape}, got {new.shape}"
            )
        return new


def _as_numbers(value, what: str) -> np.ndarray:
    """A user callable's output as a float array (TypeError naming the callable otherwise)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must return numbers, got {describe(value)}") from None
    return arr


def _check_center(center, d: int) -> np.ndarray:
    return check_array(center, "center", ndim=1, shape=(d,))


def _check_centers(centers, d: int) -> np.ndarray:
    centers = as_float_array(centers, "centers", ndim=None)
    if centers.ndim == 1 and centers.shape[0] == d:
        centers = centers[None, :]
    if centers.ndim != 2 or centers.shape[1] != d:
        raise ValueError(f"centers must have shape (k, {d}) with k >= 1, got {centers.shape}")
    return centers


def _one_hot(assignment, k, n: int) -> np.ndarray:
    """(N, k) one-hot matrix of a hard assignment (N,) with values in [0, k)."""
    k = check_int(k, "k", minimum=1)
    a = check_array(assignment, "assignment", ndim=1, shape=(n,), dtype="int")
    if a.min() < 0 or a.max() >= k:
        raise ValueError(
            f"assignment must hold service indices in [0, {k}), got [{a.min()}, {a.max()}]"
        )
    resp = np.zeros((n, k))
    resp[np.arange(n), a] = 1.0
    return resp


def _check_resp(resp, previous, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Soft assignments (N, k) >= 0 and the current services (k, d)."""
    resp = nonnegative(check_array(resp, "resp", ndim=2, shape=(n, None)), "resp")
    previous = check_array(previous, "previous", ndim=2, shape=(None, d))
    if previous.shape[0] != resp.shape[1]:
        raise ValueError(
            f"resp has {resp.shape[1]} columns but previous has {previous.shape[0]} services; "
            "they must match"
        )
    return resp, previous


def _check_regression_data(X_list, y_list) -> tuple[list[np.ndarray], list[np.ndarray]]:
    if isinstance(X_list, np.ndarray) and X_list.ndim == 3:
        X_list = list(X_list)
    if isinstance(y_list, np.ndarray) and y_list.ndim == 2:
        y_list = list(y_list)
    for value, name in ((X_list, "X_list"), (y_list, "y_list")):
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise TypeError(
                f"{name} must be a sequence of arrays (X_list: (n_i, d) each, or one 3-D array; "
                f"y_list: (n_i,) each, or one 2-D array), got {describe(value)}"
            )
    if len(X_list) == 0 or len(X_list) != len(y_list):
        raise ValueError(
            f"X_list and y_list must be non-empty and of equal length, "
            f"got {len(X_list)} and {len(y_list)}"
        )
    xs = [as_float_array(x, f"X_list[{i}]", ndim=2) for i, x in enumerate(X_list)]
    ys = [as_float_array(y, f"y_list[{i}]", ndim=1) for i, y in enumerate(y_list)]
    d = xs[0].shape[1]
    for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if x.shape[1] != d or x.shape[0] == 0 or d == 0:
            raise ValueError(f"X_list[{i}] must have shape (n_i >= 1, {d}), got {x.shape}")
        if y.shape != (x.shape[0],):
            raise ValueError(f"y_list[{i}] must have shape ({x.shape[0]},), got {y.shape}")
    return xs, ys

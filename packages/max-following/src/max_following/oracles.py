"""Regression oracles: scikit-learn-style ``fit(X, y) -> self`` and ``predict(X)``.

MaxIteration takes a zero-argument factory of such a regressor (``oracle=Ridge`` works, as does
``lambda: make_pipeline(SplineTransformer(), Ridge())``). Observations reach a regressor as
float rows (an int state becomes an (n, 1) float array).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._checks import check_array, check_callable, check_float, check_same_length


class TabularMeanOracle:
    """Per-state average of the targets (exact in the limit for discrete states).

    A state never seen in ``fit`` is predicted as the mean of all targets (``fallback_``).
    """

    def fit(self, X, y):
        X = check_array(X, "X", ndim=2)
        y = check_array(y, "y", ndim=1)
        check_same_length(X=X, y=y)
        keys = [tuple(row) for row in X]
        sums: dict[tuple, float] = {}
        counts: dict[tuple, int] = {}
        for k, v in zip(keys, y):
            sums[k] = sums.get(k, 0.0) + float(v)
            counts[k] = counts.get(k, 0) + 1
        self.means_ = {k: sums[k] / counts[k] for k in sums}
        self.counts_ = counts
        self.fallback_ = float(y.mean())
        return self

    def predict(self, X):
        X = check_array(X, "X", ndim=2, allow_empty=True)
        return np.array([self.means_.get(tuple(row), self.fallback_) for row in X])


class RidgeOracle:
    """Ridge regression on ``features(X)`` (with an unpenalised intercept), in numpy.

    ``features``: a callable mapping (n, d) floats to (n, p) features (default: identity).
    """

    def __init__(self, *, features: Callable | None = None, alpha: float = 1e-3):
        self.features = None if features is None else check_callable(features, "features")
        self.alpha = check_float(alpha, "alpha", minimum=0.0)

    def _phi(self, X):
        return X if self.features is None else np.asarray(self.features(X), dtype=float)

    def fit(self, X, y):
        X = check_array(X, "X", ndim=2)
        y = check_array(y, "y", ndim=1)
        check_same_length(X=X, y=y)
        F = self._phi(X)
        mu, ym = F.mean(axis=0), y.mean()
        Fc = F - mu
        A = Fc.T @ Fc + self.alpha * np.eye(F.shape[1])
        b = Fc.T @ (y - ym)
        try:  # positive definite for alpha > 0: Cholesky, then two triangular solves
            self.coef_ = _cholesky_solve(np.linalg.cholesky(A), b)
        except np.linalg.LinAlgError:  # alpha = 0 with a rank-deficient design
            self.coef_ = np.linalg.lstsq(A, b, rcond=None)[0]
        self.intercept_ = float(ym - mu @ self.coef_)
        return self

    def predict(self, X):
        X = check_array(X, "X", ndim=2, allow_empty=True)
        return self._phi(X) @ self.coef_ + self.intercept_


def _cholesky_solve(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve (L L^T) x = b by substitution. (LAPACK's LU solve can be 1000x slower than this on
    the ill-conditioned normal equations of RBF features, through subnormal intermediates.)"""
    n = L.shape[0]
    z = np.empty(n)
    for i in range(n):
        z[i] = (b[i] - L[i, :i] @ z[:i]) / L[i, i]
    x = np.empty(n)
    for i in range(n - 1, -1, -1):
        x[i] = (z[i] - L[i + 1 :, i] @ x[i + 1 :]) / L[i, i]
    return x


def rbf_features(centers, *, width: float) -> Callable[[np.ndarray], np.ndarray]:
    """Gaussian RBF features exp(-|x - c|^2 / (2 width^2)) for the given (p, d) centers."""
    C = check_array(centers, "centers", ndim=2)
    w = check_float(width, "width", minimum=0.0, min_inclusive=False)

    def phi(X):
        X = np.asarray(X, dtype=float)
        d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
        out = np.exp(-d2 / (2 * w * w))
        out[out < 1e-12] = 0.0  # no subnormal numbers: they make the BLAS solves crawl
        return out

    return phi
